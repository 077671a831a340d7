"""My games: the games and open challenges of the visitor (an account or a guest)."""

from datetime import timedelta

from django.db.models import Q
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from games import services
from games.accounts import profiles
from games.challenges.models import Challenge, ChallengeStatus
from games.challenges.views import challenge_context
from games.choices import Status, other_side
from games.pages import viewer_of
from games.room.models import Game
from games.services.reading import game_url
from games.tables import NewGameForm

#: a change less than this old is shown as "just now", not "0 minutes ago"
JUST_NOW = timedelta(minutes=1)


def _game_row(game, viewer, names, from_challenge, now):
    """One row of "my games": ``game`` as ``viewer`` plays it. ``names`` holds the display
    names of the accounts in the list (``profiles.names_of``); ``from_challenge`` the ids of
    the games and matches a challenge link started (only those are "with a friend"); ``now``
    the time of the request. ``opponent`` is ``{"name", "url"}`` for an account, else None."""
    you = game.side_of(viewer)
    opponent = None
    if not game.bot_side and you is not None:
        user_id = game.user_of(other_side(you))
        if user_id:
            opponent = {"name": names[user_id], "url": profiles.profile_url(user_id)}
    match = None
    if game.match_id:
        match = {
            "id": str(game.match_id),
            "length": game.match.length,
            "score": game.match.score(),
            "game_number": game.match_number,
        }
    return {
        "id": str(game.id),
        "url": reverse("games:game", kwargs={"game_id": game.id}),
        "replay_url": reverse("games:replay", kwargs={"game_id": game.id}),
        "preset": game.preset,
        "options": services.options_of(game),
        "you": you,
        "against_bot": bool(game.bot_side),
        "rated": game.rated,
        "opponent": opponent,
        "with_friend": game.id in from_challenge or game.match_id in from_challenge,
        "clock": game.clock.get("kind") if game.clock else None,
        "status": game.status,
        "turn": game.turn,
        "your_turn": game.awaiting is not None and game.awaiting == you,
        "version": game.version,
        "result": services.result_of(game),
        "match": match,
        "created": game.created,
        "updated": game.updated,
        "just_now": now - game.updated < JUST_NOW,
    }


@require_GET
def my_games(request):
    """GET: "my games": the games of this visitor's account or session guest (against the
    computer and with friends), active ones first, then those that are over (finished or
    aborted), each list newest first, with links to resume or replay them; and their
    challenge links still waiting for a friend (``open_challenges``: rows of
    ``challenge_context``, each with ``just_now``). ``signed_in``: the list is the account's,
    on any device, rather than this browser's."""
    viewer = viewer_of(request, create=False)
    now = timezone.now()
    games = list(games_of(viewer).select_related("match").order_by("-updated")[:200])
    names = profiles.names_of(
        [user_id for game in games for user_id in (game.white_user_id, game.black_user_id)]
    )
    started = Challenge.objects.filter(
        Q(game__in=games) | Q(game__match_id__in={g.match_id for g in games if g.match_id})
    )
    from_challenge = set()
    for game_id, match_id in started.values_list("game_id", "game__match_id"):
        from_challenge.update({game_id, match_id} - {None})
    # a rematch (``Game.rematch``) links to the game before it, and is with a friend when that
    # one was
    rematch_of = dict(Game.objects.filter(rematch__in=games).values_list("rematch_id", "id"))
    for game in sorted(games, key=lambda g: g.created):
        if rematch_of.get(game.id) in from_challenge:
            from_challenge.add(game.id)
    rows = [_game_row(game, viewer, names, from_challenge, now) for game in games]
    for row, game in zip(rows, games, strict=True):
        row["rematch_url"] = game_url(game.rematch_id)
        row["rematch_of_url"] = game_url(rematch_of.get(game.id))
    mine = Q()
    if viewer.user_id:
        mine |= Q(creator_user_id=viewer.user_id)
    if viewer.guest_id:
        mine |= Q(creator_guest=viewer.guest_id)
    challenges = []
    if mine:
        challenges = Challenge.objects.filter(mine, status=ChallengeStatus.OPEN)[:20]
    return render(
        request,
        "games/my_games.html",
        {
            "active_games": [row for row in rows if row["status"] == Status.ACTIVE],
            "finished_games": [row for row in rows if row["status"] != Status.ACTIVE],
            "open_challenges": [
                dict(challenge_context(request, c), just_now=now - c.created < JUST_NOW)
                for c in challenges
            ],
            "signed_in": bool(viewer.user_id),
            "new_game_form": NewGameForm(),
        },
    )


def games_of(viewer):
    """The games ``viewer`` (a ``services.Actor``) plays: those of their account or of their
    session's guest id."""
    found = Q()
    if viewer.user_id:
        found |= Q(white_user_id=viewer.user_id) | Q(black_user_id=viewer.user_id)
    if viewer.guest_id:
        found |= Q(white_guest=viewer.guest_id) | Q(black_guest=viewer.guest_id)
    if not found:
        return Game.objects.none()
    return Game.objects.filter(found)
