"""Outages never decide a game (docs/protocol.md "Outages"; RULES.md R11 leaves the site's
own failures out of the clock).

The site can serve players while one of its web processes runs with its database and its
Redis: each web process (the site's Daphne, ``nardy_site.serve``) notes a heartbeat (one
``Heartbeat`` row) every ``HEARTBEAT_EVERY_MS`` once it has checked both (``keep_alive``). A
silence longer than ``app_settings.OUTAGE_MIN_MS`` is an outage: the whole site stopped, or
every web process, or the database, or Redis. While it lasts nothing expires anywhere
(``site_down``: the sweep and the workers leave deadlines alone). The first web process that
is up again records it as an ``Outage`` from the last heartbeat to that moment, and every
game whose clock ran then is credited with it before anything else happens to it
(``unit.changing`` calls ``credit``; the sweep credits the rest): its clock times move on as
if paused for the outage, and whatever would run out sooner than ``RECONNECT_GRACE_MS``
after the outage is moved to that moment, so the player to move has time to come back.
Nobody loses, is aborted or is marked away for time the site could not serve. The pages show
a note until the next play (the snapshot's ``clock.paused_ms``). A stopped worker or beat is
no outage: players can act meanwhile, and deadlines are applied when the sweep is back (or
by the next page that reads the game).
"""

import logging
from collections.abc import Callable
from typing import Protocol
from uuid import UUID

from django.db import transaction
from django.db.models import F

from games import app_settings, clocks
from games.choices import EventKind
from games.room.models import Game, Presence
from games.services import clockwork
from games.services.models import Heartbeat, Outage

logger = logging.getLogger(__name__)

#: each web process notes the heartbeat this often (ms): one row update a second
HEARTBEAT_EVERY_MS = 1_000
#: after an outage, nothing runs out sooner than this after its end (ms): time for a page to
#: reconnect (its backoff is a few seconds) and for its player to see where the game stands
RECONNECT_GRACE_MS = 15_000
#: the clock times an outage moves on (fields of ``Game``)
CLOCK_TIMES = ("period_started", "turn_started", "white_away_since", "black_away_since")

# What this process knows of the heartbeat: no outage can be found before ``until`` (ms; the
# last heartbeat read plus the minimum silence), ``last`` is the last outage's id then,
# ``beat_at`` the last heartbeat read (ms, 0: none), ``down`` whether it was silent then;
# ``serving``: this is a web process (it may record an outage); ``swept``: the last outage
# whose games the sweep of this process has credited.
_known: dict[str, int | bool] = {
    "until": 0,
    "last": 0,
    "beat_at": 0,
    "down": False,
    "serving": False,
    "swept": 0,
}


def forget() -> None:
    """Forget what this process read of the heartbeat (tests that reset the database)."""
    _known.update(until=0, last=0, beat_at=0, down=False, serving=False, swept=0)


def serve_here() -> None:
    """This process serves players (a web process): finding the heartbeat silent, it records
    the outage, since it is itself up again. ``nardy_site.serve`` calls it at start."""
    _known["serving"] = True


def _remember(beat_at_ms: int, last: int) -> None:
    _known["until"] = beat_at_ms + app_settings.OUTAGE_MIN_MS
    _known["last"] = last
    _known["beat_at"] = beat_at_ms
    _known["down"] = False


def beat(now: int | None = None) -> Outage | None:
    """Note the site up at ``now`` (ms since the epoch; default now): a web process's
    heartbeat (``keep_alive``), or its first action after a silence (``latest``). A silence
    since the last heartbeat longer than ``OUTAGE_MIN_MS`` is recorded as an ``Outage``
    first, and every socket listed is taken as seen at its end (a socket of a server that
    died in it is judged from then, not from before). Returns the new Outage or None."""
    now = clocks.now_ms() if now is None else now
    minimum = app_settings.OUTAGE_MIN_MS
    outage = None
    with transaction.atomic():
        row = Heartbeat.objects.select_for_update().filter(pk=1).first()
        if row is None:
            row, _created = Heartbeat.objects.get_or_create(
                pk=1, defaults={"beat_at": clocks.from_ms(now)}
            )
            _remember(clocks.to_ms(row.beat_at), row.last_outage)
            return None
        last_beat = clocks.to_ms(row.beat_at)
        if now <= last_beat:  # another process noted a later one
            _remember(last_beat, row.last_outage)
            return None
        if minimum and now - last_beat > minimum:
            outage = Outage.objects.create(started=row.beat_at, ended=clocks.from_ms(now))
            row.last_outage = outage.pk
            Presence.objects.filter(seen__lt=outage.ended).update(seen=outage.ended)
        row.beat_at = clocks.from_ms(now)
        row.save(update_fields=["beat_at", "last_outage"])
    _remember(now, row.last_outage)
    if outage is not None:
        logger.warning(
            "outage: no heartbeat from %s to %s (%d ms); running clocks are credited with it",
            outage.started.isoformat(),
            outage.ended.isoformat(),
            outage.length_ms,
        )
    return outage


def keep_alive(check_redis: Callable[[], object]) -> Outage | None:
    """A web process's heartbeat (every ``HEARTBEAT_EVERY_MS``): if ``check_redis()`` (a
    callable that raises when Redis does not answer) passes, ``beat``; the database must
    answer too, or ``beat`` raises. Nothing when outages are off (``OUTAGE_MIN_MS`` 0): a
    process with them off must not keep the heartbeat of one with them on. Returns the new
    Outage or None."""
    if not app_settings.OUTAGE_MIN_MS:
        return None
    check_redis()
    return beat()


def latest(now: int | None = None, fresh: bool = False) -> int:
    """The id of the last outage recorded (0: none), read from the heartbeat row at most once
    per ``OUTAGE_MIN_MS`` per process (an outage cannot be found sooner than that after the
    last heartbeat read; ``fresh``: read it now). If the heartbeat has been silent for longer:
    a web process, being up, records the silence as an outage first (``beat``); any other
    process (a worker) notes that the site is down (``site_down``). A site whose web
    processes never noted a heartbeat has no outages."""
    now = clocks.now_ms() if now is None else now
    minimum = app_settings.OUTAGE_MIN_MS
    if not minimum:
        return _known["last"]
    if not fresh and 0 <= _known["until"] - now <= minimum:
        return _known["last"]
    row = Heartbeat.objects.filter(pk=1).values_list("beat_at", "last_outage").first()
    if row is None:  # no web process ever noted one (or the row was removed): nothing known
        _known.update(until=0, last=0, beat_at=0, down=False)
        return 0
    beat_at = clocks.to_ms(row[0])
    if now - beat_at > minimum:
        if _known["serving"]:
            beat(now)
        else:
            _remember(beat_at, row[1])
            _known["down"] = True
        return _known["last"]
    _remember(beat_at, row[1])
    return row[1]


def judged_at(at: int) -> int:
    """The instant (ms) up to which a deadline may be judged, for an action or a timer at
    ``at``: ``at`` itself in a web process (it is up), else no later than the last heartbeat
    read plus ``HEARTBEAT_EVERY_MS``: a worker cannot tell whether players could act after
    that, so a deadline after it waits until a web process has beaten past it (or has
    recorded the outage, and the clocks were credited)."""
    if _known["serving"] or not app_settings.OUTAGE_MIN_MS or not _known["beat_at"]:
        return at
    return min(at, _known["beat_at"] + HEARTBEAT_EVERY_MS)


def site_down() -> bool:
    """True while the heartbeat is silent as this process last read it (``latest``): no
    deadline is applied then, since no player can act."""
    return bool(app_settings.OUTAGE_MIN_MS) and bool(_known["down"])


class Change(Protocol):
    """What ``credit`` uses of a ``unit.GameChange`` (``unit`` imports this module)."""

    game: Game

    def record(self, kind: str) -> None: ...


def credit(change: Change, last: int) -> bool:
    """Credit the locked game of ``change`` (a ``unit.GameChange``) with the outages up to id
    ``last`` it has not accounted for: each clock time (the running period and turn, each
    absence) that began before an outage ended moves on by the part of the outage after it
    began; then, if the game's next deadline falls sooner than ``RECONNECT_GRACE_MS`` after
    the outage, every clock time moves on so that it falls then. Records a ``pause`` event
    (the version rises; the sockets hear the new clock) when anything moved, and returns True
    then. Games over or without a clock only note the outages as seen."""
    game = change.game
    if game.outages_seen >= last:
        return False
    found = []
    if not game.is_over and game.clock:
        found = list(Outage.objects.filter(pk__gt=game.outages_seen, pk__lte=last).order_by("pk"))
    game.outages_seen = last
    paused = ended = 0
    for outage in found:
        start, end = clocks.to_ms(outage.started), clocks.to_ms(outage.ended)

        # a clock time before the outage's end moves on by the part of the outage after it
        def moved(at: int, start: int = start, end: int = end) -> int:
            return at + end - max(at, start) if at < end else at

        if _move_clock_times(game, moved):
            paused += end - start
            ended = end
            Outage.objects.filter(pk=outage.pk).update(games=F("games") + 1)
    if not paused:
        Game.objects.filter(pk=game.pk).update(outages_seen=last)
        return False
    clockwork.refresh_deadline(game)
    deadline = clocks.to_ms(game.deadline)
    if deadline is not None and deadline < ended + RECONNECT_GRACE_MS:
        extra = ended + RECONNECT_GRACE_MS - deadline
        _move_clock_times(game, lambda at: at + extra)
        clockwork.refresh_deadline(game)
    game.paused_ms = paused
    game.paused_at_play = game.plays
    change.record(EventKind.PAUSE)
    logger.info("outage: game %s credited %d ms", game.pk, paused)
    return True


def _move_clock_times(game: Game, moved: Callable[[int], int]) -> bool:
    """Set each of the game's ``CLOCK_TIMES`` that is set to ``moved(ms)``; True if any
    changed."""
    changed = False
    for field in CLOCK_TIMES:
        at = clocks.to_ms(getattr(game, field))
        if at is not None and moved(at) != at:
            setattr(game, field, clocks.from_ms(moved(at)))
            changed = True
    return changed


def paused_note_ms(game: Game) -> int | None:
    """The length (ms) of the outage last credited to ``game`` while no play has been made
    since (the pages' note), else None."""
    if game.paused_ms and game.paused_at_play == game.plays and not game.is_over:
        return game.paused_ms
    return None


def games_to_credit(last: int) -> list[UUID]:
    """Ids of the running games with a clock that have not accounted for outage ``last``, once
    per outage and process (the sweep credits them; a game changed first credits itself);
    then ``swept(last)``. Empty when this process's sweep has seen ``last``."""
    if last <= _known["swept"]:
        return []
    return list(
        Game.objects.active()
        .exclude(clock={})
        .filter(outages_seen__lt=last)
        .values_list("pk", flat=True)
    )


def swept(last: int) -> None:
    """The sweep of this process has credited the games of outage ``last``."""
    _known["swept"] = max(_known["swept"], last)
