"""A guest's games follow the account at sign-in (games/accounts/sign_in.py adopt_guest), and
the views know the account: its new games are its own, and an account that plays no side is an
onlooker."""

import pytest
from django.test import Client

from games import services
from games.accounts.tests.test_accounts import (  # noqa: F401 - fixtures used by name
    User,
    providers,
    signed_in_user,
    telegram_sign_in,
    telegram_signed,
    telegram_user,
)
from games.challenges.models import Challenge
from games.room.models import Game

pytestmark = pytest.mark.django_db


def test_signing_in_keeps_the_guest_and_hands_its_games_to_the_account(providers):
    client = Client()
    assert client.post("/en/new/").status_code == 302
    guest_id = client.session["guest_id"]
    game = Game.objects.get(white_guest=guest_id)
    client.post("/en/friend/", {"preset": "sport", "colour": "white"})
    challenge = Challenge.objects.get(creator_guest=guest_id)

    telegram_sign_in(client, telegram_signed(telegram_user()))
    user = signed_in_user(client)
    assert client.session["guest_id"] == guest_id  # the session keeps its guest
    game.refresh_from_db()
    challenge.refresh_from_db()
    assert game.white_user == user and challenge.creator_user == user

    # on another device, signed in to the same account: the same games, as their player
    other = Client()
    telegram_sign_in(other, telegram_signed(telegram_user()))
    assert other.session.get("guest_id") != guest_id
    page = other.get(f"/en/game/{game.id}/")
    assert page.context["is_player"] is True
    assert page.context["initial_snapshot"]["you"] == "white"
    mine = other.get("/en/games/")
    assert [row["id"] for row in mine.context["active_games"]] == [str(game.id)]
    assert [row["id"] for row in mine.context["open_challenges"]] == [str(challenge.id)]
    # ... and may withdraw the challenge made as a guest on the first device
    response = other.post(f"/en/challenge/{challenge.id}/cancel/")
    assert response.status_code == 302
    challenge.refresh_from_db()
    assert challenge.status == "cancelled"


def test_a_signed_in_players_new_games_belong_to_the_account():
    user = User.objects.create_user("player")
    client = Client()
    client.force_login(user)
    client.post("/en/new/")
    client.post("/en/friend/", {"preset": "sport"})
    game = Game.objects.get()
    assert (
        game.user_of(game.side_of(services.Actor(guest_id=client.session["guest_id"]))) == user.pk
    )
    assert Challenge.objects.get().creator_user == user

    client.post("/en/accounts/logout/")
    again = Client()
    again.force_login(user)
    assert again.get(f"/en/game/{game.id}/").context["is_player"] is True
    assert [row["id"] for row in again.get("/en/games/").context["active_games"]] == [str(game.id)]


def test_an_account_that_plays_no_side_is_an_onlooker():
    player = Client()
    player.post("/en/new/")
    game = Game.objects.get()
    stranger = User.objects.create_user("stranger")
    client = Client()
    client.force_login(stranger)
    page = client.get(f"/en/game/{game.id}/")
    assert page.context["is_player"] is False
    assert page.context["initial_snapshot"]["you"] is None
    assert client.get("/en/games/").context["active_games"] == []
    assert client.get(f"/en/game/{game.id}/replay/").status_code == 404
