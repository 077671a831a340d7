"""The bot's moves run in a real Celery worker process, queued on commit through the real Redis
broker, and their snapshots reach a connected socket. Also times each bot move (measured in
the task) over a whole game."""

import os
import random

import pytest
from asgiref.sync import async_to_sync

from games.room.models import Game
from games.room.tests.test_consumers import communicator, connect, until_game
from games.tests.factories import FixedDice, new_bot_game
from games.tests.fixtures import WorkerProcess, queued_tasks

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.celery]

#: a bot move should reach the socket well within this (seconds)
BOT_TIMEOUT = 20


async def until(comm, predicate, timeout=BOT_TIMEOUT):
    """The game as the socket's page holds it, once it satisfies ``predicate``."""
    return await until_game(comm, predicate, timeout)


def test_bot_move_from_the_worker_reaches_the_socket(celery_worker_process, monkeypatch):
    fixed = FixedDice(monkeypatch)
    game = new_bot_game(fixed, opening=(6, 5))  # the human (white) plays first

    async def scenario():
        comm = await communicator(game.id)
        await connect(comm)
        await comm.send_json_to({"type": "play", "version": 1, "play": "24/18 18/13"})
        # The worker rolls and plays for black; its event arrives on this socket.
        bots = await until(comm, lambda s: s["turn"] == "white")
        assert bots["version"] == 4 and bots["phase"] == "roll"
        assert bots["last"]["side"] == "black" and bots["last"]["version"] == 4
        assert bots["pips"]["black"] < 360 and bots["position"]["black"]["24"] in (13, 14)
        await comm.disconnect()

    async_to_sync(scenario)()
    events = list(Game.objects.get(pk=game.id).events.values_list("kind", "side"))
    assert events == [("opening", "white"), ("play", "white"), ("roll", "black"), ("play", "black")]
    assert len(celery_worker_process.wait_for_bot_moves(game.id, 1)) == 1


#: whole games each level plays in the test below, and the levels; more games (and expert,
#: whose game takes some 25 s) for a measurement of the move times inside the task (docs/bots.md:
#: BOT_TIMING_GAMES=10 BOT_TIMING_LEVELS=hard,expert python -m pytest -s ... -k whole)
TIMING_GAMES = int(os.environ.get("BOT_TIMING_GAMES", "1"))
TIMING_LEVELS = os.environ.get("BOT_TIMING_LEVELS", "medium,hard").split(",")


@pytest.mark.parametrize("level", TIMING_LEVELS)
def test_a_whole_game_against_the_worker_bot(
    celery_worker_process, celery_test_queue, level, settings
):
    """The human plays random legal plays over the socket; every bot move comes from the
    worker. Ends with a result; the record replays to the final position. Prints the bot's
    move times (median, 95th percentile and worst, ms) measured inside the task."""
    # This scripted player answers each snapshot at once, faster than the 20 frames a second
    # a person can click (the frame limits are tested in test_rate_limits.py).
    settings.GAMES_RATELIMIT_ENABLED = False
    rng = random.Random(11)
    times = []
    for _game in range(TIMING_GAMES):
        times += whole_game(celery_worker_process, level, rng)
    assert queued_tasks(celery_test_queue) == 0
    summary = WorkerProcess.summary(times)
    print(f"\n{level} bot move time inside the task: {summary}")


async def newer(comm, snap):
    """The game once a version newer than ``snap``'s has arrived (presence touches, which a
    long game gets, are passed over)."""
    return await until(comm, lambda s: s["version"] > snap["version"])


def whole_game(worker, level, rng):
    """One game of random human plays against the worker's ``level``; checks its end and
    returns the bot's move times (ms) as the task logged them."""
    game = new_bot_game(human_side="random", level=level)

    async def scenario():
        comm = await communicator(game.id)
        snap = await connect(comm)
        me = snap["you"]
        for _turn in range(500):
            if snap["status"] == "finished":
                await comm.disconnect()
                return snap
            if snap["turn"] != me:
                snap = await until(comm, lambda s: s["turn"] == me or s["status"] == "finished")
                continue
            if snap["phase"] == "roll":
                await comm.send_json_to({"type": "roll", "version": snap["version"]})
                snap = await newer(comm, snap)
                continue
            choice = rng.choice(snap["legal"]["plays"])["play"]
            await comm.send_json_to({"type": "play", "version": snap["version"], "play": choice})
            snap = await newer(comm, snap)
        raise AssertionError("the game did not end")

    final = async_to_sync(scenario)()
    stored = Game.objects.get(pk=game.id)
    assert final["status"] == "finished" and final["result"]["reason"] == "bore_off"
    assert final["result"]["winner"] == stored.winner and final["version"] == stored.version
    assert stored.replay() == stored.get_position()
    assert stored.get_position().off(stored.winner) == 15

    bot_plays = stored.events.filter(kind="play", side=stored.bot_side).count()
    times = worker.wait_for_bot_moves(game.id, bot_plays)
    assert len(times) == bot_plays
    return times


def test_a_bot_move_lost_before_a_restart_is_played_once_when_a_worker_starts(
    unattended_queue, test_process_env, tmp_path, monkeypatch
):
    from games.tests.fixtures import start_worker, stop_worker

    fixed = FixedDice(monkeypatch)
    game = new_bot_game(fixed, opening=(2, 6))  # black (the bot) opens with 6-2
    assert Game.objects.get(pk=game.pk).is_bot_turn
    # The queued move is lost, as with a restarted embedded Redis.
    from games.tests.fixtures import _delete_queue

    _delete_queue(unattended_queue)
    worker = start_worker(test_process_env, f"{unattended_queue}-fresh", tmp_path / "w.log")
    try:
        times = worker.wait_for_bot_moves(game.pk, 1, timeout=BOT_TIMEOUT)
    finally:
        stop_worker(worker)
    assert len(times) == 1, worker.log()
    game.refresh_from_db()
    assert not game.is_bot_turn and game.version == 2  # the opening, then the bot's play once
    assert "queued 1 due bot moves" in worker.log()
