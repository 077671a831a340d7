"""A Daphne process killed (SIGKILL) in the middle of a game (issue #8): its sockets are cut
without a close frame; the players and onlookers connected to it reconnect to the other
process with the same cookies, read the snapshot and play on. No play is lost and none is
applied twice: a player who does not know whether its last frame got through sends it again
with the same version, and the server either applies it (it had not) or refuses it as
``stale_version`` (it had), as docs/protocol.md promises.

Two kills: the first cuts a play in flight (sent, the server killed at once, nobody heard of
it); the second comes after the play was committed and the opponent saw it, before the player
who sent it read the answer. The game goes on over the other process, then ends by a
resignation. The time from each kill to the reconnected snapshot is printed.
"""

import asyncio
import random
import time

import pytest

from games.choices import EventKind
from games.room.models import Game
from games.tests.live import (
    GameSocket,
    Guest,
    in_step,
    next_frame,
    people_game,
    take_step,
    wait_socket_closed,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.celery, pytest.mark.faults]


async def until_to_play(players, watchers, side, rng, log):
    """Play on until ``side`` must play (phase "play"); returns that snapshot."""
    while True:
        snap = next(iter(players.values())).latest
        assert snap["status"] == "active", "the game ended before the fault"
        if snap["awaiting"] == side and snap["phase"] == "play":
            return snap
        await take_step(players, watchers, rng, log)


async def resend(socket, frame, version_before):
    """Send ``frame`` again on a fresh socket and wait for the outcome: ``"applied"`` (a
    snapshot after ``version_before``, no error) or ``"stale"`` (``stale_version`` and a
    snapshot: it had been applied before the server died)."""
    errors_before = len(socket.errors())
    snap_count = len(socket.snapshots)
    if socket.latest["version"] > version_before:
        await socket.send(frame)
        await socket.wait_for(
            lambda: len(socket.errors()) > errors_before and len(socket.snapshots) > snap_count,
            what="stale_version and a snapshot",
        )
        assert socket.errors()[-1]["code"] == "stale_version", socket.errors()[-1]
        return "stale"
    await socket.send(frame)
    await socket.wait_version(version_before + 1)
    assert len(socket.errors()) == errors_before, socket.errors()[-1]
    return "applied"


def test_a_daphne_killed_mid_game_loses_no_play_and_applies_none_twice(two_servers):
    server_a, server_b = two_servers
    white, black = Guest("white"), Guest("black")
    game_id = people_game(server_b.base, white, black, colour="white")
    rng = random.Random(21)
    figures = {}

    async def reconnect(server, guest=None, name=None, killed_at=None, key=None):
        socket = await GameSocket.open(server, game_id, guest, name=name)
        if key:
            figures[key] = round((time.monotonic() - killed_at) * 1000)
        return socket

    async def scenario():
        w = await GameSocket.open(server_a, game_id, white)
        k = await GameSocket.open(server_b, game_id, black)
        on_a = await GameSocket.open(server_a, game_id, name="onlooker on A")
        on_b = await GameSocket.open(server_b, game_id, name="onlooker on B")
        players, watchers, log = {"white": w, "black": k}, [on_a, on_b], []
        for _step in range(12):
            await take_step(players, watchers, rng, log)

        # 1. White's play is in flight when its server dies.
        snap = await until_to_play(players, watchers, "white", rng, log)
        frame = next_frame(snap, rng)
        await w.send(frame)
        server_a.kill()
        killed = time.monotonic()
        await wait_socket_closed(w)
        await wait_socket_closed(on_a)
        figures["cut_ms"] = round((time.monotonic() - killed) * 1000)
        w = await reconnect(server_b, white, killed_at=killed, key="reconnect_1_ms")
        on_a = await reconnect(server_b, name="onlooker moved to B")
        players["white"], watchers[0] = w, on_a
        figures["first"] = await resend(w, frame, snap["version"])
        log.append(("white", frame, None))
        await in_step([w, k, on_a, on_b], w.latest["version"])

        # A comes back while the game goes on over B; then white and an onlooker move to it.
        restart = asyncio.create_task(asyncio.to_thread(server_a.start))
        for _step in range(40):  # a few turns, leaving the game far from its end
            if restart.done():
                break
            await take_step(players, watchers, rng, log)
        await restart
        await w.close()
        await on_b.close()
        w = await GameSocket.open(server_a, game_id, white, name="white back on A")
        on_b = await GameSocket.open(server_a, game_id, name="onlooker moved to A")
        players["white"], watchers[1] = w, on_b

        # 2. Black's play is committed and white has seen it; black's server dies before
        # black reads the answer.
        snap = await until_to_play(players, watchers, "black", rng, log)
        frame = next_frame(snap, rng)
        await k.send(frame)
        await w.wait_version(snap["version"] + 1)
        server_b.kill()
        killed = time.monotonic()
        await wait_socket_closed(k)
        k = await reconnect(server_a, black, killed_at=killed, key="reconnect_2_ms")
        on_a = await reconnect(server_a, name="onlooker moved back to A")
        players["black"], watchers[0] = k, on_a
        figures["second"] = await resend(k, frame, snap["version"])
        log.append(("black", frame, None))

        # play on over the restarted process (the whole game to the end is
        # test_two_servers.py's), then white resigns
        for _step in range(12):
            await take_step(players, watchers, rng, log)
        version = w.latest["version"]
        await w.send({"type": "resign", "version": version})
        final = (await in_step([w, k, *watchers], version + 1))[0]
        for socket in [w, k, *watchers]:
            await socket.close()
        return final, log, [w, k, *watchers]

    final, log, sockets = asyncio.run(scenario())

    assert figures["second"] == "stale"  # it was applied before the kill: never twice
    assert final["status"] == "finished" and final["result"]["reason"] == "resign"
    for socket in sockets:
        assert [e for e in socket.errors() if e["code"] != "stale_version"] == [], socket.name
    game = Game.objects.get(pk=game_id)
    sent = [(side, frame["play"]) for side, frame, _ms in log if frame["type"] == "play"]
    recorded = list(
        game.events.filter(kind=EventKind.PLAY).order_by("seq").values_list("side", "play")
    )
    assert recorded == sent  # each play the players made is in the record exactly once
    assert game.replay() == game.get_position() and game.version == final["version"]
    print(
        f"\nDaphne SIGKILL: sockets cut after {figures['cut_ms']} ms; reconnected to the "
        f"other process with a snapshot after {figures['reconnect_1_ms']} ms (in-flight play "
        f"{figures['first']} on resend) and {figures['reconnect_2_ms']} ms (committed play "
        f"{figures['second']} on resend); {len(log)} actions in the game"
    )
