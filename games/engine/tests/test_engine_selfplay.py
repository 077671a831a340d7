"""``python -m games.engine selfplay``: random games played to the end with the engine, timed."""

import io
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine.cli import main

ROOT = Path(__file__).resolve().parents[3]


def run(*args):
    out = io.StringIO()
    status = main(["selfplay", *args], stdout=out)
    return status, dict(item.split("=") for item in out.getvalue().split())


@pytest.mark.parametrize("preset", ["sport", "classic", "match"])
def test_selfplay_plays_every_game_to_the_end_and_reports_rates(preset):
    status, got = run("5", "--seed", "11", "--preset", preset)
    assert status == 0
    assert got["games"] == "5"
    # A game takes dozens of turns at least: 15 checkers of each side walk 24 points.
    assert int(got["turns"]) > 5 * 30
    assert float(got["games_per_s"]) > 0 and int(got["turns_per_s"]) > 0


def test_selfplay_with_a_seed_plays_the_same_games():
    assert run("3", "--seed", "5")[1]["turns"] == run("3", "--seed", "5")[1]["turns"]
    assert run("3", "--seed", "5")[1]["turns"] != run("3", "--seed", "6")[1]["turns"]


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["0"],
        ["x"],
        ["²"],
        ["2", "--seed"],
        ["2", "--seed", "a"],
        ["2", "--preset", "nope"],
        ["2", "--fast", "1"],
    ],
)
def test_selfplay_refuses_bad_arguments_with_usage_and_exit_2(args, capsys):
    assert main(["selfplay", *args], stdout=io.StringIO()) == 2
    assert "selfplay N [--seed S]" in capsys.readouterr().err


def test_selfplay_runs_on_the_standard_library_alone():
    # -S: no site-packages at all, so nothing installed can be imported.
    proc = subprocess.run(
        [sys.executable, "-S", "-m", "games.engine", "selfplay", "2", "--seed", "1"],
        cwd=ROOT,
        text=True,
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("games_per_s=")
