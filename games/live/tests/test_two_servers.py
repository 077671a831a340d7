"""Two Daphne processes of the site on two ports, sharing the database, Redis (the Channels
layer) and a Celery worker (issue #8). Two guests make a game by a challenge link over HTTP
and play it to the end, each connected to a different process, with real sockets (the
``websockets`` library); an onlooker on each process must see every change of the game, in
step with the players."""

import asyncio
import random
import statistics
import time

import pytest

from games.choices import EventKind
from games.room.models import Game
from games.tests.live import GameSocket, Guest, in_step, people_game, play_to_end

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.celery, pytest.mark.faults]


def versions_seen(socket):
    """The distinct snapshot versions a socket received, in order (a player coming or going
    repeats a version: docs/protocol.md "Presence")."""
    seen = []
    for snap in socket.snapshots:
        if not seen or snap["version"] != seen[-1]:
            seen.append(snap["version"])
    return seen


def test_players_on_two_servers_play_to_the_end_and_onlookers_on_both_see_every_change(two_servers):
    server_a, server_b = two_servers
    white, black = Guest("white"), Guest("black")
    # the challenge is made on one server and accepted on the other: sessions are shared
    game_id = people_game(server_a.base, white, black, colour="white")

    async def scenario():
        sockets = [
            await GameSocket.open(server_a, game_id, white),
            await GameSocket.open(server_b, game_id, black),
            await GameSocket.open(server_a, game_id, name="onlooker on A"),
            await GameSocket.open(server_b, game_id, name="onlooker on B"),
        ]
        players = {"white": sockets[0], "black": sockets[1]}
        await in_step(sockets, sockets[0].latest["version"])
        log, started = [], time.monotonic()
        final = await play_to_end(players, sockets[2:], random.Random(8), log)
        elapsed = time.monotonic() - started
        for socket in sockets:
            await socket.close()
        return sockets, final, log, elapsed

    sockets, final, log, elapsed = asyncio.run(scenario())

    assert final["status"] == "finished" and final["result"]["reason"] == "bore_off"
    white_socket, black_socket, onlooker_a, onlooker_b = sockets
    assert (white_socket.latest["you"], black_socket.latest["you"]) == ("white", "black")
    for socket in sockets:
        # a frame refused as too quick is sent again after its wait (live.GameSocket.act)
        assert [e for e in socket.errors() if e["code"] != "rate_limited"] == [], socket.name
    # every socket, on either process, saw every version the game went through, in order
    assert (
        versions_seen(onlooker_a)
        == versions_seen(onlooker_b)
        == versions_seen(white_socket)
        == versions_seen(black_socket)
    )
    for onlooker in (onlooker_a, onlooker_b):
        assert all(
            snap["you"] is None and snap["actions"] == [] and snap["legal"] is None
            for snap in onlooker.snapshots
        )
        assert onlooker.latest["history"] == final["history"]

    # the database holds exactly the plays the players sent, once each, and they replay
    game = Game.objects.get(pk=game_id)
    sent = [(side, frame["play"]) for side, frame, _ms in log if frame["type"] == "play"]
    recorded = list(
        game.events.filter(kind=EventKind.PLAY).order_by("seq").values_list("side", "play")
    )
    assert recorded == sent
    assert game.version == final["version"] and game.replay() == game.get_position()
    step_ms = [ms for _side, _frame, ms in log]
    print(
        f"\ntwo servers: {len(log)} actions in {elapsed:.1f} s; from a frame sent to its "
        f"snapshot on all 4 sockets: median {statistics.median(step_ms):.0f} ms, "
        f"worst {max(step_ms):.0f} ms"
    )
