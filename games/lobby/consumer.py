"""The lobby's WebSocket consumer (docs/protocol.md "Lobby"): a player joins or leaves the
casual or the rated queue, hears how many wait and when a game is found. Thin:
``games.lobby.pairing`` does the work."""

import asyncio
import logging
import math

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from redis.exceptions import RedisError

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
    scope_actor,
)
from games.lobby import pairing
from games.lobby.models import Pool, QueueStatus
from games.services.dispatch import LOBBY_COUNTS_GROUP

logger = logging.getLogger(__name__)


class LobbyConsumer(QuietAfterClose, SocketCap, ThreadPerSocket, AsyncWebsocketConsumer):
    """The lobby: ``ws/lobby/`` (docs/protocol.md "Lobby"). Open to a signed-in account or a
    session with a guest id (the lobby page gives one); others are accepted, then closed with
    4401.

    Client frames: ``{"type": "join", "pool": "casual"|"rated", "preset": "sport",
    "match_length": 1, "clock": "standard"}`` (queue for a game; ``pool`` defaults to
    "rated", which needs an account), ``{"type": "leave"}``. Server frames: ``{"type":
    "waiting", "counts": {pool: {"total": n, <preset>: n}}}`` (on connect, and to every lobby
    socket when the counts change), ``queued`` (``pairing.state_of``: sent to every lobby
    socket of the player when it joins, and on connect while it waits), ``{"type": "paired",
    "game": <uuid>, "url": <game page>}`` (to every lobby socket of both players once their
    game exists), ``{"type": "left"}`` (to every lobby socket of the player when it left the
    queue) and ``error`` frames as for games. The socket that joined keeps its entry alive
    (``pairing.touch``) and closing it takes that entry out of the queue; a join from another
    tab replaces it. A socket whose session no longer holds its account or guest id (signed
    in or out elsewhere) is closed with 4401.
    """

    async def connect(self):
        self.actor = scope_actor(self.scope)
        if not (self.actor.user_id or self.actor.guest_id):
            await self.accept()
            await self.close(code=CLOSE_NOT_SIGNED_IN)
            return
        self.language = language_of(self.scope)
        self.identity, self.ip = ratelimits.scope_identity(self.scope, self.actor.user_id)
        self.frame_limit = FrameLimit(self.channel_name, self.identity)
        self.group = pairing.group_name(self.actor)
        self.entry_id = None  # the waiting entry this socket made
        self.touch_task = None
        # in the groups before the state is read, so no join in between goes unheard
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.channel_layer.group_add(LOBBY_COUNTS_GROUP, self.channel_name)
        counts, state = await database_sync_to_async(_connect_state)(self.actor)
        await self.accept()
        await self.send(text_data=frame_text({"type": "waiting", "counts": counts}))
        if state is not None:
            await self.send(text_data=frame_text(state))

    async def disconnect(self, code):
        self._stop_touching()
        if getattr(self, "group", None):
            await leave_group(self.channel_layer, LOBBY_COUNTS_GROUP, self.channel_name)
            await leave_group(self.channel_layer, self.group, self.channel_name)
            if self.entry_id is not None:
                left = await database_sync_to_async(pairing.leave)(self.actor, self.entry_id)
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
            confirmed = await database_sync_to_async(confirmed_actor)(self.scope, self.actor)
            if confirmed != self.actor:
                # signed out, or in (a sign-in gives the session a new key), since it opened
                await self.close(code=CLOSE_NOT_SIGNED_IN)
                return
            if kind == "leave":
                await database_sync_to_async(pairing.leave)(self.actor)
                self.entry_id = None
                self._stop_touching()
                await self.channel_layer.group_send(self.group, {"type": "lobby.left"})
                return
            clock = frame.get("clock")
            if clock is not None and not isinstance(clock, str):
                await self._error("bad_frame", _("Unknown clock."))
                return
            pool = frame.get("pool", Pool.RATED)
            try:
                entry = await database_sync_to_async(pairing.join)(
                    self.actor,
                    frame.get("preset"),
                    frame.get("match_length"),
                    clock,
                    pool if isinstance(pool, str) else "",
                    identity=self.identity,
                    ip=self.ip,
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

    async def lobby_counts(self, event):
        """Group event ``{"type": "lobby.counts", "counts": …}`` (``pairing.announce_counts``):
        sent on as the ``waiting`` frame."""
        await self.send(text_data=frame_text({"type": "waiting", "counts": event["counts"]}))

    async def lobby_left(self, event):
        """Group event ``{"type": "lobby.left"}``: the account's entry left the queue."""
        self.entry_id = None
        self._stop_touching()
        await self.send(text_data=frame_text({"type": "left"}))

    async def _touch(self, entry):
        """Keep the waiting ``entry`` alive while this socket is open and its session
        still holds its account or guest id (``pairing.keep_alive``); a socket whose session
        changed leaves the queue and is closed with 4401. Each time it also joins its groups
        again and reads the entry: if Redis lost the groups (a restart, a flush), the page
        still hears within ``TOUCH_SECONDS`` that it was paired or left the queue."""
        while True:
            await asyncio.sleep(pairing.TOUCH_SECONDS)
            confirmed = await database_sync_to_async(confirmed_actor)(self.scope, self.actor)
            if confirmed != self.actor:
                await database_sync_to_async(pairing.leave)(self.actor, entry.pk)
                self.touch_task = None
                await self.close(code=CLOSE_NOT_SIGNED_IN)
                return
            status, game_id = await database_sync_to_async(pairing.keep_alive)(entry)
            await self._join_groups()
            if status != QueueStatus.WAITING:
                self.touch_task = None  # the handlers below must not cancel this task
                if status == QueueStatus.PAIRED and game_id is not None:
                    await self.lobby_paired({"game": str(game_id)})
                else:
                    await self.lobby_left({})
                return

    async def _join_groups(self):
        """Join the player's and the counts' groups (again: ``group_add`` only refreshes a
        membership that is there); a Redis failure is logged, the next touch tries again."""
        try:
            await self.channel_layer.group_add(self.group, self.channel_name)
            await self.channel_layer.group_add(LOBBY_COUNTS_GROUP, self.channel_name)
        except (RedisError, OSError):
            logger.warning("lobby socket %s: groups not joined", self.channel_name, exc_info=True)

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


def _connect_state(actor):
    """What a lobby socket sends on connect: the counts of waiting players, and the
    ``queued`` frame of ``actor``'s waiting entry (or None)."""
    entry = pairing.waiting_entry(actor)
    return pairing.counts(), pairing.state_of(entry) if entry is not None else None
