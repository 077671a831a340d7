"""Creating events and entering them: staff (or the schedule) create an arena or a cup;
signed-in players enter and leave."""

from datetime import timedelta

from django.utils.translation import gettext as _

from games import clocks, ratings
from games.choices import Preset
from games.services import playban
from games.services.errors import BadFrame
from games.services.options import clock_kind_for
from games.tournaments import cup, presence, rules
from games.tournaments.errors import TournamentError
from games.tournaments.models import Entrant, Tournament, TournamentKind, TournamentStatus
from games.tournaments.unit import changing


def check_options(
    kind,
    preset,
    *,
    name="",
    clock_kind=None,
    match_length=None,
    size=None,
    starts_at=None,
    minutes=None,
    chat_off=False,
):
    """Check the options of a new event (as ``create`` takes them) and return its model
    fields. Raises BadFrame naming the wrong option."""
    if kind not in TournamentKind.values:
        raise BadFrame(_("Unknown kind of event."))
    if preset not in Preset.values:
        raise BadFrame(_("Unknown rules preset."))
    fields = {
        "name": (name or "").strip()[:80],
        "kind": kind,
        "preset": preset,
        "chat_off": bool(chat_off),
    }
    if kind == TournamentKind.ARENA:
        if starts_at is None:
            raise BadFrame(_("An arena needs a start time."))
        if type(minutes) is not int or not 1 <= minutes <= rules.ARENA_MAX_MINUTES:
            raise BadFrame(_("An arena lasts from 1 minute to 24 hours."))
        try:
            ends_at = starts_at + timedelta(minutes=minutes)
        except (OverflowError, TypeError):
            raise BadFrame(_("That start time is out of range.")) from None
        fields.update(
            clock_kind=clock_kind_for(preset, clock_kind),
            match_length=1,
            starts_at=starts_at,
            ends_at=ends_at,
        )
    else:
        if preset != Preset.MATCH:
            raise BadFrame(_("A cup plays matches: choose the match rules."))
        if size not in rules.CUP_SIZES:
            raise BadFrame(_("A cup has 4, 8 or 16 players."))
        if match_length not in rules.CUP_MATCH_LENGTHS:
            raise BadFrame(_("A cup's matches are played to 3, 5 or 7 points."))
        fields.update(
            clock_kind=clock_kind_for(preset, clock_kind),
            match_length=match_length,
            size=size,
            starts_at=starts_at,
        )
    return fields


def create(kind, preset, *, created_by=None, schedule_key="", **options):
    """Create an event, open for entries.

    An arena (``kind`` "arena") of any R12 ``preset`` runs ``minutes`` (1 to
    ``rules.ARENA_MAX_MINUTES``) from ``starts_at`` (an aware datetime) with the clock
    ``clock_kind`` (default the preset's; a ``match`` arena plays 1-point matches). A cup
    (``kind`` "cup") of ``size`` 4, 8 or 16 plays matches of ``match_length`` 3, 5 or 7 points
    in the ``match`` preset with its clock; it starts when full, or at ``starts_at`` if one is
    given with whoever entered. ``chat_off``: no chat in its games (``games.chat``).
    ``name`` (optional; else one is made from the options),
    ``created_by`` (the staff account) and ``schedule_key`` (the schedule's slot) are kept.
    Raises BadFrame naming the wrong option. Returns the event."""
    fields = check_options(kind, preset, **options)
    return Tournament.objects.create(
        schedule_key=schedule_key, created_by_id=getattr(created_by, "pk", created_by), **fields
    )


def join(tournament_id, user_id):
    """Enter account ``user_id`` in the event (or, in an arena, bring them back after they
    left or were marked away). A cup that becomes full starts at once (its bracket drawn).
    Raises BadFrame without an account, services.PlayBanned while rated games are closed to
    it, TournamentError when the event is over, a cup is full or under way, or the event
    withdrew them (``arena``'s quick losses), and Tournament.DoesNotExist. Returns the
    Entrant."""
    if not user_id:
        raise BadFrame(_("Sign in to play in tournaments."))
    playban.check(user_id)
    now = clocks.now_ms()
    with changing(tournament_id) as change:
        tournament = change.tournament
        ended = tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED)
        if ended or (tournament.is_arena and now >= clocks.to_ms(tournament.ends_at)):
            raise TournamentError(_("This event is over."))
        entrant = Entrant.objects.filter(tournament=tournament, user_id=user_id).first()
        if entrant is not None and entrant.withdrawn:
            raise TournamentError(withdrawal_message())
        if entrant is not None:
            if not entrant.active or entrant.away:
                entrant.active, entrant.away = True, False
                entrant.save()
                change.mark()
                change.advance = tournament.status == TournamentStatus.RUNNING
            return entrant
        if tournament.kind == TournamentKind.CUP:
            if tournament.status == TournamentStatus.RUNNING:
                raise TournamentError(_("This cup has started; join the next one."))
            if Entrant.objects.filter(tournament=tournament).count() >= tournament.size:
                raise TournamentError(_("This cup is full."))
        entrant = Entrant.objects.create(
            tournament=tournament,
            user_id=user_id,
            rating=ratings.rating_of(user_id, tournament.preset).rating,
            joined=clocks.from_ms(now),
        )
        change.mark()
        if tournament.kind == TournamentKind.CUP:
            if Entrant.objects.filter(tournament=tournament).count() == tournament.size:
                cup.start(change, now)
        elif (
            tournament.status == TournamentStatus.RUNNING
            or clocks.to_ms(tournament.starts_at) <= now
        ):
            change.advance = True  # paired at once (an arena past its start starts now)
    return entrant


def withdrawal_message():
    """Why an arena withdrew an entrant from pairing, in the active language."""
    return _(
        "You were withdrawn from this arena: %(count)d of your games here ended before you "
        "had made %(plays)d plays (aborted, resigned or left at once). Your points stay; "
        "join the next arena to play again."
    ) % {"count": rules.QUICK_LOSS_LIMIT, "plays": rules.MIN_LOSER_PLAYS}


def leave(tournament_id, user_id):
    """Take account ``user_id`` out of the event: before it starts their entry is deleted; in
    a running arena they are no longer paired and keep their points (a game under way goes
    on). Raises TournamentError when they are not entered, the event is over, or a cup is
    under way (its matches are resigned, not left), and Tournament.DoesNotExist."""
    with changing(tournament_id) as change:
        tournament = change.tournament
        entrant = Entrant.objects.filter(tournament=tournament, user_id=user_id).first()
        if entrant is None:
            raise TournamentError(_("You are not entered in this event."))
        if tournament.status == TournamentStatus.UPCOMING:
            entrant.delete()
        elif tournament.status == TournamentStatus.RUNNING and tournament.is_arena:
            if not entrant.active:
                return entrant
            entrant.active = False
            entrant.save()
        elif tournament.status == TournamentStatus.RUNNING:
            raise TournamentError(
                _("A cup cannot be left once it has started: resign your match instead.")
            )
        else:
            raise TournamentError(_("This event is over."))
        change.mark()
    return entrant


def cancel(tournament_id):
    """Call off an event that has not started (staff). Raises TournamentError once it has
    started, and Tournament.DoesNotExist. Returns the event."""
    with changing(tournament_id) as change:
        tournament = change.tournament
        if tournament.status != TournamentStatus.UPCOMING:
            raise TournamentError(_("Only an event that has not started can be called off."))
        tournament.status = TournamentStatus.CANCELLED
        tournament.finished = clocks.from_ms(clocks.now_ms())
        change.mark()
    return tournament


def arrived(tournament_id, user_id, channel_name):
    """A socket of signed-in account ``user_id`` opened on the event (its page, or one of its
    games): it counts as here (``presence``); an arena entrant marked away is back and may be
    paired again. Returns True if they were marked back."""
    presence.socket_opened(tournament_id, user_id, channel_name)
    marked = Entrant.objects.filter(
        tournament_id=tournament_id, user_id=user_id, active=True, away=True
    )
    if not marked.exists():
        return False
    with changing(tournament_id) as change:
        entrant = marked.first()
        if entrant is None or change.tournament.status != TournamentStatus.RUNNING:
            return False
        entrant.away = False
        entrant.save(update_fields=["away"])
        change.mark()
        change.advance = True
    return True
