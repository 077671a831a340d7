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
def test_a_guest_gets_the_casual_pool_and_is_told_why_rated_games_need_an_account():
    client = Client()
    response = client.get(reverse("games:lobby") + "?pool=rated&preset=match&match_length=7")
    assert response.status_code == 200
    page = response.content.decode()
    assert response.context["pool"] == "casual"  # rated asked for, but no account
    assert response.context["preset"] == "match" and response.context["match_length"] == "7"
    assert not response.context["go"]
    assert "Rated games are for signed-in players" in page
    assert f'href="{reverse("account_login")}?next=%2Fen%2Flobby%2F%3Fpool%3Drated"' in page
    assert 'value="casual" checked' in page
    assert 'value="rated" disabled aria-describedby="lobby-sign-in"' in page
    assert 'id="lobby-form"' in page and 'data-ws-path="/ws/lobby/?lang=en"' in page
    assert "lobby.js" in page
    assert client.session.get("guest_id")  # the casual pool's socket knows the guest by it


@pytest.mark.django_db
def test_the_query_chooses_for_the_player_and_unknown_values_are_ignored():
    client = Client()
    url = reverse("games:lobby")
    context = client.get(url + "?pool=casual&preset=classic&clock=match&go=1").context
    assert (context["pool"], context["preset"], context["clock"], context["go"]) == (
        "casual",
        "classic",
        "match",
        True,
    )
    context = client.get(url + "?pool=x&preset=blitz&clock=bullet&match_length=4&go=yes").context
    assert (context["pool"], context["preset"], context["clock"], context["go"]) == (
        "casual",
        "sport",
        "",
        False,
    )
    assert context["match_length"] == "3"


@pytest.mark.django_db
def test_a_signed_in_player_gets_the_form_the_socket_and_their_ratings():
    alice, bob = account("alice", 1712.3), account("bob")
    PlayerRating.objects.filter(user=alice).update(deviation=90)
    Profile.objects.create(user=bob, display_name="Bob")
    client = Client()
    client.force_login(alice)
    pairing.join(services.Actor(user_id=alice.pk), "match", 5)
    game = pairing.join(services.Actor(user_id=bob.pk), "match", 5).game
    url = reverse("games:lobby")
    response = client.get(url.replace("/en/", "/ru/"))
    assert response.status_code == 200
    context = response.context
    assert context["ws_path"] == "/ws/lobby/?lang=ru"
    assert context["ratings"]["sport"] == {"rating": 1712, "provisional": False, "games": 0}
    assert context["ratings"]["match"] == {"rating": 1500, "provisional": True, "games": 0}
    assert context["active_games"] == [
        {
            "url": f"/ru/game/{game.pk}/",
            "preset": "match",
            "rated": True,
            "match_length": 5,
            "opponent": "Bob",
        }
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
    pairing.join(services.Actor(user_id=alice.pk), "match", 3)
    game = pairing.join(services.Actor(user_id=bob.pk), "match", 3).game
    client = Client()
    client.force_login(alice)
    response = client.get(reverse("games:game", kwargs={"game_id": game.pk}))
    wanted = reverse("games:lobby") + "?pool=rated&preset=match&match_length=3"
    assert response.context["lobby_url"] == wanted
    page = response.content.decode()
    again = re.search(r'id="again-btn" href="([^"]+)"[^>]*>Find another opponent</a>', page)
    assert again and again.group(1) == wanted.replace("&", "&amp;")
    # a casual game of the lobby leads back to the casual pool, with its rules
    pairing.join(services.Actor(guest_id="g1"), "classic", pool="casual")
    casual = pairing.join(services.Actor(guest_id="g2"), "classic", pool="casual").game
    context = Client().get(reverse("games:game", kwargs={"game_id": casual.pk})).context
    assert context["lobby_url"] == reverse("games:lobby") + "?pool=casual&preset=classic"
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
        entry = await sync_to_async(pairing.waiting_entry)(services.Actor(user_id=alice.pk))
        await sync_to_async(cache.delete)(pairing._alive_key(entry))  # e.g. evicted from Redis
        await sync_to_async(pairing.join)(services.Actor(user_id=bob.pk), "sport")
        answer = await receive(comm)
        await comm.disconnect()
        return answer

    assert async_to_sync(scenario)() == {"type": "left"}
    assert statuses(alice, bob) == [["left"], ["waiting"]]


def test_signing_out_takes_the_account_out_of_the_queue(django_user_model):
    # Found by an adversarial test: a signed-out account stayed queued and was paired.
    from django.test import Client

    user = django_user_model.objects.create(username="leaver")
    pairing.join(services.Actor(user_id=user.pk), "sport")
    assert pairing.waiting_entry(services.Actor(user_id=user.pk)) is not None
    client = Client()
    client.force_login(user)
    client.post("/en/accounts/logout/")
    assert pairing.waiting_entry(services.Actor(user_id=user.pk)) is None
