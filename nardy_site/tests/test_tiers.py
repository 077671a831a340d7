"""The suite's tiers (conftest.py ``tier_of``; ``scripts/test --tier NAME``): each test is in
exactly one, by its markers first, then by the fixtures it uses."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import TIERS, tier_of


def item(marks=(), fixtures=()):
    """A stand-in for a collected test with these marker names and fixture names."""
    return SimpleNamespace(
        iter_markers=lambda: [SimpleNamespace(name=name) for name in marks],
        fixturenames=list(fixtures),
    )


@pytest.mark.parametrize(
    "marks, fixtures, tier",
    [
        ((), ("db",), "unit"),
        (("django_db",), (), "unit"),
        (("sockets",), (), "sockets"),
        (("celery",), (), "sockets"),
        ((), ("unattended_queue",), "sockets"),
        ((), ("daphne_server", "browser"), "sockets"),
        (("e2e",), ("daphne_server",), "browser"),
        (("e2e", "sockets"), (), "browser"),
        (("celery", "faults"), (), "faults"),
    ],
)
def test_a_test_falls_in_one_tier_by_its_markers_then_its_fixtures(marks, fixtures, tier):
    assert tier_of(item(marks, fixtures)) == tier
    assert tier in TIERS


def test_scripts_test_knows_every_tier():
    script = (Path(__file__).resolve().parents[2] / "scripts" / "test").read_text()
    assert "unit|sockets|browser|faults" in script
    assert TIERS == ("unit", "sockets", "browser", "faults")
