"""The socket watch (games/live/socket_watch.py): a socket left behind its game is caught up with a
snapshot, unless its process hears group messages late enough that the change may still be
on its way (a backlog answered with snapshots would only deepen)."""

import datetime

import pytest
from asgiref.sync import async_to_sync

from games.live.socket_watch import BEHIND_MS, SocketWatch
from games.room.models import Game
from games.tests.factories import FixedDice, new_bot_game

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]


class Socket:
    """What the watch needs of a game socket; counts the catch-ups it is sent."""

    def __init__(self, sent_version):
        self.sent_version = sent_version
        self.shown = {}
        self.side = None
        self.channel_name = "specific.test!watch"
        self.caught_up = 0

    async def catch_up(self):
        self.caught_up += 1


def behind_game(monkeypatch, seconds):
    """A game whose last change committed ``seconds`` ago, and a socket a version behind it."""
    game = new_bot_game(FixedDice(monkeypatch), opening=(6, 5))
    Game.objects.filter(pk=game.pk).update(
        version=game.version + 1,
        updated=datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=seconds),
    )
    return game, Socket(game.version)


def check(watch, game, socket):
    watch.games[game.pk] = {socket}
    return async_to_sync(watch.check)()


def test_a_socket_behind_its_game_past_the_wait_is_caught_up(monkeypatch):
    game, socket = behind_game(monkeypatch, 2)
    assert check(SocketWatch(), game, socket) == 1
    assert socket.caught_up == 1


def test_a_socket_that_may_still_hear_the_change_is_left_alone(monkeypatch):
    game, socket = behind_game(monkeypatch, 0)
    assert check(SocketWatch(), game, socket) == 0
    assert socket.caught_up == 0


def test_a_process_hearing_its_messages_late_waits_longer_before_catching_up(monkeypatch):
    game, socket = behind_game(monkeypatch, 5)
    watch = SocketWatch()
    watch.heard(3_000)  # group messages arrive 3 s late: the change may still be queued
    assert watch.behind_ms() == BEHIND_MS + 6_000
    assert check(watch, game, socket) == 0
    # two quiet rounds later the backlog is gone, and a socket still behind is caught up
    watch.end_round()
    watch.end_round()
    assert check(watch, game, socket) == 1
