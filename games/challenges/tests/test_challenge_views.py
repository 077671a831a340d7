"""The pages of games between people and of clocks (docs/protocol.md "HTTP pages"): the
challenge link's form, page, accept, withdraw and status; the clock option of a game against
the computer; the game page, "my games" and the replay of games with a clock, aborted ones too;
in "my games" the opponent's name for an account, "rated", "with a friend" only for games a
link started, and "just now" for a change of the last minute."""

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games import services
from games.accounts.models import Profile
from games.challenges.models import Challenge, ChallengeStatus
from games.choices import Status
from games.clocks import CLOCKS, MATCH, STANDARD
from games.lobby import pairing
from games.room.models import Game, Match
from games.tests.factories import new_people_game, play_turn, play_turns

pytestmark = pytest.mark.django_db

T0 = datetime(2027, 3, 1, 12, 0, tzinfo=UTC)


def make_challenge(client, **data):
    """The creator (``client``) posts the challenge form; returns (response, Challenge)."""
    response = client.post(reverse("games:challenge_new"), data)
    if response.status_code != 302:
        return response, None
    return response, Challenge.objects.get(pk=response["Location"].rstrip("/").split("/")[-1])


def page_of(challenge):
    return reverse("games:challenge", kwargs={"challenge_id": challenge.id})


def action_url(name, challenge):
    return reverse(f"games:{name}", kwargs={"challenge_id": challenge.id})


@pytest.fixture
def creator():
    return Client()


@pytest.fixture
def friend():
    return Client()


def test_the_form_makes_a_link_with_the_chosen_table_and_its_creator_gets_it_to_share(creator):
    form = creator.get(reverse("games:challenge_new"))
    assert form.status_code == 200
    page = form.content.decode()
    assert 'name="colour" value="random" checked' in page
    # Both clocks are described with their times; new-game.js shows the chosen preset's.
    assert "Standard clock" in page and "Match clock" in page
    assert "15 s to roll and 45 s for each move" in page

    response, challenge = make_challenge(creator, preset="match", match_length="5", colour="white")
    assert response.status_code == 302 and response["Location"] == page_of(challenge)
    assert (challenge.preset, challenge.match_length, challenge.colour, challenge.status) == (
        "match",
        5,
        "white",
        ChallengeStatus.OPEN,
    )
    assert challenge.creator_guest == creator.session["guest_id"]

    response = creator.get(page_of(challenge))
    assert response.status_code == 200 and response.context["is_creator"]
    page = response.content.decode()
    share_url = f"http://testserver/challenge/{challenge.pk}/"
    assert f'value="{share_url}"' in page and 'id="copy-link"' in page
    assert f'data-status-url="{action_url("challenge_status", challenge)}"' in page
    assert "Waiting for your friend" in page and 'id="cancel-challenge"' in page
    assert 'id="accept-challenge"' not in page
    assert "Match rules: a match to 5 points." in page and "You play white." in page
    assert "Match clock" in page and "12 s for each move" in page
    assert "A casual game between guests" in page
    # the link opens in the friend's own language
    friend = Client(HTTP_ACCEPT_LANGUAGE="bg")
    assert friend.get(share_url).headers["Location"] == f"/bg/challenge/{challenge.pk}/"


def test_classic_options_are_kept_and_shown_to_the_friend(creator, friend):
    _response, challenge = make_challenge(
        creator, preset="classic", koks="off", cube="on", colour="black"
    )
    assert challenge.table == {"koks": False, "cube": True}
    page = friend.get(page_of(challenge)).content.decode()
    assert "No koks." in page and "With the doubling cube." in page
    assert "You play white." in page  # the creator asked for black
    assert "Standard clock" in page and "2 min for the whole game" in page


@pytest.mark.parametrize(
    "data",
    [
        {"preset": "sport", "cube": "on"},
        {"preset": "match", "match_length": "4"},
        {"preset": "classic", "match_length": "3"},
        {"colour": "purple"},
    ],
)
def test_bad_challenge_options_get_the_form_again_with_the_reason(creator, data):
    response = creator.post(reverse("games:challenge_new"), data)
    assert response.status_code == 400
    assert response.context["error"] and 'class="challenge-error"' in response.content.decode()
    assert not Challenge.objects.exists()


def test_a_friend_accepts_and_both_players_are_sent_to_the_game_with_its_clock(creator, friend):
    _response, challenge = make_challenge(creator, preset="sport", colour="white")
    status_url = action_url("challenge_status", challenge)
    status = creator.get(status_url)
    assert status.json() == {"status": "open", "game": None}
    assert status["Cache-Control"] == "no-store"

    invitation = friend.get(page_of(challenge))
    assert not invitation.context["is_creator"]
    page = invitation.content.decode()
    assert 'id="accept-challenge"' in page and "csrfmiddlewaretoken" in page
    assert "You play black." in page and "Standard clock" in page

    response = friend.post(action_url("challenge_accept", challenge))
    game = Game.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("games:game", kwargs={"game_id": game.id})
    assert game.white_guest == creator.session["guest_id"]
    assert game.black_guest == friend.session["guest_id"]
    assert game.clock == CLOCKS[STANDARD].to_json() and not game.bot_side

    # The creator's page (polling) learns of the game, and the link now leads both to it.
    assert creator.get(status_url).json() == {"status": "accepted", "game": response["Location"]}
    for player in (creator, friend):
        again = player.get(page_of(challenge))
        assert again.status_code == 302 and again["Location"] == response["Location"]

    room = creator.get(response["Location"])
    assert room.context["is_player"] and room.context["between_people"]
    assert room.context["clock"]["kind"] == STANDARD
    assert room.context["again_url"] == reverse("games:challenge_new")
    page = room.content.decode()
    assert 'id="presence"' in page and 'id="claim-btn"' in page
    assert "Play again: a new challenge link" in page
    assert room.context["initial_snapshot"]["clock"]["running"] == game.awaiting
    # "Play again" makes a new link with the same table (the sides drawn again).
    again = creator.post(room.context["again_url"], room.context["options_form"].initial)
    assert again.status_code == 302
    rematch = Challenge.objects.exclude(pk=challenge.pk).get()
    assert (rematch.preset, rematch.colour, rematch.status) == ("sport", "random", "open")


def test_a_taken_challenge_tells_a_third_visitor_and_cannot_be_accepted_again(creator, friend):
    _response, challenge = make_challenge(creator)
    friend.post(action_url("challenge_accept", challenge))
    game = Game.objects.get()
    late = Client()
    response = late.get(page_of(challenge))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Someone has already accepted this challenge." in page
    assert reverse("games:game", kwargs={"game_id": game.id}) in page  # to watch it
    assert 'id="accept-challenge"' not in page
    response = late.post(action_url("challenge_accept", challenge))
    assert response.status_code == 409
    page = response.content.decode()
    # said once, by the closed challenge's own line, not again as an error
    assert page.count("Someone has already accepted this challenge.") == 1
    assert response.context["error"] is None
    assert Game.objects.count() == 1


def test_ones_own_challenge_cannot_be_accepted(creator):
    _response, challenge = make_challenge(creator)
    response = creator.post(action_url("challenge_accept", challenge))
    assert response.status_code == 409
    assert response.context["error"] == "This is your own challenge: send the link to a friend."
    assert not Game.objects.exists()
    assert Challenge.objects.get().status == ChallengeStatus.OPEN


def test_a_withdrawn_challenge_says_so_and_cannot_be_accepted(creator, friend):
    _response, challenge = make_challenge(creator)
    # Only the creator may withdraw it.
    response = friend.post(action_url("challenge_cancel", challenge))
    assert response.status_code == 409
    assert "Only the player who made this challenge" in response.context["error"]

    response = creator.post(action_url("challenge_cancel", challenge))
    assert response.status_code == 302 and response["Location"] == page_of(challenge)
    assert Challenge.objects.get().status == ChallengeStatus.CANCELLED
    assert "You withdrew this challenge." in creator.get(page_of(challenge)).content.decode()
    assert creator.get(action_url("challenge_status", challenge)).json() == {
        "status": "cancelled",
        "game": None,
    }

    assert "This challenge was withdrawn." in friend.get(page_of(challenge)).content.decode()
    response = friend.post(action_url("challenge_accept", challenge))
    assert response.status_code == 409 and response.context["error"] is None
    assert response.content.decode().count("This challenge was withdrawn.") == 1
    assert not Game.objects.exists()
    response = creator.post(action_url("challenge_cancel", challenge))
    assert response.status_code == 409


def test_an_accepted_challenge_cannot_be_withdrawn_and_its_creator_goes_to_the_game(
    creator, friend
):
    _response, challenge = make_challenge(creator)
    friend.post(action_url("challenge_accept", challenge))
    response = creator.post(action_url("challenge_cancel", challenge))
    assert response.status_code == 302
    assert response["Location"] == reverse("games:game", kwargs={"game_id": Game.objects.get().id})
    assert Challenge.objects.get().status == ChallengeStatus.ACCEPTED


@pytest.mark.parametrize(
    "name,method",
    [
        ("challenge", "get"),
        ("challenge_status", "get"),
        ("challenge_accept", "post"),
        ("challenge_cancel", "post"),
    ],
)
def test_an_unknown_challenge_is_404(client, name, method):
    url = reverse(f"games:{name}", kwargs={"challenge_id": uuid.uuid4()})
    assert getattr(client, method)(url).status_code == 404


def test_accepting_and_withdrawing_need_a_post(creator, friend):
    _response, challenge = make_challenge(creator)
    assert friend.get(action_url("challenge_accept", challenge)).status_code == 405
    assert creator.get(action_url("challenge_cancel", challenge)).status_code == 405
    assert Challenge.objects.get().status == ChallengeStatus.OPEN


def test_the_site_menu_and_the_new_game_page_lead_to_play_a_friend(client):
    url = reverse("games:challenge_new")
    assert f'href="{url}"' in client.get(reverse("rules:home")).content.decode()
    assert f'href="{url}"' in client.get(reverse("games:my_games")).content.decode()


# --- the clock against the computer --------------------------------------------------------


def test_a_game_against_the_computer_has_a_clock_only_if_asked(client):
    client.post(reverse("games:new"), {"preset": "sport"})
    assert Game.objects.get().clock == {}
    # The form sends a hidden "off" before the checkbox: the last value counts.
    client.post(
        reverse("games:new"),
        "preset=match&match_length=3&clock=off&clock=on",
        content_type="application/x-www-form-urlencoded",
    )
    game = Game.objects.order_by("-created").first()
    assert game.clock == CLOCKS[MATCH].to_json()
    room = client.get(reverse("games:game", kwargs={"game_id": game.id}))
    assert room.context["clock"]["name"] == "Match clock"
    assert not room.context["between_people"]
    # "Play again" keeps the clock.
    assert room.context["options_form"].initial["clock"] == "on"
    assert 'name="clock" value="on"' in room.content.decode()


def test_the_new_game_form_offers_the_clock_switched_off_and_says_what_it_means(client):
    page = client.get(reverse("games:my_games")).content.decode()
    assert '<input type="hidden" name="clock" value="off">' in page
    assert 'name="clock" value="on" aria-describedby' in page
    assert 'name="clock" value="on" checked' not in page
    assert "the computer plays without a clock" in page
    assert "No move may take longer than 60 s." in page


def test_a_bad_clock_value_is_refused(client):
    response = client.post(reverse("games:new"), {"clock": "sometimes"})
    assert response.status_code == 400
    assert not Game.objects.exists()


# --- games that a clock ended -------------------------------------------------------------


def test_my_games_lists_games_with_friends_aborted_games_and_open_links(time_machine):
    time_machine.move_to(T0, tick=False)
    creator_guest, friend = Client(), Client()
    _response, open_link = make_challenge(creator_guest, preset="match", match_length="3")
    _response, taken = make_challenge(creator_guest)
    friend.post(action_url("challenge_accept", taken))
    game = Game.objects.get()
    game = play_turn(game.pk)  # the starter moves; the other side never makes a first move
    time_machine.shift(timedelta(milliseconds=60_000 + services.TIMER_GRACE_MS))
    assert services.apply_timeouts(game.pk).status == Status.ABORTED

    response = creator_guest.get(reverse("games:my_games"))
    rows = response.context["finished_games"]
    assert [row["id"] for row in rows] == [str(game.id)]
    assert rows[0]["status"] == "aborted" and not rows[0]["against_bot"]
    assert [c["id"] for c in response.context["open_challenges"]] == [str(open_link.id)]
    page = response.content.decode()
    assert "Aborted before a first play: no result" in page
    assert "with a friend" in page and page_of(open_link) in page

    # An aborted game is over: anyone may see its replay, which says there is no result.
    replay = Client().get(reverse("games:replay", kwargs={"game_id": game.id}))
    assert replay.status_code == 200
    assert "Game aborted before a first play: no result." in (replay.content.decode())


def test_a_game_lost_on_time_shows_why_in_my_games_and_the_replay(time_machine):
    time_machine.move_to(T0, tick=False)
    game = new_people_game(True, preset="match", match_length=3)
    game = play_turn(game.pk)
    game = play_turn(game.pk)  # both sides have moved: running out now loses
    time_machine.shift(timedelta(milliseconds=60_000 + services.TIMER_GRACE_MS))
    game = services.apply_timeouts(game.pk)
    assert game.end_reason == "timeout"
    assert Match.objects.get().status == Status.FINISHED  # the match clock loses the match
    viewer = Client()
    session = viewer.session
    session["guest_id"] = game.white_guest
    session.save()
    page = viewer.get(reverse("games:my_games")).content.decode()
    assert "(out of time)" in page
    replay = viewer.get(reverse("games:replay", kwargs={"game_id": game.id})).content.decode()
    assert "the other side ran out of time" in replay


# --- "my games": who the opponent is ------------------------------------------------------


def account(name):
    """A new account whose display name is ``name``."""
    user = get_user_model().objects.create_user(username=name.lower())
    Profile.objects.create(user=user, display_name=name)
    return user


def item_of(page, game):
    """The "my games" list item (HTML) of ``game``."""
    url = reverse("games:game", kwargs={"game_id": game.id})
    items = (part.split("</li>", 1)[0] for part in page.split('<li class="games-item">')[1:])
    return next(item for item in items if f'href="{url}"' in item)


def test_my_games_names_an_opponent_with_an_account_and_says_rated(time_machine):
    time_machine.move_to(T0, tick=False)
    anna, boris = account("Anna"), account("Boris")
    as_anna = services.Actor(guest_id="guest-of-anna", user_id=anna.pk)
    as_boris = services.Actor(guest_id="guest-of-boris", user_id=boris.pk)
    pairing.join(services.Actor(user_id=anna.pk), "sport")
    paired = pairing.join(
        services.Actor(user_id=boris.pk), "sport"
    ).game  # the lobby's rated game: no link, no friend
    casual = services.accept_challenge(services.create_challenge(as_anna).pk, as_boris)
    with_guest = services.accept_challenge(
        services.create_challenge(as_anna).pk, "guest-of-a-friend"
    )
    match = services.accept_challenge(
        services.create_challenge(as_anna, preset="match", match_length=5, colour="white").pk,
        "guest-of-a-match-friend",
    )
    match = play_turns(match.pk, 2)  # both have played: a resignation is a result
    services.resign(match.pk, as_anna, match.version)  # the match goes on with game 2
    second = Game.objects.get(match_id=match.match_id, match_number=2)
    client = Client()
    client.force_login(anna)

    response = client.get(reverse("games:my_games"))
    rows = {row["id"]: row for row in response.context["active_games"]}
    boris_page = reverse("games:player", kwargs={"user_id": boris.pk})
    assert rows[str(paired.id)]["opponent"] == {"name": "Boris", "url": boris_page}
    assert rows[str(paired.id)]["rated"] and not rows[str(paired.id)]["with_friend"]
    assert rows[str(casual.id)]["opponent"]["name"] == "Boris"
    assert not rows[str(casual.id)]["rated"] and rows[str(casual.id)]["with_friend"]
    assert rows[str(with_guest.id)]["opponent"] is None and rows[str(with_guest.id)]["with_friend"]
    assert rows[str(second.id)]["with_friend"]  # a later game of a match from a link
    page = response.content.decode()
    item = item_of(page, paired)
    assert "against Boris" in item and ">rated</span>" in item and "with a friend" not in item
    item = item_of(page, casual)
    assert "against Boris" in item and ">rated</span>" not in item
    assert "with a friend" in item_of(page, with_guest)
    assert "with a friend" in item_of(page, second)
    # Signed in, the list is the account's on every device, not this browser's.
    assert "Your account's games on every device" in page
    assert "Your games in this browser" not in page
    assert "Your games in this browser" in Client().get(reverse("games:my_games")).content.decode()


def test_my_games_says_just_now_for_a_move_or_a_link_of_the_last_minute(time_machine):
    time_machine.move_to(T0, tick=False)
    creator = Client()
    make_challenge(creator)
    make_challenge(creator)
    game = services.accept_challenge(Challenge.objects.first().pk, "guest-of-a-friend")
    time_machine.shift(timedelta(seconds=59))
    page = creator.get(reverse("games:my_games")).content.decode()
    assert "last move just now" in page and "made just now" in page
    assert "0\xa0minutes" not in page and "0 minutes" not in page
    time_machine.shift(timedelta(seconds=2))
    page = creator.get(reverse("games:my_games")).content.decode()
    assert "last move 1\xa0minute ago" in page and "made 1\xa0minute ago" in page
    assert "just now" not in page
    russian = creator.get(reverse("games:my_games").replace("/en/", "/ru/")).content.decode()
    assert "последний ход 1\xa0минуту назад" in russian
    time_machine.shift(timedelta(seconds=-2))
    russian = creator.get(reverse("games:my_games").replace("/en/", "/ru/")).content.decode()
    assert "последний ход только что" in russian and "создано только что" in russian
    assert game.status == Status.ACTIVE
