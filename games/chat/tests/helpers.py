"""Helpers of the chat's tests: a game between two people (guests, or accounts seated on it)
and the group messages its chat sends after each commit."""

from django.contrib.auth import get_user_model
from django.utils import timezone

from games import services
from games.accounts.models import Profile
from games.room.models import Game
from games.tests.factories import BLACK_GUEST, WHITE_GUEST, new_people_game
from games.tournaments.models import Pairing, Tournament

WHITE = services.Actor(guest_id=WHITE_GUEST)
BLACK = services.Actor(guest_id=BLACK_GUEST)
WATCHER = services.Actor(guest_id="guest-watcher")


def people_game(fixed=None):
    """A game between WHITE_GUEST and BLACK_GUEST with the preset's clock."""
    return new_people_game(True, fixed=fixed)


def signed_in_game(white_name="Alice", black_name="Bob", fixed=None):
    """A game between two accounts (display names given), seated as the guests who made and
    accepted the challenge signed in. Returns ``(game, white actor, black actor)``."""
    game = people_game(fixed)
    users = []
    for name in (white_name, black_name):
        user = get_user_model().objects.create_user(username=f"chat-{len(name)}-{name[:20]}")
        Profile.objects.create(user=user, display_name=name)
        users.append(user)
    Game.objects.filter(pk=game.pk).update(white_user=users[0], black_user=users[1])
    game.refresh_from_db()
    white = services.Actor(guest_id=WHITE_GUEST, user_id=users[0].pk)
    black = services.Actor(guest_id=BLACK_GUEST, user_id=users[1].pk)
    return game, white, black


def in_tournament(game, chat_off):
    """Make ``game`` the game of a cup whose ``chat_off`` is given."""
    tournament = Tournament.objects.create(
        kind="cup", preset="match", clock_kind="match", size=4, chat_off=chat_off
    )
    Pairing.objects.create(tournament=tournament, game=game, created=timezone.now())
    return tournament
