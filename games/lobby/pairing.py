"""Matchmaking for rated games between accounts (part of the service layer).

A signed-in player joins the queue with a preset, a match length and a clock kind; players
with the same three are paired when their ratings are close enough. The window of each
waiting player widens with the time they have waited (``window``); a pair is made when the
rating gap fits the wider of the two windows, oldest waiter first. Pairing runs when someone
joins and from Celery beat (``games.tasks.pair_lobby``), so windows widen without new
arrivals. Both players hear of their game on the channel group ``lobby_user_<id>`` after the
commit that created it.

A waiting entry is kept alive by the lobby socket that made it (``touch``, a key in Django's
cache that lapses after ``ALIVE_SECONDS``): an entry whose socket vanished without closing (a
server restart) leaves the queue at the next pairing instead of being paired with a player
who would then wait for a no-show.
"""

import logging
import secrets

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction
from django.utils.translation import gettext as _

from games import admission, clocks, ratelimits, ratings, services
from games.accounts import collusion
from games.choices import Side, other_side
from games.lobby.models import QueueEntry, QueueStatus
from games.services import dispatch, playban

logger = logging.getLogger(__name__)

#: the pairing window (rating points): this wide at once, widening by WINDOW_GROWTH per
#: second of waiting, up to WINDOW_MAX (after ~70 s anyone waiting with the same table)
WINDOW_START = 100.0
WINDOW_GROWTH = 10.0
WINDOW_MAX = 800.0
#: a waiting entry not touched for this long (seconds) is dropped; its socket touches it every
#: TOUCH_SECONDS
ALIVE_SECONDS = 60
TOUCH_SECONDS = 20


def group_name(user_id):
    """The channel group of an account's lobby sockets: ``lobby_user_<id>``."""
    return dispatch.lobby_group(user_id)


def window(waited_ms):
    """The rating gap (points) a player who has waited ``waited_ms`` accepts."""
    return min(WINDOW_MAX, WINDOW_START + WINDOW_GROWTH * max(0, waited_ms) / 1000)


def join(user_id, preset, match_length=None, clock=None, ip=None):
    """Put account ``user_id`` in the queue for a rated game
    of ``preset`` (``match_length`` 1/3/5/7 for ``match``; ``clock`` a kind of
    ``games.clocks.CLOCKS``, None: the preset's), replacing any entry it had, then pair.
    Raises services.BadFrame for a wrong option or no account, services.PlayBanned while
    rated games are closed to the account (``services.playban``), and
    ``games.ratelimits.RateLimited`` when the account, or the client address ``ip``, has
    started too many games lately (a join counts as one), ``games.admission.SiteFull`` when
    the site runs as many games as it can serve. Returns the QueueEntry (its
    ``game`` set if it was paired at once)."""
    if not user_id:
        raise services.BadFrame(_("Sign in to play rated games."))
    _table, length = services.table_options(preset, match_length)
    kind = services.clock_kind_for(preset, clock)
    playban.check(user_id)
    admission.check()
    ratelimits.check_create(ratelimits.session_identity(user_id), ip)
    collusion.note_seen(user_id, ip)
    now = clocks.now_ms()
    with transaction.atomic():
        # One join at a time per account (two tabs joining at once), so the old entry is left
        # before the new one is made and the one-waiting-entry constraint holds.
        get_user_model().objects.select_for_update().filter(pk=user_id).first()
        QueueEntry.objects.filter(user_id=user_id, status=QueueStatus.WAITING).update(
            status=QueueStatus.LEFT
        )
        entry = QueueEntry.objects.create(
            user_id=user_id,
            preset=preset,
            match_length=length or 1,
            clock_kind=kind,
            rating=ratings.rating_of(user_id, preset).rating,
            joined=clocks.from_ms(now),
        )
        touch(entry)  # before the commit: a pairing elsewhere never sees it untouched
    pair(now)
    entry.refresh_from_db()
    return entry


def leave(user_id, entry_id=None):
    """Take account ``user_id`` out of the queue (its lobby page closed or it gave up): its
    waiting entry, or only the entry ``entry_id`` if that one is still waiting (a closed tab
    leaves the entry it made, not one another tab made since). Returns how many waiting
    entries it left (0 or 1)."""
    entries = QueueEntry.objects.filter(user_id=user_id, status=QueueStatus.WAITING)
    if entry_id is not None:
        entries = entries.filter(pk=entry_id)
    with transaction.atomic():
        return entries.update(status=QueueStatus.LEFT)


def leave_and_tell(user_id):
    """``leave`` every waiting entry of account ``user_id`` and, after the commit, tell its
    lobby sockets (``left``). Returns how many entries it left."""
    with transaction.atomic():
        left = leave(user_id)
        if left:
            transaction.on_commit(lambda: dispatch.tell_lobby_left([user_id]), robust=True)
    return left


def touch(entry):
    """Mark the waiting QueueEntry ``entry`` alive for ``ALIVE_SECONDS`` more (its socket is
    open)."""
    cache.set(_alive_key(entry), 1, ALIVE_SECONDS)


def _alive_key(entry):
    # the join time too: an entry id of another database (tests, a reset) never matches
    return f"lobby:alive:{entry.pk}:{clocks.to_ms(entry.joined)}"


def state_of(entry, now=None):
    """The lobby socket's ``queued`` frame for a waiting ``entry`` (docs/protocol.md "Lobby"):
    ``preset``, ``match_length``, ``clock``, ``rating`` (rounded points, when it joined),
    ``provisional``, ``joined`` and ``server_time`` (ms since the epoch), ``window`` (the
    rating gap it accepts now) and ``window_start``/``window_growth`` (points per second)/
    ``window_max``, so the page can show the window widening."""
    now = clocks.now_ms() if now is None else now
    joined = clocks.to_ms(entry.joined)
    current = ratings.rating_of(entry.user_id, entry.preset)
    return {
        "type": "queued",
        "preset": entry.preset,
        "match_length": entry.match_length,
        "clock": entry.clock_kind,
        "rating": round(entry.rating),
        "provisional": current.provisional,
        "joined": joined,
        "server_time": now,
        "window": round(window(now - joined)),
        "window_start": WINDOW_START,
        "window_growth": WINDOW_GROWTH,
        "window_max": WINDOW_MAX,
    }


def waiting_entry(user_id):
    """The account's waiting QueueEntry, or None."""
    return QueueEntry.objects.filter(user_id=user_id, status=QueueStatus.WAITING).first()


def pair(now=None):
    """Pair every waiting player who can be paired now (``now`` in ms, default the current
    time): for each waiting entry, oldest first, the opponent with the same table whose rating
    gap fits the wider of the two windows, closest rating first. Creates each rated game with
    its clock (sides drawn by the server) and, after the commit, tells both players. Returns
    the new games."""
    now = clocks.now_ms() if now is None else now
    made = []
    with transaction.atomic():
        waiting = list(
            QueueEntry.objects.select_for_update()
            .filter(status=QueueStatus.WAITING)
            .order_by("joined", "pk")
        )
        waiting = _drop_lapsed(waiting)
        taken = set()
        for entry in waiting:
            if entry.pk in taken:
                continue
            best = None
            for other in waiting:
                if other.pk == entry.pk or other.pk in taken or other.user_id == entry.user_id:
                    continue
                if (other.preset, other.match_length, other.clock_kind) != (
                    entry.preset,
                    entry.match_length,
                    entry.clock_kind,
                ):
                    continue
                gap = abs(other.rating - entry.rating)
                allowed = max(
                    window(now - clocks.to_ms(entry.joined)),
                    window(now - clocks.to_ms(other.joined)),
                )
                if gap <= allowed and (best is None or gap < best[0]):
                    best = (gap, other)
            if best is None:
                continue
            other = best[1]
            taken.update((entry.pk, other.pk))
            game = _start(entry, other)
            for paired in (entry, other):
                paired.status = QueueStatus.PAIRED
                paired.game = game
                paired.save()
            made.append(game)
            transaction.on_commit(
                lambda users=(entry.user_id, other.user_id), game=game: dispatch.tell_lobby_paired(
                    users, game.pk
                ),
                robust=True,
            )
    return made


def _drop_lapsed(waiting):
    """The entries of ``waiting`` whose socket still touches them and whose player may still
    play rated games (``playban``: one who abandoned a lost game after joining); the others
    leave the queue (inside ``pair``'s transaction)."""
    if not waiting:
        return waiting
    alive = cache.get_many([_alive_key(entry) for entry in waiting])
    closed = playban.closed_to({entry.user_id for entry in waiting})
    lapsed = [
        entry for entry in waiting if _alive_key(entry) not in alive or entry.user_id in closed
    ]
    if lapsed:
        QueueEntry.objects.filter(pk__in=[entry.pk for entry in lapsed]).update(
            status=QueueStatus.LEFT
        )
        logger.info("lobby: %d entries left (no socket, or rated games closed)", len(lapsed))
        # a page still open (its key lost some other way) shows the form again
        transaction.on_commit(
            lambda users=[entry.user_id for entry in lapsed]: dispatch.tell_lobby_left(users),
            robust=True,
        )
    return [entry for entry in waiting if entry not in lapsed]


def _start(entry, other):
    """The rated game between two paired entries (inside ``pair``'s transaction); the players
    are seated by account only (they play it from any device they are signed in on)."""
    first_side = secrets.choice(Side.values)
    seats = {}
    for side, queued in ((first_side, entry), (other_side(first_side), other)):
        seats[f"{side}_user_id"] = queued.user_id
    length = entry.match_length if entry.preset == "match" else None
    table, length = services.table_options(entry.preset, length)
    return services.new_game(
        entry.preset,
        table,
        length,
        "random",
        clocks.CLOCKS[entry.clock_kind],
        {**seats, "rated": True},
    )
