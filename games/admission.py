"""Admission control: past its capacity the site refuses new games instead of slowing down
the ones in progress (docs/deploy.md "Capacity").

The capacity is ``GAMES_MAX_ACTIVE`` games in progress (0: no cap), counted among the active
games where something happened within ``GAMES_ACTIVE_WINDOW_SECONDS``. A new game counts as
the games in the database (read at most once every ``COUNT_SECONDS`` and shared by every
process through the cache, Redis) plus the places given in the last ``TICKET_SECONDS``: a
place is taken in the cache (an atomic increment of the current second's count) *before* the
count is compared with the cap and given back when the comparison refuses, so neither a
burst within one count's lifetime nor a slow request, whose game reaches the database
seconds later, takes the site past the cap (a game already in the database is counted twice
until its ticket expires: the cap errs on the safe side for those seconds). A cache that
fails costs a query, never a refusal. A refused new game gets ``SiteFull``: HTTP 503 with
``Retry-After`` on the pages, an ``error`` frame with ``retry_after`` in the lobby.
"""

import logging

from django.core.cache import cache
from django.utils.translation import ngettext

from games import app_settings, clocks
from games.choices import Status
from games.room.models import Game
from games.services.errors import GameError

logger = logging.getLogger(__name__)

#: how long one count of the games in progress is used (seconds)
COUNT_SECONDS = 2
CACHE_KEY = "games:admission:count"
#: how long a place given counts on its own (seconds): longer than a request that starts a
#: game takes to commit it, even on a loaded server
TICKET_SECONDS = 15
TICKET_KEY = "games:admission:tickets:{}"


class SiteFull(GameError):
    """No new game now: the site runs as many games as it can serve (``site_full``).
    ``retry_after``: seconds until it is worth trying again."""

    code = "site_full"

    def __init__(self, retry_after):
        super().__init__(
            ngettext(
                "Every table is taken just now: the games in progress keep their speed. Please "
                "try again in %(seconds)s second.",
                "Every table is taken just now: the games in progress keep their speed. Please "
                "try again in %(seconds)s seconds.",
                retry_after,
            )
            % {"seconds": retry_after}
        )
        self.retry_after = retry_after


def active_games():
    """How many games are in progress (active, with something done within
    ``GAMES_ACTIVE_WINDOW_SECONDS``), as counted at most ``COUNT_SECONDS`` ago."""
    try:
        found = cache.get(CACHE_KEY)
    except Exception:
        logger.warning("admission: the cache is unavailable", exc_info=True)
        return _count()
    if found is None:
        found = _count()
        try:
            cache.set(CACHE_KEY, found, COUNT_SECONDS)
        except Exception:
            logger.warning("admission: the cache is unavailable", exc_info=True)
    return found


def _count():
    since = clocks.from_ms(clocks.now_ms() - app_settings.ACTIVE_WINDOW_SECONDS * 1000)
    return Game.objects.filter(status=Status.ACTIVE, updated__gte=since).count()


def check():
    """Raise ``SiteFull`` when a new game would take the site past ``GAMES_MAX_ACTIVE``;
    otherwise take its place (so every later caller sees it at once)."""
    cap = app_settings.MAX_ACTIVE
    if not cap:
        return
    second = clocks.now_ms() // 1000
    taken = _take_ticket(second)
    if active_games() + _tickets(second) > cap:
        if taken:
            _give_back_ticket(second)
        raise SiteFull(app_settings.FULL_RETRY_SECONDS)


def has_room():
    """Whether one more game fits under ``GAMES_MAX_ACTIVE`` now; takes no place (a page
    saying whether something waits for room, not a game about to start)."""
    cap = app_settings.MAX_ACTIVE
    return not cap or active_games() + _tickets(clocks.now_ms() // 1000) < cap


def _take_ticket(second):
    """Count one place given during ``second`` (epoch seconds); False if the cache failed."""
    key = TICKET_KEY.format(second)
    try:
        cache.add(key, 0, TICKET_SECONDS + 5)
        cache.incr(key)
    except Exception:
        logger.warning("admission: the cache is unavailable", exc_info=True)
        return False
    return True


def _give_back_ticket(second):
    try:
        cache.decr(TICKET_KEY.format(second))
    except Exception:
        logger.warning("admission: a refused place was not given back", exc_info=True)


def _tickets(second):
    """The places given in the last ``TICKET_SECONDS`` up to ``second`` (0 without a cache)."""
    keys = [TICKET_KEY.format(second - n) for n in range(TICKET_SECONDS)]
    try:
        return sum(cache.get_many(keys).values())
    except Exception:
        logger.warning("admission: the cache is unavailable", exc_info=True)
        return 0


def clear():
    """Forget the cached count and every place given (tests; an operator resetting the cap)."""
    second = clocks.now_ms() // 1000
    # every ticket that may still count, and the next second's (a clock turning meanwhile)
    tickets = [TICKET_KEY.format(second - n) for n in range(-1, TICKET_SECONDS)]
    cache.delete_many([CACHE_KEY, *tickets])
