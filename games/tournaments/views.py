"""The tournament pages (issue #18; docs/protocol.md "HTTP pages"): the list of events, an
event's page (its standings or bracket, live over ``ws/tournament/<uuid>/``), and the forms
that enter and leave it. Thin: they read, call ``games.tournaments`` and redirect."""

from django.contrib import messages
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games import clocks, ratelimits, tournaments
from games.accounts import collusion, dev_sign_in, sign_in
from games.choices import Preset
from games.pages import login_url, viewer_of
from games.services import GameError, playban
from games.tables import clock_name, clock_summary
from games.tournaments import rules as tournament_rules
from games.tournaments.models import Entrant, Tournament, TournamentKind, TournamentStatus

#: how many finished events the list shows
FINISHED_SHOWN = 20


def table_text(tournament):
    """The event's table in words: "Sport · Standard clock", "Match to 5 points · Match
    clock"."""
    if tournament.preset == Preset.MATCH and tournament.match_length > 1:
        points = tournament.match_length
        rules: str | Promise = ngettext(
            "Match to %(points)s point", "Match to %(points)s points", points
        ) % {"points": points}
    else:
        rules = Preset(tournament.preset).label
    return f"{rules} · {clock_name(tournament.clock_kind)}"


def event_row(tournament, entered=()):
    """One event as the list shows it: ``{"id", "url", "title", "kind", "kind_label",
    "table", "status", "starts_at", "ends_at", "starts_ms", "ends_ms", "finished",
    "entrants", "size", "entered"}``."""
    return {
        "id": tournament.pk,
        "url": reverse("games:tournament", kwargs={"tournament_id": tournament.pk}),
        "title": tournaments.title(tournament),
        "kind": tournament.kind,
        "kind_label": TournamentKind(tournament.kind).label,
        "table": table_text(tournament),
        "status": tournament.status,
        "starts_at": tournament.starts_at,
        "ends_at": tournament.ends_at,
        "starts_ms": clocks.to_ms(tournament.starts_at),
        "ends_ms": clocks.to_ms(tournament.ends_at),
        "finished": tournament.finished,
        "entrants": getattr(tournament, "entrant_count", None),
        "size": tournament.size,
        "entered": tournament.pk in entered,
    }


@require_GET
def tournament_list(request):
    """GET: the events: running, upcoming (sit-and-go cups first, then by start) and the
    last ``FINISHED_SHOWN`` finished. Context: ``running``, ``upcoming``, ``finished`` (lists
    of ``event_row``), ``signed_in``, ``login_url``, ``server_time`` (ms)."""
    viewer = viewer_of(request, create=False)
    entered = set()
    if viewer.user_id:
        entered = set(
            Entrant.objects.filter(user_id=viewer.user_id).values_list("tournament_id", flat=True)
        )
    counted = Tournament.objects.annotate(entrant_count=Count("entrants"))
    upcoming = sorted(
        counted.filter(status=TournamentStatus.UPCOMING),
        key=lambda t: (t.starts_at is not None, t.starts_at or t.created, t.size or 0),
    )
    context = {
        "running": [
            event_row(t, entered)
            for t in counted.filter(status=TournamentStatus.RUNNING).order_by("ends_at", "started")
        ],
        "upcoming": [event_row(t, entered) for t in upcoming],
        "finished": [
            event_row(t, entered)
            for t in counted.filter(status=TournamentStatus.FINISHED).order_by("-finished")[
                :FINISHED_SHOWN
            ]
        ],
        "signed_in": bool(viewer.user_id),
        "login_url": login_url(reverse("games:tournaments")),
        "server_time": clocks.now_ms(),
    }
    return render(request, "games/tournaments.html", context)


@require_GET
def tournament_page(request, tournament_id):
    """GET: one event. Context: ``event`` (``event_row``), ``state`` (``tournaments.state``,
    embedded for the page's script and rendered for a page without one), ``rounds`` (a cup's
    bracket by round: ``[{"number", "name", "slots": [bracket rows]}]``), ``names`` ({user
    id: name}), ``you`` (the viewer's standings row, or None), ``your_game`` (the page of
    their game under way, or None), ``can_join``, ``can_leave``, ``signed_in``,
    ``login_url``, ``sign_in_with``, ``dev_sign_in``, ``clock`` ({"name", "summary"}),
    ``playban``, ``ws_path``, the arena's fairness rules (``min_plays``, ``quick_limit``) and
    ``withdrawal`` (why an entrant was withdrawn)."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    viewer = viewer_of(request, create=False)
    state = tournaments.state(tournament.pk)
    names = {row["user"]: row["name"] for row in state["standings"]}
    you = next((row for row in state["standings"] if row["user"] == viewer.user_id), None)
    open_for_entries = tournament.status == TournamentStatus.UPCOMING or (
        tournament.status == TournamentStatus.RUNNING
        and tournament.is_arena
        and clocks.now_ms() < clocks.to_ms(tournament.ends_at)
    )
    full = (
        tournament.kind == TournamentKind.CUP
        and tournament.status == TournamentStatus.UPCOMING
        and state["entrants"] >= tournament.size
    )
    comes_back = you is None or (not you["active"] and not you["withdrawn"]) or you["away"]
    can_join = open_for_entries and not full and comes_back
    can_leave = you is not None and (
        tournament.status == TournamentStatus.UPCOMING
        or (tournament.status == TournamentStatus.RUNNING and tournament.is_arena and you["active"])
    )
    spec = clocks.CLOCKS[tournament.clock_kind]
    event_url = reverse("games:tournament", kwargs={"tournament_id": tournament.pk})
    context = {
        "event": event_row(tournament),
        "state": state,
        "rounds": bracket_rounds(tournament, state, names),
        "games": [
            {
                "url": reverse("games:game", kwargs={"game_id": game["game"]}),
                "white_name": names.get(game["white"], ""),
                "black_name": names.get(game["black"], ""),
            }
            for game in state["games"]
        ],
        "you": you,
        "your_game": (
            reverse("games:game", kwargs={"game_id": you["playing"]})
            if you and you["playing"]
            else None
        ),
        "can_join": can_join,
        "can_leave": can_leave,
        "signed_in": bool(viewer.user_id),
        "login_url": login_url(event_url),
        "sign_in_with": "" if viewer.user_id else sign_in.sign_in_services(request),
        "dev_sign_in": dev_sign_in.enabled(),
        "clock": {"name": clock_name(spec.kind), "summary": clock_summary(spec)},
        "playban": playban.notice(viewer.user_id),
        "ws_path": f"/ws/tournament/{tournament.pk}/?lang={get_language()}",
        "min_plays": tournament_rules.MIN_LOSER_PLAYS,
        "quick_limit": tournament_rules.QUICK_LOSS_LIMIT,
        "withdrawal": tournaments.withdrawal_message(),
    }
    return render(request, "games/tournament.html", context)


def round_name(number, rounds):
    """A cup round's name: "Final" (the last), "Semi-finals", "Quarter-finals", else
    "Round n"."""
    left = rounds - number
    if left == 0:
        return _("Final")
    if left == 1:
        return _("Semi-finals")
    if left == 2:
        return _("Quarter-finals")
    return _("Round %(number)d") % {"number": number}


def bracket_rounds(tournament, state, names):
    """A cup's bracket rows (``state["bracket"]``, with the players' ``names``: {user id:
    name}) grouped by round, in order, each ``{"number", "name", "slots"}``; [] for an arena
    or a cup not yet drawn."""
    if tournament.kind != TournamentKind.CUP or not tournament.rounds:
        return []
    rounds = []
    for number in range(1, tournament.rounds + 1):
        slots = [
            dict(row, white_name=names.get(row["white"]), black_name=names.get(row["black"]))
            for row in state["bracket"]
            if row["round"] == number
        ]
        name = round_name(number, tournament.rounds)
        rounds.append({"number": number, "name": name, "slots": slots})
    return rounds


@require_POST
def tournament_join(request, tournament_id):
    """POST: enter the event (or come back to an arena). A guest is sent to sign in and back;
    a refusal (full, over, rated games closed, too many entries lately: ``GAMES_ENTRY_*``) is
    shown on the event's page."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    event_url = reverse("games:tournament", kwargs={"tournament_id": tournament.pk})
    viewer = viewer_of(request, create=False)
    if not viewer.user_id:
        return redirect(login_url(event_url))
    try:
        ratelimits.check_entry(*ratelimits.request_identity(request))
        tournaments.join(tournament.pk, viewer.user_id)
        collusion.note_seen(viewer.user_id, request.META.get("REMOTE_ADDR"))
    except GameError as error:  # RateLimited is one
        messages.error(request, error.message)
    return redirect(f"{event_url}#t-actions")  # the keyboard's place stays at the forms


@require_POST
def tournament_leave(request, tournament_id):
    """POST: leave the event (withdraw an entry before the start; stop being paired in a
    running arena, keeping the points)."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    event_url = reverse("games:tournament", kwargs={"tournament_id": tournament.pk})
    viewer = viewer_of(request, create=False)
    if viewer.user_id:
        try:
            ratelimits.check_entry(*ratelimits.request_identity(request))
            tournaments.leave(tournament.pk, viewer.user_id)
        except GameError as error:
            messages.error(request, error.message)
    return redirect(f"{event_url}#t-actions")
