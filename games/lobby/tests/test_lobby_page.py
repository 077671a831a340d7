"""The lobby page (games/lobby/views.py): a guest is told why rated games need an account, a
signed-in player gets the form, the socket and their ratings; the page is linked from the menu,
the home page and my games, and a lobby game's "Play again" leads back to it."""

import re

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from games import services
from games.accounts.models import PlayerRating, Profile
from games.lobby import pairing
from games.lobby.tests.test_lobby import (
    account,
    join_frame,
    lobby_socket,
    receive,
    statuses,
)

pytestmark = pytest.mark.sockets


@pytest.mark.django_db
def test_a_guest_is_told_why_rated_games_need_an_account_and_how_to_sign_in():
    response = Client().get(reverse("games:lobby"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Rated games are for signed-in players" in page
    assert f'href="{reverse("account_login")}?next=%2Fen%2Flobby%2F"' in page
    assert 'id="lobby-form"' not in page and "data-ws-path" not in page
    assert "lobby.js" not in page


@pytest.mark.django_db
def test_a_signed_in_player_gets_the_form_the_socket_and_their_ratings():
    alice, bob = account("alice", 1712.3), account("bob")
    PlayerRating.objects.filter(user=alice).update(deviation=90)
    Profile.objects.create(user=bob, display_name="Bob")
    client = Client()
    client.force_login(alice)
    pairing.join(alice.pk, "match", 5)
    game = pairing.join(bob.pk, "match", 5).game
    url = reverse("games:lobby")
    response = client.get(url.replace("/en/", "/ru/"))
    assert response.status_code == 200
    context = response.context
    assert context["ws_path"] == "/ws/lobby/?lang=ru"
    assert context["ratings"]["sport"] == {"rating": 1712, "provisional": False, "games": 0}
    assert context["ratings"]["match"] == {"rating": 1500, "provisional": True, "games": 0}
    assert context["active_games"] == [
        {"url": f"/ru/game/{game.pk}/", "preset": "match", "match_length": 5, "opponent": "Bob"}
    ]
    page = client.get(url).content.decode()
    assert 'data-ws-path="/ws/lobby/?lang=en"' in page and 'id="lobby-join"' in page
    assert "Your rating: 1712</span>" in page and "Your rating: 1500? (provisional)" in page
    assert "Match to 5 points" in page and "against Bob" in page
    assert 'name="clock" value="match" data-presets="match">' in page
    assert "games/lobby.js" in page


@pytest.mark.django_db
def test_the_lobby_is_linked_from_the_menu_the_home_page_and_my_games():
    for name in ("rules:home", "games:my_games", "games:challenge_new"):
        page = Client().get(reverse(name)).content.decode()
        assert f'href="{reverse("games:lobby")}"' in page, name


@pytest.mark.django_db
def test_after_a_lobby_game_play_again_leads_back_to_the_lobby():
    alice, bob = account("alice"), account("bob")
    pairing.join(alice.pk, "match", 3)
    game = pairing.join(bob.pk, "match", 3).game
    client = Client()
    client.force_login(alice)
    response = client.get(reverse("games:game", kwargs={"game_id": game.pk}))
    assert response.context["lobby_url"] == reverse("games:lobby")
    page = response.content.decode()
    again = re.search(r'id="again-btn" href="([^"]+)"[^>]*>Find another opponent</a>', page)
    assert again and again.group(1) == reverse("games:lobby")
    # a rated game from a challenge link offers a new link, as before
    challenge = services.create_challenge(
        services.Actor(guest_id="ga", user_id=alice.pk), rated=True
    )
    other = services.accept_challenge(challenge.pk, services.Actor(guest_id="gb", user_id=bob.pk))
    response = client.get(reverse("games:game", kwargs={"game_id": other.pk}))
    assert response.context["lobby_url"] is None
    assert "Play again: a new challenge link" in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_page_whose_entry_lapsed_is_told_it_left_the_queue():
    alice, bob = account("alice"), account("bob")

    async def scenario():
        comm = await lobby_socket(alice)
        await comm.send_json_to(join_frame())
        assert (await receive(comm))["type"] == "queued"
        entry = await sync_to_async(pairing.waiting_entry)(alice.pk)
        await sync_to_async(cache.delete)(pairing._alive_key(entry))  # e.g. evicted from Redis
        await sync_to_async(pairing.join)(bob.pk, "sport")
        answer = await receive(comm)
        await comm.disconnect()
        return answer

    assert async_to_sync(scenario)() == {"type": "left"}
    assert statuses(alice, bob) == [["left"], ["waiting"]]


def test_signing_out_takes_the_account_out_of_the_queue(django_user_model):
    # Found by an adversarial test: a signed-out account stayed queued and was paired.
    from django.test import Client

    user = django_user_model.objects.create(username="leaver")
    pairing.join(user.pk, "sport")
    assert pairing.waiting_entry(user.pk) is not None
    client = Client()
    client.force_login(user)
    client.post("/en/accounts/logout/")
    assert pairing.waiting_entry(user.pk) is None
