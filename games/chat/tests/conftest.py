"""What the chat's tests share: dice fixed by the test (``FixedDice``)."""

import pytest

from games.tests.factories import FixedDice


@pytest.fixture
def fixed(monkeypatch):
    return FixedDice(monkeypatch)
