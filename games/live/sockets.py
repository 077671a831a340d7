"""What every WebSocket consumer shares (docs/protocol.md "Close codes", "Rate limits"): the
close codes, a thread per socket for its database work, quiet sends after a close, the cap on
open sockets, the frame rate limit, and small helpers to read a socket's scope and frames."""

import json
import logging
import math
import time
from contextlib import suppress
from importlib import import_module
from urllib.parse import parse_qs

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.utils import translation
from django.utils.translation import gettext as _
from redis.exceptions import RedisError

from games import ratelimits, services
from games.accounts.guests import GUEST_SESSION_KEY
from games.protocol import MAX_FRAME

logger = logging.getLogger(__name__)

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
    """Caps the sockets one visitor and one address hold open in this process
    (docs/protocol.md "Rate limits"), counted in the ``ratelimits.SocketPlaces`` named by the
    class attribute ``socket_places``: ``ratelimits.open_sockets`` for the game, lobby and
    tournament sockets; a consumer that names another (the notices socket of every page,
    ``ratelimits.open_notice_sockets``) never takes a place from them. A socket over a cap is
    accepted, sent a ``too_many_sockets`` error and closed with 4429 before its consumer does
    any work. The place is taken when the consumer starts and freed in ``__call__``'s
    ``finally``, so it is given back however the socket ends (closed by either side, cut, or
    its consumer failed). A refused socket's consumer never connected, so its ``disconnect``
    is not run either: it has nothing to undo."""

    refused = False
    #: the name of the ``ratelimits`` attribute whose SocketPlaces this consumer's sockets
    #: count in (looked up per socket, so a test may put fresh places there)
    socket_places = "open_sockets"

    async def __call__(self, scope, receive, send):
        user = scope.get("user")  # resolved by the auth middleware before the consumer runs
        user_id = user.pk if user is not None and user.is_authenticated else None
        self.visitor = ratelimits.scope_identity(scope, user_id)
        places = getattr(ratelimits, self.socket_places)
        self.socket_place = places.take(*self.visitor)
        try:
            await super().__call__(scope, receive, send)
        finally:
            if self.socket_place:
                places.free(self.socket_place)

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
        with translation.override(language_of(self.scope)):
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
            await self.send(text_data=frame_text(frame))
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


#: the characters a frame never holds as they are (JSON escapes instead, as Django's
#: json_script writes them): no frame carries markup, whatever a player wrote or is named
JSON_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}


def frame_text(frame):
    """A server frame as the text sent: compact JSON (no spaces after separators), ``<``,
    ``>`` and ``&`` written as JSON escapes (``JSON_ESCAPES``; the same JSON once parsed)."""
    return json.dumps(frame, separators=(",", ":")).translate(JSON_ESCAPES)


def confirmed_actor(scope, actor):
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


def scope_actor(scope):
    """The socket's viewer as a ``services.Actor``: the session's guest id and the signed-in
    account (``scope["user"]``, set by Channels' auth middleware), if any."""
    session = scope.get("session")
    guest_id = session.get(GUEST_SESSION_KEY) if session is not None else None
    user = scope.get("user")
    user_id = user.pk if user is not None and user.is_authenticated else None
    return services.Actor(guest_id=guest_id or None, user_id=user_id)


async def leave_group(layer, group, channel_name):
    """``group_discard`` that logs a Redis failure instead of raising it: the socket is gone
    either way, and a channel left in a group only receives messages nobody reads until the
    group's entry expires (channels_redis' ``group_expiry``)."""
    try:
        await layer.group_discard(group, channel_name)
    except (RedisError, OSError):
        logger.warning("socket %s not taken out of %s", channel_name, group, exc_info=True)


def language_of(scope):
    """The language named by the socket's ``lang`` query parameter (else the default)."""
    value = query_param(scope, "lang")
    return value if value in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


def query_param(scope, name):
    """The first value of query parameter ``name`` of the socket's path, or None."""
    query = scope.get("query_string", b"").decode("latin-1")
    return next(iter(parse_qs(query).get(name, ())), None)


def parse_json(text_data):
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
