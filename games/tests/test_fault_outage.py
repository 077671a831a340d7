"""The whole site stopped (Daphne, the Celery worker and beat), and then Daphne alone, each for
longer than the time the player to move has left in a match, then started again (issue #16;
docs/protocol.md "Outages"): the outage is credited to the clocks, the player to move still
has their time, their page is told how long the server was away, and the game goes on."""

import asyncio
import random
import time

import pytest

from games import clocks
from games.choices import EventKind
from games.room.models import Game, GameEvent
from games.services import clockwork
from games.services.models import Heartbeat, Outage
from games.tests.fixtures import TEST_SWEEP_SECONDS, BeatProcess, daphne_servers
from games.tests.live import GameSocket, Guest, next_frame, people_game, take_step
from nardy_site.tests.servers import running, start_all

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.celery, pytest.mark.faults]

#: what the player to move has left of the match clock's 60 s turn when the site stops (ms)
LEFT_MS = 1_500
#: the shortest silence that is an outage here (ms; production's 5 s would only make the
#: test wait longer)
OUTAGE_MIN_MS = 2_000
#: how long everything stays stopped (s): longer than LEFT_MS and OUTAGE_MIN_MS
DOWN_S = 4


def wait_until(check, timeout=20, what="the condition"):
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.fixture
def outage_stack(clock_queue, test_process_env, tmp_path_factory):
    """The clock worker (and beat) of ``clock_queue`` and a Daphne, all with outage crediting
    (the suite turns it off elsewhere: conftest.py), outages from ``OUTAGE_MIN_MS``. Yields
    ``(clock_queue, server, env)``."""
    env = dict(
        test_process_env, CELERY_QUEUE=clock_queue.queue, GAMES_OUTAGE_MIN_MS=str(OUTAGE_MIN_MS)
    )
    usual = clock_queue.env
    clock_queue.stop()
    clock_queue.env = env
    clock_queue.start()
    (server,) = daphne_servers(env, tmp_path_factory.mktemp("outage"), count=1)
    try:
        yield clock_queue, server, env
    finally:
        # the worker may run on: with no web process noting a heartbeat it credits nothing
        # and caps nothing (outages.latest); the next one started has the suite's settings
        clock_queue.env = usual


def heartbeat_fresh():
    wait_until(
        lambda: clocks.now_ms() - clocks.to_ms(Heartbeat.objects.get(pk=1).beat_at) < 1_500,
        what="the web process's heartbeat",
    )


def short_of_time(game_id):
    """The player to move has spent all but LEFT_MS of the match clock's 60 s turn (arranged
    in the database, as a fixture would, once Daphne is down: the deadline falls inside the
    outage whatever stopping took). Returns ``(version, deadline ms)``."""
    game = Game.objects.get(pk=game_id)
    started = clocks.now_ms() - 60_000 + LEFT_MS
    game.period_started = game.turn_started = clocks.from_ms(started)
    clockwork.refresh_deadline(game)
    game.save()
    deadline = clocks.to_ms(game.deadline)
    assert deadline - clocks.now_ms() <= LEFT_MS
    return game.version, deadline


def down_past(game_id, deadline):
    """Stay down DOWN_S: the deadline passes well inside the outage, and nothing ends the game."""
    time.sleep(DOWN_S)
    assert clocks.now_ms() > deadline + 2_000
    assert Game.objects.get(pk=game_id).status == "active"


def test_a_stopped_site_does_not_decide_the_match_it_was_running(outage_stack):
    clock_queue, server, env = outage_stack
    directory = server.log_path.parent
    white, black = Guest("white"), Guest("black")
    rng = random.Random(5)
    figures = []

    async def play_on(guest, version):
        """The player to move comes back after an outage: the pause, then their move."""
        socket = await GameSocket.open(server, game_id, guest)
        await socket.wait_for(lambda: socket.latest["version"] > version, what="the pause")
        seen = socket.latest
        mine = await socket.act(next_frame(seen, rng))
        await socket.close()
        return seen, mine

    def check(seen, mine, mover, down_ms):
        now = seen["clock"]["server_time"]
        assert seen["status"] == "active" and seen["awaiting"] == mover
        assert seen["clock"]["paused_ms"] >= DOWN_S * 1000
        assert seen["clock"]["paused_ms"] < down_ms + 15_000
        # the time left when the site stopped, and no less than the reconnect grace after it
        assert seen["clock"]["deadline"] - now >= LEFT_MS - 1_500
        assert mine["version"] > seen["version"] and mine["status"] == "active"
        figures.append((seen["clock"]["paused_ms"], seen["clock"]["deadline"] - now))

    with running(server):
        game_id = people_game(server.base, white, black, preset="match", colour="white")

        async def first_moves():
            w = await GameSocket.open(server, game_id, white)
            k = await GameSocket.open(server, game_id, black)
            players, log = {"white": w, "black": k}, []
            while w.latest["position"].get("first_turn") or w.latest["phase"] != "play":
                await take_step(players, [], rng, log)
            for socket in players.values():
                await socket.close()
            return w.latest

        mover = asyncio.run(first_moves())["awaiting"]
        heartbeat_fresh()

        # 1. the whole site stops: Daphne, the worker and beat
        server.stop()
        version, deadline = short_of_time(game_id)
        clock_queue.beat.stop()
        clock_queue.stop()
        stopped = clocks.now_ms()
        try:
            down_past(game_id, deadline)
        finally:
            beat = BeatProcess(env, clock_queue.queue, directory / "beat-2.log", TEST_SWEEP_SECONDS)
            start_all([clock_queue.start_process(), beat, server])
            clock_queue.beat = beat
        seen, mine = asyncio.run(play_on(white if mover == "white" else black, version))
        check(seen, mine, mover, clocks.now_ms() - stopped)

        # 2. Daphne alone dies (the worker and beat go on, and must leave the clock alone)
        mover = mine["awaiting"]
        heartbeat_fresh()
        server.kill()
        version, deadline = short_of_time(game_id)
        stopped = clocks.now_ms()
        try:
            down_past(game_id, deadline)
        finally:
            server.start()
        seen, mine = asyncio.run(play_on(white if mover == "white" else black, version))
        check(seen, mine, mover, clocks.now_ms() - stopped)

    assert GameEvent.objects.filter(game_id=game_id, kind=EventKind.PAUSE).count() == 2
    assert [outage.games for outage in Outage.objects.order_by("pk")] == [1, 1]
    print(
        "\noutages credited (ms) and time left after them (ms): whole site "
        f"{figures[0]}, Daphne alone {figures[1]}"
    )
