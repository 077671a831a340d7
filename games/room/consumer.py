"""The game room's WebSocket consumer (docs/protocol.md). Thin: it parses and checks frames,
calls ``games.services`` and sends what they return; it never writes a game itself."""

import asyncio
import logging
import math
import time
import uuid

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.db import InterfaceError, OperationalError
from django.utils import translation
from django.utils.translation import gettext as _

from games import clocks, ratelimits, services
from games.chat import chat
from games.live import socket_watch
from games.live.sockets import (
    CLOSE_NOT_FOUND,
    CLOSE_SESSION_CHANGED,
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
from games.room import rematch
from games.room.models import Game
from games.services import dispatch, projection

logger = logging.getLogger(__name__)

#: the largest version a frame may name (the games' version is a PositiveIntegerField)
MAX_VERSION = 2**31 - 1


#: frames that change the game (each names the version it was sent at) and the service doing it
ACTIONS = {
    "roll": services.roll,
    "double": services.double,
    "take": services.take,
    "drop": services.drop,
    "resign": services.resign,
    "play": services.play,
    "claim": services.claim,
}


#: questions answered without changing the game and without a version (docs/protocol.md
#: "Hints"): a worker searches, and its answer comes back as a ``hint.answer`` message
QUESTIONS = ("hint", "judge")


#: the rematch's frames after a finished game (docs/protocol.md "Rematch"): no version, the
#: game is over; ``games.room.rematch`` decides and tells every socket of the game
REMATCH_FRAMES = ("rematch", "rematch_decline")


#: the chat's frames (docs/protocol.md "Chat"): no version, a message is not a move;
#: ``games.chat.chat`` checks and writes, every socket hears the outcome after the commit
CHAT_FRAMES = ("chat", "chat_mute", "chat_report")


#: what a read of a game that is gone returns
GAME_GONE = object()
#: a read found that the session no longer confirms the player this socket played for
SEAT_LOST = object()


class GameConsumer(QuietAfterClose, SocketCap, ThreadPerSocket, AsyncWebsocketConsumer):
    """One open game page: ``ws/game/<uuid>/``.

    On connect: looks the game up (unknown: accepted then closed with 4404), identifies the
    viewer as a ``services.Actor`` (the signed-in account of the socket's session, and the
    session's ``guest_id``), joins the group ``game_<id>`` and its session's group, and sends
    a snapshot. When a sign-out of its session is announced (``session.changed``) the socket
    keeps no identity; before a ``why`` or snapshot request is answered, and at each presence
    touch, the session is read again from the store: once it is gone (a logout flushes it, a
    sign-in cycles its key) or holds another account or guest, the socket keeps only what the
    fresh session still confirms. Either way a player's socket is then closed with
    CLOSE_SESSION_CHANGED for the page to come back with its new cookies, so a socket left
    open after a logout can no longer move. Client frames: ``roll``, ``play``,
    ``double``, ``take``, ``drop``, ``resign`` (each with ``version``), ``claim`` (the win
    against an absent opponent), ``snapshot`` and ``why`` (read only), ``rematch`` and
    ``rematch_decline`` after a finished game (``games.room.rematch``; the outcome reaches
    every socket as a ``game.rematch`` message, sent on as its viewer's ``rematch`` frame),
    ``chat``, ``chat_mute`` and ``chat_report`` (``games.chat.chat``, no version; each viewer
    gets what ``projection.chat_frame`` lets them read).
    Errors are sent as ``error`` frames (a ``stale_version`` is followed by a snapshot); a
    ``game.changed`` group message is passed on as this viewer's ``event`` frame
    (docs/protocol.md "Events").
    Connecting and asking for snapshots never make a move nor queue a computer move; they
    only settle a clock deadline that has already passed (``services.settle_clock``).
    Interface text is in the language named by the ``lang`` query parameter, if it is one
    of ``settings.LANGUAGES``.

    Presence (docs/protocol.md "Presence"): a player's socket is registered on connect
    (``services.player_here``), touched every ``services.PRESENCE_TOUCH_MS`` while open and
    removed on disconnect (``services.player_left``); a change of presence reaches every
    viewer as an event of the same version. Each action is timed on arrival, so the clock
    judges it by when the server received it.
    """

    @property
    def sent_version(self):
        """The game version this socket was last sent (None before its first snapshot)."""
        return self.view.version

    @property
    def shown(self):
        """The shared fields of the game as this socket was last sent them."""
        return self.view.shown

    @property
    def side(self):
        """The side this socket plays ("white", "black"), or None for a spectator."""
        return self.view.side

    @side.setter
    def side(self, value):
        self.view.side = value

    async def connect(self):
        # what this socket's viewer was last sent: the version, the shared fields (its events'
        # base) and its side
        self.view = projection.ViewerState()
        try:
            self.game_id = uuid.UUID(self.scope["url_route"]["kwargs"]["game_id"])
        except ValueError:
            await self.accept()
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.group = services.group_name(self.game_id)
        self.language = language_of(self.scope)
        self.actor, exists = await self._identify()
        self.frame_limit = FrameLimit(
            self.channel_name, ratelimits.scope_identity(self.scope, self.actor.user_id)[0]
        )
        await self.accept()
        if not exists:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self.channel_layer.group_add(self.group, self.channel_name)
        key = getattr(self.scope.get("session"), "session_key", None)
        if key:
            # told at a sign-out, so no action needs to read the session again first
            self.session_group = dispatch.session_group(key)
            await self.channel_layer.group_add(self.session_group, self.channel_name)
        self.side = await self._call(
            services.player_here, self.game_id, self.actor, self.channel_name
        )
        if self.side is not None:
            self.touch_task = asyncio.ensure_future(self._touch())
        await self.send_snapshot()
        self.watch = socket_watch.watch()
        self.watch.add(self.game_id, self)

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)
        finally:
            # A consumer that failed outside receive() (its Redis or database went away while
            # it sent a snapshot) gets no disconnect(): stop its presence touches, or its
            # player would look here for ever; the beat sweep then forgets the dead socket.
            task = getattr(self, "touch_task", None)
            if task is not None:
                task.cancel()
            if getattr(self, "watch", None) is not None:
                self.watch.remove(self.game_id, self)

    async def disconnect(self, code):
        task = getattr(self, "touch_task", None)
        if task is not None:
            task.cancel()
        try:
            # the player first: their opponent must learn they left even if Redis fails below
            if getattr(self, "side", None) is not None:
                await self._call(services.player_left, self.game_id, self.channel_name)
        finally:
            for group in (getattr(self, "group", None), getattr(self, "session_group", None)):
                if group:
                    await leave_group(self.channel_layer, group, self.channel_name)

    async def _touch(self):
        """Read the socket's session again every PRESENCE_TOUCH_MS while it plays a side
        (the process's ``socket_watch`` marks it present meanwhile), so a socket left open
        after a logout stops playing within that time."""
        while True:
            await asyncio.sleep(services.PRESENCE_TOUCH_MS / 1000)
            await self._identity_checked()
            if self.side is None:
                return

    async def _call(self, function, *args):
        """Run the service call ``function(*args)`` in this socket's thread and then send,
        from this event loop, the group messages of what it committed (``dispatch.deferred``:
        no thread hop per message), also when it raised. Returns what it returned."""

        def run():
            with dispatch.deferred() as outbox:
                try:
                    return function(*args), outbox, None
                except Exception as error:  # noqa: BLE001 - raised again below
                    return None, outbox, error

        result, outbox, error = await database_sync_to_async(run)()
        await outbox.send(self.channel_layer)
        if error is not None:
            raise error
        return result

    async def receive(self, text_data=None, bytes_data=None):
        if getattr(self, "frame_limit", None) is None:
            return  # closed at connect (no such game): nothing to answer
        try:
            wait = await self.frame_limit.wait()
            if wait is not None:
                if wait:
                    with translation.override(self.language):
                        await self.send(
                            text_data=frame_text(rate_limited_frame(wait, self.sent_version))
                        )
                return
            await self._receive(text_data)
        except (OperationalError, InterfaceError):
            # The database connection dropped or the database is unreachable: the action's
            # transaction was rolled back whole, and the next call opens a new connection
            # (Channels' database_sync_to_async closes the broken one first).
            logger.warning("game socket %s: database unavailable", self.channel_name, exc_info=True)
            with translation.override(self.language):
                await self.send_error(
                    "retry",
                    _(
                        "The server lost its connection to the "
                        "database, so this was not done. Please try "
                        "again."
                    ),
                )
            await self._snapshot_if_possible()
        except Exception:
            logger.exception("game socket %s: frame failed", self.channel_name)
            with translation.override(self.language):
                await self.send_error(
                    "server_error",
                    _("The server could not handle this request; nothing was changed."),
                )

    async def _snapshot_if_possible(self):
        """After a ``retry`` error: the game as it stands, if the database answers again (a
        connection that dropped during its commit may have made the action after all)."""
        try:
            await self.send_snapshot(force=True)
        except (OperationalError, InterfaceError):
            logger.warning("game socket %s: database still unavailable", self.channel_name)

    async def _receive(self, text_data):
        frame = self._parse(text_data)
        if isinstance(frame, str):
            await self.send_error("bad_frame", frame)
            return
        if frame["type"] == "snapshot":
            await self.send_snapshot(force=True)
            return
        try:
            if frame["type"] == "why":
                await self.send_why(frame)
                return
            if frame["type"] in QUESTIONS:
                await self.ask(frame["type"])
                return
            if frame["type"] in REMATCH_FRAMES:
                await self.answer_rematch(frame["type"])
                return
            if frame["type"] in CHAT_FRAMES:
                await self.answer_chat(frame)
                return
            await self._act(frame)
        except services.GameError as error:
            await self.send_error(
                error.code, error.message, error.version, getattr(error, "retry_after", None)
            )
            if isinstance(error, services.StaleVersion):
                await self.send_snapshot(force=True)
        except Game.DoesNotExist:
            await self.close(code=CLOSE_NOT_FOUND)

    async def game_changed(self, message):
        """Group message of a committed change (``dispatch.change_message``): sent on to this
        socket as an ``event`` frame built from the shared part, with this viewer's actions and
        legal plays (docs/protocol.md "Events"); a socket that does not continue from the
        change's base version and a game that ended get a snapshot instead. Old news is
        dropped. ``services.projection`` decides; this only sends."""
        watch = getattr(self, "watch", None)
        if watch is not None and "at" in message:
            watch.heard(clocks.now_ms() - message["at"])
        update = self.view.on_change(message)
        if update.kind == projection.SNAPSHOT:
            await self.send_snapshot(force=update.force, recheck=False)
        elif update.kind == projection.EVENT:
            await self.send(text_data=frame_text(update.frame))

    async def answer_rematch(self, kind):
        """A ``rematch`` (offer, or accept the opponent's) or ``rematch_decline`` frame: every
        socket of the game hears the outcome as a ``game.rematch`` message."""
        visitor = ratelimits.scope_identity(self.scope, self.actor.user_id)

        def act():
            with translation.override(self.language):
                if kind == "rematch":
                    rematch.offer(self.game_id, self.actor, visitor)
                else:
                    rematch.decline(self.game_id, self.actor)

        await self._call(act)

    async def game_rematch(self, message):
        """Group message ``game.rematch`` (``dispatch.send_rematch``): this viewer's ``rematch``
        frame (``projection.rematch_frame`` decides; none for an onlooker before a rematch)."""
        with translation.override(self.language):
            frame = projection.rematch_frame(message, self.side)
        if frame is not None:
            await self.send(text_data=frame_text(frame))

    async def answer_chat(self, frame):
        """A ``chat``, ``chat_mute`` or ``chat_report`` frame (``games.chat.chat``); over the
        chat limits, the chat frames within the wait are dropped unanswered."""
        if time.monotonic() < getattr(self, "chat_quiet_until", 0.0):
            return
        kind, visitor = frame["type"], ratelimits.scope_identity(self.scope, self.actor.user_id)

        def act():
            with translation.override(self.language):
                if kind == "chat":
                    text = frame.get("text")
                    return chat.post(self.game_id, self.actor, frame.get("preset"), text, visitor)
                if kind == "chat_mute":
                    return chat.mute(self.game_id, self.actor, frame["muted"])
                return chat.report(self.game_id, self.actor, frame["id"])

        try:
            answer = await self._call(act)
        except chat.TooManyMessages as error:
            self.chat_quiet_until = time.monotonic() + error.retry_after
            raise
        if kind == "chat_report":
            await self.send(text_data=frame_text(answer))

    async def game_chat(self, message):
        """Group message ``game.chat`` (``games.chat.chat.post``): this viewer's ``chat``
        frame, its preset in the socket's language, if they read it (``projection``)."""
        with translation.override(self.language):
            frame = projection.chat_frame(message, self.view, self.actor)
        if frame is not None:
            await self.send(text_data=frame_text(frame))

    async def game_chat_mute(self, message):
        """Group message ``game.chat_mute``: the ``chat_muted`` frame to the muting player's
        sockets (``projection.mute_frame``)."""
        frame = projection.mute_frame(message, self.view)
        if frame is not None:
            await self.send(text_data=frame_text(frame))

    async def session_changed(self, message):
        """Group message ``{"type": "session.changed"}`` (``dispatch.notify_session_changed``):
        the session is signing out, so the socket keeps no identity (``_identity_checked``),
        whether or not the store is flushed yet."""
        await self._identity_checked(signed_out=True)

    async def _identity_checked(self, signed_out=False):
        """Read the socket's session again (``signed_out``: it confirms nothing, unread). A
        player's socket it no longer confirms is closed with CLOSE_SESSION_CHANGED, so the page
        comes back with the cookies it has now: as an onlooker after a sign-out, as the account
        (which took over the guest's games) after a sign-in gave the session a new key. Any
        other socket that lost its identity gets a snapshot."""
        played = self.side is not None
        if not await self._call(self._recheck_identity, signed_out):
            return
        if played:
            await self.close(code=CLOSE_SESSION_CHANGED)
        else:
            await self.send_snapshot(force=True, recheck=False)

    async def game_resync(self, message):
        """Group message ``{"type": "game.resync", "version": v}``: every socket gets a full
        snapshot (a player came back while an old socket of theirs was still listed)."""
        await self.send_snapshot(force=True, recheck=False)

    async def send_touch(self, version):
        """The socket watch's periodic ``{"type": "touch", "version": V}`` (V: the game's
        version as last read)."""
        await self.send(text_data=frame_text({"type": "touch", "version": version}))

    async def catch_up(self):
        """The process's socket watch found this socket behind its game (or its presence): a
        snapshot, and the groups joined again (a Redis that lost its data lost them too)."""
        await self.rejoin()
        await self.send_snapshot(force=True, recheck=False)

    async def rejoin(self):
        """Join the game's group and the session's again (the socket watch, every
        ``socket_watch.TOUCH_MS``): harmless when already in them."""
        for group in (self.group, getattr(self, "session_group", None)):
            if group:
                await self.channel_layer.group_add(group, self.channel_name)

    # --- helpers ---

    async def send_snapshot(self, force=False, recheck=True):
        """Send this viewer's snapshot unless the same version was already sent (or ``force``).
        ``recheck``: read the socket's session again first. Snapshots pushed to every socket
        after a change skip it (one query per socket and change); actions, asked-for snapshots
        and the presence touch (every ``PRESENCE_TOUCH_MS``) still recheck."""
        frame = await self._settled_read(services.snapshot, recheck)
        if frame is GAME_GONE:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        if frame is SEAT_LOST:
            await self.close(code=CLOSE_SESSION_CHANGED)
            return
        if frame["game"]["you"] is not None and self.side is None:
            # the game became this viewer's after the socket opened as an onlooker's (the
            # guest who played it signed in to the viewer's account elsewhere): the page comes
            # back to take the seat, with its actions, presence and legal plays
            await self.close(code=CLOSE_SESSION_CHANGED)
            return
        if self.view.snapshot_sent(frame, force):
            await self.send(text_data=frame_text(frame))

    async def send_why(self, frame):
        """Answer a ``why`` frame (docs/protocol.md "Explanations")."""
        point, staged = frame.get("point"), frame.get("staged") or ""
        await self.send_answer(
            lambda game, actor: services.explain_point(game, actor, point, staged)
        )

    async def ask(self, kind):
        """A hint question: answered at once from the cache, else by a worker later
        (``hint_answer``)."""
        channel, language = self.channel_name, self.language
        visitor, ip = ratelimits.scope_identity(self.scope, self.actor.user_id)

        # a judgement has limits of its own: asked after every play, it must not use up hints
        check = ratelimits.check_hint if kind == "hint" else ratelimits.check_judge

        def count_search():
            try:
                check(visitor, ip)
            except ratelimits.RateLimited as limited:
                raise services.TooManyHints(limited.message, limited.retry_after) from None

        await self.send_answer(
            lambda game, actor: services.ask_hint(
                game, actor, kind, channel, language, count_search
            )
        )

    async def hint_answer(self, message):
        """A worker's answer to this socket's hint question: sent on as it is."""
        await self.send(text_data=frame_text(message["frame"]))

    async def send_answer(self, service):
        """Answer a read-only frame (``why``, ``hint``, ``judge``) with what
        ``service(game, actor)`` returns (None: nothing now), in the socket's language; close
        with 4404 when the game is gone."""
        answer = await self._settled_read(service)
        if answer is GAME_GONE:
            await self.close(code=CLOSE_NOT_FOUND)
        elif answer is SEAT_LOST:
            await self.close(code=CLOSE_SESSION_CHANGED)
        elif answer is not None:
            await self.send(text_data=frame_text(answer))

    async def send_error(self, code, message, version=None, retry_after=None):
        """An ``error`` frame; ``retry_after`` (seconds, e.g. of ``too_many_hints``) is sent
        rounded up to a tenth."""
        with translation.override(self.language):
            text = str(message)
        frame = {
            "type": "error",
            "code": code,
            "message": text,
            "version": version if version is not None else self.sent_version,
        }
        if retry_after is not None:
            frame["retry_after"] = math.ceil(retry_after * 10) / 10
        await self.send(text_data=frame_text(frame))

    def _parse(self, text_data):
        """The frame as a dict, or a readable reason (a str) why it is not a valid frame."""
        with translation.override(self.language):
            frame = parse_json(text_data)
            if isinstance(frame, str):
                return frame
            kind = frame.get("type")
            if not isinstance(kind, str) or (
                kind not in ACTIONS
                and kind not in ("snapshot", "why", *QUESTIONS, *REMATCH_FRAMES, *CHAT_FRAMES)
            ):
                return _("Unknown frame type.")
            if kind in CHAT_FRAMES:
                return chat.frame_problem(frame) or frame
            if kind == "why":
                point = frame.get("point")
                if isinstance(point, bool) or not isinstance(point, int):
                    return _("A why frame needs the point as a whole number.")
                if not isinstance(frame.get("staged", ""), (str, type(None))):
                    return _('The staged steps must be a string such as "24/18".')
                return frame
            if kind in ACTIONS:
                version = frame.get("version")
                if (
                    isinstance(version, bool)
                    or not isinstance(version, int)
                    or not 0 <= version <= MAX_VERSION
                ):
                    return _("The frame needs a whole-number version.")
            if kind == "play" and not isinstance(frame.get("play"), str):
                return _("A play frame needs the play as a string.")
            return frame

    async def _act(self, frame):
        received = clocks.now_ms()
        kind, version = frame["type"], frame["version"]
        args = (frame["play"],) if kind == "play" else ()

        def act():
            with translation.override(self.language):
                ACTIONS[kind](self.game_id, self.actor, version, *args, at=received)

        await self._call(act)

    def _recheck_identity(self, signed_out=False):
        """Read the socket's session again from the store and keep only the identity it still
        confirms (``confirmed_actor``; ``signed_out``: none, without reading). A player who
        lost their identity is no longer present through this socket. Returns True if the
        identity dropped. Sync (DB)."""
        actor = services.Actor() if signed_out else confirmed_actor(self.scope, self.actor)
        if actor == self.actor:
            return False
        self.actor = actor
        if self.side is not None:
            services.player_left(self.game_id, self.channel_name)
            self.side = services.player_here(self.game_id, self.actor, self.channel_name)
        return True

    @database_sync_to_async
    def _identify(self):
        return scope_actor(self.scope), Game.objects.filter(pk=self.game_id).exists()

    @database_sync_to_async
    def _settled_read(self, service, recheck=True):
        """``service(game, actor)`` (a read) on the game as it stands, in the socket's language
        (``recheck``: the socket's session read again first), after an expired clock is
        settled (``services.settle_clock``, the one write here); GAME_GONE if it is gone,
        SEAT_LOST if the recheck took away the side this socket played (the caller closes it
        with CLOSE_SESSION_CHANGED, as ``_identity_checked`` does)."""
        try:
            game = Game.objects.get(pk=self.game_id)
        except Game.DoesNotExist:
            return GAME_GONE
        # a deadline passed before the sweep applied it: settled first, so every viewer sees the
        # same outcome whichever arrives first
        game = services.settle_clock(game)
        if recheck:
            played = self.side is not None
            if self._recheck_identity() and played:
                return SEAT_LOST
        with translation.override(self.language):
            return service(game, self.actor)
