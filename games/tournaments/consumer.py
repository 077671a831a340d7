"""The tournament page's WebSocket consumer (docs/protocol.md "Tournaments"): the standings
and the player's own pairing, live. Thin: ``games.tournaments`` does the work."""

import asyncio
import logging
import time
import uuid

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.db import InterfaceError, OperationalError
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from games import clocks, ratelimits, tournaments
from games.live.sockets import (
    CLOSE_NOT_FOUND,
    FrameLimit,
    QuietAfterClose,
    SocketCap,
    ThreadPerSocket,
    frame_text,
    language_of,
    leave_group,
    rate_limited_frame,
)
from games.tournaments.models import Tournament

logger = logging.getLogger(__name__)


class SharedStates:
    """The ``tournament`` frames of this process's events, one per event: every socket of an
    event in this Daphne process sends the same text, read from the database and encoded
    once per version (not once per socket, and not carried through Redis to each socket)."""

    def __init__(self):
        self.held = {}  # tournament id -> (version asked for, task of (version, text))

    async def text(self, tournament_id, at_least=0, fresh=False):
        """``(version, frame text)`` of the event's state, of at least version ``at_least``;
        ``fresh``: read now whatever is held (a socket that has just joined the event's group
        may have missed the message of a newer version). Raises Tournament.DoesNotExist."""
        held = self.held.get(tournament_id)
        if fresh or held is None or not self._fits(held, at_least):
            held = self.held[tournament_id] = (
                at_least,
                asyncio.ensure_future(self._read(tournament_id)),
            )
        return await asyncio.shield(held[1])

    @staticmethod
    def _fits(held, at_least):
        asked, task = held
        if not task.done():
            return asked >= at_least
        return not task.cancelled() and task.exception() is None and task.result()[0] >= at_least

    @staticmethod
    async def _read(tournament_id):
        state = await database_sync_to_async(tournaments.state)(tournament_id)
        return state["version"], frame_text(state)

    def forget(self, tournament_id):
        """Drop an event's frame (its last socket in this process closed)."""
        self.held.pop(tournament_id, None)


class TournamentConsumer(QuietAfterClose, SocketCap, ThreadPerSocket, AsyncWebsocketConsumer):
    """The live page of a tournament: ``ws/tournament/<uuid>/`` (docs/protocol.md
    "Tournaments"). Anyone may watch; an unknown event is closed with 4404.

    Server frames: the event's ``tournament`` state (``games.tournaments.state``) on connect
    and after every change (at most one every ``STATE_EVERY_S``: a burst of changes sends
    the latest; read once per version in each process, ``SharedStates``), and, to a
    signed-in entrant, ``{"type": "paired", "game": <uuid>, "url": <game page>, "starts_at":
    ms, "server_time": ms}`` when a game of theirs starts (its clock runs from
    ``starts_at``). Client frames: none (an entry is a form on the page). A signed-in
    player's open socket counts as here for the arena's pairing (``tournaments.arrived``),
    touched every ``tournaments.PAGE_TOUCH_MS``."""

    STATE_EVERY_S = 0.5

    async def connect(self):
        self.group = None
        self.touch_task = None
        self.wanted = 0  # the newest version announced and not yet sent
        self.flush_task = None
        try:
            self.tournament_id: str | None = str(
                uuid.UUID(self.scope["url_route"]["kwargs"]["tournament_id"])
            )
        except ValueError:
            self.tournament_id = None
        exists = (
            self.tournament_id is not None
            and await database_sync_to_async(
                Tournament.objects.filter(pk=self.tournament_id).exists
            )()
        )
        if not exists:
            await self.accept()
            await self.close(code=CLOSE_NOT_FOUND)
            return
        user = self.scope.get("user")
        self.user_id = user.pk if user is not None and user.is_authenticated else None
        self.language = language_of(self.scope)
        identity, _ip = ratelimits.scope_identity(self.scope, self.user_id)
        self.frame_limit = FrameLimit(self.channel_name, identity)
        self.group = tournaments.group_name(self.tournament_id)
        _event_sockets[self.tournament_id] = _event_sockets.get(self.tournament_id, 0) + 1
        # in the group before the state is read, so no change in between goes unheard
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        if self.user_id is not None:
            await database_sync_to_async(tournaments.arrived)(
                self.tournament_id, self.user_id, self.channel_name
            )
            self.touch_task = asyncio.ensure_future(self._touch())
        version, text = await _states.text(self.tournament_id, fresh=True)
        self.sent_version = version
        await self.send(text_data=text)
        self.last_sent = time.monotonic()
        if self.user_id is not None:
            # a game paired while this page was loading: its message went out before
            fresh = await database_sync_to_async(tournaments.announcement)(
                self.tournament_id, self.user_id
            )
            if fresh is not None:
                await self._send_paired(fresh["game"], fresh["starts_at"])

    async def disconnect(self, code):
        for task in (self.touch_task, self.flush_task):
            if task is not None:
                task.cancel()
        if self.group:
            left = _event_sockets.get(self.tournament_id, 1) - 1
            if left:
                _event_sockets[self.tournament_id] = left
            else:
                _event_sockets.pop(self.tournament_id, None)
                _states.forget(self.tournament_id)
            await leave_group(self.channel_layer, self.group, self.channel_name)
            if self.user_id is not None:
                await database_sync_to_async(tournaments.socket_closed)(self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        if self.group is None:
            return  # closed at connect (unknown event)
        wait = await self.frame_limit.wait()
        if wait is not None:
            if wait:
                with translation.override(self.language):
                    await self.send(text_data=frame_text(rate_limited_frame(wait)))
            return
        with translation.override(self.language):
            await self.send(
                text_data=frame_text(
                    {
                        "type": "error",
                        "code": "bad_frame",
                        "message": _("This socket only sends; enter on the page."),
                    }
                )
            )

    async def tournament_changed(self, event):
        """Group event ``{"type": "tournament.changed", "version": v, "paired": [...]}``
        (``games.tournaments.notices``)."""
        for paired in event.get("paired", ()):
            if self.user_id is not None and self.user_id in paired["users"]:
                await self._send_paired(paired["game"], paired["starts_at"])
        if event["version"] <= max(self.sent_version, self.wanted):
            return
        self.wanted = event["version"]
        wait = self.last_sent + self.STATE_EVERY_S - time.monotonic()
        if wait <= 0:
            await self._flush()
        elif self.flush_task is None:
            self.flush_task = asyncio.ensure_future(self._flush_after(wait))

    async def _send_paired(self, game_id, starts_at):
        with translation.override(self.language):
            url = reverse("games:game", kwargs={"game_id": game_id})
        frame = {
            "type": "paired",
            "game": game_id,
            "url": url,
            "starts_at": starts_at,
            "server_time": clocks.now_ms(),
        }
        await self.send(text_data=frame_text(frame))

    async def _flush_after(self, wait):
        await asyncio.sleep(wait)
        self.flush_task = None
        await self._flush()

    async def _flush(self):
        if self.wanted <= self.sent_version:
            return
        try:
            version, text = await _states.text(self.tournament_id, self.wanted)
        except (InterfaceError, OperationalError, Tournament.DoesNotExist):
            logger.warning("tournament %s: state not read", self.tournament_id, exc_info=True)
            return  # the next change sends it
        if version <= self.sent_version:
            return
        self.sent_version = version
        self.last_sent = time.monotonic()
        await self.send(text_data=text)

    async def _touch(self):
        while True:
            await asyncio.sleep(tournaments.PAGE_TOUCH_MS / 1000)
            try:
                await database_sync_to_async(tournaments.socket_opened)(
                    self.tournament_id, self.user_id, self.channel_name
                )
            except (InterfaceError, OperationalError):  # a blip: the next touch tries again
                logger.warning("tournament socket %s not touched", self.channel_name, exc_info=True)


_states = SharedStates()
#: how many sockets of each event this process holds (their frame is forgotten with the last)
_event_sockets: dict[str | None, int] = {}
