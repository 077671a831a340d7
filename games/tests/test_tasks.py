"""The bot_move task body, called in this process: it plays once, is safe to repeat and logs
its time. (The worker-process path is in test_bot_worker.)"""

import logging

import pytest

from games import services, tasks
from games.tests.factories import HUMAN, FixedDice, new_bot_game, unchanged

pytestmark = pytest.mark.django_db


class Lines(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


@pytest.fixture
def bot_log():
    handler = Lines()
    logger = logging.getLogger("games.bot")
    logger.addHandler(handler)
    yield handler.lines
    logger.removeHandler(handler)


def test_bot_move_plays_once_and_logs_its_time(monkeypatch, bot_log):
    fixed = FixedDice(monkeypatch)
    game = new_bot_game(fixed, opening=(6, 5))
    services.play(game.id, services.Actor(guest_id=HUMAN), 1, "24/18 18/13")
    fixed.rolls.append([5, 2])

    elapsed = tasks.bot_move(str(game.id), 2)
    assert elapsed > 0
    assert bot_log[-1].startswith(f"bot move game={game.id} version=2 ms=")
    assert bot_log[-1].endswith("played=True")

    with unchanged(game.id):  # the same message again, or a late one, does nothing
        tasks.bot_move(str(game.id), 2)
    assert bot_log[-1].endswith("played=False")


def test_bot_move_never_plays_on_the_humans_turn(monkeypatch, bot_log):
    game = new_bot_game(FixedDice(monkeypatch), opening=(6, 5))  # the human is to play
    with unchanged(game.id):
        tasks.bot_move(str(game.id), 1)
    assert bot_log[-1].endswith("played=False")
