"""Rate limits of the game sockets and of starting games (docs/protocol.md "Rate limits").

Counted with the ``limits`` library in a moving window in Redis
(``games.app_settings``: ``GAMES_RATELIMIT_*``, ``GAMES_SOCKET_FRAME_LIMITS``,
``GAMES_SESSION_FRAME_LIMITS``, ``GAMES_CONNECT_SESSION_LIMITS``, ``GAMES_CONNECT_IP_LIMITS``,
``GAMES_CREATE_SESSION_LIMITS``, ``GAMES_CREATE_IP_LIMITS``, ``GAMES_HINT_SESSION_LIMITS``,
``GAMES_HINT_IP_LIMITS``, ``GAMES_JUDGE_SESSION_LIMITS``, ``GAMES_JUDGE_IP_LIMITS``,
``GAMES_CHAT_SESSION_LIMITS``, ``GAMES_CHAT_IP_LIMITS``),
so every Daphne process and every tab of a session share the same counters. If Redis cannot
be reached the limits let everything through (with a warning in the log): a limiter outage
must not stop play, and the site cannot run without that Redis anyway.

The caps of open sockets (``GAMES_SOCKETS_PER_SESSION``, ``GAMES_SOCKETS_PER_IP``) are
counted apart, in each process's memory (``open_sockets``; the notices sockets of the site's
pages in places of their own, ``open_notice_sockets``).
"""

import logging
import math
import threading
import time
from collections import Counter
from functools import lru_cache

from django.utils.translation import ngettext, ngettext_lazy
from limits import parse_many
from limits.errors import StorageError
from limits.storage import RedisStorage
from limits.strategies import MovingWindowRateLimiter

from games import app_settings
from games.services.errors import GameError

logger = logging.getLogger(__name__)


class RateLimited(GameError):
    """Too many requests in a short time; nothing was done (protocol code ``rate_limited``).
    ``retry_after``: seconds (a float > 0) until one more request would be allowed."""

    code = "rate_limited"

    def __init__(self, message, retry_after, version=None):
        super().__init__(message, version)
        self.retry_after = retry_after


@lru_cache(maxsize=8)
def _limiter(url, prefix):
    return MovingWindowRateLimiter(RedisStorage(url, key_prefix=prefix, wrap_exceptions=True))


@lru_cache(maxsize=32)
def _items(text):
    return tuple(parse_many(text)) if text else ()


def hit(limits_text, *identifiers):
    """Count one request against each limit of ``limits_text`` (an ``app_settings`` string;
    empty: no limit) for ``identifiers`` (strings naming who is counted). Returns None if
    every limit allowed it, else the seconds (float > 0) until the refusing limit allows one
    more. A refused request is not counted by the refusing limit (nor by those after it), so
    a client that waits ``retry_after`` gets through."""
    items = _items(limits_text)
    if not items or not app_settings.RATELIMIT_ENABLED:
        return None
    limiter = _limiter(app_settings.RATELIMIT_STORAGE_URL, app_settings.RATELIMIT_KEY_PREFIX)
    try:
        for item in items:
            if not limiter.hit(item, *identifiers):
                reset = limiter.get_window_stats(item, *identifiers).reset_time
                # a refusal always asks for some wait (the window's oldest entry may be leaving)
                return max(0.05, reset - time.time())
    except StorageError as error:
        logger.warning("rate limit not checked (%s): %s", ":".join(identifiers), error)
    return None


def seconds_text(retry_after):
    """``retry_after`` seconds as whole seconds rounded up (at least 1), for messages and the
    HTTP Retry-After header."""
    return max(1, math.ceil(retry_after))


def frame_wait(socket_id, session_id):
    """Count one frame of the socket ``socket_id`` (its channel name) and of the session
    ``session_id`` (``session_identity``). None if allowed, else seconds to wait."""
    wait = hit(app_settings.SOCKET_FRAME_LIMITS, "frames", "socket", socket_id)
    if wait is None and session_id:
        wait = hit(app_settings.SESSION_FRAME_LIMITS, "frames", *session_id)
    return wait


def _visitor_wait(session_limits, ip_limits, kind, session_id, ip):
    """Count one ``kind`` for the visitor ``session_id`` (``session_identity``; None: not
    known) under ``session_limits`` and for the address ``ip`` (None: not known) under
    ``ip_limits``. None if both allow it, else seconds to wait."""
    wait = None
    if session_id:
        wait = hit(session_limits, kind, *session_id)
    if wait is None and ip:
        wait = hit(ip_limits, kind, "ip", ip)
    return wait


def connect_wait(session_id, ip):
    """Count one socket opened by the visitor ``session_id`` (``session_identity``; None: not
    known) from the address ``ip`` (None: not known). None if allowed, else seconds to wait."""
    return _visitor_wait(
        app_settings.CONNECT_SESSION_LIMITS,
        app_settings.CONNECT_IP_LIMITS,
        "connect",
        session_id,
        ip,
    )


def _check_visitor(kind, session_limits, ip_limits, session_id, ip, message):
    """Count one ``kind`` as ``_visitor_wait`` does; over a limit, raise RateLimited with
    ``message(wait)`` (the wait in seconds -> the text, in the active language)."""
    wait = _visitor_wait(session_limits, ip_limits, kind, session_id, ip)
    if wait is not None:
        raise RateLimited(message(wait), wait)


def _in_seconds(text):
    """A ``message`` for ``_check_visitor`` naming the wait in whole seconds; ``text`` is an
    ``ngettext_lazy(singular, plural, "seconds")``."""

    def message(wait):
        return str(text % {"seconds": seconds_text(wait)})

    return message


def check_create(session_id, ip):
    """Count one new game (a game against the computer, a challenge link made or accepted, a
    join of the lobby queue) for ``session_id`` (``session_identity``; None: not known) and
    the client address ``ip`` (None: not known). Raises RateLimited (message in the active
    language) when either limit is used up."""
    _check_visitor(
        "create",
        app_settings.CREATE_SESSION_LIMITS,
        app_settings.CREATE_IP_LIMITS,
        session_id,
        ip,
        _in_seconds(
            ngettext_lazy(
                "Too many new games in a short time. Please wait %(seconds)d second and try again.",
                "Too many new games in a short time. Please wait %(seconds)d seconds and try "
                "again.",
                "seconds",
            )
        ),
    )


def check_import(session_id, ip):
    """Count one record import (docs/record-format.md) for ``session_id``
    (``session_identity``; None: not known) and the client address ``ip``. Raises
    RateLimited (message in the active language) when either limit is used up."""

    def message(wait):
        minutes = max(1, -(-seconds_text(wait) // 60))
        return ngettext(
            "Too many imported records in a short time. Please wait %(minutes)d minute "
            "and try again.",
            "Too many imported records in a short time. Please wait %(minutes)d minutes "
            "and try again.",
            minutes,
        ) % {"minutes": minutes}

    _check_visitor(
        "import",
        app_settings.IMPORT_SESSION_LIMITS,
        app_settings.IMPORT_IP_LIMITS,
        session_id,
        ip,
        message,
    )


#: what a refused hint or judgement says
_TOO_MANY_HINTS = _in_seconds(
    ngettext_lazy(
        "Too many hints in a short time. Please wait %(seconds)d second and ask again.",
        "Too many hints in a short time. Please wait %(seconds)d seconds and ask again.",
        "seconds",
    )
)


def check_hint(session_id, ip):
    """Count one hint search (docs/protocol.md "Hints") for ``session_id``
    (``session_identity``; None: not known) and the client address ``ip``. Raises
    RateLimited (message in the active language) when either limit is used up."""
    _check_visitor(
        "hint",
        app_settings.HINT_SESSION_LIMITS,
        app_settings.HINT_IP_LIMITS,
        session_id,
        ip,
        _TOO_MANY_HINTS,
    )


def check_judge(session_id, ip):
    """Count one search judging the player's own play (docs/protocol.md "Hints") as
    ``check_hint`` counts a hint, under limits of its own (``GAMES_JUDGE_*_LIMITS``): the page
    asks one after every play, and they must not use up the hints the player asks for."""
    _check_visitor(
        "judge",
        app_settings.JUDGE_SESSION_LIMITS,
        app_settings.JUDGE_IP_LIMITS,
        session_id,
        ip,
        _TOO_MANY_HINTS,
    )


def check_chat(session_id, ip):
    """Count one chat message (docs/protocol.md "Chat") for ``session_id``
    (``session_identity``; None: not known) and the client address ``ip``. Raises
    RateLimited (message in the active language) when either limit is used up."""
    _check_visitor(
        "chat",
        app_settings.CHAT_SESSION_LIMITS,
        app_settings.CHAT_IP_LIMITS,
        session_id,
        ip,
        _in_seconds(
            ngettext_lazy(
                "Too many chat messages in a short time. Please wait %(seconds)d second.",
                "Too many chat messages in a short time. Please wait %(seconds)d seconds.",
                "seconds",
            )
        ),
    )


def session_identity(user_id=None, session_key=None, ip=None):
    """Who is counted as one visitor, as a tuple of identifier strings: the signed-in account
    (all its sessions together), else the session, else the client address, else None."""
    if user_id:
        return ("user", str(user_id))
    if session_key:
        return ("session", session_key)
    if ip:
        return ("ip", ip)
    return None


def request_identity(request):
    """``session_identity`` of an HTTP request (the account, else the session; None for a
    first visit without a session), and its client address (``REMOTE_ADDR``: put
    the proxy's client address there behind a proxy, e.g. Daphne's ``--proxy-headers``)."""
    user = getattr(request, "user", None)
    user_id = user.pk if user is not None and user.is_authenticated else None
    ip = request.META.get("REMOTE_ADDR") or None
    # a visitor without a session yet is counted by address alone (its own limit)
    return session_identity(user_id, request.session.session_key), ip


def scope_identity(scope, user_id=None):
    """``session_identity`` of a socket's ASGI scope (its session cookie, the account given),
    and its client address (``scope["client"]``, which Daphne's ``--proxy-headers`` takes
    from X-Forwarded-For)."""
    client = scope.get("client")
    ip = client[0] if client else None
    session_key = getattr(scope.get("session"), "session_key", None)
    return session_identity(user_id, session_key, ip), ip


class SocketPlaces:
    """Sockets open in this process, counted per visitor and per client address, against the
    caps ``GAMES_SOCKETS_PER_SESSION`` and ``GAMES_SOCKETS_PER_IP`` (each instance counts its
    own sockets against the same caps).

    Kept in memory, not in Redis: exact for this process (a socket is counted while its
    consumer runs), and nothing is left behind when the process dies. Each process counts on
    its own, so N Daphne processes let one visitor hold up to N times each cap."""

    def __init__(self):
        self._counts = Counter()  # ("visitor", *identity) or ("address", ip) -> open sockets
        self._lock = threading.Lock()

    def take(self, identity, ip):
        """Count one more open socket of the visitor ``identity`` (``session_identity``;
        None: not counted) from the address ``ip`` (None: not counted), unless either already
        holds its cap (0: no cap; none while ``GAMES_RATELIMIT_ENABLED`` is False). Returns
        the place taken, a tuple of keys (empty when nothing was counted) to give back once
        to ``free`` when the socket ends; or None when a cap is reached (nothing counted)."""
        keys = []
        caps = []
        if identity:
            keys.append(("visitor", *identity))
            caps.append(app_settings.SOCKETS_PER_SESSION)
        if ip:
            keys.append(("address", ip))
            caps.append(app_settings.SOCKETS_PER_IP)
        enabled = app_settings.RATELIMIT_ENABLED
        with self._lock:
            if enabled and any(cap and self._counts[key] >= cap for key, cap in zip(keys, caps)):
                return None
            for key in keys:
                self._counts[key] += 1
        return tuple(keys)

    def free(self, place):
        """Give back a place returned by ``take`` (its socket has ended)."""
        with self._lock:
            for key in place:
                self._counts[key] -= 1
                if self._counts[key] <= 0:
                    del self._counts[key]

    def count(self, identity=None, ip=None):
        """Sockets open in this process for ``identity`` or, if given instead, for ``ip``."""
        key = ("visitor", *identity) if identity else ("address", ip)
        with self._lock:
            return self._counts[key]


#: the open game, lobby and tournament sockets of this process (games.live.sockets.SocketCap
#: takes and frees the places)
open_sockets = SocketPlaces()
#: the open notices sockets of this process (one per open page of a signed-in player): apart,
#: so that many open tabs of the site never cost a player the socket of their game
open_notice_sockets = SocketPlaces()


def check_entry(session_id, ip):
    """Count one tournament entry or departure for ``session_id`` (``session_identity``) and
    the client address ``ip``. Raises RateLimited (message in the active language) when
    either limit is used up."""
    _check_visitor(
        "entry",
        app_settings.ENTRY_SESSION_LIMITS,
        app_settings.ENTRY_IP_LIMITS,
        session_id,
        ip,
        _in_seconds(
            ngettext_lazy(
                "Too many entries in a short time. Please wait %(seconds)d second and try again.",
                "Too many entries in a short time. Please wait %(seconds)d seconds and try again.",
                "seconds",
            )
        ),
    )
