"""HTTP views of the games app (docs/protocol.md "HTTP pages"). Thin: they read the session's
guest, call ``games.services`` (every change) or the read-only ``games.room.replays``, and render or
redirect."""

from urllib.parse import urlencode

from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from games import services, tournaments
from games.challenges.forms import ChallengeForm
from games.lobby.models import QueueEntry
from games.pages import creation_refused, form_errors, refusal_status, viewer_of, with_retry_after
from games.room.models import Game, Match
from games.services.reading import game_url
from games.tables import NewGameForm, clock_name, clock_summary

#: the game room's ES modules (static/games/room/), preloaded together by the game page
ROOM_MODULES = tuple(
    f"games/room/{name}.js"
    for name in (
        "main",
        "announce",
        "board-view",
        "chat",
        "clocks",
        "coach",
        "controls",
        "panels",
        "protocol",
        "rematch",
        "socket",
        "staging",
        "state",
        "texts",
        "turn-notice",
    )
)


@require_http_methods(["GET", "POST"])
def new_game(request):
    """POST: start a game against the computer for this session's guest; redirect to its page.
    GET (a bookmarked or typed address): redirect to the new-game form of "my games".

    Fields: see ``NewGameForm``. Bad values, or an option the preset does not have, get 400
    with the reason and create nothing. Too many new games lately (``ratelimits``): the 429
    page (templates/429.html: the reason and the new-game form, ``Retry-After`` header); the
    site full (``admission``): the 503 page (templates/503.html, the same with its reason).
    """
    if request.method == "GET":
        return redirect(reverse("games:my_games") + "#new")
    form = NewGameForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest(
            _("Unknown game options: %(reason)s") % {"reason": form_errors(form)},
            content_type="text/plain; charset=utf-8",
        )
    refusal = creation_refused(request)
    if refusal is not None:
        status = refusal_status(refusal)
        return with_retry_after(
            render(
                request,
                f"{status}.html",
                {"message": refusal.message, "new_game_form": NewGameForm()},
                status=status,
            ),
            refusal,
        )
    viewer = viewer_of(request)
    try:
        # a signed-in player's game is the account's too (theirs on any device)
        game = services.create_bot_game(viewer, **form.options())
    except services.GameError as error:
        return HttpResponseBadRequest(error.message, content_type="text/plain; charset=utf-8")
    return redirect("games:game", game_id=game.id)


@require_GET
def game_page(request, game_id):
    """GET: the page of one game. Its guest may play; anyone else sees it read-only.

    Context: ``game``, ``ws_path`` (the socket path, with the page's language), ``is_player``,
    ``initial_snapshot`` (the ``game`` object of this viewer's docs/protocol.md snapshot, to
    embed with ``json_script`` so the board shows before the socket connects),
    ``options_form`` (this game's options, for "play again": a ``NewGameForm`` against the
    computer, a ``ChallengeForm`` between people), ``again_url`` (where that form posts),
    ``between_people`` (bool), ``clock`` (None, or ``{"kind", "name", "summary"}``: the
    game's clock and what it means), ``lobby_url`` (the lobby, for a game the lobby paired:
    "play again" there finds another opponent; else None), ``tournament`` (``{"url",
    "title", "ws_path", "running", "arena", "result"}`` of the event the game belongs to,
    else None),
    ``new_game_form`` (a blank form: the computer levels that exist), ``room_modules``
    (``ROOM_MODULES``, preloaded) and ``rematch_of_url`` (the page of the game this one is the
    rematch of, else None; the snapshot's ``rematch`` says where a finished game's went).
    """
    game = get_object_or_404(Game.objects.select_related("match"), pk=game_id)
    game = services.settle_clock(game)  # a deadline that has passed is applied before showing it
    viewer = viewer_of(request)
    you = game.side_of(viewer)
    spec = services.clock_spec(game)
    between_people = not game.bot_side
    context = {
        "game": game,
        "ws_path": f"/ws/game/{game.id}/?lang={get_language()}",
        "is_player": you is not None,
        "initial_snapshot": services.snapshot(game, viewer)["game"],
        "between_people": between_people,
        "options_form": (
            ChallengeForm.for_game(game, you) if between_people else NewGameForm.for_game(game, you)
        ),
        "again_url": reverse("games:challenge_new" if between_people else "games:new"),
        "clock": (
            {"kind": spec.kind, "name": clock_name(spec.kind), "summary": clock_summary(spec)}
            if spec
            else None
        ),
        "lobby_url": _lobby_url(game),
        "tournament": tournaments.event_of_game(game, viewer.user_id),
        "new_game_form": NewGameForm(),
        "room_modules": ROOM_MODULES,
        "rematch_of_url": _rematch_of_url(game),
    }
    return render(request, "games/game.html", context)


def _rematch_of_url(game):
    """The page of the finished game ``game`` is the rematch of (``Game.rematch``), or None."""
    return game_url(Game.objects.filter(rematch=game).values_list("pk", flat=True).first())


def _lobby_url(game):
    """For a game (or a game of a match) that the lobby paired: the lobby's page with its pool
    and table chosen, to look for another opponent; else None."""
    if game.bot_side:
        return None
    entries = (
        QueueEntry.objects.filter(game__match_id=game.match_id)
        if game.match_id
        else QueueEntry.objects.filter(game=game)
    )
    entry = entries.only("pool", "preset", "match_length").first()
    if entry is None:
        return None
    query = {"pool": entry.pool, "preset": entry.preset}
    if entry.preset == "match":
        query["match_length"] = entry.match_length
    return f"{reverse('games:lobby')}?{urlencode(query)}"


@require_GET
def match_page(request, match_id):
    """GET: the room of a match: redirects to the match's latest game (R11)."""
    match = get_object_or_404(Match, pk=match_id)
    latest = match.latest_game()
    if latest is None:
        raise Http404
    return redirect("games:game", game_id=latest.id)


# --- games between people: challenge links ---------------------------------------------
