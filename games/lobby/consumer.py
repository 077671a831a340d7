"""The lobby's WebSocket consumer (docs/protocol.md "Lobby"): a signed-in player joins or
leaves the rated queue and hears when a game is found. Thin: ``games.lobby.pairing`` does the
work."""

import asyncio
import math

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from games import ratelimits, services
from games.live.sockets import (
    CLOSE_NOT_SIGNED_IN,
    FrameLimit,
    QuietAfterClose,
    SocketCap,
    ThreadPerSocket,
    confirmed_actor,
    frame_text,
    language_of,
    leave_group,
    parse_json,
    rate_limited_frame,
)
from games.lobby import pairing


class LobbyConsumer(QuietAfterClose, SocketCap, ThreadPerSocket, AsyncWebsocketConsumer):
    """The lobby of rated play: ``ws/lobby/`` (docs/protocol.md "Lobby"). Signed-in accounts
    only (others: accepted, then closed with 4401).

    Client frames: ``{"type": "join", "preset": "sport", "match_length": 1, "clock":
    "standard"}`` (queue for a rated game), ``{"type": "leave"}``. Server frames:
    ``queued`` (``games.lobby.state_of``: sent to every lobby socket of the account when it
    joins, and on connect while it waits), ``{"type": "paired", "game": <uuid>, "url": <game
    page>}`` (to every lobby socket of both players once their game exists), ``{"type":
    "left"}`` (to every lobby socket of the account when it left the queue) and ``error``
    frames as for games. The socket that joined keeps its entry alive (``pairing.touch``) and
    closing it takes that entry out of the queue; a join from another tab replaces it.
    """

    async def connect(self):
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.accept()
            await self.close(code=CLOSE_NOT_SIGNED_IN)
            return
        self.user_id = user.pk
        self.language = language_of(self.scope)
        self.identity, self.ip = ratelimits.scope_identity(self.scope, self.user_id)
        self.frame_limit = FrameLimit(self.channel_name, self.identity)
        self.group = pairing.group_name(self.user_id)
        self.entry_id = None  # the waiting entry this socket made
        self.touch_task = None
        # in the group before the state is read, so no join in between goes unheard
        await self.channel_layer.group_add(self.group, self.channel_name)
        state = await database_sync_to_async(_waiting_state)(self.user_id)
        await self.accept()
        if state is not None:
            await self.send(text_data=frame_text(state))

    async def disconnect(self, code):
        self._stop_touching()
        if getattr(self, "group", None):
            await leave_group(self.channel_layer, self.group, self.channel_name)
            if self.entry_id is not None:
                left = await database_sync_to_async(pairing.leave)(self.user_id, self.entry_id)
                if left:
                    await self.channel_layer.group_send(self.group, {"type": "lobby.left"})

    async def receive(self, text_data=None, bytes_data=None):
        if getattr(self, "frame_limit", None) is None:
            return  # closed at connect (not signed in): nothing to answer
        wait = await self.frame_limit.wait()
        if wait is not None:
            if wait:
                with translation.override(self.language):
                    await self.send(text_data=frame_text(rate_limited_frame(wait)))
            return
        with translation.override(self.language):
            frame = parse_json(text_data)
            if isinstance(frame, str):
                await self._error("bad_frame", frame)
                return
            kind = frame.get("type")
            if kind not in ("join", "leave"):
                await self._error("bad_frame", _("Unknown frame type."))
                return
            confirmed = await database_sync_to_async(confirmed_actor)(
                self.scope, services.Actor(user_id=self.user_id)
            )
            if confirmed.user_id != self.user_id:
                # signed out (or in as someone else) since the socket opened
                await self.close(code=CLOSE_NOT_SIGNED_IN)
                return
            if kind == "leave":
                await database_sync_to_async(pairing.leave)(self.user_id)
                self.entry_id = None
                self._stop_touching()
                await self.channel_layer.group_send(self.group, {"type": "lobby.left"})
                return
            clock = frame.get("clock")
            if clock is not None and not isinstance(clock, str):
                await self._error("bad_frame", _("Unknown clock."))
                return
            try:
                entry = await database_sync_to_async(pairing.join)(
                    self.user_id, frame.get("preset"), frame.get("match_length"), clock, ip=self.ip
                )
            except services.GameError as error:
                await self._error(error.code, error.message, getattr(error, "retry_after", None))
                return
        if entry.game_id is not None:
            return  # paired at once: the "paired" frame is on its way through the group
        state = await database_sync_to_async(pairing.state_of)(entry)
        self.entry_id = entry.pk
        self._stop_touching()
        self.touch_task = asyncio.ensure_future(self._touch(entry))
        await self.channel_layer.group_send(
            self.group, {"type": "lobby.queued", "entry": entry.pk, "state": state}
        )

    async def lobby_queued(self, event):
        """Group event ``{"type": "lobby.queued", "entry": <pk>, "state": <queued frame>}``:
        the account joined (from this socket or another)."""
        if event["entry"] != self.entry_id:
            self.entry_id = None  # another tab's join replaced this socket's entry
            self._stop_touching()
        await self.send(text_data=frame_text(event["state"]))

    async def lobby_paired(self, event):
        """Group event ``{"type": "lobby.paired", "game": <uuid>}``: sends the game and its
        page in this socket's language (the two players' pages may differ)."""
        self.entry_id = None
        self._stop_touching()
        with translation.override(self.language):
            url = reverse("games:game", kwargs={"game_id": event["game"]})
        await self.send(text_data=frame_text({"type": "paired", "game": event["game"], "url": url}))

    async def lobby_left(self, event):
        """Group event ``{"type": "lobby.left"}``: the account's entry left the queue."""
        self.entry_id = None
        self._stop_touching()
        await self.send(text_data=frame_text({"type": "left"}))

    async def _touch(self, entry):
        """Keep the waiting ``entry`` alive while this socket is open and its session is
        still signed in to the account (``pairing.touch``); a signed-out socket leaves the
        queue and is closed with 4401."""
        while True:
            await asyncio.sleep(pairing.TOUCH_SECONDS)
            confirmed = await database_sync_to_async(confirmed_actor)(
                self.scope, services.Actor(user_id=self.user_id)
            )
            if confirmed.user_id != self.user_id:
                await database_sync_to_async(pairing.leave)(self.user_id, entry.pk)
                self.touch_task = None
                await self.close(code=CLOSE_NOT_SIGNED_IN)
                return
            await database_sync_to_async(pairing.touch)(entry)

    def _stop_touching(self):
        task = getattr(self, "touch_task", None)
        if task is not None:
            task.cancel()
            self.touch_task = None

    async def _error(self, code, message, retry_after=None):
        frame = {"type": "error", "code": code, "message": str(message)}
        if retry_after is not None:
            frame["retry_after"] = math.ceil(retry_after * 10) / 10
        await self.send(text_data=frame_text(frame))


def _waiting_state(user_id):
    """The ``queued`` frame of the account's waiting entry, or None."""
    entry = pairing.waiting_entry(user_id)
    return pairing.state_of(entry) if entry is not None else None
