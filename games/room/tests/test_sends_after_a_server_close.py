"""A socket the server closed sends nothing more, whoever closed it (games/room/consumer.py
``QuietAfterClose``): Daphne closes a socket itself with 1009 for a message too big (1007,
1002, 1012 at a restart), and the consumer hears of it only when its next send is refused
with autobahn's ``Disconnected`` ("Attempt to send on a closed protocol"). A game's resync
snapshot arriving then must not fail the consumer (Daphne logged it as an exception inside
the application, and the player's presence was left behind): the send is dropped, nothing
more is sent, and the disconnect that follows is handled as any other."""

import asyncio
import logging

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from autobahn.exception import Disconnected
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from games.room.models import Presence
from games.room.tests.test_consumers import TIMEOUT, connect, origin, session_cookie
from games.services import dispatch
from games.tests.factories import HUMAN, FixedDice, new_bot_game

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]


class DaphneSide:
    """The consumer's ``send`` as Daphne gives it: once the server closed the socket
    (``closed``: its close code), a send raises ``Disconnected`` as autobahn's
    ``sendMessage`` does; ``refused`` counts those attempts."""

    def __init__(self):
        self.queue = asyncio.Queue()
        self.closed = None
        self.refused = 0

    async def put(self, message):
        if self.closed is not None:
            self.refused += 1
            raise Disconnected("Attempt to send on a closed protocol")
        await self.queue.put(message)

    def get(self):
        return self.queue.get()

    def empty(self):
        return self.queue.empty()


class ClosableCommunicator(WebsocketCommunicator):
    """A WebsocketCommunicator whose server side can close the socket by itself."""

    @property
    def output_queue(self):
        if self._output_queue is None:
            self._output_queue = DaphneSide()
        return self._output_queue


async def player_socket(game_id, guest_id):
    from nardy_site.asgi import application

    cookie = await sync_to_async(session_cookie)(guest_id)
    headers = [(b"origin", origin().encode()), (b"cookie", cookie.encode())]
    return ClosableCommunicator(application, f"/ws/game/{game_id}/", headers=headers)


def test_a_resync_reaching_a_socket_daphne_closed_with_1009_is_dropped(monkeypatch, caplog):
    game = new_bot_game(FixedDice(monkeypatch), opening=(6, 5))

    async def scenario():
        comm = await player_socket(game.id, HUMAN)
        await connect(comm)
        assert await sync_to_async(Presence.objects.filter(game_id=game.id).exists)()
        # a message over 64 KB: Daphne answers with the close frame 1009 and waits for the
        # browser's reply; the consumer is not told until the connection is gone
        comm.output_queue.closed = 1009
        layer = get_channel_layer()
        resync = {"type": "game.resync", "version": game.version}
        for _ in range(3):
            await layer.group_send(dispatch.group_name(game.id), resync)
        await asyncio.sleep(1)
        alive = not comm.future.done()
        # Daphne's onClose, once the connection is gone
        await comm.send_input({"type": "websocket.disconnect", "code": 1009})
        await asyncio.wait_for(comm.future, TIMEOUT)
        return alive, comm.output_queue.refused

    with caplog.at_level(logging.WARNING):
        alive, refused = async_to_sync(scenario)()
    assert alive  # the refused send did not fail the consumer
    assert refused == 1  # and once refused, nothing more was tried
    assert not Presence.objects.filter(game_id=game.id).exists()
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
