"""A bare echo socket, the baseline of the load tool (``python -m games.loadtool``).

Routed at ``ws/echo/`` only when ``settings.LOAD_ECHO`` is true (env ``LOAD_ECHO=1``), so a
production server has no echo endpoint. It passes through the same ASGI stack as the game
sockets (origin check, session and auth middleware) but touches neither the database nor
the channel layer: its round trip is what Daphne and the network alone cost.
"""

from channels.generic.websocket import AsyncWebsocketConsumer

from games.protocol import MAX_FRAME  # the game socket's limit


class EchoConsumer(AsyncWebsocketConsumer):
    """Sends every text or binary frame straight back unchanged. Frames longer than
    ``MAX_FRAME`` are not echoed: the socket is closed with code 1009 (message too big)."""

    async def receive(self, text_data=None, bytes_data=None):
        data = text_data if text_data is not None else bytes_data
        if data is None or len(data) > MAX_FRAME:
            await self.close(code=1009)
            return
        if text_data is not None:
            await self.send(text_data=text_data)
        else:
            await self.send(bytes_data=bytes_data)
