"""Matchmaking for games between people (part of the service layer), in two pools.

The **casual** pool is open to anyone, guests included (a session's guest id; a signed-in
player is known by account as well): unrated games, the oldest waiter paired first with the
next who chose the same table. The **rated** pool is for signed-in accounts: rated games,
players paired when their ratings are close enough. The window of each waiting rated player
widens with the time they have waited (``window``); a pair is made when the rating gap fits
the wider of the two windows, oldest waiter first. A table is a preset, a match length and a
clock kind.

Pairing runs when someone joins and from Celery beat (``games.tasks.pair_lobby``), so windows
widen without new arrivals; beat's run also tells every open lobby socket how many wait in
each pool (``announce_counts``), when that changed. Both players hear of their game on their
channel group (``group_of``: ``lobby_user_<id>`` or ``lobby_guest_<hash>``) after the commit
that created it.

A waiting entry is kept alive by the lobby socket that made it (``touch``, a key in Django's
cache that lapses after ``ALIVE_SECONDS``): an entry whose socket vanished without closing (a
server restart) leaves the queue at the next pairing instead of being paired with a player
who would then wait for a no-show.
"""

import json
import logging
import secrets

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils.translation import gettext as _

from games import admission, app_settings, clocks, ratelimits, ratings, services
from games.accounts import collusion
from games.choices import Preset, Side, other_side
from games.glicko2 import DEFAULT_RATING
from games.lobby.models import Pool, QueueEntry, QueueStatus
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
#: after this long alone in the queue (ms) the page offers a game against the computer
OFFER_COMPUTER_MS = 20_000
#: the cache key holding the counts last announced (``announce_counts``)
_COUNTS_KEY = "lobby:counts"


def group_name(actor):
    """The channel group of the lobby sockets of ``actor`` (a ``services.Actor``): its
    account's if signed in, else its guest id's."""
    return dispatch.lobby_group(actor.user_id, actor.guest_id)


def group_of(entry):
    """The channel group of the lobby sockets of the player who made QueueEntry ``entry``."""
    return dispatch.lobby_group(entry.user_id, entry.guest)


def _own_entries(actor):
    """The QueueEntry rows of ``actor``: by account if signed in, else by guest id."""
    if actor.user_id:
        return QueueEntry.objects.filter(user_id=actor.user_id)
    return QueueEntry.objects.filter(user__isnull=True, guest=actor.guest_id or "")


def window(waited_ms):
    """The rating gap (points) a player who has waited ``waited_ms`` accepts."""
    return min(WINDOW_MAX, WINDOW_START + WINDOW_GROWTH * max(0, waited_ms) / 1000)


def join(actor, preset, match_length=None, clock=None, pool=Pool.RATED, identity=None, ip=None):
    """Put ``actor`` (a ``services.Actor``) in the queue of ``pool`` ("casual": anyone,
    unrated; "rated": accounts only) for a game of ``preset`` (``match_length`` 1/3/5/7 for
    ``match``; ``clock`` a kind of ``games.clocks.CLOCKS``, None: the preset's), replacing any
    entry it had, then pair. ``identity`` is who the rate limits count
    (``ratelimits.session_identity``; default the account) and ``ip`` the client address.

    Raises services.BadFrame for a wrong option or pool, a rated join without an account or a
    player with neither account nor guest id, services.PlayBanned while rated games are
    closed to the account (``services.playban``; casual games never count there),
    ``games.ratelimits.RateLimited`` when the visitor, or the client address ``ip``, has
    started too many games lately (a join counts as one), ``games.admission.SiteFull`` when
    the site runs as many games as it can serve (asked without taking a place: the game's
    place is taken when ``pair`` starts it). Returns the QueueEntry (its ``game`` set if it
    was paired at once)."""
    if pool not in Pool.values:
        raise services.BadFrame(_("Unknown pool."))
    if pool == Pool.RATED and not actor.user_id:
        raise services.BadFrame(_("Sign in to play rated games."))
    if not (actor.user_id or actor.guest_id):
        raise services.BadFrame(_("This browser has no session yet: open the lobby page again."))
    _table, length = services.table_options(preset, match_length)
    kind = services.clock_kind_for(preset, clock)
    if pool == Pool.RATED:
        playban.check(actor.user_id)
    # a join makes no game: it asks whether one fits and takes no place (``pair`` takes the
    # place of each game it starts), so joins, refused or not, never fill the site
    if not admission.has_room():
        raise admission.SiteFull(app_settings.FULL_RETRY_SECONDS)
    if identity is None:
        identity = ratelimits.session_identity(actor.user_id)
    ratelimits.check_create(identity, ip)
    if actor.user_id:
        collusion.note_seen(actor.user_id, ip)
    rating = ratings.rating_of(actor.user_id, preset).rating if actor.user_id else DEFAULT_RATING
    now = clocks.now_ms()
    fields = {
        "user_id": actor.user_id,
        "guest": actor.guest_id or "",
        "pool": pool,
        "preset": preset,
        "match_length": length or 1,
        "clock_kind": kind,
        "rating": rating,
        "joined": clocks.from_ms(now),
    }
    try:
        entry = _replace_entry(actor, fields)
    except IntegrityError:
        # another tab of the same guest joined at the same moment: its entry has committed,
        # so this one replaces it
        entry = _replace_entry(actor, fields)
    pair(now)
    entry.refresh_from_db()
    return entry


def _replace_entry(actor, fields):
    """The new waiting QueueEntry of ``fields``, after ``actor``'s waiting entry (if any)
    left the queue, in one transaction."""
    with transaction.atomic():
        if actor.user_id:
            # one join at a time per account (two tabs joining at once)
            get_user_model().objects.select_for_update().filter(pk=actor.user_id).first()
        _own_entries(actor).filter(status=QueueStatus.WAITING).update(status=QueueStatus.LEFT)
        if fields["guest"]:
            QueueEntry.objects.filter(guest=fields["guest"], status=QueueStatus.WAITING).update(
                status=QueueStatus.LEFT
            )
        entry = QueueEntry.objects.create(**fields)
        touch(entry)  # before the commit: a pairing elsewhere never sees it untouched
    return entry


def leave(actor, entry_id=None):
    """Take ``actor`` (a ``services.Actor``) out of the queue (its lobby page closed or it
    gave up): its waiting entry, or only the entry ``entry_id`` if that one is still waiting
    (a closed tab leaves the entry it made, not one another tab made since). Returns how many
    waiting entries it left (0 or 1)."""
    entries = _own_entries(actor).filter(status=QueueStatus.WAITING)
    if entry_id is not None:
        entries = entries.filter(pk=entry_id)
    with transaction.atomic():
        return entries.update(status=QueueStatus.LEFT)


def leave_and_tell(user_id):
    """``leave`` every waiting entry of account ``user_id`` and, after the commit, tell its
    lobby sockets (``left``). Returns how many entries it left."""
    actor = services.Actor(user_id=user_id)
    with transaction.atomic():
        left = leave(actor)
        if left:
            group = group_name(actor)
            transaction.on_commit(lambda: dispatch.tell_lobby_left([group]), robust=True)
    return left


def touch(entry):
    """Mark the waiting QueueEntry ``entry`` alive for ``ALIVE_SECONDS`` more (its socket is
    open)."""
    cache.set(_alive_key(entry), 1, ALIVE_SECONDS)


def keep_alive(entry):
    """For the lobby socket that made ``entry``, every ``TOUCH_SECONDS``: ``touch`` it while
    it still waits. Returns ``(status, game_id)`` as the database has them now, so a socket
    that missed its ``left`` or ``paired`` message (its group lost with Redis' data) learns
    it here."""
    found = QueueEntry.objects.filter(pk=entry.pk).values_list("status", "game_id").first()
    status, game_id = found or (QueueStatus.LEFT, None)
    if status == QueueStatus.WAITING:
        touch(entry)
    return status, game_id


def _alive_key(entry):
    # the join time too: an entry id of another database (tests, a reset) never matches
    return f"lobby:alive:{entry.pk}:{clocks.to_ms(entry.joined)}"


def state_of(entry, now=None):
    """The lobby socket's ``queued`` frame for a waiting ``entry`` (docs/protocol.md "Lobby"):
    ``pool``, ``preset``, ``match_length``, ``clock``, ``joined`` and ``server_time`` (ms
    since the epoch), ``offer_computer_ms`` (after this long waiting the page offers a game
    against the computer); in the rated pool also ``rating`` (rounded points, when it
    joined), ``provisional``, ``window`` (the rating gap it accepts now) and
    ``window_start``/``window_growth`` (points per second)/``window_max``, so the page can
    show the window widening."""
    now = clocks.now_ms() if now is None else now
    joined = clocks.to_ms(entry.joined)
    frame = {
        "type": "queued",
        "pool": entry.pool,
        "preset": entry.preset,
        "match_length": entry.match_length,
        "clock": entry.clock_kind,
        "joined": joined,
        "server_time": now,
        "offer_computer_ms": OFFER_COMPUTER_MS,
    }
    if entry.pool == Pool.RATED:
        frame.update(
            rating=round(entry.rating),
            provisional=ratings.rating_of(entry.user_id, entry.preset).provisional,
            window=round(window(now - joined)),
            window_start=WINDOW_START,
            window_growth=WINDOW_GROWTH,
            window_max=WINDOW_MAX,
        )
    return frame


def waiting_entry(actor):
    """The waiting QueueEntry of ``actor`` (a ``services.Actor``), or None."""
    return _own_entries(actor).filter(status=QueueStatus.WAITING).first()


def counts():
    """How many wait in each pool: ``{pool: {"total": n, "sport": n, "classic": n, "match":
    n}}`` for "casual" and "rated" (entries whose socket vanished count until the next
    pairing drops them, within a few seconds)."""
    found = {pool: {"total": 0, **dict.fromkeys(Preset.values, 0)} for pool in Pool.values}
    rows = (
        QueueEntry.objects.filter(status=QueueStatus.WAITING)
        .values_list("pool", "preset")
        .annotate(n=Count("pk"))
    )
    for pool, preset, number in rows:
        found[pool][preset] += number
        found[pool]["total"] += number
    return found


def announce_counts():
    """Tell every open lobby socket the ``counts`` if they changed since the last
    announcement (beat's pairing calls this every ``LOBBY_PAIR_SECONDS``; a burst of joins
    costs one frame a socket per run, not one per join). Returns the counts."""
    now = counts()
    text = json.dumps(now, sort_keys=True)
    if cache.get(_COUNTS_KEY) != text:
        cache.set(_COUNTS_KEY, text, None)
        dispatch.tell_lobby_counts(now)
    return now


def pair(now=None):
    """Pair every waiting player who can be paired now (``now`` in ms, default the current
    time), table by table and pool by pool: in the casual pool, the oldest waiter with the
    next oldest; in the rated pool, for each waiting entry, oldest first, the opponent whose
    rating gap fits the wider of the two windows, closest rating first. Never a player with
    themselves (the same account or guest id). Creates each game with its clock (sides drawn
    by the server), each taking its place under the site's cap (``admission.check``: when
    the site is full the rest keep waiting for a later run) and, after the commit, tells both
    players. Returns the new games."""
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
            other = _opponent(entry, waiting, taken, now)
            if other is None:
                continue
            try:
                admission.check()  # the game's place; a full site leaves them waiting
            except admission.SiteFull:
                logger.info("lobby: the site is full, %d players keep waiting", len(waiting))
                break
            taken.update((entry.pk, other.pk))
            game = _start(entry, other)
            for paired in (entry, other):
                paired.status = QueueStatus.PAIRED
                paired.game = game
                paired.save()
            made.append(game)
            groups = (group_of(entry), group_of(other))
            transaction.on_commit(
                lambda groups=groups, game=game: dispatch.tell_lobby_paired(groups, game.pk),
                robust=True,
            )
    return made


def _same_player(entry, other):
    return bool(entry.user_id and entry.user_id == other.user_id) or bool(
        entry.guest and entry.guest == other.guest
    )


def _opponent(entry, waiting, taken, now):
    """The waiting entry ``entry`` is paired with now, or None (inside ``pair``)."""
    table = (entry.pool, entry.preset, entry.match_length, entry.clock_kind)
    best = None
    for other in waiting:
        if other.pk == entry.pk or other.pk in taken or _same_player(entry, other):
            continue
        if (other.pool, other.preset, other.match_length, other.clock_kind) != table:
            continue
        if entry.pool == Pool.CASUAL:
            return other  # the oldest: ``waiting`` is in order of joining
        gap = abs(other.rating - entry.rating)
        allowed = max(
            window(now - clocks.to_ms(entry.joined)),
            window(now - clocks.to_ms(other.joined)),
        )
        if gap <= allowed and (best is None or gap < best[0]):
            best = (gap, other)
    return best[1] if best is not None else None


def _drop_lapsed(waiting):
    """The entries of ``waiting`` whose socket still touches them and, in the rated pool,
    whose player may still play rated games (``playban``: one who abandoned a lost game after
    joining); the others leave the queue (inside ``pair``'s transaction)."""
    if not waiting:
        return waiting
    alive = cache.get_many([_alive_key(entry) for entry in waiting])
    closed = playban.closed_to(
        {entry.user_id for entry in waiting if entry.pool == Pool.RATED and entry.user_id}
    )
    lapsed = [
        entry
        for entry in waiting
        if _alive_key(entry) not in alive or (entry.pool == Pool.RATED and entry.user_id in closed)
    ]
    if lapsed:
        QueueEntry.objects.filter(pk__in=[entry.pk for entry in lapsed]).update(
            status=QueueStatus.LEFT
        )
        logger.info("lobby: %d entries left (no socket, or rated games closed)", len(lapsed))
        # a page still open (its key lost some other way) shows the form again
        groups = [group_of(entry) for entry in lapsed]
        transaction.on_commit(lambda: dispatch.tell_lobby_left(groups), robust=True)
    return [entry for entry in waiting if entry not in lapsed]


def _start(entry, other):
    """The game between two paired entries (inside ``pair``'s transaction), rated in the
    rated pool. Rated players are seated by account only (they play it from any device they
    are signed in on); casual players by guest id and, if signed in, account."""
    first_side = secrets.choice(Side.values)
    rated = entry.pool == Pool.RATED
    seats = {}
    for side, queued in ((first_side, entry), (other_side(first_side), other)):
        seats[f"{side}_user_id"] = queued.user_id
        if not rated:
            seats[f"{side}_guest"] = queued.guest
    length = entry.match_length if entry.preset == "match" else None
    table, length = services.table_options(entry.preset, length)
    return services.new_game(
        entry.preset,
        table,
        length,
        "random",
        clocks.CLOCKS[entry.clock_kind],
        {**seats, "rated": rated},
    )
