"""The friends' services: following (not oneself, once per pair), the list's states (in a
game, and only between players who follow each other online, away with when last seen), a
challenge to a friend (only between players who follow each other; an earlier open one
replaced; withdrawn by an unfollow), accepted by its addressee alone, declined by them with
the challenger told, and the Telegram notice of it (Telegram's servers answered by the
tests' stub)."""

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone, translation

from games import clocks, services
from games.challenges.models import Challenge, ChallengeStatus
from games.friends import challenges, following, presence
from games.friends.models import Follow, LastSeen
from games.friends.tests.helpers import SPORT, account, actor, befriend
from games.room.models import Presence
from games.services import dispatch
from games.telegram import notices
from games.telegram.tests.test_telegram_bot import player, queued
from games.tests.telegram_helpers import (  # noqa: F401 - fixtures used by name
    bot_api_stub,
    telegram_on,
)

pytestmark = pytest.mark.django_db


class Sent(list):
    """What the friends' services hand to the notices sockets after the commit: ``(user_id,
    message type, challenge id)``; ``committed()`` runs the commit hooks of what it wraps."""

    def __init__(self, capture):
        super().__init__()
        self.committed = lambda: capture(execute=True)


@pytest.fixture
def sent(monkeypatch, django_capture_on_commit_callbacks):
    """Records what goes to the notices groups after the commit, at the service layer's one
    door to the channel layer (the sockets' own test, test_notices_socket.py, runs it through
    Redis)."""
    messages = Sent(django_capture_on_commit_callbacks)

    def record(group, message):
        user_id = int(group.removeprefix("notices_user_"))
        transaction.on_commit(
            lambda: messages.append((user_id, message["type"], message["challenge"]))
        )

    monkeypatch.setattr(dispatch, "send_to_group_after_commit", record)
    return messages


# --- following -----------------------------------------------------------------------------


def test_following_is_once_per_pair_never_oneself_and_undone_by_unfollowing():
    anna, boris = account("Anna"), account("Boris")
    assert following.follow(anna.pk, boris.pk) is True
    assert following.follow(anna.pk, boris.pk) is False  # already: nothing new
    assert following.is_following(anna.pk, boris.pk)
    assert not following.is_following(boris.pk, anna.pk)  # following asks nothing back
    with pytest.raises(following.FollowError) as refused:
        following.follow(anna.pk, anna.pk)
    assert refused.value.code == "self"
    with pytest.raises(following.FollowError) as unknown:
        following.follow(anna.pk, 999_999)
    assert unknown.value.code == "not_found"
    assert Follow.objects.count() == 1
    assert following.unfollow(anna.pk, boris.pk) is True
    assert following.unfollow(anna.pk, boris.pk) is False
    assert not Follow.objects.exists()


def test_the_database_itself_refuses_a_second_row_or_a_follow_of_oneself():
    anna, boris = account("Anna"), account("Boris")
    Follow.objects.create(follower=anna, followed=boris)
    for follower, followed in ((anna, boris), (anna, anna)):
        with pytest.raises(IntegrityError), transaction.atomic():
            Follow.objects.create(follower=follower, followed=followed)


def test_a_deactivated_account_leaves_the_list():
    anna, boris = account("Anna"), account("Boris")
    following.follow(anna.pk, boris.pk)
    boris.is_active = False
    boris.save()
    assert following.followed_ids(anna.pk) == []
    with pytest.raises(following.FollowError):
        following.follow(account("Vera").pk, boris.pk)


# --- the list --------------------------------------------------------------------------------


def test_the_list_shows_who_plays_who_is_online_and_when_the_others_were_last_seen():
    me = account("Me")
    playing, online, seen, never = (account(n) for n in ("Zoe", "Yan", "Xena", "Walt"))
    opponent = account("Olga")
    for friend in (never, seen, online, playing):
        befriend(me, friend)
    # Zoe has the page of a game against Olga open; Yan has a page of the site open
    game = services.accept_challenge(
        services.create_challenge(actor(playing), preset="sport", colour="white").pk,
        actor(opponent),
    )
    Presence.objects.create(
        game=game, side="white", channel_name="zoe-page", seen=clocks.from_ms(clocks.now_ms())
    )
    presence.page_seen(online.pk)
    LastSeen.objects.create(user=seen, seen=timezone.now() - timedelta(hours=3))
    rows = presence.friends_of(me.pk)
    assert [(row["name"], row["state"]) for row in rows] == [
        ("Zoe", "playing"),
        ("Yan", "online"),
        ("Xena", "away"),
        ("Walt", "away"),
    ]
    assert rows[0]["game"] == {"url": f"/en/game/{game.pk}/", "bot": False, "opponent": "Olga"}
    assert rows[0]["profile"] == f"/en/players/{playing.pk}/"
    assert all(row["mutual"] for row in rows)
    assert rows[1]["game"] is None and rows[1]["last_seen"] is not None
    assert rows[2]["last_seen"] < timezone.now() - timedelta(hours=2)
    assert rows[3]["last_seen"] is None


def test_a_game_against_the_computer_counts_and_a_stale_page_or_an_ended_game_does_not():
    me, friend = account("Me"), account("Friend")
    befriend(me, friend)
    game = services.create_bot_game(actor(friend), preset="sport", bot_level="easy")
    side = game.side_of(actor(friend))
    row = Presence.objects.create(
        game=game, side=side, channel_name="p1", seen=clocks.from_ms(clocks.now_ms())
    )
    [listed] = presence.friends_of(me.pk)
    assert listed["state"] == "playing" and listed["game"]["bot"] is True
    row.seen = clocks.from_ms(clocks.now_ms() - services.PRESENCE_STALE_MS - 1000)
    row.save()
    assert presence.friends_of(me.pk)[0]["state"] == "away"
    row.seen = clocks.from_ms(clocks.now_ms())
    row.save()
    services.resign(game.pk, actor(friend), game.version)
    assert presence.friends_of(me.pk)[0]["state"] == "away"


def test_online_lasts_a_little_past_the_last_page_and_last_seen_is_kept():
    me, friend = account("Me"), account("Friend")
    following.follow(me.pk, friend.pk)
    presence.page_seen(friend.pk)
    presence.page_closed(friend.pk)  # one tab closed: another may still be open
    assert presence.online_ids([friend.pk]) == {friend.pk}
    assert LastSeen.objects.get(user=friend).seen > timezone.now() - timedelta(seconds=5)


def test_online_and_last_seen_are_shown_only_to_a_player_followed_back():
    me, fan, star, friend = account("Me"), account("Fan"), account("Star"), account("Friend")
    following.follow(me.pk, star.pk)  # Star does not follow me back
    following.follow(fan.pk, me.pk)  # Fan follows me; I do not follow Fan
    befriend(me, friend)
    for user in (me, star, friend):
        presence.page_seen(user.pk)
    rows = presence.friends_of(me.pk)
    assert [(row["name"], row["state"], row["mutual"]) for row in rows] == [
        ("Friend", "online", True),
        ("Star", "one_way", False),  # online, but I am not told, nor when last seen
    ]
    assert rows[0]["last_seen"] is not None and rows[1]["last_seen"] is None
    # what Fan sees of me: nothing but that I do not follow back
    [mine] = presence.friends_of(fan.pk)
    assert (mine["state"], mine["last_seen"], mine["mutual"]) == ("one_way", None, False)
    # a game in progress is public: shown one way too, with its page to watch
    game = services.accept_challenge(
        services.create_challenge(actor(star), preset="sport", colour="white").pk,
        actor(account("Olga")),
    )
    Presence.objects.create(
        game=game, side="white", channel_name="star-page", seen=clocks.from_ms(clocks.now_ms())
    )
    star_row = presence.friends_of(me.pk)[0]
    assert (star_row["name"], star_row["state"], star_row["mutual"]) == ("Star", "playing", False)
    assert star_row["game"]["url"] == f"/en/game/{game.pk}/" and star_row["last_seen"] is None
    # following back shares both ways at once; unfollowing ends it
    following.follow(star.pk, me.pk)
    assert presence.friends_of(me.pk)[0]["last_seen"] is not None
    challenges.unfollow(star.pk, me.pk)
    assert presence.friends_of(me.pk)[0]["last_seen"] is None


# --- a challenge to a friend -----------------------------------------------------------------


def test_only_players_who_follow_each_other_can_challenge_each_other(sent):
    anna, boris = account("Anna"), account("Boris")
    # nobody follows; Anna follows Boris; Boris alone follows Anna: refused each time
    for follower, followed in ((None, None), (anna, boris), (boris, anna)):
        if follower is not None:
            Follow.objects.all().delete()
            following.follow(follower.pk, followed.pk)
        for maker, addressee in ((anna, boris), (boris, anna)):
            with pytest.raises(challenges.FriendChallengeError) as refused:
                challenges.challenge_friend(actor(maker), addressee.pk, SPORT)
            assert refused.value.code == "not_mutual"
            assert "once you follow each other" in refused.value.message
    with translation.override("ru"), pytest.raises(challenges.FriendChallengeError) as in_ru:
        challenges.challenge_friend(actor(anna), boris.pk, SPORT)
    assert "подписаны друг на друга" in in_ru.value.message
    assert sent == [] and not Challenge.objects.exists()
    following.follow(anna.pk, boris.pk)  # now both ways
    with sent.committed():
        challenge = challenges.challenge_friend(actor(anna), boris.pk, dict(SPORT, rated=True))
    assert (challenge.addressee_id, challenge.creator_user_id) == (boris.pk, anna.pk)
    assert challenge.rated and challenge.status == ChallengeStatus.OPEN
    assert sent == [(boris.pk, "notices.challenge", str(challenge.pk))]
    with pytest.raises(services.BadFrame):  # options are checked as for any challenge
        challenges.challenge_friend(actor(anna), boris.pk, {"preset": "chess"})


def test_a_new_challenge_to_the_same_friend_replaces_the_open_one(sent):
    anna, boris = account("Anna"), account("Boris")
    befriend(anna, boris)
    with sent.committed():
        first = challenges.challenge_friend(actor(anna), boris.pk, SPORT)
    with sent.committed():
        second = challenges.challenge_friend(actor(anna), boris.pk, {"preset": "match"})
    first.refresh_from_db()
    assert first.status == ChallengeStatus.CANCELLED
    assert [item.pk for item in challenges.pending_for(boris.pk)] == [second.pk]
    assert sent[1:] == [
        (boris.pk, "notices.closed", str(first.pk)),
        (boris.pk, "notices.challenge", str(second.pk)),
    ]


@pytest.mark.parametrize("who_unfollows", ["addressee", "challenger"])
def test_unfollowing_withdraws_the_open_challenges_between_the_two_at_once(sent, who_unfollows):
    anna, boris, vera = account("Anna"), account("Boris"), account("Vera")
    befriend(anna, boris)
    befriend(anna, vera)
    with sent.committed():
        to_boris = challenges.challenge_friend(actor(anna), boris.pk, SPORT)
    with sent.committed():
        to_anna = challenges.challenge_friend(actor(boris), anna.pk, SPORT)
    with sent.committed():
        to_vera = challenges.challenge_friend(actor(anna), vera.pk, SPORT)
    del sent[:]
    unfollower, unfollowed = (boris, anna) if who_unfollows == "addressee" else (anna, boris)
    with sent.committed():
        assert challenges.unfollow(unfollower.pk, unfollowed.pk) is True
    for challenge in (to_boris, to_anna):
        challenge.refresh_from_db()
        assert challenge.status == ChallengeStatus.CANCELLED
    assert sorted(sent) == sorted(
        [
            (boris.pk, "notices.closed", str(to_boris.pk)),
            (anna.pk, "notices.closed", str(to_anna.pk)),
        ]
    )
    assert challenges.pending_for(boris.pk) == [] and challenges.pending_for(anna.pk) == []
    # the other friendship goes on; a new challenge between the two is refused
    to_vera.refresh_from_db()
    assert to_vera.status == ChallengeStatus.OPEN
    with pytest.raises(challenges.FriendChallengeError):
        challenges.challenge_friend(actor(anna), boris.pk, SPORT)
    del sent[:]
    with sent.committed():  # nothing more to withdraw
        assert challenges.unfollow(unfollower.pk, unfollowed.pk) is False
    assert sent == []


def test_the_notices_of_a_challenge_need_the_two_to_still_follow_each_other(sent):
    anna, boris = account("Anna"), account("Boris")
    befriend(anna, boris)
    challenge = challenges.challenge_friend(actor(anna), boris.pk, SPORT)
    assert challenges.challenge_frame(challenge.pk, boris.pk) is not None
    # a follow gone without the unfollow's withdrawal (a row deleted by hand, an old challenge)
    Follow.objects.filter(follower=boris, followed=anna).delete()
    assert challenges.challenge_frame(challenge.pk, boris.pk) is None
    assert challenges.hello_frame(boris.pk) == {"type": "hello", "challenges": []}


def test_only_the_addressee_accepts_and_the_challenger_is_told(sent):
    anna, boris, vera = account("Anna"), account("Boris"), account("Vera")
    befriend(anna, boris)
    with sent.committed():
        challenge = challenges.challenge_friend(actor(anna), boris.pk, SPORT)
    for intruder in (actor(vera), "a-guest-who-has-the-link"):
        with pytest.raises(services.ChallengeError):
            services.accept_challenge(challenge.pk, intruder)
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.OPEN and challenge.game is None
    with sent.committed():
        game = services.accept_challenge(challenge.pk, actor(boris))
    assert (game.white_user_id, game.black_user_id) == (anna.pk, boris.pk)
    assert sent[1:] == [
        (anna.pk, "notices.answered", str(challenge.pk)),
        (boris.pk, "notices.closed", str(challenge.pk)),
    ]
    frame = challenges.answer_frame(challenge.pk, anna.pk)
    assert frame == {
        "type": "answered",
        "challenge": str(challenge.pk),
        "status": "accepted",
        "text": "Boris accepted your challenge: the game has begun.",
        "game": f"/en/game/{game.pk}/",
    }
    assert challenges.answer_frame(challenge.pk, boris.pk) is None  # not Boris's challenge


def test_declining_closes_the_challenge_and_tells_the_challenger(sent):
    anna, boris, vera = account("Anna"), account("Boris"), account("Vera")
    befriend(anna, boris)
    with sent.committed():
        challenge = challenges.challenge_friend(actor(anna), boris.pk, SPORT)
    with pytest.raises(challenges.FriendChallengeError) as refused:
        challenges.decline(challenge.pk, vera.pk)
    assert refused.value.code == "not_yours"
    with sent.committed():
        challenges.decline(challenge.pk, boris.pk)
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.DECLINED
    assert sent[1:] == [
        (anna.pk, "notices.answered", str(challenge.pk)),
        (boris.pk, "notices.closed", str(challenge.pk)),
    ]
    assert (
        challenges.answer_frame(challenge.pk, anna.pk)["text"] == "Boris declined your challenge."
    )
    with pytest.raises(challenges.FriendChallengeError) as again:
        challenges.decline(challenge.pk, boris.pk)
    assert again.value.code == "closed"
    with pytest.raises(services.ChallengeError):
        services.accept_challenge(challenge.pk, actor(boris))
    assert challenges.pending_for(boris.pk) == []


def test_a_withdrawn_challenge_leaves_the_addressees_pages(sent):
    anna, boris = account("Anna"), account("Boris")
    befriend(anna, boris)
    with sent.committed():
        challenge = challenges.challenge_friend(actor(anna), boris.pk, SPORT)
    with sent.committed():
        services.cancel_challenge(challenge.pk, actor(anna))
    assert sent[1:] == [(boris.pk, "notices.closed", str(challenge.pk))]
    assert challenges.challenge_frame(challenge.pk, boris.pk) is None


def test_the_notice_of_a_challenge_says_who_and_the_table_in_the_pages_language(sent):
    anna, boris = account("Anna"), account("Boris")
    befriend(anna, boris)
    challenge = challenges.challenge_friend(
        actor(anna), boris.pk, {"preset": "match", "match_length": 5, "colour": "random"}
    )
    notice = challenges.challenge_frame(challenge.pk, boris.pk)["challenge"]
    assert notice["text"] == "Anna challenges you to a game."
    assert notice["table"] == "Match to 5 points · Match clock · casual"
    assert notice["accept"] == f"/en/challenge/{challenge.pk}/accept/"
    assert notice["decline"] == f"/en/friends/challenge/{challenge.pk}/decline/"
    assert challenges.challenge_frame(challenge.pk, anna.pk) is None  # not for the challenger
    with translation.override("ru"):
        notice = challenges.hello_frame(boris.pk)["challenges"][0]
    assert notice["text"] == "Anna приглашает вас на партию."
    assert notice["accept"].startswith("/ru/")
    # an old challenge no longer pops up (its page still accepts it)
    type(challenge).objects.filter(pk=challenge.pk).update(
        created=timezone.now() - challenges.PENDING_FOR - timedelta(seconds=1)
    )
    assert challenges.hello_frame(boris.pk) == {"type": "hello", "challenges": []}


# --- Telegram -------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_friend_who_chose_telegram_notices_is_sent_the_challenge(telegram_on, unattended_queue):
    maker, friend = player(951, notices_on=False), player(952, language="bg")
    quiet = player(953, notices_on=False)
    befriend(maker, friend)
    befriend(maker, quiet)
    challenge = challenges.challenge_friend(actor(maker), friend.pk, SPORT)
    challenges.challenge_friend(actor(maker), quiet.pk, SPORT)  # no notices asked: none queued
    assert queued(unattended_queue, "challenge") == [
        (notices.TASK, ["challenge", friend.pk, str(challenge.pk), 0], None)
    ]
    assert notices.send("challenge", friend.pk, str(challenge.pk)) == "sent"
    [call] = telegram_on.wait_for(1)
    assert call["method"] == "sendMessage"
    payload = call["payload"]
    assert payload["chat_id"] == 952
    assert (
        payload["text"]
        == "Player 951 ви кани на игра: Спортни · Стандартен часовник · без рейтинг."
    )
    [[button]] = payload["reply_markup"]["inline_keyboard"]
    assert button["web_app"]["url"].startswith("https://nardy.example/tg/?next=")
    assert f"challenge%2F{challenge.pk}" in button["web_app"]["url"]
    # answered meanwhile: nothing more is sent
    challenges.decline(challenge.pk, friend.pk)
    assert notices.send("challenge", friend.pk, str(challenge.pk)) == "stale"
    assert len(telegram_on.calls) == 1
    # unfollowed before its message went: the message is not sent
    again = challenges.challenge_friend(actor(maker), friend.pk, SPORT)
    challenges.unfollow(friend.pk, maker.pk)
    assert notices.send("challenge", friend.pk, str(again.pk)) == "stale"
    assert len(telegram_on.calls) == 1


@pytest.mark.django_db(transaction=True)
def test_a_player_followed_one_way_gets_no_telegram_message(telegram_on, unattended_queue):
    maker, friend = player(961, notices_on=False), player(962)
    following.follow(maker.pk, friend.pk)
    with pytest.raises(challenges.FriendChallengeError):
        challenges.challenge_friend(actor(maker), friend.pk, SPORT)
    assert queued(unattended_queue, "challenge") == []
