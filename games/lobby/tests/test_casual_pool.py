"""The lobby's casual pool: anyone, guests too, unrated, the oldest waiter first; its counts
of waiting players; guests over the lobby socket."""

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.core.cache import cache

from games import services
from games.lobby import pairing
from games.lobby.models import QueueEntry, QueueStatus
from games.lobby.tests.test_lobby import account, join_frame, lobby_socket, receive
from games.room.models import Game
from games.room.tests.test_consumers import session_cookie
from games.services import dispatch

pytestmark = pytest.mark.sockets


def guest(name):
    return services.Actor(guest_id=name)


@pytest.mark.django_db
def test_two_guests_with_the_same_table_are_paired_into_an_unrated_game_by_guest_id():
    first = pairing.join(guest("g-one"), "match", 5, None, "casual")
    assert first.status == QueueStatus.WAITING and first.user_id is None
    second = pairing.join(guest("g-two"), "match", 5, None, "casual")
    game = second.game
    assert game is not None and not game.rated and game.match.length == 5
    assert {game.white_guest, game.black_guest} == {"g-one", "g-two"}
    assert game.white_user_id is None and game.black_user_id is None
    assert game.clock["kind"] == "match"  # the preset's own clock
    assert QueueEntry.objects.get(pk=first.pk).game_id == game.pk


@pytest.mark.django_db
def test_the_casual_pool_ignores_ratings_and_seats_a_signed_in_player_by_account_too():
    strong = account("strong", 2400)
    pairing.join(services.Actor(guest_id="g-s", user_id=strong.pk), "sport", pool="casual")
    game = pairing.join(guest("g-new"), "sport", pool="casual").game
    assert game is not None and not game.rated
    side = game.side_of(services.Actor(user_id=strong.pk))
    assert game.guest_of(side) == "g-s"


@pytest.mark.django_db
def test_pools_and_tables_never_mix_and_nobody_plays_themselves():
    alice, bob = account("alice"), account("bob")
    pairing.join(services.Actor(user_id=alice.pk), "sport")  # rated
    pairing.join(services.Actor(guest_id="g-b", user_id=bob.pk), "sport", pool="casual")
    pairing.join(guest("g-c"), "classic", pool="casual")
    assert not Game.objects.exists()
    # the same guest id from another tab replaces its own entry instead of meeting it
    pairing.join(guest("g-c"), "classic", pool="casual")
    assert not Game.objects.exists()
    assert QueueEntry.objects.filter(guest="g-c", status=QueueStatus.WAITING).count() == 1


@pytest.mark.django_db
def test_a_guest_may_not_join_the_rated_pool_and_a_wrong_pool_is_refused():
    with pytest.raises(services.BadFrame, match="Sign in to play rated games"):
        pairing.join(guest("g-x"), "sport", pool="rated")
    with pytest.raises(services.BadFrame, match="Unknown pool"):
        pairing.join(guest("g-x"), "sport", pool="ranked")
    with pytest.raises(services.BadFrame):
        pairing.join(services.Actor(), "sport", pool="casual")
    assert not QueueEntry.objects.exists()


@pytest.mark.django_db
def test_a_guest_leaves_only_its_own_entry():
    pairing.join(guest("g-a"), "sport", pool="casual")
    pairing.join(guest("g-b"), "classic", pool="casual")
    assert pairing.leave(guest("g-a")) == 1
    assert pairing.leave(guest("g-a")) == 0
    assert pairing.waiting_entry(guest("g-b")) is not None


@pytest.mark.django_db
def test_the_counts_per_pool_and_preset_are_announced_only_when_they_change(monkeypatch):
    sent = []
    monkeypatch.setattr(dispatch, "tell_lobby_counts", sent.append)
    cache.delete("lobby:counts")
    alice = account("alice")
    pairing.join(guest("g-a"), "sport", pool="casual")
    pairing.join(guest("g-b"), "match", 3, pool="casual")
    pairing.join(services.Actor(user_id=alice.pk), "classic")
    counts = pairing.announce_counts()
    assert counts == {
        "casual": {"total": 2, "sport": 1, "classic": 0, "match": 1},
        "rated": {"total": 1, "sport": 0, "classic": 1, "match": 0},
    }
    assert sent == [counts]
    pairing.announce_counts()
    assert len(sent) == 1  # unchanged: nothing sent
    pairing.leave(guest("g-a"))
    pairing.announce_counts()
    assert sent[-1]["casual"]["total"] == 1


@pytest.mark.django_db(transaction=True)
def test_two_guests_over_the_socket_hear_the_counts_and_their_game():
    async def scenario():
        one = await lobby_socket(cookie=await sync_to_async(session_cookie)("g-sock-1"))
        two = await lobby_socket(cookie=await sync_to_async(session_cookie)("g-sock-2"), lang="ru")
        first = await receive(one, counts=True)
        assert first["type"] == "waiting" and first["counts"]["casual"]["total"] == 0
        await one.send_json_to({**join_frame("sport"), "pool": "casual"})
        queued = await receive(one)
        assert queued["type"] == "queued" and queued["pool"] == "casual"
        assert "rating" not in queued and queued["offer_computer_ms"] == 20_000
        await sync_to_async(pairing.announce_counts)()
        counted = await receive(two, counts=True)
        assert counted["type"] == "waiting"
        if counted["counts"]["casual"]["total"] == 0:  # the connect frame came first
            counted = await receive(two, counts=True)
        assert counted["counts"]["casual"] == {"total": 1, "sport": 1, "classic": 0, "match": 0}
        await two.send_json_to({**join_frame("sport"), "pool": "casual"})
        paired = [await receive(one), await receive(two)]
        # a guest asking for the rated pool is told why not, in its page's language
        await two.send_json_to(join_frame("sport"))
        refused = await receive(two)
        await one.disconnect()
        await two.disconnect()
        return paired, refused

    paired, refused = async_to_sync(scenario)()
    assert paired[0]["type"] == paired[1]["type"] == "paired"
    assert paired[0]["game"] == paired[1]["game"]
    assert paired[0]["url"].startswith("/en/game/") and paired[1]["url"].startswith("/ru/game/")
    game = Game.objects.get(pk=paired[0]["game"])
    assert {game.white_guest, game.black_guest} == {"g-sock-1", "g-sock-2"} and not game.rated
    assert refused["type"] == "error" and refused["code"] == "bad_frame"
    assert refused["message"] != "Sign in to play rated games."  # in Russian
