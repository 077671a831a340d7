"""The lobby page: a player picks the pool (casual: anyone; rated: signed-in accounts) and the
table and looks for an opponent over the lobby socket (games.lobby.consumer)."""

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
from games.lobby import pairing
from games.lobby.models import Pool
from games.pages import login_url, viewer_of
from games.room.models import Game
from games.services import playban

#: the match lengths the lobby offers
MATCH_LENGTHS = ("1", "3", "5", "7")


@require_GET
def lobby_page(request):
    """GET: the lobby of games between people. A player picks the pool ("casual": anyone,
    guests too, unrated; "rated": signed-in accounts, paired by rating), the rules, the match
    length and the clock and looks for an opponent over the lobby socket
    (static/games/lobby.js, docs/protocol.md "Lobby"); a guest is told why rated games need
    an account and how to sign in. The query may choose for the player (the home page's and
    the new-game form's "Play a person"): ``pool``, ``preset``, ``match_length``, ``clock``,
    and ``go=1`` to join at once. A value it does not know is ignored.

    Context: ``signed_in``, ``pool`` (the pool chosen), ``preset``, ``match_length`` (a
    string of MATCH_LENGTHS), ``clock`` (a kind or ""), ``go`` (join once connected),
    ``counts`` (``pairing.counts()``, drawn before the socket's first ``waiting`` frame) and
    ``pool_counts`` (the chosen pool's: ``{"total", <preset>: n}``),
    ``login_url`` (sign in and come back here), ``sign_in_with`` (for a guest: the configured
    providers, "Google or Telegram"; "" if none), ``can_sign_in`` (some way to sign in exists
    here), ``dev_sign_in`` (the development sign-in is on), ``ws_path`` (the lobby socket,
    with the page's language), ``ratings`` (``{preset: {"rating", "provisional",
    "games"}}``: the account's, 1500 provisional where it has none), ``clock_choices``
    (``clock_choices()``), ``preset_clocks`` (``{preset: kind}``), ``active_games`` (the
    viewer's games against people in progress, newest first: ``{"url", "preset", "match_length",
    "opponent"}``), ``playban`` (``services.playban.notice``) and ``offer_computer_s`` (after
    how many seconds alone the page offers a game against the computer)."""
    viewer = viewer_of(request)  # a guest id for the casual pool's socket
    query = request.GET
    signed_in = bool(viewer.user_id)
    pool = query.get("pool")
    if pool not in Pool.values or (pool == Pool.RATED and not signed_in):
        pool = Pool.RATED if signed_in else Pool.CASUAL
    preset = query.get("preset")
    clock = query.get("clock")
    context = {
        "signed_in": signed_in,
        "pool": pool,
        "preset": preset if preset in Preset.values else Preset.SPORT,
        "match_length": query.get("match_length")
        if query.get("match_length") in MATCH_LENGTHS
        else "3",
        "clock": clock if clock in clocks.CLOCKS else "",
        "go": query.get("go") == "1",
        "counts": (counts := pairing.counts()),
        "pool_counts": counts[pool],
        "login_url": login_url(reverse("games:lobby") + "?pool=rated"),
        "sign_in_with": "" if signed_in else sign_in.sign_in_services(request),
        "can_sign_in": signed_in or sign_in.sign_in_available(request),
        "dev_sign_in": dev_sign_in.enabled(),
        "ws_path": f"/ws/lobby/?lang={get_language()}",
        "clock_choices": clock_choices(),
        "preset_clocks": clocks.PRESET_CLOCK,
        "ratings": {},
        "active_games": [],
        "playban": playban.notice(viewer.user_id),
        "offer_computer_s": pairing.OFFER_COMPUTER_MS // 1000,
    }
    if signed_in:
        for name in Preset.values:
            found = ratings.rating_of(viewer.user_id, name)
            context["ratings"][name] = {
                "rating": round(found.rating),
                "provisional": found.provisional,
                "games": found.games,
            }
    context["active_games"] = _active_games(viewer)
    return render(request, "games/lobby.html", context)


def _active_games(viewer):
    """The viewer's games between people in progress, newest first (the lobby's list): by
    account when signed in, else by guest id."""
    if viewer.user_id:
        mine = Game.objects.filter(
            Q(white_user_id=viewer.user_id) | Q(black_user_id=viewer.user_id)
        )
    else:
        mine = Game.objects.for_guest(viewer.guest_id)
    running = (
        mine.filter(status=Status.ACTIVE, bot_side="")
        .select_related("match")
        .order_by("-created")[:20]
    )
    found = []
    for game in running:
        opponent = game.user_of(other_side(game.side_of(viewer)))
        found.append(
            {
                "url": reverse("games:game", kwargs={"game_id": game.id}),
                "preset": game.preset,
                "rated": game.rated,
                "match_length": game.match.length if game.match_id else None,
                "opponent": services.display_name(opponent) if opponent else _("Guest"),
            }
        )
    return found
