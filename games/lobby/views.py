"""The lobby page: a signed-in player picks the table and looks for a rated opponent over the
lobby socket (games.lobby.consumer)."""

from django.db.models import Q
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games import clocks, ratings, services
from games.accounts import dev_sign_in, sign_in
from games.challenges.forms import clock_choices
from games.choices import Preset, Status, other_side
from games.pages import login_url, viewer_of
from games.room.models import Game
from games.services import playban


@require_GET
def lobby_page(request):
    """GET: the lobby of rated games. A signed-in player picks the rules, the match length
    and the clock and looks for an opponent over the lobby socket (static/games/lobby.js,
    docs/protocol.md "Lobby"); a guest is told why rated games need an account and how to
    sign in.

    Context: ``signed_in``, ``login_url`` (sign in and come back here), ``sign_in_with``
    (for a guest: the configured providers, "Google or Telegram"; "" if none), ``can_sign_in``
    (some way to sign in exists here), ``dev_sign_in`` (the development sign-in is on),
    ``ws_path`` (the
    lobby socket, with the page's language), ``ratings`` (``{preset: {"rating",
    "provisional", "games"}}``: the account's, 1500 provisional where it has none),
    ``clock_choices`` (``clock_choices()``), ``preset_clocks`` (``{preset: kind}``) and
    ``active_games`` (the account's rated games in progress, newest first: ``{"url",
    "preset", "match_length", "opponent"}``), ``playban`` (``services.playban.notice``)."""
    viewer = viewer_of(request, create=False)
    context = {
        "signed_in": bool(viewer.user_id),
        "login_url": login_url(reverse("games:lobby")),
        "sign_in_with": "" if viewer.user_id else sign_in.sign_in_services(request),
        "can_sign_in": bool(viewer.user_id) or sign_in.sign_in_available(request),
        "dev_sign_in": dev_sign_in.enabled(),
        "ws_path": f"/ws/lobby/?lang={get_language()}",
        "clock_choices": clock_choices(),
        "preset_clocks": clocks.PRESET_CLOCK,
        "ratings": {},
        "active_games": [],
        "playban": playban.notice(viewer.user_id),
    }
    if viewer.user_id:
        for preset in Preset.values:
            found = ratings.rating_of(viewer.user_id, preset)
            context["ratings"][preset] = {
                "rating": round(found.rating),
                "provisional": found.provisional,
                "games": found.games,
            }
        running = (
            Game.objects.filter(rated=True, status=Status.ACTIVE)
            .filter(Q(white_user_id=viewer.user_id) | Q(black_user_id=viewer.user_id))
            .select_related("match")
            .order_by("-created")[:20]
        )
        for game in running:
            opponent = game.user_of(other_side(game.side_of(viewer)))
            context["active_games"].append(
                {
                    "url": reverse("games:game", kwargs={"game_id": game.id}),
                    "preset": game.preset,
                    "match_length": game.match.length if game.match_id else None,
                    "opponent": services.display_name(opponent) if opponent else _("Guest"),
                }
            )
    return render(request, "games/lobby.html", context)
