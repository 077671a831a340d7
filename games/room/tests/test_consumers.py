"""The live-game socket (docs/protocol.md) through the real ASGI stack: origin check, session
middleware, consumer, Redis channel layer. Malformed frames and bad requests change nothing."""

import json
import time
import uuid

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore

from games import services
from games.loadtool.gameview import GameView
from games.room import consumer
from games.room.models import Game, Presence
from games.tests.factories import HUMAN, ONLOOKER, FixedDice, new_bot_game, state
from games.tests.fixtures import queued_tasks

# Bot moves queued here wait in a queue no worker reads: these tests check the socket alone.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]

TIMEOUT = 5


@pytest.fixture
def fixed(monkeypatch):
    return FixedDice(monkeypatch)


def origin():
    """An Origin header value that the AllowedHostsOriginValidator accepts."""
    for host in settings.ALLOWED_HOSTS:
        if host not in ("*", "testserver"):
            return f"http://{host.lstrip('.')}"
    return "http://localhost"


def session_cookie(guest_id):
    """A saved Django session holding ``guest_id``, as a Cookie header value."""
    session = SessionStore()
    if guest_id:
        session["guest_id"] = guest_id
    session.create()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"


async def communicator(game_id, guest_id=HUMAN, path=None):
    """A WebsocketCommunicator on the site's ASGI application, as the guest ``guest_id``."""
    from nardy_site.asgi import application

    cookie = await sync_to_async(session_cookie)(guest_id)
    headers = [(b"origin", origin().encode()), (b"cookie", cookie.encode())]
    return WebsocketCommunicator(application, path or f"/ws/game/{game_id}/", headers=headers)


async def receive(comm):
    return json.loads(await comm.receive_from(timeout=TIMEOUT))


#: each open communicator's view of its game (docs/protocol.md "Events"), from ``connect``
VIEWS = {}


async def connect(comm):
    """Connect ``comm``; returns the ``game`` of its first frame, a snapshot."""
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    first = await receive(comm)
    assert first["type"] == "snapshot"
    VIEWS[comm] = GameView()
    VIEWS[comm].take(first)
    return first["game"]


async def connect_all(game_id, *guest_ids):
    """A connected communicator for each of ``guest_ids`` on game ``game_id``, in order (each
    has had its first snapshot)."""
    comms = [await communicator(game_id, guest_id) for guest_id in guest_ids]
    for comm in comms:
        await connect(comm)
    return comms


async def receive_game(comm, timeout=TIMEOUT):
    """The game as ``comm``'s page holds it after its next frame, which must be a snapshot or
    an event that applies to the game held (an event's ``legal`` has no result boards)."""
    frame = json.loads(await comm.receive_from(timeout=timeout))
    assert frame["type"] in ("snapshot", "event"), frame
    assert VIEWS[comm].take(frame) is True, frame
    return VIEWS[comm].game


async def until_game(comm, predicate, timeout=TIMEOUT):
    """Frames from ``comm`` until the game its page holds satisfies ``predicate`` (other
    frames, such as errors and touches, are passed over); returns that game."""
    deadline = time.monotonic() + timeout
    while True:
        frame = json.loads(await comm.receive_from(timeout=max(0.1, deadline - time.monotonic())))
        if VIEWS[comm].take(frame) is True and predicate(VIEWS[comm].game):
            return VIEWS[comm].game


def run(coroutine_function):
    """Run an async scenario from a sync test (the DB work it does runs in this thread)."""
    return async_to_sync(coroutine_function)()


def test_connect_sends_the_players_snapshot(fixed):
    game = new_bot_game(fixed, opening=(6, 5))

    async def scenario():
        comm = await communicator(game.id)
        snap = await connect(comm)
        assert snap["id"] == str(game.id) and snap["version"] == 1 and snap["you"] == "white"
        assert snap["phase"] == "play" and snap["dice"] == [6, 5]
        assert snap["legal"]["plays"]
        await comm.disconnect()

    run(scenario)


def test_unknown_game_is_closed_with_4404():
    async def scenario():
        comm = await communicator(uuid.uuid4())
        connected, _ = await comm.connect(timeout=TIMEOUT)
        assert connected
        assert await comm.receive_output(timeout=TIMEOUT) == {
            "type": "websocket.close",
            "code": 4404,
        }
        await comm.disconnect()  # ends the consumer, which still listens to the layer

    run(scenario)


def test_foreign_origin_is_refused(fixed):
    game = new_bot_game(fixed, opening=(6, 5))

    async def scenario():
        from nardy_site.asgi import application

        comm = WebsocketCommunicator(
            application, f"/ws/game/{game.id}/", headers=[(b"origin", b"http://evil.example")]
        )
        connected, _ = await comm.connect(timeout=TIMEOUT)
        assert not connected

    run(scenario)


def test_playing_over_the_socket_reaches_every_open_socket(fixed, unattended_queue):
    game = new_bot_game(fixed, opening=(6, 5))
    tasks_before = queued_tasks(unattended_queue)

    async def scenario():
        player, watcher = await communicator(game.id), await communicator(game.id, ONLOOKER)
        await connect(player)
        watched = await connect(watcher)
        assert watched["you"] is None and watched["legal"] is None
        await player.send_json_to({"type": "play", "version": 1, "play": "24/18 18/13"})
        for comm in (player, watcher):
            snap = await receive_game(comm)
            assert snap["version"] == 2 and snap["turn"] == "black"
            assert snap["last"] == {
                "side": "white",
                "dice": [6, 5],
                "play": "24/18 18/13",
                "version": 2,
            }
        await player.disconnect()
        await watcher.disconnect()

    run(scenario)
    # The bot's move was queued once, after the commit.
    assert queued_tasks(unattended_queue) == tasks_before + 1


def comparable(game):
    """A game dict without what differs between two readings of one version: the clock's
    server time, and the result boards and why-nots an event's legal plays leave out."""
    game = dict(game)
    if game.get("clock"):
        game["clock"] = {**game["clock"], "server_time": None}
    if game.get("legal"):
        game["legal"] = {
            "plays": [{"play": p["play"]} for p in game["legal"]["plays"]],
            "graph": game["legal"]["graph"],
            "pass": game["legal"]["pass"],
        }
    return game


def test_an_events_socket_hears_each_change_as_an_event_that_rebuilds_the_snapshot(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    fixed.rolls.append([3, 1])

    async def scenario():
        path = f"/ws/game/{game.id}/"
        player = await communicator(game.id, path=path)
        watcher = await communicator(game.id, ONLOOKER, path=path)
        views = {}
        for name, comm in (("player", player), ("watcher", watcher)):
            views[name] = GameView()
            views[name].take({"type": "snapshot", "game": await connect(comm)})
        await player.send_json_to({"type": "play", "version": 1, "play": "24/18 18/13"})
        frames = {"player": [await receive(player)], "watcher": [await receive(watcher)]}
        # the bot rolls and plays in one change: one event frame with both events
        await sync_to_async(services.bot_turn)(game.id, 2)
        frames["player"].append(await receive(player))
        frames["watcher"].append(await receive(watcher))
        fresh = await sync_to_async(
            lambda: {
                viewer: services.snapshot(Game.objects.get(pk=game.id), viewer)["game"]
                for viewer in (HUMAN, ONLOOKER)
            }
        )()
        await player.disconnect()
        await watcher.disconnect()
        return views, frames, fresh

    views, frames, fresh = run(scenario)
    for name, viewer in (("player", HUMAN), ("watcher", ONLOOKER)):
        first, second = frames[name]
        assert first["type"] == second["type"] == "event"
        assert (first["from"], first["version"]) == (1, 2)
        assert [e["kind"] for e in first["events"]] == ["play"]
        assert first["history"] == [
            {
                "n": 1,
                "side": "white",
                "kind": "play",
                "dice": [6, 5],
                "play": "24/18 18/13",
                "version": 2,
            }
        ]
        assert (second["from"], second["version"]) == (2, 4)
        assert [e["kind"] for e in second["events"]] == ["roll", "play"]
        assert [h["n"] for h in second["history"]] == [2]
        assert "history" not in second["changes"] and "players" not in second["changes"]
        for frame in frames[name]:
            assert views[name].take(frame) is True
        assert comparable(views[name].game) == comparable(fresh[viewer])
    assert frames["player"][1]["actions"] == ["roll", "resign"]
    assert frames["watcher"][1]["actions"] == [] and frames["watcher"][1]["legal"] is None


def test_roll_then_snapshot_request(fixed):
    game = new_bot_game(fixed, opening=(6, 5), preset="match")
    fixed.rolls.append([2, 2])

    async def scenario():
        comm = await communicator(game.id)
        snap = await connect(comm)
        assert snap["phase"] == "roll" and snap["legal"] is None
        await comm.send_json_to({"type": "roll", "version": 1})
        snap = await receive_game(comm)
        assert snap["phase"] == "play" and snap["dice"] == [2, 2] and snap["version"] == 2
        assert snap["legal"]["graph"]["nodes"]
        await comm.send_json_to({"type": "snapshot"})
        again = await receive(comm)
        assert again["type"] == "snapshot"
        assert comparable(again["game"]) == comparable(snap)
        await comm.disconnect()

    run(scenario)


BAD_FRAMES = [
    "not json",
    "[1, 2]",
    "42",
    json.dumps({"version": 1}),
    json.dumps({"type": "dance", "version": 1}),
    json.dumps({"type": ["roll"], "version": 1}),  # unhashable types once crashed the socket
    json.dumps({"type": {}, "version": 1}),
    json.dumps({"type": "roll"}),
    json.dumps({"type": "roll", "version": "1"}),
    json.dumps({"type": "roll", "version": True}),
    json.dumps({"type": "play", "version": 1}),
    json.dumps({"type": "play", "version": 1, "play": ["24/18", "18/13"]}),
    json.dumps({"type": "play", "version": 1, "play": "24/18 18/13 " * 400}),
    "[" * 2000 + "]" * 2000,  # nested deeper than the JSON decoder recurses
]


def test_socket_paths_that_name_no_game_are_closed_with_4404(fixed):
    game = new_bot_game(fixed, opening=(6, 5))

    async def scenario():
        for path in (
            "/ws/game/not-a-uuid/",
            "/ws/game/",
            f"/ws/game/{game.id}",
            f"/ws/game/{game.id}/extra/",
            "/ws/other/",
        ):
            comm = await communicator(game.id, path=path)
            connected, _ = await comm.connect(timeout=TIMEOUT)
            assert connected, path
            assert await comm.receive_output(timeout=TIMEOUT) == {
                "type": "websocket.close",
                "code": 4404,
            }, path
            await comm.disconnect()  # ends the consumer, which still listens to the layer
        # The same game named in capitals is the same game.
        comm = await communicator(game.id, path=f"/ws/game/{str(game.id).upper()}/")
        assert (await connect(comm))["id"] == str(game.id)
        await comm.disconnect()

    run(scenario)


def test_notation_outside_ascii_is_an_illegal_play_and_changes_nothing(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    before = state(game.id)

    async def scenario():
        comm = await communicator(game.id)
        await connect(comm)
        for play in ("²/1", "２４/１８ １８/１３"):
            await comm.send_to(text_data=json.dumps({"type": "play", "version": 1, "play": play}))
            error = await receive(comm)
            assert error["code"] == "illegal_play", play
        await comm.disconnect()

    run(scenario)
    assert state(game.id) == before


def test_malformed_frames_get_bad_frame_and_change_nothing(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    before = state(game.id)

    async def scenario():
        comm = await communicator(game.id)
        await connect(comm)
        for frame in BAD_FRAMES:
            await comm.send_to(text_data=frame)
            error = await receive(comm)
            assert error["type"] == "error" and error["code"] == "bad_frame", frame
            assert error["message"] and error["version"] == 1
        await comm.send_to(bytes_data=b'{"type": "roll", "version": 1}')
        assert (await receive(comm))["code"] == "bad_frame"
        assert await comm.receive_nothing(timeout=0.2)
        await comm.disconnect()

    run(scenario)
    assert state(game.id) == before


def test_stale_version_gets_an_error_and_a_fresh_snapshot(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    before = state(game.id)

    async def scenario():
        comm = await communicator(game.id)
        await connect(comm)
        await comm.send_json_to({"type": "play", "version": 0, "play": "24/18 18/13"})
        error = await receive(comm)
        assert error == {
            "type": "error",
            "code": "stale_version",
            "version": 1,
            "message": error["message"],
        }
        snap = await receive(comm)
        assert snap["type"] == "snapshot" and snap["game"]["version"] == 1
        await comm.disconnect()

    run(scenario)
    assert state(game.id) == before


def test_illegal_play_and_wrong_phase_errors(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    before = state(game.id)

    async def scenario():
        comm = await communicator(game.id, path=f"/ws/game/{game.id}/?lang=ru")
        await connect(comm)
        await comm.send_json_to({"type": "play", "version": 1, "play": "24/18 24/19"})
        error = await receive(comm)
        assert error["code"] == "illegal_play" and error["message"]
        await comm.send_json_to({"type": "roll", "version": 1})
        assert (await receive(comm))["code"] == "wrong_phase"
        await comm.disconnect()

    run(scenario)
    assert state(game.id) == before


def test_out_of_turn_and_onlooker_cannot_act(fixed):
    game = new_bot_game(fixed, opening=(1, 6))  # the bot (black) is to play
    before = state(game.id)

    async def scenario():
        player = await communicator(game.id)
        await connect(player)
        await player.send_json_to({"type": "play", "version": 1, "play": "24/18 18/17"})
        assert (await receive(player))["code"] == "not_your_turn"

        for guest in (ONLOOKER, None):
            watcher = await communicator(game.id, guest)
            snap = await connect(watcher)
            assert snap["you"] is None
            for frame in ({"type": "resign", "version": 1}, {"type": "roll", "version": 1}):
                await watcher.send_json_to(frame)
                assert (await receive(watcher))["code"] == "not_your_turn"
            await watcher.disconnect()
        await player.disconnect()

    run(scenario)
    assert state(game.id) == before


def test_reconnecting_queues_no_bot_move(fixed, unattended_queue):
    game = new_bot_game(fixed, opening=(1, 6))  # the bot is to move: its task is queued
    queued = queued_tasks(unattended_queue)

    async def scenario():
        for _ in range(3):
            comm = await communicator(game.id)
            await connect(comm)
            await comm.disconnect()

    run(scenario)
    assert queued_tasks(unattended_queue) == queued
    assert Game.objects.get(pk=game.id).version == 1


def test_resign_over_the_socket_shows_the_result(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    game = services.play(game.id, services.Actor(guest_id=HUMAN), 1, "24/18 18/13")

    async def scenario():
        comm = await communicator(game.id)
        await connect(comm)
        await comm.send_json_to({"type": "resign", "version": game.version})
        snap = (await receive(comm))["game"]
        assert snap["status"] == "finished" and snap["phase"] == "over" and snap["turn"] is None
        assert snap["result"] == {
            "winner": "black",
            "kind": "mars",
            "points": 2,
            "reason": "resign",
            "cube": 1,
            "loser": "white",
            "match_lost": False,
            "rating": None,
        }
        await comm.send_json_to({"type": "roll", "version": snap["version"]})
        assert (await receive(comm))["code"] == "game_over"
        await comm.disconnect()

    run(scenario)
    assert services.snapshot(Game.objects.get(pk=game.id), HUMAN)["game"]["status"] == "finished"


def test_a_frame_that_fails_on_the_server_gets_an_error_and_the_socket_lives_on(fixed, monkeypatch):
    game = new_bot_game(fixed, opening=(6, 5))

    def broken(*args, **kwargs):
        raise RuntimeError("simulated fault")

    monkeypatch.setitem(consumer.ACTIONS, "roll", broken)

    async def scenario():
        comm = await communicator(game.id)
        await connect(comm)
        await comm.send_json_to({"type": "roll", "version": 1})
        error = await receive(comm)
        assert error["type"] == "error" and error["code"] == "server_error" and error["message"]
        await comm.send_json_to({"type": "snapshot"})  # still answering
        assert (await receive(comm))["type"] == "snapshot"
        here = await sync_to_async(Presence.objects.filter(game_id=game.id).count)()
        await comm.disconnect()
        gone = await sync_to_async(Presence.objects.filter(game_id=game.id).count)()
        return here, gone

    # the socket's presence row is removed on disconnect, as for any socket
    assert run(scenario) == (1, 0)
