"""The load tool (issue #8, ``games.loadtool``) in miniature, through its own code path against
a real Daphne in a subprocess on the test database and the tests' Redis: scripted guests get
games through challenge links and play them to the end with legal moves, and the echo
baseline answers. The full measurement is ``scripts/load`` (docs/performance.md, "Load")."""

import asyncio
import json
import random
import time
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from games import clocks, tournaments
from games.live.echo import EchoConsumer
from games.loadtool.arena import run_arena
from games.loadtool.client import ARENA_MIN_PLAYS, Player, Stats, Table, echo_frame
from games.loadtool.pool import run_pool
from games.loadtool.runner import RunConfig, percentiles, run_load
from games.room.models import Game
from games.routing import websocket_patterns, websocket_urlpatterns
from games.tournaments import rules
from nardy_site.tests.servers import DaphneServer, free_port


@pytest.fixture(scope="module")
def daphne_with_echo(test_process_env, celery_test_queue, tmp_path_factory):
    """Daphne with the echo socket on (``LOAD_ECHO=1``), shared by this module's tests; its
    tasks go to the run's private Celery queue (no worker needed: the scripted players move
    long before any deadline, and no game has the computer)."""
    env = dict(test_process_env, CELERY_QUEUE=celery_test_queue, LOAD_ECHO="1")
    with DaphneServer(free_port(), env, tmp_path_factory.mktemp("load") / "daphne.log") as server:
        yield server


@pytest.fixture
def load_server(transactional_db, daphne_with_echo):
    """``daphne_with_echo`` for one test, on a test database it can see (committed rows)."""
    return daphne_with_echo


# Two games at once: one Daphne does about 50 ms of work per move in a single thread and a
# game is about 190 rolls and plays, so two take 15-40 s (SQLite, PostgreSQL) on this machine.
GAMES = 2


def test_scripted_games_are_played_to_the_end_with_no_errors(load_server):
    config = RunConfig(
        bases=[load_server.base],
        games=GAMES,
        think=0,
        to_end=True,
        server_pids={"daphne": [load_server.process.pid]},
        sample_services=False,
    )
    result = run_load(config, log=lambda line: None)

    assert result["errors"] == 0, result["error_samples"]
    assert result["games_started"] == GAMES
    assert result["games_over"] == {"bore_off": GAMES}
    plays, rolls = result["round_trip_ms"]["play"], result["round_trip_ms"]["roll"]
    # a game needs at least 2 x 22 turns (360 pips a side, at most 24 a roll)
    assert plays["n"] >= GAMES * 44 and rolls["n"] >= GAMES * 44
    assert 0 < plays["p50"] <= plays["p95"] <= plays["p99"] <= plays["max"]
    assert result["cpu_percent"]["daphne"]["max"] > 0
    assert result["cpu_percent"]["client"]["max"] > 0
    # the server agrees: finished games between two guests each, borne off
    games = list(Game.objects.all())
    assert len(games) == GAMES
    for game in games:
        assert game.status == "finished" and game.end_reason == "bore_off"
        assert game.white_guest and game.black_guest and game.white_guest != game.black_guest
        assert game.get_position().off(game.winner) == 15


def test_a_timed_run_resigns_its_games_at_the_end_and_counts_only_its_window(load_server):
    config = RunConfig(
        bases=[load_server.base],
        games=2,
        think=0.05,
        duration=2,
        warmup=0.5,
        server_pids={"daphne": [load_server.process.pid]},
        sample_services=False,
    )
    result = run_load(config, log=lambda line: None)

    assert result["errors"] == 0, result["error_samples"]
    assert sum(result["games_over"].values()) == result["games_started"] >= 2
    assert result["round_trip_ms"]["play"]["n"] > 0
    assert 1.5 <= result["window_s"] <= 3.5
    assert not Game.objects.filter(status="active").exists()


def test_echo_baseline_from_two_client_processes(load_server):
    config = RunConfig(
        bases=[load_server.base],
        games=4,
        think=0.01,
        duration=2,
        warmup=0.2,
        echo=True,
        procs=2,
        server_pids={"daphne": [load_server.process.pid]},
        sample_services=False,
    )
    result = run_load(config, log=lambda line: None)

    assert result["errors"] == 0, result["error_samples"]
    assert result["mode"] == "echo" and result["sockets"] == 8
    assert result["round_trip_ms"]["echo"]["n"] > 20
    assert result["actions_per_s"] > 10


@pytest.mark.django_db
def test_echo_socket_exists_only_when_load_echo_is_on():
    echo_routes = [p for p in websocket_urlpatterns if p.callback.consumer_class is EchoConsumer]
    assert echo_routes == []  # the tests run with LOAD_ECHO unset, like production
    assert not any(p.callback.consumer_class is EchoConsumer for p in websocket_patterns())
    with_echo = websocket_patterns(echo=True)
    assert with_echo[-2].callback.consumer_class is EchoConsumer  # before the catch-all

    async def scenario():
        from nardy_site.asgi import application

        closed = WebsocketCommunicator(
            application, "/ws/echo/", headers=[(b"origin", b"http://127.0.0.1")]
        )
        assert (await closed.connect())[0]
        assert (await closed.receive_output())["code"] == 4404
        await closed.disconnect()

        echo = WebsocketCommunicator(URLRouter(with_echo), "/ws/echo/")
        assert (await echo.connect())[0]
        frame = echo_frame(12)
        await echo.send_to(text_data=frame)
        assert await echo.receive_from() == frame
        await echo.send_to(bytes_data=b"\x00\x01")
        assert (await echo.receive_output())["bytes"] == b"\x00\x01"
        await echo.send_to(text_data="x" * 5000)
        assert (await echo.receive_output())["code"] == 1009
        await echo.disconnect()

    async_to_sync(scenario)()


def test_a_game_ended_by_the_clock_counts_as_an_error_but_our_resignation_does_not():
    def ended(reason, stopping):
        stats = Stats()
        table = Table("g", stats, random.Random(1), think=0, stall=60)
        table.stopping = stopping

        class Seat:
            side = "white"

        table.seen(
            Seat, {"version": 9, "status": "finished", "result": {"reason": reason}}, now=0.0
        )
        return stats

    async def run_all():
        return [
            ended("timeout", False),
            ended("resign", True),
            ended("resign", False),
            ended("bore_off", False),
        ]

    timeout, ours, theirs, borne_off = asyncio.run(run_all())
    assert len(timeout.errors) == 1 and "timeout" in timeout.errors[0][1]
    assert ours.errors == [] and borne_off.errors == []
    assert len(theirs.errors) == 1  # nobody resigns during a run but the tool at its end
    assert timeout.games_over == {"timeout": 1}


def test_a_player_asked_to_resign_plays_on_until_it_has_made_its_plays():
    """The server aborts a game resigned before the resigner's first play, and an arena scores
    a win only against a loser who made ``MIN_LOSER_PLAYS``: the tool's players play on."""
    assert ARENA_MIN_PLAYS == rules.MIN_LOSER_PLAYS

    def game(plays_made):
        history = [{"kind": "play", "side": "white", "play": "24/18"}] * plays_made
        history += [{"kind": "play", "side": "white", "play": ""}]  # a pass is no play
        return {
            "version": 9,
            "awaiting": "white",
            "actions": ["roll", "resign"],
            "history": history,
        }

    table = Table("g", Stats(), random.Random(1), think=0, stall=60, min_plays=ARENA_MIN_PLAYS)
    player = Player(table, "http://127.0.0.1:1", "")
    player.side, player.resign_wanted = "white", True
    assert player._decide(game(ARENA_MIN_PLAYS - 1)) == {"type": "roll", "version": 9}
    assert player._decide(game(ARENA_MIN_PLAYS)) == {"type": "resign", "version": 9}


def test_a_frame_refused_as_too_quick_is_sent_again_after_the_wait_not_counted_as_an_error():
    async def scenario():
        stats = Stats()
        table = Table("g", stats, random.Random(1), think=0, stall=60)
        player = Player(table, "http://127.0.0.1:1", "")
        player.acted = 7
        before = time.monotonic()
        player._receive(
            json.dumps(
                {
                    "type": "error",
                    "code": "rate_limited",
                    "message": "Too many messages",
                    "retry_after": 0.4,
                }
            )
        )
        return stats, player, before

    stats, player, before = asyncio.run(scenario())
    assert stats.errors == [] and stats.rate_limited == 1
    assert player.acted == -1  # the refused frame is decided and sent again
    assert before + 0.4 <= player.retry_at <= time.monotonic() + 0.4


def test_an_arena_run_signs_players_in_and_pairs_them_again_after_each_game(
    load_server, celery_worker_process
):
    start = clocks.from_ms(clocks.now_ms()) - timedelta(seconds=1)
    event = tournaments.create("arena", "sport", starts_at=start, minutes=5)
    report = run_arena(
        [load_server.base], str(event.pk), players=4, duration=14, game_seconds=3, think=0.2
    )
    assert report["errors"] == 0, report["first_errors"]
    assert report["games_started"] >= 4 and report["most_games_at_once"] == 2
    assert report["pairing_gap_ms"]["n"] >= 2  # players came back for more games
    assert report["round_trip_ms"]["play"]["n"] > 0


def test_a_pool_run_pairs_arriving_guests_and_times_each_pairing(load_server):
    report = run_pool([load_server.base], guests=6, arrival_rate=20, timeout=10)
    assert report["errors"] == 0, report["first_errors"]
    assert report["games"] == 3 and report["unpaired"] == 0
    assert report["pairing_ms"]["n"] == 3 and report["pairing_ms"]["max"] < 10_000
    games = Game.objects.filter(rated=False, bot_side="")
    assert games.count() == 3 and all(g.white_guest and g.black_guest for g in games)


def test_percentiles_are_nearest_rank():
    figures = percentiles([float(n) for n in range(100, 0, -1)])
    assert figures == {"n": 100, "p50": 50.0, "p95": 95.0, "p99": 99.0, "max": 100.0, "mean": 50.5}
    assert percentiles([])["p95"] is None
