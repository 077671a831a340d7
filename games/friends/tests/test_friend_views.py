"""The friends' pages: the list for a signed-in player (online, last seen and Challenge only
for a player who follows back) and the reason a guest gets, follow and unfollow (refused to
guests, CSRF-protected, bad ids answered 400/404 with nothing changed; unfollowing withdraws
the challenges between the two), the challenge form to a friend who follows back, declining
a challenge, the challenge's page for its addressee and for anyone else, the Follow control
of a player's card (saying when that player follows the viewer) and of a finished game, and
the header's link with the notices script for signed-in players only."""

import pytest
from django.test import Client

from games import services
from games.challenges.models import Challenge, ChallengeStatus
from games.friends import challenges, following, presence
from games.friends.models import Follow
from games.friends.tests.helpers import SPORT, account, actor, befriend

pytestmark = pytest.mark.django_db


def signed_in(user, csrf=False):
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


def test_a_guest_is_told_why_friends_need_an_account_and_may_change_nothing(client):
    anna = account("Anna")
    page = client.get("/en/friends/")
    assert page.status_code == 200
    text = page.content.decode()
    assert 'id="friends-sign-in"' in text and "Friends are for signed-in players" in text
    assert "next=%2Fen%2Ffriends%2F" in text  # the development sign-in is on in the tests
    assert "site-notices-config" not in text and "notices.js" not in text
    for path in (
        f"/en/friends/follow/{anna.pk}/",
        f"/en/friends/unfollow/{anna.pk}/",
        f"/en/friends/{anna.pk}/challenge/",
    ):
        assert client.post(path, {**SPORT}).status_code == 403
    assert client.get(f"/en/friends/{anna.pk}/challenge/").status_code == 302  # to sign in
    assert not Follow.objects.exists() and not Challenge.objects.exists()


def test_follow_from_a_card_lists_the_friend_and_unfollow_takes_them_away():
    anna, boris = account("Anna"), account("Boris")
    as_anna = signed_in(anna)
    card = as_anna.get(f"/en/players/{boris.pk}/").content.decode()
    assert 'id="follow-button"' in card and "Follow Boris" in card
    answer = as_anna.post(f"/en/friends/follow/{boris.pk}/", {"next": f"/en/players/{boris.pk}/"})
    assert answer.status_code == 302 and answer["Location"] == f"/en/players/{boris.pk}/"
    assert following.is_following(anna.pk, boris.pk)
    card = as_anna.get(f"/en/players/{boris.pk}/").content.decode()
    assert "You follow Boris." in card and 'id="unfollow-button"' in card
    page = as_anna.get("/en/friends/").content.decode()
    assert 'id="friends-list"' in page and "Boris" in page
    assert 'id="friends-mutual-note"' in page
    # Boris does not follow back: no Challenge, and nothing of when he is around
    assert f'href="/en/friends/{boris.pk}/challenge/"' not in page
    assert "Not following you back" in page
    # Boris's card of Anna says she follows him; he follows back from there
    as_boris = signed_in(boris)
    her_card = as_boris.get(f"/en/players/{anna.pk}/").content.decode()
    assert 'id="follows-you-note"' in her_card and "Anna follows you" in her_card
    as_boris.post(f"/en/friends/follow/{anna.pk}/", {"next": f"/en/players/{anna.pk}/"})
    assert 'id="follows-you-note"' not in as_boris.get(f"/en/players/{anna.pk}/").content.decode()
    page = as_anna.get("/en/friends/").content.decode()
    assert f'href="/en/friends/{boris.pk}/challenge/"' in page
    assert "Not following you back" not in page
    # the header links here, and every page of a signed-in player loads the notices
    assert 'class="account-menu__friends" href="/en/friends/" aria-current="page"' in page
    assert 'data-ws-path="/ws/notices/?lang=en"' in page and "games/notices.js" in page
    # an offsite "next" is not followed
    answer = as_anna.post(f"/en/friends/unfollow/{boris.pk}/", {"next": "https://evil.example/"})
    assert answer["Location"] == "/en/friends/"
    assert not following.is_following(anna.pk, boris.pk)
    # one's own card has no control
    assert 'id="follow-button"' not in as_anna.get(f"/en/players/{anna.pk}/").content.decode()


def test_bad_ids_and_oneself_are_refused_and_change_nothing():
    anna = account("Anna")
    as_anna = signed_in(anna)
    assert as_anna.post("/en/friends/follow/999999/").status_code == 404
    assert as_anna.post("/en/friends/unfollow/999999/").status_code == 404
    refused = as_anna.post(f"/en/friends/follow/{anna.pk}/")
    assert refused.status_code == 400 and "You cannot follow yourself." in refused.content.decode()
    assert as_anna.get("/en/friends/999999/challenge/").status_code == 404
    assert (
        as_anna.post(
            f"/en/friends/challenge/{'0' * 8}-0000-0000-0000-{'0' * 12}/decline/"
        ).status_code
        == 404
    )
    assert as_anna.get("/en/friends/follow/1/").status_code == 405  # POST only
    assert not Follow.objects.exists()


def test_the_posts_need_the_csrf_token():
    anna, boris = account("Anna"), account("Boris")
    strict = signed_in(anna, csrf=True)
    assert strict.post(f"/en/friends/follow/{boris.pk}/").status_code == 403
    following.follow(anna.pk, boris.pk)
    assert strict.post(f"/en/friends/unfollow/{boris.pk}/").status_code == 403
    assert strict.post(f"/en/friends/{boris.pk}/challenge/", SPORT).status_code == 403
    assert following.is_following(anna.pk, boris.pk) and not Challenge.objects.exists()


def test_a_friend_is_challenged_from_the_list_and_only_they_may_accept():
    anna, boris, vera = account("Anna"), account("Boris"), account("Vera")
    as_anna = signed_in(anna)
    # not followed, or followed but not following back: no form, and a post is refused
    for _step in ("none", "one way"):
        assert as_anna.get(f"/en/friends/{boris.pk}/challenge/").status_code == 404
        refused = as_anna.post(f"/en/friends/{boris.pk}/challenge/", SPORT)
        assert refused.status_code == 400
        assert "once you follow each other" in refused.content.decode()
        following.follow(anna.pk, boris.pk)
    ru = as_anna.post(f"/ru/friends/{boris.pk}/challenge/", SPORT)
    assert "подписаны друг на друга" in ru.content.decode()
    assert not Challenge.objects.exists()
    following.follow(boris.pk, anna.pk)
    form = as_anna.get(f"/en/friends/{boris.pk}/challenge/")
    assert form.status_code == 200 and "Challenge Boris" in form.content.decode()
    bad = as_anna.post(f"/en/friends/{boris.pk}/challenge/", {"preset": "chess"})
    assert bad.status_code == 400 and not Challenge.objects.exists()
    made = as_anna.post(
        f"/en/friends/{boris.pk}/challenge/",
        {"preset": "match", "match_length": "3", "colour": "black", "rated": "rated"},
    )
    challenge = Challenge.objects.get()
    assert made["Location"] == f"/en/challenge/{challenge.pk}/"
    assert (challenge.addressee_id, challenge.match_length, challenge.rated) == (boris.pk, 3, True)
    # the challenger waits for Boris (no link to share: nobody else may take it)
    waiting = as_anna.get(made["Location"]).content.decode()
    assert "Waiting for Boris" in waiting and 'id="share-link"' not in waiting
    # anyone else is told it is not theirs, and cannot accept it
    as_vera = signed_in(vera)
    other = as_vera.get(made["Location"]).content.decode()
    assert 'id="not-addressee"' in other and 'id="accept-challenge"' not in other
    refused = as_vera.post(f"/en/challenge/{challenge.pk}/accept/")
    assert refused.status_code == 409
    assert "addressed to another player" in refused.content.decode()
    # Boris sees it on the friends page and on its own page, with Accept and Decline
    as_boris = signed_in(boris)
    listed = as_boris.get("/en/friends/").content.decode()
    assert 'id="friends-pending"' in listed and "Anna challenges you to a game." in listed
    own = as_boris.get(made["Location"]).content.decode()
    assert 'id="accept-challenge"' in own and 'id="decline-challenge"' in own
    accepted = as_boris.post(f"/en/challenge/{challenge.pk}/accept/")
    challenge.refresh_from_db()
    assert accepted["Location"] == f"/en/game/{challenge.game_id}/"
    assert as_anna.get(f"/en/challenge/{challenge.pk}/status/").json() == {
        "status": "accepted",
        "game": f"/en/game/{challenge.game_id}/",
    }


def test_declining_answers_json_or_goes_back_and_the_challenger_sees_it():
    anna, boris, vera = account("Anna"), account("Boris"), account("Vera")
    befriend(anna, boris)
    challenge = challenges.challenge_friend(actor(anna), boris.pk, SPORT)
    path = f"/en/friends/challenge/{challenge.pk}/decline/"
    assert signed_in(vera).post(path).status_code == 403  # not hers
    assert signed_in(anna).post(path).status_code == 403  # the challenger withdraws instead
    assert Challenge.objects.get().status == ChallengeStatus.OPEN
    as_boris = signed_in(boris)
    answer = as_boris.post(path, headers={"Accept": "application/json"})
    assert answer.status_code == 200 and answer.json() == {"status": "declined"}
    again = as_boris.post(path, headers={"Accept": "application/json"})
    assert again.status_code == 409 and "no longer open" in again.json()["error"]
    as_anna = signed_in(anna)
    assert as_anna.get(f"/en/challenge/{challenge.pk}/status/").json()["status"] == "declined"
    page = as_anna.get(f"/ru/challenge/{challenge.pk}/").content.decode()
    assert "Boris отклоняет ваше приглашение." in page
    # a form's decline goes back to the friends page
    second = challenges.challenge_friend(actor(anna), boris.pk, SPORT)
    gone = as_boris.post(f"/en/friends/challenge/{second.pk}/decline/")
    assert gone.status_code == 302 and gone["Location"] == "/en/friends/"


def test_the_end_of_a_game_between_two_accounts_offers_to_follow_the_opponent():
    anna, boris = account("Anna"), account("Boris")
    game = services.accept_challenge(
        services.create_challenge(actor(anna), preset="sport", colour="white").pk, actor(boris)
    )
    page = signed_in(anna).get(f"/en/game/{game.pk}/").content.decode()
    assert f'action="/en/friends/follow/{boris.pk}/"' in page and "Follow Boris" in page
    assert f'value="/en/game/{game.pk}/"' in page  # back to the game afterwards
    # an onlooker, a guest opponent or the computer: no control
    assert (
        "follow-button"
        not in signed_in(account("Vera")).get(f"/en/game/{game.pk}/").content.decode()
    )
    with_guest = services.accept_challenge(
        services.create_challenge(actor(anna), preset="sport").pk, "a-guest"
    )
    assert "follow-button" not in signed_in(anna).get(f"/en/game/{with_guest.pk}/").content.decode()
    bot = services.create_bot_game(actor(anna), preset="sport", bot_level="easy")
    assert "follow-button" not in signed_in(anna).get(f"/en/game/{bot.pk}/").content.decode()


def test_the_pages_speak_russian_and_bulgarian():
    anna, boris, vera = account("Anna"), account("Boris"), account("Vera")
    befriend(anna, boris)
    following.follow(anna.pk, vera.pk)
    as_anna = signed_in(anna)
    ru = as_anna.get("/ru/friends/").content.decode()
    assert "Игроки, на которых вы подписаны" in ru and "Пригласить" in ru and "Друзья" in ru
    assert "Нет взаимной подписки" in ru and "только при взаимной подписке" in ru
    bg = as_anna.get("/bg/friends/").content.decode()
    assert "Играчи, които следвате" in bg and "Покани" in bg and "Приятели" in bg
    assert "Не ви следва" in bg and "се следват взаимно" in bg
    card = signed_in(vera).get(f"/ru/players/{anna.pk}/").content.decode()
    assert "Игрок Anna подписан на вас" in card


def test_online_and_last_seen_are_not_shown_to_a_player_not_followed_back():
    anna, boris = account("Anna"), account("Boris")
    following.follow(boris.pk, anna.pk)  # Boris follows Anna; she does not follow back
    presence.page_seen(anna.pk)
    page = signed_in(boris).get("/en/friends/").content.decode()
    row = page[page.index(f'data-user-id="{anna.pk}"') :]
    row = row[: row.index("</li>")]
    assert "Not following you back" in row and "is-one_way" in page
    assert "Online" not in row and "Last seen" not in row and "friend__challenge" not in row
    following.follow(anna.pk, boris.pk)
    page = signed_in(boris).get("/en/friends/").content.decode()
    row = page[page.index(f'data-user-id="{anna.pk}"') :]
    assert "Online" in row[: row.index("</li>")] and "friend__challenge" in row


def test_unfollowing_from_the_list_withdraws_the_challenge_between_the_two():
    anna, boris = account("Anna"), account("Boris")
    befriend(anna, boris)
    challenge = challenges.challenge_friend(actor(anna), boris.pk, SPORT)
    as_boris = signed_in(boris)
    assert "Anna challenges you" in as_boris.get("/en/friends/").content.decode()
    answer = as_boris.post(f"/en/friends/unfollow/{anna.pk}/")
    assert answer.status_code == 302 and answer["Location"] == "/en/friends/"
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.CANCELLED
    assert "Anna challenges you" not in as_boris.get("/en/friends/").content.decode()
    status = signed_in(anna).get(f"/en/challenge/{challenge.pk}/status/").json()
    assert status["status"] == "cancelled"
