"""Every refusal of a socket says why (issue #16; docs/protocol.md "Origin", "Faults"), against
real Daphne processes started as the site runs them (``python -m nardy_site.serve``): an
Origin refused is logged at WARNING with what was allowed; a message over the server's cap is
closed with 1009 and text that is not UTF-8 with 1007 (not a dropped connection, 1006); a
frame over the protocol's own cap gets ``bad_frame``; and a server stopped with SIGTERM closes
its sockets with 1012 and forgets its players' presence at once."""

import asyncio
import time

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from games.room.models import Presence
from games.tests.live import GameSocket, Guest, people_game, wait_socket_closed
from nardy_site.serve import CLOSE_SERVICE_RESTART, MAX_MESSAGE_BYTES

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.celery, pytest.mark.faults]


async def closed_with(socket, frame, text=None):
    """Send ``frame`` (bytes or str; ``text`` True sends bytes as a text message) on the open
    ``socket`` and wait for the connection to end. Returns the server's close code."""
    await socket.ws.send(frame, text=text)
    await wait_socket_closed(socket)
    return socket.ws.close_code


def test_protocol_breaches_are_closed_with_the_code_that_says_why(two_servers):
    server = two_servers[0]
    white, black = Guest("white"), Guest("black")
    game_id = people_game(server.base, white, black)

    async def scenario():
        socket = await GameSocket.open(server, game_id, white)
        # over the protocol's frame cap, under the server's: an error frame, the socket stays
        errors = len(socket.errors())
        await socket.send({"type": "snapshot", "padding": "x" * 10_000})
        await socket.wait_for(lambda: len(socket.errors()) > errors, what="bad_frame")
        refused = socket.errors()[-1]
        assert refused["code"] == "bad_frame" and "too large" in refused["message"]
        eight_mb = await closed_with(socket, "x" * (8 * 1024 * 1024))
        socket = await GameSocket.open(server, game_id, white)
        just_over = await closed_with(socket, "x" * (MAX_MESSAGE_BYTES + 1))
        socket = await GameSocket.open(server, game_id, white)
        not_utf8 = await closed_with(socket, b'{"type": "snapshot\xff\xfe"}', text=True)
        return eight_mb, just_over, not_utf8

    assert asyncio.run(scenario()) == (1009, 1009, 1007)
    log = server.log()
    assert "closed with 1009 (message too big)" in log
    assert "closed with 1007 (invalid payload)" in log


def test_a_refused_origin_is_logged_with_what_was_allowed(two_servers):
    server = two_servers[1]

    async def refused():
        with pytest.raises(InvalidStatus) as answer:
            await connect(
                f"ws://127.0.0.1:{server.port}/ws/game/00000000-0000-0000-0000-000000000000/",
                origin="http://127.0.0.1:9999",
            )
        return answer.value.response.status_code

    assert asyncio.run(refused()) == 403
    line = next(
        line
        for line in server.log().splitlines()
        if "refused: Origin 'http://127.0.0.1:9999'" in line
    )
    assert "WARNING" in line and f"http://127.0.0.1:{server.port}" in line
    assert "ALLOWED_HOSTS" in line


def test_a_server_stopped_with_sigterm_closes_its_sockets_with_1012_and_forgets_presence(
    two_servers,
):
    stopping, other = two_servers
    white, black = Guest("white"), Guest("black")
    game_id = people_game(other.base, white, black)

    async def scenario():
        w = await GameSocket.open(stopping, game_id, white)
        k = await GameSocket.open(other, game_id, black)
        # presence changes keep the version: the newest state is the last one held
        await k.wait_for(lambda: k.snapshots[-1]["presence"]["white"]["here"], what="white here")
        started = time.monotonic()
        await asyncio.to_thread(stopping.stop)
        await wait_socket_closed(w)
        code = w.ws.close_code
        # the opponent's page hears at once that white is away
        await k.wait_for(
            lambda: not k.snapshots[-1]["presence"]["white"]["here"], timeout=5, what="white away"
        )
        away_s = time.monotonic() - started
        back = await GameSocket.open(other, game_id, white)
        await k.wait_for(lambda: k.snapshots[-1]["presence"]["white"]["here"], what="white back")
        for socket in (back, k):
            await socket.close()
        return code, away_s

    code, away_s = asyncio.run(scenario())
    assert code == CLOSE_SERVICE_RESTART
    # the other server forgets the sockets closed last (before the test's database is reset)
    deadline = time.monotonic() + 10
    while Presence.objects.filter(game_id=game_id).exists():
        assert time.monotonic() < deadline, "sockets still listed 10 s after they closed"
        time.sleep(0.05)
    assert away_s < 5
    assert "closed 1 sockets with 1012" in stopping.log()
    print(f"\nSIGTERM to the opponent seeing white away: {away_s * 1000:.0f} ms")
