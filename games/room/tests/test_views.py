"""The HTTP views: starting a game against the computer and the game page (player or onlooker)."""

import re
import uuid

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.room.models import Game

pytestmark = pytest.mark.django_db


def test_new_game_creates_a_bot_game_for_the_sessions_guest(client):
    response = client.post(reverse("games:new"))
    game = Game.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("games:game", kwargs={"game_id": game.id})
    guest_id = client.session["guest_id"]
    assert len(guest_id) >= 16
    assert (game.white_guest, game.black_guest, game.bot_side) == (guest_id, "", "black")
    assert (game.preset, game.bot_level, game.version) == ("sport", "medium", 1)

    client.post(reverse("games:new"))  # the same guest keeps its id
    assert client.session["guest_id"] == guest_id
    assert Game.objects.for_guest(guest_id).count() == 2


def test_new_game_takes_the_chosen_options(client):
    client.post(reverse("games:new"), {"preset": "match", "level": "easy", "side": "black"})
    game = Game.objects.get()
    assert (game.preset, game.bot_level, game.black_guest, game.bot_side) == (
        "match",
        "easy",
        client.session["guest_id"],
        "white",
    )


@pytest.mark.parametrize(
    "data", [{"preset": "backgammon"}, {"level": "grandmaster"}, {"side": "green"}]
)
def test_new_game_refuses_unknown_options(client, data):
    assert client.post(reverse("games:new"), data).status_code == 400
    assert not Game.objects.exists()


def test_new_game_by_get_leads_to_the_new_game_form_and_starts_nothing(client):
    response = client.get(reverse("games:new"))
    assert response.status_code == 302
    assert response["Location"] == reverse("games:my_games") + "#new"
    assert not Game.objects.exists()


def test_game_page_for_its_player(client):
    client.post(reverse("games:new"))
    game = Game.objects.get()
    response = client.get(reverse("games:game", kwargs={"game_id": game.id}))
    assert response.status_code == 200
    assert response.context["game"] == game
    assert response.context["is_player"] is True
    assert response.context["ws_path"] == f"/ws/game/{game.id}/?lang=en"
    snapshot = response.context["initial_snapshot"]
    assert snapshot["id"] == str(game.id) and snapshot["you"] == "white"
    assert snapshot["version"] == game.version


def test_game_page_is_read_only_for_anyone_else(client):
    client.post(reverse("games:new"))
    game = Game.objects.get()
    other = Client()
    response = other.get(reverse("games:game", kwargs={"game_id": game.id}))
    assert response.status_code == 200
    assert response.context["is_player"] is False
    assert response.context["initial_snapshot"]["you"] is None
    assert response.context["initial_snapshot"]["legal"] is None
    assert other.session["guest_id"] != client.session["guest_id"]


def test_game_page_in_russian_tells_the_socket_the_language(client):
    client.post(reverse("games:new"))
    game = Game.objects.get()
    with translation.override("ru"):
        url = reverse("games:game", kwargs={"game_id": game.id})
    assert url.startswith("/ru/")
    response = client.get(url)
    assert response.status_code == 200
    assert response.context["ws_path"].endswith("?lang=ru")


def test_unknown_game_is_404(client):
    response = client.get(reverse("games:game", kwargs={"game_id": uuid.uuid4()}))
    assert response.status_code == 404


def test_the_headers_play_leads_to_the_new_game_form_and_starts_nothing(client):
    page = client.get("/ru/rules/").content.decode()
    header = page.split('<header class="site-header">', 1)[1].split("</header>", 1)[0]
    assert 'href="/ru/games/#new"' in header
    assert 'action="/ru/new/"' not in header  # a game starts only from the form's own button


@pytest.mark.parametrize("name", ["games:leaderboard", "games:import"])
@pytest.mark.parametrize("language", ["ru", "bg", "en"])
def test_indexable_game_pages_have_a_meta_description_in_each_language(client, name, language):
    """The leaderboard and the record import are indexed: search engines get a description
    of the page in its language (Lighthouse's SEO audit asks for one)."""
    with translation.override(language):
        page = client.get(reverse(name)).content.decode()
    description = re.search(r'<meta name="description" content="([^"]+)">', page)
    assert description and len(description.group(1)) > 40
    if language != "en":
        assert re.search("[а-я]", description.group(1))
