"""The live-game WebSocket consumer (docs/protocol.md). Thin: it parses and checks frames,
calls ``games.services`` and sends what they return; it never writes a game itself."""

import asyncio
import json
import logging
import math
import time
import uuid
from contextlib import suppress
from importlib import import_module
from urllib.parse import parse_qs

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.db import InterfaceError, OperationalError
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from redis.exceptions import RedisError

from games import clocks, ratelimits, services, socket_watch, tournaments
from games.guests import GUEST_SESSION_KEY
from games.lobby import pairing
from games.protocol import MAX_FRAME, MERGED_FIELDS
from games.room.models import Game
from games.services import dispatch
from games.tournaments.models import Tournament

logger = logging.getLogger(__name__)

#: the largest version a frame may name (the games' version is a PositiveIntegerField)
MAX_VERSION = 2**31 - 1
#: what a send on a connection the server closed raises: Daphne's (autobahn's)
#: Disconnected, or the OSError the ASGI spec asks of servers
CLOSED_CONNECTION_ERRORS = (Disconnected, OSError)
#: close codes: unknown game; the lobby without a signed-in account; too many open sockets
CLOSE_NOT_FOUND = 4404
CLOSE_NOT_SIGNED_IN = 4401
CLOSE_TOO_MANY_SOCKETS = 4429
#: "try again later": too many sockets opened lately (the page backs off). Not the registry's
#: 1013: Daphne's autobahn sends only 1000 and 3000-4999, and raised on 1013 instead
CLOSE_TRY_AGAIN_LATER = 4013
#: a player's socket whose session no longer confirms the player (signed out, or signed in
#: and given a new session key): the page opens a new socket with the cookies it has now
CLOSE_SESSION_CHANGED = 4001

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
#: what a read of a game that is gone returns
GAME_GONE = object()


class ThreadPerSocket:
    """Each socket's database work (``database_sync_to_async``) runs in a thread of its own,
    asgiref's ``ThreadSensitiveContext``, instead of the one thread that every socket of the
    process would otherwise share: a slow call no longer holds up every game of the process,
    and one socket's calls still run one at a time, in order. With ``DATABASE_POOL`` the
    threads borrow connections from the pool.

    Messages are dispatched without the hop into that thread that Channels makes before each
    one to close old database connections: every database call here goes through
    ``database_sync_to_async``, which does it in the thread itself, and most messages (the
    group's events) touch no database."""

    async def __call__(self, scope, receive, send):
        async with ThreadSensitiveContext():
            await super().__call__(scope, receive, send)

    async def dispatch(self, message):
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)


class QuietAfterClose:
    """A socket this server closed sends nothing more, whoever closed it: the consumer
    (``close``: a sign-out's 4001, a 4404) or Daphne itself (1009 for a message too big,
    1007, 1002, 1012 at a restart), which the consumer learns only when a send is refused
    (CLOSED_CONNECTION_ERRORS) before the disconnect arrives. Group messages already on
    their way (a game's change, a resync) would otherwise be sent on a closed connection,
    which Daphne refuses by failing the consumer ("Attempt to send on a closed protocol")."""

    closed_here = False

    async def close(self, code=None, reason=None):
        if self.closed_here:
            return
        self.closed_here = True
        with suppress(CLOSED_CONNECTION_ERRORS):  # the server had closed it already
            await super().close(code=code, reason=reason)

    async def send(self, text_data=None, bytes_data=None, close=False):
        if self.closed_here:
            return
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except CLOSED_CONNECTION_ERRORS:
            self.closed_here = True
            logger.debug("socket %s closed by the server: nothing more sent", self.channel_name)


class SocketCap:
    """Caps the game and lobby sockets one visitor and one address hold open in this process
    (``ratelimits.open_sockets``; docs/protocol.md "Rate limits"). A socket over a cap is
    accepted, sent a ``too_many_sockets`` error and closed with 4429 before its consumer does
    any work. The place is taken when the consumer starts and freed in ``__call__``'s
    ``finally``, so it is given back however the socket ends (closed by either side, cut, or
    its consumer failed). A refused socket's consumer never connected, so its ``disconnect``
    is not run either: it has nothing to undo."""

    refused = False

    async def __call__(self, scope, receive, send):
        user = scope.get("user")  # resolved by the auth middleware before the consumer runs
        user_id = user.pk if user is not None and user.is_authenticated else None
        self.visitor = ratelimits.scope_identity(scope, user_id)
        self.socket_place = ratelimits.open_sockets.take(*self.visitor)
        try:
            await super().__call__(scope, receive, send)
        finally:
            if self.socket_place:
                ratelimits.open_sockets.free(self.socket_place)

    async def websocket_connect(self, message):
        if self.socket_place is None:
            await self._refuse(CLOSE_TOO_MANY_SOCKETS)
            return
        wait = await sync_to_async(ratelimits.connect_wait, thread_sensitive=False)(*self.visitor)
        if wait is not None:
            await self._refuse(CLOSE_TRY_AGAIN_LATER, wait)
            return
        await super().websocket_connect(message)

    async def websocket_disconnect(self, message):
        if self.refused:
            raise StopConsumer()
        await super().websocket_disconnect(message)

    async def _refuse(self, close_code, wait=None):
        """Accept, send one ``error`` frame (``too_many_sockets`` when ``wait`` is None, else
        ``rate_limited`` with ``retry_after``: too many sockets opened lately) and close with
        ``close_code``."""
        self.refused = True
        await self.accept()
        with translation.override(_language_of(self.scope)):
            if wait is None:
                frame = {
                    "type": "error",
                    "code": "too_many_sockets",
                    "message": _(
                        "Too many pages of this site are open at once. Please "
                        "close some other tabs of the site."
                    ),
                }
            else:
                frame = rate_limited_frame(
                    wait,
                    message=_(
                        "This page connected too often in a short time. It will try again in a "
                        "moment."
                    ),
                )
            await self.send(text_data=_frame_text(frame))
        await self.close(code=close_code)


class FrameLimit:
    """The frame rate limits of one socket (``games.ratelimits.frame_wait``: per socket and
    per session). The first frame over a limit is answered with a ``rate_limited`` error
    naming the wait; frames arriving during that wait are dropped unanswered and uncounted,
    so a flood costs neither a Redis call nor a reply per frame."""

    def __init__(self, socket_id, identity):
        self.socket_id = socket_id
        self.identity = identity
        self.blocked_until = 0.0

    async def wait(self):
        """None if this frame may be handled; else seconds to wait, or 0.0 if it is to be
        dropped without an answer (an error was already sent for this wait)."""
        now = time.monotonic()
        if now < self.blocked_until:
            return 0.0
        wait = await sync_to_async(ratelimits.frame_wait, thread_sensitive=False)(
            self.socket_id, self.identity
        )
        if wait is not None:
            self.blocked_until = now + wait
        return wait


def rate_limited_frame(wait, version=None, message=None):
    """The ``rate_limited`` error frame for a wait of ``wait`` seconds (in the active
    language): ``retry_after`` in seconds, rounded up to a tenth; ``message`` replaces the
    one for a frame sent too soon."""
    frame = {
        "type": "error",
        "code": "rate_limited",
        "message": message
        or _("Too many messages in a short time: this one was not handled. Please wait a moment."),
        "retry_after": math.ceil(wait * 10) / 10,
    }
    if version is not None:
        frame["version"] = version
    return frame


class NotFoundConsumer(AsyncWebsocketConsumer):
    """Any socket path that names no game: accepted, then closed with 4404."""

    async def connect(self):
        await self.accept()
        await self.close(code=CLOSE_NOT_FOUND)


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
    against an absent opponent), ``snapshot`` and ``why`` (read only). Errors are sent as
    ``error`` frames (a ``stale_version`` is followed by a snapshot); a ``game.changed`` group
    message is passed on as this viewer's ``event`` frame (docs/protocol.md "Events").
    Connecting and asking for snapshots never make a move nor queue a computer move; they
    only apply a clock deadline that has already passed (so nobody sees a clock past zero).
    Interface text is in the language named by the ``lang`` query parameter, if it is one
    of ``settings.LANGUAGES``.

    Presence (docs/protocol.md "Presence"): a player's socket is registered on connect
    (``services.player_here``), touched every ``services.PRESENCE_TOUCH_MS`` while open and
    removed on disconnect (``services.player_left``); a change of presence reaches every
    viewer as an event of the same version. Each action is timed on arrival, so the clock
    judges it by when the server received it.
    """

    async def connect(self):
        try:
            self.game_id = uuid.UUID(self.scope["url_route"]["kwargs"]["game_id"])
        except ValueError:
            await self.accept()
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.group = services.group_name(self.game_id)
        self.language = _language_of(self.scope)
        self.sent_version = None
        # the shared fields of the game as this socket was last sent them (its events' base)
        self.shown = {}
        self.side = None
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
                    await _leave_group(self.channel_layer, group, self.channel_name)

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
                            text_data=_frame_text(rate_limited_frame(wait, self.sent_version))
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
        dropped."""
        version, base = message["version"], message["from"]
        watch = getattr(self, "watch", None)
        if watch is not None and "at" in message:
            watch.heard(clocks.now_ms() - message["at"])
        if (
            self.sent_version is None
            or version < self.sent_version
            or (version == self.sent_version and base != version)
        ):
            return
        if message["over"] or base != self.sent_version:
            await self.send_snapshot(force=version == self.sent_version, recheck=False)
            return
        state = message["state"]
        changes = {
            key: _change(key, self.shown.get(key), value)
            for key, value in state.items()
            if key != "version" and self.shown.get(key) != value
        }
        legal = None
        if self.side is not None and self.side == state["awaiting"]:
            legal = message["legal"]
        frame = {
            "type": "event",
            "version": version,
            "from": base,
            "events": [
                {"seq": seq, "kind": kind, "side": side}
                for seq, kind, side, *_rest in message["events"]
            ],
            "history": message["history"],
            "changes": changes,
            "actions": message["actions"].get(self.side, []) if self.side else [],
            "legal": legal,
        }
        self.shown.update(state)
        self.sent_version = version
        await self.send(text_data=_frame_text(frame))

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
        await self.send(text_data=_frame_text({"type": "touch", "version": version}))

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
        frame = await self._read(services.snapshot, recheck)
        if frame is GAME_GONE:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        game = frame["game"]
        version = game["version"]
        if not force and self.sent_version is not None and version <= self.sent_version:
            return
        self.sent_version = version
        self.shown = {key: game[key] for key in services.SHARED_FIELDS}
        await self.send(text_data=_frame_text(frame))

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
        await self.send(text_data=_frame_text(message["frame"]))

    async def send_answer(self, service):
        """Answer a read-only frame (``why``, ``hint``, ``judge``) with what
        ``service(game, actor)`` returns (None: nothing now), in the socket's language; close
        with 4404 when the game is gone."""
        answer = await self._read(service)
        if answer is GAME_GONE:
            await self.close(code=CLOSE_NOT_FOUND)
        elif answer is not None:
            await self.send(text_data=_frame_text(answer))

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
        await self.send(text_data=_frame_text(frame))

    def _parse(self, text_data):
        """The frame as a dict, or a readable reason (a str) why it is not a valid frame."""
        with translation.override(self.language):
            frame = _parse_json(text_data)
            if isinstance(frame, str):
                return frame
            kind = frame.get("type")
            if not isinstance(kind, str) or (
                kind not in ACTIONS and kind not in ("snapshot", "why", *QUESTIONS)
            ):
                return _("Unknown frame type.")
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
        confirms (``_confirmed_actor``; ``signed_out``: none, without reading). A player who
        lost their identity is no longer present through this socket. Returns True if the
        identity dropped. Sync (DB)."""
        actor = services.Actor() if signed_out else _confirmed_actor(self.scope, self.actor)
        if actor == self.actor:
            return False
        self.actor = actor
        if self.side is not None:
            services.player_left(self.game_id, self.channel_name)
            self.side = services.player_here(self.game_id, self.actor, self.channel_name)
        return True

    @database_sync_to_async
    def _identify(self):
        return _actor_of(self.scope), Game.objects.filter(pk=self.game_id).exists()

    @database_sync_to_async
    def _read(self, service, recheck=True):
        """``service(game, actor)`` on the game as it stands, in the socket's language
        (``recheck``: the socket's session read again first); GAME_GONE if it is gone."""
        try:
            game = Game.objects.get(pk=self.game_id)
        except Game.DoesNotExist:
            return GAME_GONE
        # a deadline passed before the sweep applied it: apply it first, so every viewer sees the
        # same outcome whichever arrives first
        game = services.current(game)
        if recheck:
            self._recheck_identity()
        with translation.override(self.language):
            return service(game, self.actor)


def _change(field, held, value):
    """What an event says of ``field``, held by the socket as ``held`` and now ``value``: for
    an object of ``MERGED_FIELDS`` held as an object, its keys whose value changed;
    else the whole value."""
    if field in MERGED_FIELDS and isinstance(held, dict) and isinstance(value, dict):
        return {key: item for key, item in value.items() if held.get(key) != item}
    return value


def _frame_text(frame):
    """A server frame as the text sent: compact JSON (no spaces after separators)."""
    return json.dumps(frame, separators=(",", ":"))


def _actor_of(scope):
    """The socket's viewer as a ``services.Actor``: the session's guest id and the signed-in
    account (``scope["user"]``, set by Channels' auth middleware), if any."""
    session = scope.get("session")
    guest_id = session.get(GUEST_SESSION_KEY) if session is not None else None
    user = scope.get("user")
    user_id = user.pk if user is not None and user.is_authenticated else None
    return services.Actor(guest_id=guest_id or None, user_id=user_id)


def _confirmed_actor(scope, actor):
    """What of ``actor`` the socket's session, read again from the store, still confirms: the
    guest id if the session still holds it, the account if the session is still signed in to
    it. A flushed session (logout) confirms nothing. Never adds an identity."""
    if actor.guest_id is None and actor.user_id is None:
        return actor
    key = getattr(scope.get("session"), "session_key", None)
    if not key:
        return services.Actor()
    fresh = import_module(settings.SESSION_ENGINE).SessionStore(session_key=key)
    guest_id = actor.guest_id if fresh.get(GUEST_SESSION_KEY) == actor.guest_id else None
    user_id = (
        actor.user_id
        if actor.user_id is not None and str(fresh.get(SESSION_KEY, "")) == str(actor.user_id)
        else None
    )
    return services.Actor(guest_id=guest_id, user_id=user_id)


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
        self.language = _language_of(self.scope)
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
            await self.send(text_data=_frame_text(state))

    async def disconnect(self, code):
        self._stop_touching()
        if getattr(self, "group", None):
            await _leave_group(self.channel_layer, self.group, self.channel_name)
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
                    await self.send(text_data=_frame_text(rate_limited_frame(wait)))
            return
        with translation.override(self.language):
            frame = _parse_json(text_data)
            if isinstance(frame, str):
                await self._error("bad_frame", frame)
                return
            kind = frame.get("type")
            if kind not in ("join", "leave"):
                await self._error("bad_frame", _("Unknown frame type."))
                return
            confirmed = await database_sync_to_async(_confirmed_actor)(
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
        await self.send(text_data=_frame_text(event["state"]))

    async def lobby_paired(self, event):
        """Group event ``{"type": "lobby.paired", "game": <uuid>}``: sends the game and its
        page in this socket's language (the two players' pages may differ)."""
        self.entry_id = None
        self._stop_touching()
        with translation.override(self.language):
            url = reverse("games:game", kwargs={"game_id": event["game"]})
        await self.send(
            text_data=_frame_text({"type": "paired", "game": event["game"], "url": url})
        )

    async def lobby_left(self, event):
        """Group event ``{"type": "lobby.left"}``: the account's entry left the queue."""
        self.entry_id = None
        self._stop_touching()
        await self.send(text_data=_frame_text({"type": "left"}))

    async def _touch(self, entry):
        """Keep the waiting ``entry`` alive while this socket is open and its session is
        still signed in to the account (``pairing.touch``); a signed-out socket leaves the
        queue and is closed with 4401."""
        while True:
            await asyncio.sleep(pairing.TOUCH_SECONDS)
            confirmed = await database_sync_to_async(_confirmed_actor)(
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
        await self.send(text_data=_frame_text(frame))


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
        return state["version"], _frame_text(state)

    def forget(self, tournament_id):
        """Drop an event's frame (its last socket in this process closed)."""
        self.held.pop(tournament_id, None)


_states = SharedStates()
#: how many sockets of each event this process holds (their frame is forgotten with the last)
_event_sockets = {}


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
            self.tournament_id = str(uuid.UUID(self.scope["url_route"]["kwargs"]["tournament_id"]))
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
        self.language = _language_of(self.scope)
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
            await _leave_group(self.channel_layer, self.group, self.channel_name)
            if self.user_id is not None:
                await database_sync_to_async(tournaments.socket_closed)(self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        if self.group is None:
            return  # closed at connect (unknown event)
        wait = await self.frame_limit.wait()
        if wait is not None:
            if wait:
                with translation.override(self.language):
                    await self.send(text_data=_frame_text(rate_limited_frame(wait)))
            return
        with translation.override(self.language):
            await self.send(
                text_data=_frame_text(
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
        await self.send(text_data=_frame_text(frame))

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


async def _leave_group(layer, group, channel_name):
    """``group_discard`` that logs a Redis failure instead of raising it: the socket is gone
    either way, and a channel left in a group only receives messages nobody reads until the
    group's entry expires (channels_redis' ``group_expiry``)."""
    try:
        await layer.group_discard(group, channel_name)
    except (RedisError, OSError):
        logger.warning("socket %s not taken out of %s", channel_name, group, exc_info=True)


def _waiting_state(user_id):
    """The ``queued`` frame of the account's waiting entry, or None."""
    entry = pairing.waiting_entry(user_id)
    return pairing.state_of(entry) if entry is not None else None


def _language_of(scope):
    """The language named by the socket's ``lang`` query parameter (else the default)."""
    value = _query_param(scope, "lang")
    return value if value in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


def _query_param(scope, name):
    """The first value of query parameter ``name`` of the socket's path, or None."""
    query = scope.get("query_string", b"").decode("latin-1")
    return next(iter(parse_qs(query).get(name, ())), None)


def _parse_json(text_data):
    """A client frame as a dict, or a readable reason (str) why it is not one."""
    if text_data is None:
        return _("Frames must be JSON text.")
    if len(text_data) > MAX_FRAME:
        return _("The frame is too large.")
    try:
        frame = json.loads(text_data)
    except (ValueError, RecursionError):
        return _("The frame is not valid JSON.")
    if not isinstance(frame, dict):
        return _("The frame must be a JSON object.")
    return frame
