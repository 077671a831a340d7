"""The development sign-in (games/accounts/dev_sign_in.py): any name, no password, only where
settings.DEV_SIGN_IN is on; where no way to sign in exists, no page offers one."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games import services
from games.accounts.models import Profile
from games.room.models import Game
from games.tests.factories import FixedDice, new_bot_game

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("unattended_queue")]


@pytest.fixture
def no_providers(settings):
    """A server with no sign-in provider configured (the tests' default environment)."""
    settings.SOCIALACCOUNT_PROVIDERS = {}
    return settings


def test_a_name_signs_in_as_its_own_account_and_goes_back(no_providers):
    no_providers.DEV_SIGN_IN = True
    client = Client()
    response = client.post("/en/accounts/dev/", {"name": "  Ann\t\x07Lee ", "next": "/en/lobby/"})
    assert response.status_code == 302 and response["Location"] == "/en/lobby/"
    user = get_user_model().objects.get(pk=client.session["_auth_user_id"])
    assert Profile.objects.get(user=user).display_name == "Ann Lee"
    assert not user.has_usable_password()
    again = Client()
    again.post("/en/accounts/dev/", {"name": "ann lee"})
    assert again.session["_auth_user_id"] == client.session["_auth_user_id"]


def test_a_foreign_next_goes_home_and_an_empty_name_is_refused(no_providers):
    no_providers.DEV_SIGN_IN = True
    response = Client().post("/en/accounts/dev/", {"name": "Bo", "next": "https://evil.example/"})
    assert response["Location"] == "/en/"
    refused = Client().post("/en/accounts/dev/", {"name": " \t "})
    assert refused.status_code == 400
    assert "Type the name you want to play under." in refused.content.decode()
    assert get_user_model().objects.count() == 1


def test_signing_in_takes_the_guests_games_along(no_providers, monkeypatch):
    no_providers.DEV_SIGN_IN = True
    client = Client()
    client.get("/en/")
    session = client.session
    session["guest_id"] = "guest-dev"
    session.save()
    game = new_bot_game(FixedDice(monkeypatch), opening=(6, 5), guest="guest-dev")
    client.post("/en/accounts/dev/", {"name": "Cy"})
    user_id = int(client.session["_auth_user_id"])
    assert Game.objects.get(pk=game.pk).user_of("white") == user_id


def test_the_sign_in_page_offers_it_and_says_what_it_is(no_providers):
    no_providers.DEV_SIGN_IN = True
    page = Client().get("/ru/accounts/login/?next=/ru/lobby/").content.decode()
    assert 'action="/ru/accounts/dev/"' in page and 'value="/ru/lobby/"' in page
    assert "режиме разработки" in page


def test_off_it_is_not_found_and_nothing_offers_to_sign_in(no_providers):
    no_providers.DEV_SIGN_IN = False
    assert Client().post("/en/accounts/dev/", {"name": "Dee"}).status_code == 404
    home = Client().get("/en/rules/").content.decode()
    assert 'class="account-menu__in"' not in home  # no "Sign in" in the header
    lobby = Client().get("/en/lobby/").content.decode()
    assert 'id="lobby-sign-in-link"' not in lobby
    assert 'id="lobby-join"' in lobby  # a guest still plays people in the casual pool
    login = Client().get("/en/accounts/login/").content.decode()
    assert "dev-name" not in login and 'href="/en/friend/"' in login


def test_with_no_sign_in_the_challenge_pages_offer_none(no_providers):
    no_providers.DEV_SIGN_IN = False
    form = Client().get("/en/friend/").content.decode()
    assert "As a guest you play casual games" in form and "/accounts/login/" not in form
    rated = services.create_challenge("guest-x", preset="sport", colour="white")
    type(rated).objects.filter(pk=rated.pk).update(rated=True)
    page = Client().get(f"/en/challenge/{rated.pk}/").content.decode()
    assert 'id="rated-sign-in"' in page and 'id="sign-in-to-accept"' not in page
    assert "Signing in is not available on this server yet." in page
