"""Abandoning a lost rated game has a cost (FAQ "leaving-a-lost-game"; lichess calls it a
playban). A signed-in player who loses a rated game on time or by leaving (``timeout``,
``abandon``), in a position where the hard bot's network (``games.bots.neural``) gave them
less than ``LOST_CHANCE`` to win, has an ``Abandonment`` recorded. The n-th within the rolling
``WINDOW`` closes rated games to them for ``WAITS[n - 1]`` from that moment (the last wait for
any beyond). A rated game aborted by a player before their first play (resigned, a double
dropped, left or never started: ``turns.aborts``) counts the same way (reason "abort"), so
aborting is no free way to dodge an opponent (issue #30). Resigning a game under way never
counts, nor does a game lost on time in a position still worth playing; an outage never ends
a game (``outages``), and a player who comes back within the grace period has lost nothing.
Casual games and games against the computer never count."""

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import clocks
from games.accounts.models import Abandonment
from games.bots import neural
from games.choices import EndReason
from games.room.models import Game
from games.services.errors import PlayBanned

#: a player whose chance to win was below this when they ran out of time or left had lost
LOST_CHANCE = 0.2
#: the rolling window the abandonments are counted in
WINDOW = timedelta(days=7)
#: the wait after the first, second, third and each later abandonment within the window
WAITS = (timedelta(minutes=5), timedelta(minutes=15), timedelta(hours=1), timedelta(hours=24))


@dataclass(frozen=True)
class Wait:
    """A player's current wait: ``until`` (aware datetime), ``count`` (abandonments within
    ``WINDOW``) and ``reason`` of the last one ("timeout" or "abandon")."""

    until: datetime
    count: int
    reason: str

    def seconds_left(self, now_ms: int | None = None) -> int:
        """Whole seconds until the wait is over (at least 1)."""
        now_ms = clocks.now_ms() if now_ms is None else now_ms
        return max(1, math.ceil((clocks.to_ms(self.until) - now_ms) / 1000))

    def message(self, now_ms: int | None = None) -> str:
        """The reason and the time left, in the active language."""
        seconds = self.seconds_left(now_ms)
        if self.reason == EndReason.TIMEOUT:
            why = _("you let the clock run out in a lost rated game instead of resigning")
        elif self.reason == EndReason.ABORT:
            why = _("you left a rated game before making your first play")
        else:
            why = _("you left a lost rated game instead of resigning")
        return _(
            "Rated games are closed to you for %(time)s more: %(why)s. Rated games you aborted "
            "or left lost in the last 7 days: %(count)d. Casual games and games against the "
            "computer stay open."
        ) % {"time": duration_text(seconds), "why": why, "count": self.count}


def duration_text(seconds: float) -> str:
    """A wait in words: whole minutes up to an hour, then hours and minutes."""
    minutes = max(1, math.ceil(seconds / 60))
    if minutes < 60:
        return ngettext("%(minutes)d minute", "%(minutes)d minutes", minutes) % {"minutes": minutes}
    hours, rest = divmod(minutes, 60)
    text = ngettext("%(hours)d hour", "%(hours)d hours", hours) % {"hours": hours}
    if rest:
        text += " " + ngettext("%(minutes)d minute", "%(minutes)d minutes", rest) % {
            "minutes": rest
        }
    return text


def note_loss(game: Game, side: str, reason: str) -> Abandonment | None:
    """``side`` of the locked, still unfinished ``game`` loses by ``reason`` ("timeout" or
    "abandon"): record an Abandonment if the game is rated, the side is an account and its
    chance to win in the position was below ``LOST_CHANCE``. Returns it, or None."""
    user_id = game.user_of(side)
    if not game.rated or not user_id:
        return None
    chance, _equity = neural.cubeless_chances(game.get_position(), side)
    if chance >= LOST_CHANCE:
        return None
    return Abandonment.objects.create(
        user_id=user_id,
        game=game,
        reason=reason,
        chance=chance,
        created=clocks.from_ms(clocks.now_ms()),
    )


def note_abort(game: Game, side: str) -> Abandonment | None:
    """``side`` aborted the locked rated ``game`` before its first play (``turns.abort``):
    record an Abandonment with reason "abort" for its account. Returns it, or None when the
    game is casual or the side is a guest or the computer."""
    user_id = game.user_of(side)
    if not game.rated or not user_id:
        return None
    chance, _equity = neural.cubeless_chances(game.get_position(), side)
    return Abandonment.objects.create(
        user_id=user_id,
        game=game,
        reason=EndReason.ABORT,
        chance=chance,
        created=clocks.from_ms(clocks.now_ms()),
    )


def _until(times: list[datetime]) -> datetime:
    """When the wait after abandonments at ``times`` (aware datetimes within ``WINDOW``, any
    order, at least one) ends."""
    return max(times) + WAITS[min(len(times), len(WAITS)) - 1]


def closed_to(user_ids: Iterable[int], now_ms: int | None = None) -> set[int]:
    """The accounts among ``user_ids`` to which rated games are closed now (a set), in one
    query (the lobby's pairing checks its whole queue so)."""
    now_ms = clocks.now_ms() if now_ms is None else now_ms
    times: dict[int, list[datetime]] = {}
    for user_id, created in Abandonment.objects.filter(
        user_id__in=list(user_ids), created__gt=clocks.from_ms(now_ms) - WINDOW
    ).values_list("user_id", "created"):
        times.setdefault(user_id, []).append(created)
    return {user_id for user_id, at in times.items() if clocks.to_ms(_until(at)) > now_ms}


def current_wait(user_id: int | None, now_ms: int | None = None) -> Wait | None:
    """The ``Wait`` of account ``user_id`` if rated games are closed to it now, else None."""
    if not user_id:
        return None
    now_ms = clocks.now_ms() if now_ms is None else now_ms
    rows = list(
        Abandonment.objects.filter(
            user_id=user_id, created__gt=clocks.from_ms(now_ms) - WINDOW
        ).values_list("created", "reason")
    )
    if not rows:
        return None
    until = _until([created for created, _reason in rows])
    if clocks.to_ms(until) <= now_ms:
        return None
    return Wait(until=until, count=len(rows), reason=max(rows)[1])


def notice(user_id: int | None) -> dict[str, Any] | None:
    """For the lobby and the player's own profile while rated games are closed to account
    ``user_id``: ``{"message": the reason and the time left (active language), "until_ms":
    when it ends, "now_ms": the server's time (both ms since the epoch)}``; else None."""
    now_ms = clocks.now_ms()
    wait = current_wait(user_id, now_ms)
    if wait is None:
        return None
    return {
        "message": wait.message(now_ms),
        "until_ms": clocks.to_ms(wait.until),
        "now_ms": now_ms,
    }


def check(user_id: int | None) -> None:
    """Raise PlayBanned (message in the active language, ``retry_after`` seconds) if rated
    games are closed to account ``user_id`` now."""
    wait = current_wait(user_id)
    if wait is not None:
        raise PlayBanned(wait.message(), wait.seconds_left())
