"""Players' pages, the own profile with its display-name form, and the leaderboards
(issue #6): ratings with the provisional mark, the rating's history, the games played and won,
recent games with links to watch or replay them; display names checked, saved and always
escaped; leaderboards of established ratings only."""

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.shortcuts import resolve_url
from django.test import Client
from django.urls import reverse

from games import services
from games.accounts import profiles
from games.accounts.models import PlayerRating, Profile, RatingChange
from games.room.models import Game
from games.tests.factories import play_turns

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("unattended_queue")]

EVIL = '<script>alert("x")</script>&'


def make_account(name, username=None, avatar=""):
    """An account with a profile named ``name`` (None: no profile)."""
    user = get_user_model().objects.create_user(
        username=username or f"u-{name}".lower(), email=f"{(username or name).lower()}@example.com"
    )
    if name is not None:
        Profile.objects.create(user=user, display_name=name, avatar_url=avatar)
    return user


def actor(user):
    return services.Actor(guest_id=f"guest-of-{user.pk}", user_id=user.pk)


def rated_game(white, black, preset="sport", **options):
    """A rated game between the accounts ``white`` (who made the challenge) and ``black``."""
    challenge = services.create_challenge(
        actor(white), preset=preset, colour="white", rated=True, **options
    )
    return services.accept_challenge(challenge.pk, actor(black))


def resign(game, loser):
    """``loser`` resigns once each side has played (before, it would abort the game)."""
    game = play_turns(game.pk, 2)
    return services.resign(game.pk, actor(loser), game.version)


@pytest.fixture
def anna():
    return make_account("Anna")


@pytest.fixture
def boris():
    return make_account("Boris")


def page(client, name, **kwargs):
    response = client.get(reverse(name, kwargs=kwargs or None))
    return response, response.content.decode()


def text_of(html):
    """The page's text, tags dropped and spaces collapsed (for sentences split over lines)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# --- a player's page ---------------------------------------------------------------------


def test_a_players_page_shows_each_presets_rating_with_the_provisional_mark_and_its_history(
    anna, boris
):
    for loser in (boris, boris, anna):
        resign(rated_game(anna, boris), loser)
    rating = PlayerRating.objects.get(user=anna, preset="sport")
    assert rating.games == 3 and rating.wins == 2 and rating.provisional

    response, html = page(Client(), "games:player", user_id=anna.pk)
    assert response.status_code == 200
    assert '<h1 id="player-name">Anna</h1>' in html
    sport = html[html.index('id="rating-sport"') : html.index('id="rating-classic"')]
    assert f'<span class="rating-number">{round(rating.rating)}</span>' in sport
    assert 'class="provisional-mark"' in sport and "(provisional)" in sport
    assert "3 played, 2 won" in text_of(sport)
    # The chart: the start and the three results, with its accessible description.
    points = re.search(r'<polyline class="rating-chart__line" points="([^"]+)"', sport).group(1)
    assert len(points.split()) == 4
    assert "Sport rating over the last 3 rated results: from 1500 to " in sport
    # The latest results, newest first: a loss to Boris, then two wins, each linking the replay.
    changes = RatingChange.objects.filter(user=anna).order_by("-created", "-pk")
    rows = re.findall(
        r'<tr>\s*<td><a href="([^"]+)">Boris</a>.*?<a href="([^"]+)">(\w+)</a>', sport, re.S
    )
    assert [(url, outcome) for url, _replay, outcome in rows] == [
        (reverse("games:player", kwargs={"user_id": boris.pk}), "lost"),
        (reverse("games:player", kwargs={"user_id": boris.pk}), "won"),
        (reverse("games:player", kwargs={"user_id": boris.pk}), "won"),
    ]
    assert [replay for _url, replay, _o in rows] == [
        reverse("games:replay", kwargs={"game_id": change.game_id}) for change in changes
    ]
    # The explanation of the mark; a preset without rated games says so.
    assert "A rating marked “?” is provisional" in text_of(html)
    assert "falls to 110 points or less" in text_of(html)
    classic = html[html.index('id="rating-classic"') : html.index('id="rating-match"')]
    assert "No rated games yet" in classic and "rating-chart" not in classic


def test_an_established_rating_has_no_provisional_mark(anna):
    PlayerRating.objects.create(
        user=anna, preset="classic", rating=1712.6, deviation=80, games=30, wins=20
    )
    _response, html = page(Client(), "games:player", user_id=anna.pk)
    classic = html[html.index('id="rating-classic"') : html.index('id="rating-match"')]
    assert '<span class="rating-number">1713</span>' in classic
    assert "provisional-mark" not in classic
    assert "30 played, 20 won" in text_of(classic)


def test_recent_games_link_running_games_to_watch_and_finished_ones_to_their_replay(anna, boris):
    finished = rated_game(anna, boris)
    resign(finished, anna)
    running = rated_game(anna, boris, preset="match", match_length=3)
    casual = services.accept_challenge(
        services.create_challenge(actor(anna), colour="black").pk, "a-guest"
    )
    bot_game = services.create_bot_game(actor(anna).guest_id)
    services.adopt_guest_games(actor(anna).guest_id, anna.pk)

    _response, html = page(Client(), "games:player", user_id=anna.pk)
    recent = html[html.index('id="recent-games"') :]
    items = re.findall(r'<li class="games-item">(.*?)</li>', recent, re.S)
    assert len(items) == 4
    by_game = {}
    for item in items:
        link = re.search(r'<a class="primary" href="([^"]+)">(\w+)</a>', item)
        by_game[link.group(1)] = (link.group(2), text_of(item))
    watch, text = by_game[reverse("games:game", kwargs={"game_id": running.pk})]
    assert watch == "Watch" and "Match · to 3 points · against Boris" in text
    assert "In progress" in text and "rated" in text
    replay, text = by_game[reverse("games:replay", kwargs={"game_id": finished.pk})]
    change = RatingChange.objects.get(user=anna, game=finished)
    delta = profiles.signed(round(change.rating_after) - round(change.rating_before))
    points = Game.objects.get(pk=finished.pk).result_points  # a resignation at the start: mars
    assert replay == "Replay" and f"Lost, {points} points" in text and f"rating {delta}" in text
    _watch, text = by_game[reverse("games:game", kwargs={"game_id": casual.pk})]
    assert "against a guest" in text and "rated" not in text.split("·")[1]
    _watch, text = by_game[reverse("games:game", kwargs={"game_id": bot_game.pk})]
    assert "against the computer" in text
    # The opponent's name links to their page.
    assert f'href="{reverse("games:player", kwargs={"user_id": boris.pk})}"' in html
    # On one's own page a running game is to continue, not to watch.
    me = Client()
    me.force_login(anna)
    _response, own = page(me, "games:player", user_id=anna.pk)
    assert (
        f'<a class="primary" href="{reverse("games:game", kwargs={"game_id": running.pk})}">'
        f"Continue</a>"
    ) in own
    assert "This is your page, as other players see it." in own


def test_an_unknown_or_deactivated_account_has_no_page(anna):
    assert (
        Client().get(reverse("games:player", kwargs={"user_id": anna.pk + 1000})).status_code == 404
    )
    anna.is_active = False
    anna.save()
    assert Client().get(reverse("games:player", kwargs={"user_id": anna.pk})).status_code == 404


def test_the_avatar_is_shown_only_from_a_web_address():
    pictured = make_account("Pic", avatar="https://example.com/a.png?s=96&x=1")
    _response, html = page(Client(), "games:player", user_id=pictured.pk)
    assert '<img class="player-avatar" src="https://example.com/a.png?s=96&amp;x=1"' in html
    plain = make_account("Plain")
    Profile.objects.filter(user=plain).update(avatar_url="javascript:alert(1)")
    _response, html = page(Client(), "games:player", user_id=plain.pk)
    assert "javascript:" not in html and "player-avatar--initial" in html


def test_an_account_without_a_profile_is_shown_as_player_with_its_number():
    bare = make_account(None, username="bare")
    _response, html = page(Client(), "games:player", user_id=bare.pk)
    assert f'<h1 id="player-name">Player {bare.pk}</h1>' in html
    assert "bare" not in text_of(html).replace("bare-", "")


# --- display names: escaped everywhere ---------------------------------------------------


def test_a_display_name_is_escaped_on_every_page_that_shows_it(anna):
    evil = make_account(EVIL, username="evil")
    game = rated_game(evil, anna)
    escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;"
    _response, html = page(Client(), "games:player", user_id=evil.pk)
    assert "<script>alert" not in html and escaped in html
    _response, html = page(Client(), "games:player", user_id=anna.pk)  # as Anna's opponent
    assert "<script>alert" not in html and escaped in html
    PlayerRating.objects.create(user=evil, preset="sport", rating=1600, deviation=60, games=40)
    _response, html = page(Client(), "games:leaderboard")
    assert "<script>alert" not in html and escaped in html
    # The game page embeds the players in its JSON, where "<" is escaped too.
    _response, html = page(Client(), "games:game", game_id=game.pk)
    assert "<script>alert" not in html and "\\u003Cscript\\u003Ealert" in html


# --- the own profile ---------------------------------------------------------------------


def test_the_own_profile_needs_a_signed_in_player():
    response = Client().get(reverse("games:profile"))
    assert response.status_code == 302
    location = urlsplit(response["Location"])
    assert location.path == resolve_url(settings.LOGIN_URL)
    assert parse_qs(location.query)["next"] == [reverse("games:profile")]


def test_a_player_changes_their_display_name_trimmed(anna):
    client = Client()
    client.force_login(anna)
    response, html = page(client, "games:profile")
    assert response.status_code == 200
    assert 'name="display_name" value="Anna"' in html and 'maxlength="40"' in html
    assert "csrfmiddlewaretoken" in html

    response = client.post(reverse("games:profile"), {"display_name": "  Анна К.  "})
    assert response.status_code == 302 and response["Location"] == reverse("games:profile")
    assert Profile.objects.get(user=anna).display_name == "Анна К."
    _response, html = page(client, "games:profile")
    assert "Your display name is saved." in html
    assert services.display_name(anna.pk) == "Анна К."


def test_a_player_without_a_profile_gets_one_with_the_chosen_name():
    bare = make_account(None, username="bare")
    client = Client()
    client.force_login(bare)
    response = client.post(reverse("games:profile"), {"display_name": "Bare Foot"})
    assert response.status_code == 302
    assert Profile.objects.get(user=bare).display_name == "Bare Foot"


CONTROL = "A name cannot contain line breaks, tabs or other invisible control characters."


@pytest.mark.parametrize(
    "name, message",
    [
        ("", "Enter a name."),
        ("   ", "Enter a name."),
        ("x" * 41, "A name may have at most 40 characters (this one has 41)."),
        ("two\nlines", CONTROL),
        ("tab\there", CONTROL),
        ("evil\u202eeman", CONTROL),  # a right-to-left override would disguise the name
        ("line\u2028separator", CONTROL),
        ("odd\u00a0space", CONTROL),
        ("\u3164", CONTROL),  # a Hangul filler: a letter that draws nothing
        ("\u2800\u2800", CONTROL),  # blank Braille
        ("two  spaces", "A name cannot have two spaces in a row."),
        ("\u0336\u0337", "A name needs at least one letter, digit or symbol."),  # marks only
        ("nul\x00", "Null characters are not allowed."),  # Django's own check comes first
    ],
)
def test_a_refused_display_name_is_explained_and_changes_nothing(anna, name, message):
    client = Client()
    client.force_login(anna)
    response = client.post(reverse("games:profile"), {"display_name": name})
    assert response.status_code == 400
    html = response.content.decode()
    assert re.search(
        r'<p class="profile-error" role="alert" id="name-error">([^<]*)</p>', html
    ).group(1).strip() == message.replace('"', "&quot;")
    assert Profile.objects.get(user=anna).display_name == "Anna"


def test_display_names_need_not_be_unique_and_may_use_any_script():
    assert profiles.clean_display_name(" " + "ж" * 40 + " ") == "ж" * 40
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467 Smith"  # emoji joined with ZWJ
    assert profiles.clean_display_name(family) == family
    assert profiles.clean_display_name("Cafe\u0301") == "Caf\u00e9"  # NFC: one character
    one, two = make_account("Same", username="one"), make_account("Same", username="two")
    profiles.rename(two.pk, "Same")
    assert services.display_name(one.pk) == services.display_name(two.pk) == "Same"


def test_the_name_form_refuses_a_post_without_the_csrf_token(anna):
    client = Client(enforce_csrf_checks=True)
    client.force_login(anna)
    response = client.post(reverse("games:profile"), {"display_name": "Hacked"})
    assert response.status_code == 403
    assert Profile.objects.get(user=anna).display_name == "Anna"


# --- leaderboards ------------------------------------------------------------------------


def test_the_leaderboard_lists_established_ratings_only_best_first_with_shared_ranks():
    players = {name: make_account(name) for name in ("Ada", "Ben", "Cem", "Dan", "Eve", "Fay")}
    for name, rating, deviation in (
        ("Ada", 1650.2, 70),
        ("Ben", 1720.4, 100),
        ("Cem", 1650.4, 90),
        ("Dan", 1900, 200),
        ("Eve", 1400, 110),
    ):
        PlayerRating.objects.create(
            user=players[name], preset="sport", rating=rating, deviation=deviation, games=25
        )
    PlayerRating.objects.create(
        user=players["Fay"], preset="classic", rating=1800, deviation=50, games=40
    )
    gone = make_account("Gone")
    gone.is_active = False
    gone.save()
    PlayerRating.objects.create(user=gone, preset="sport", rating=2000, deviation=50, games=40)

    response, html = page(Client(), "games:leaderboard")
    assert response.status_code == 200
    rows = re.findall(
        r'<td class="leaderboard__rank">(\d+)</td>\s*<td><a href="([^"]+)">([^<]+)'
        r'</a>.*?<td class="leaderboard__num">(\d+)</td>',
        html,
        re.S,
    )
    assert [(rank, name, rating) for rank, _url, name, rating in rows] == [
        ("1", "Ben", "1720"),
        ("2", "Cem", "1650"),
        ("2", "Ada", "1650"),
        ("4", "Eve", "1400"),
    ]
    assert rows[0][1] == reverse("games:player", kwargs={"user_id": players["Ben"].pk})
    assert "Only established ratings are listed" in text_of(html)
    # One tab per preset, the current one marked.
    assert '<a href="?preset=sport" aria-current="page">Sport</a>' in html
    assert '<a href="?preset=classic">Classic</a>' in html and "?preset=match" in html

    response = Client().get(reverse("games:leaderboard"), {"preset": "classic"})
    html = response.content.decode()
    assert "Fay" in html and "Ben" not in html
    assert '<a href="?preset=classic" aria-current="page">Classic</a>' in html
    response = Client().get(reverse("games:leaderboard"), {"preset": "match"})
    assert "No established rating in these rules yet." in response.content.decode()
    assert Client().get(reverse("games:leaderboard"), {"preset": "nope"}).status_code == 404


def test_the_leaderboard_marks_the_viewers_own_row(anna, boris):
    for user, rating in ((anna, 1600), (boris, 1500)):
        PlayerRating.objects.create(
            user=user, preset="sport", rating=rating, deviation=60, games=30
        )
    client = Client()
    client.force_login(boris)
    _response, html = page(client, "games:leaderboard")
    assert re.search(r'<tr class="is-me">\s*<td class="leaderboard__rank">2</td>', html)
    assert "(you)" in html


def test_the_site_menu_links_the_leaderboards():
    _response, html = page(Client(), "rules:home")
    assert f'href="{reverse("games:leaderboard")}"' in html


def test_pages_are_translated(anna):
    PlayerRating.objects.create(user=anna, preset="sport", rating=1600, deviation=200, games=3)
    for lang, ratings, board, mark in (
        ("ru", "Рейтинги", "Таблицы лидеров", "предварительный"),
        ("bg", "Рейтинги", "Класиране", "предварителен"),
    ):
        client = Client(HTTP_ACCEPT_LANGUAGE=lang)
        html = client.get(f"/{lang}/players/{anna.pk}/").content.decode()
        assert ratings in html and mark in html
        assert "Ratings" not in html and "Recent games" not in html
        html = client.get(f"/{lang}/leaderboard/").content.decode()
        assert board in html and "Leaderboards" not in html and "established" not in html
