"""Admission control: past its capacity the site refuses new games instead of slowing down
the ones in progress (docs/deploy.md "Capacity").

The capacity is ``GAMES_MAX_ACTIVE`` games in progress (0: no cap), counted among the active
games where something happened within ``GAMES_ACTIVE_WINDOW_SECONDS``. The count is read from
the database at most once every ``COUNT_SECONDS`` and shared by every process through the
cache (Redis), where each game let in raises it at once (an atomic increment), so a burst of
new games within those seconds cannot overshoot the cap; a cache that fails costs a query,
never a refusal. A refused new game gets
``SiteFull``: HTTP 503 with ``Retry-After`` on the pages, an ``error`` frame with
``retry_after`` in the lobby.
"""

import logging

from django.core.cache import cache
from django.utils.translation import ngettext

from games import app_settings, clocks
from games.models import Game, Status
from games.services.errors import GameError

logger = logging.getLogger(__name__)

#: how long one count of the games in progress is used (seconds)
COUNT_SECONDS = 2
CACHE_KEY = "games:admission:active"


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
    except Exception:  # noqa: BLE001 - Redis away: count without the cache
        logger.warning("admission: the cache is unavailable", exc_info=True)
        return _count()
    if found is None:
        found = _count()
        try:
            cache.set(CACHE_KEY, found, COUNT_SECONDS)
        except Exception:  # noqa: BLE001 - counted anyway; the next call counts again
            logger.warning("admission: the cache is unavailable", exc_info=True)
    return found


def _count():
    since = clocks.from_ms(clocks.now_ms() - app_settings.ACTIVE_WINDOW_SECONDS * 1000)
    return Game.objects.filter(status=Status.ACTIVE, updated__gte=since).count()


def check():
    """Raise ``SiteFull`` when a new game would take the site past ``GAMES_MAX_ACTIVE``;
    otherwise count the game about to start (so the next caller sees it)."""
    cap = app_settings.MAX_ACTIVE
    if not cap:
        return
    count = active_games()
    if count >= cap:
        raise SiteFull(app_settings.FULL_RETRY_SECONDS)
    try:
        count = cache.incr(CACHE_KEY)
    except ValueError:  # the count expired meanwhile: the next call counts again
        count += 1
    except Exception:  # noqa: BLE001 - Redis away: the count just read stands
        logger.warning("admission: the cache is unavailable", exc_info=True)
        count += 1
    if count > cap:
        raise SiteFull(app_settings.FULL_RETRY_SECONDS)
