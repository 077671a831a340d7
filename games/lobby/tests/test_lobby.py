"""Matchmaking (games/lobby/pairing.py) and the lobby socket ws/lobby/ (docs/protocol.md "Lobby"):
pairing by rating with a window that widens with waiting time, same table only, one waiting
entry per account, leaving on disconnect, signed-in accounts only, the beat task, and
concurrent joins; the lobby page."""

import json
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connections
from django.test import Client

from games import clocks, services, tasks
from games.accounts.models import PlayerRating
from games.lobby import pairing
from games.lobby.models import QueueEntry, QueueStatus
from games.room.models import Game
from games.room.tests.test_consumers import origin

# the lobby over its socket, with its pairing task: the sockets tier (conftest.py)
pytestmark = pytest.mark.sockets

TIMEOUT = 5
T0 = datetime(2027, 5, 1, 12, 0, tzinfo=UTC)
T0_MS = int(T0.timestamp() * 1000)


def account(name, rating=None, preset="sport"):
    """A new account, with ``rating`` in ``preset`` if given (else the default 1500)."""
    user = get_user_model().objects.create_user(username=name)
    if rating is not None:
        PlayerRating.objects.create(user=user, preset=preset, rating=rating)
    return user


def statuses(*users):
    return [
        list(QueueEntry.objects.filter(user=user).order_by("pk").values_list("status", flat=True))
        for user in users
    ]


def game_of(user):
    """The game of the account's paired entry (None if it has none)."""
    entry = QueueEntry.objects.filter(user=user, status=QueueStatus.PAIRED).first()
    return entry.game if entry else None


# --- pairing --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_two_players_with_the_same_table_and_close_ratings_are_paired_into_a_rated_game():
    alice, bob = account("alice", 1500), account("bob", 1560)
    first = pairing.join(services.Actor(user_id=alice.pk), "match", 5, None)
    assert first.status == QueueStatus.WAITING and first.game is None
    assert (first.preset, first.match_length, first.clock_kind) == ("match", 5, "match")
    second = pairing.join(services.Actor(user_id=bob.pk), "match", 5, "match")
    assert second.status == QueueStatus.PAIRED
    game = second.game
    assert game is not None and first.pk != second.pk
    first.refresh_from_db()
    assert first.status == QueueStatus.PAIRED and first.game == game
    assert game.rated and game.match.rated and game.match.length == 5
    assert {game.white_user_id, game.black_user_id} == {alice.pk, bob.pk}
    assert not game.white_guest and not game.black_guest and not game.bot_side
    assert game.clock["kind"] == "match" and game.status == "active"
    # each player plays it as their account
    for user in (alice, bob):
        assert game.side_of(services.Actor(user_id=user.pk)) is not None


@pytest.mark.django_db
def test_the_window_widens_with_waiting_time_until_the_gap_fits(time_machine):
    assert pairing.window(0) == 100 and pairing.window(-5) == 100
    assert pairing.window(15_000) == 250 and pairing.window(70_000) == 800
    assert pairing.window(3_600_000) == pairing.WINDOW_MAX == 800

    time_machine.move_to(T0, tick=False)
    alice, bob = account("alice", 1500), account("bob", 1750)
    pairing.join(services.Actor(user_id=alice.pk), "sport")
    pairing.join(services.Actor(user_id=bob.pk), "sport")
    assert statuses(alice, bob) == [["waiting"], ["waiting"]]
    assert pairing.pair(T0_MS + 14_900) == []  # window 249 < gap 250
    assert statuses(alice, bob) == [["waiting"], ["waiting"]]
    made = pairing.pair(T0_MS + 15_000)  # 250: it fits
    assert len(made) == 1 and statuses(alice, bob) == [["paired"], ["paired"]]
    assert game_of(alice) == game_of(bob) == made[0]


@pytest.mark.django_db
def test_the_wider_window_of_the_two_counts(time_machine):
    time_machine.move_to(T0, tick=False)
    alice, bob = account("alice", 1500), account("bob", 1800)
    pairing.join(services.Actor(user_id=alice.pk), "sport")
    time_machine.move_to(T0 + timedelta(seconds=19), tick=False)
    pairing.join(
        services.Actor(user_id=bob.pk), "sport"
    )  # bob's window: 100; alice's after 19 s: 290
    assert statuses(alice, bob) == [["waiting"], ["waiting"]]
    assert len(pairing.pair(T0_MS + 20_000)) == 1  # alice's window reaches 300


@pytest.mark.django_db
def test_the_oldest_waiter_goes_first_and_gets_the_closest_rating(time_machine):
    time_machine.move_to(T0, tick=False)
    old, far, near = account("old", 1500), account("far", 1800), account("near", 1650)
    for user in (old, far, near):  # 150 points apart at least: nobody fits at once
        pairing.join(services.Actor(user_id=user.pk), "sport")
    assert statuses(old, far, near) == [["waiting"]] * 3
    assert len(pairing.pair(T0_MS + 30_000)) == 1  # windows of 400: old takes near, not far
    assert game_of(old) == game_of(near) and game_of(far) is None
    assert statuses(far) == [["waiting"]]


@pytest.mark.django_db
def test_only_players_with_the_same_table_are_paired():
    players = [account(f"p{n}") for n in range(6)]
    wanted = [
        ("sport", None, None),
        ("classic", None, None),
        ("match", 3, None),
        ("match", 5, None),
        ("match", 3, "standard"),
        ("sport", None, "match"),
    ]
    for user, (preset, length, clock) in zip(players, wanted):
        pairing.join(services.Actor(user_id=user.pk), preset, length, clock)
    # everyone waits, even once every window is as wide as it gets
    assert pairing.pair(clocks.now_ms() + 3_600_000) == []
    assert QueueEntry.objects.filter(status=QueueStatus.WAITING).count() == 6
    # a player who wants one of those tables is paired with that player only
    late = account("late")
    entry = pairing.join(services.Actor(user_id=late.pk), "match", 5)
    assert entry.status == QueueStatus.PAIRED
    assert game_of(players[3]) == entry.game and entry.game.match.length == 5
    assert QueueEntry.objects.filter(status=QueueStatus.WAITING).count() == 5


@pytest.mark.django_db
def test_a_wrong_option_or_no_account_is_refused_and_queues_nothing():
    alice = account("alice")
    for preset, length, clock in (
        ("blitz", None, None),
        ("sport", 3, None),
        ("match", 4, None),
        ("sport", None, "bullet"),
    ):
        with pytest.raises(services.BadFrame):
            pairing.join(services.Actor(user_id=alice.pk), preset, length, clock)
    with pytest.raises(services.BadFrame):
        pairing.join(services.Actor(), "sport")
    assert not QueueEntry.objects.exists()


@pytest.mark.django_db
def test_an_account_has_one_waiting_entry_and_a_new_join_replaces_it():
    alice = account("alice")
    pairing.join(services.Actor(user_id=alice.pk), "sport")
    pairing.join(services.Actor(user_id=alice.pk), "classic")
    assert statuses(alice) == [["left", "waiting"]]
    assert pairing.waiting_entry(services.Actor(user_id=alice.pk)).preset == "classic"
    # nobody is paired with themselves
    assert pairing.pair(clocks.now_ms() + 3_600_000) == []
    assert (
        pairing.leave(services.Actor(user_id=alice.pk)) == 1
        and pairing.leave(services.Actor(user_id=alice.pk)) == 0
    )
    assert pairing.waiting_entry(services.Actor(user_id=alice.pk)) is None


@pytest.mark.django_db
def test_leaving_a_given_entry_leaves_only_that_one():
    alice = account("alice")
    old = pairing.join(services.Actor(user_id=alice.pk), "sport")
    new = pairing.join(services.Actor(user_id=alice.pk), "sport")
    assert pairing.leave(services.Actor(user_id=alice.pk), old.pk) == 0  # already replaced
    assert pairing.waiting_entry(services.Actor(user_id=alice.pk)) == new
    assert pairing.leave(services.Actor(user_id=alice.pk), new.pk) == 1


@pytest.mark.django_db
def test_an_entry_nobody_keeps_alive_leaves_the_queue_instead_of_being_paired():
    alice, bob = account("alice"), account("bob")
    stale = pairing.join(services.Actor(user_id=alice.pk), "sport")
    cache.delete(pairing._alive_key(stale))  # its socket vanished 60 s ago without closing
    entry = pairing.join(services.Actor(user_id=bob.pk), "sport")
    assert entry.status == QueueStatus.WAITING and entry.game is None
    assert statuses(alice, bob) == [["left"], ["waiting"]]


@pytest.mark.django_db
def test_the_queued_state_gives_the_rating_and_the_widening_window():
    alice = account("alice", 1612.4, preset="classic")
    entry = pairing.join(services.Actor(user_id=alice.pk), "classic")
    joined = clocks.to_ms(entry.joined)
    state = pairing.state_of(entry, now=joined + 12_000)
    assert state == {
        "type": "queued",
        "pool": "rated",
        "offer_computer_ms": 20_000,
        "preset": "classic",
        "match_length": 1,
        "clock": "standard",
        "rating": 1612,
        "provisional": True,
        "joined": joined,
        "server_time": joined + 12_000,
        "window": 220,
        "window_start": 100.0,
        "window_growth": 10.0,
        "window_max": 800.0,
    }


# --- the beat task -----------------------------------------------------------------------


@pytest.mark.django_db
def test_the_beat_task_pairs_players_once_their_windows_have_widened(time_machine):
    time_machine.move_to(T0, tick=False)
    alice, bob = account("alice", 1400), account("bob", 1580)
    pairing.join(services.Actor(user_id=alice.pk), "sport")
    pairing.join(services.Actor(user_id=bob.pk), "sport")
    assert tasks.pair_lobby() == 0
    time_machine.move_to(T0 + timedelta(seconds=7), tick=False)
    assert tasks.pair_lobby() == 0  # 170 < 180
    time_machine.move_to(T0 + timedelta(seconds=8), tick=False)
    assert tasks.pair_lobby() == 1
    assert tasks.pair_lobby() == 0
    assert game_of(alice) == game_of(bob) is not None


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_celery_beat_pairs_waiting_sockets_as_the_windows_widen(clock_queue):
    """The real beat (every LOBBY_PAIR_SECONDS) and worker: two sockets 130 points apart wait
    3 s for their windows, then both hear of the same game from the worker."""
    alice, bob = account("alice", 1500), account("bob", 1630)

    async def scenario():
        one, two = await lobby_socket(alice), await lobby_socket(bob)
        await one.send_json_to(join_frame())
        await two.send_json_to(join_frame())
        assert (await receive(one))["type"] == "queued"
        assert (await receive(two))["type"] == "queued"
        started = time.monotonic()
        paired = [await receive(one, timeout=15), await receive(two, timeout=15)]
        waited = time.monotonic() - started
        await one.disconnect()
        await two.disconnect()
        return paired, waited

    paired, waited = async_to_sync(scenario)()
    assert paired[0]["type"] == paired[1]["type"] == "paired"
    assert paired[0] == paired[1]
    assert 2 <= waited <= 3 + 2 * settings.CELERY_BEAT_SCHEDULE["pair-lobby"]["schedule"] + 2
    game = Game.objects.get(pk=paired[0]["game"])
    assert {game.white_user_id, game.black_user_id} == {alice.pk, bob.pk} and game.rated


# --- concurrency -------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_concurrent_joins_pair_each_player_exactly_once():
    players = [account(f"p{n}") for n in range(8)]
    barrier = threading.Barrier(len(players))
    errors = []

    def join(user):
        try:
            barrier.wait()
            pairing.join(services.Actor(user_id=user.pk), "sport")
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=join, args=(user,)) for user in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    games = list(Game.objects.all())
    assert len(games) == 4
    seated = [user for game in games for user in (game.white_user_id, game.black_user_id)]
    assert sorted(seated) == sorted(user.pk for user in players)
    assert not QueueEntry.objects.filter(status=QueueStatus.WAITING).exists()
    for game in games:
        assert QueueEntry.objects.filter(game=game).count() == 2


@pytest.mark.django_db(transaction=True)
def test_concurrent_joins_of_one_account_leave_one_waiting_entry():
    alice = account("alice")
    barrier = threading.Barrier(4)
    errors = []

    def join(preset):
        try:
            barrier.wait()
            pairing.join(services.Actor(user_id=alice.pk), preset)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=join, args=(preset,))
        for preset in ("sport", "classic", "match", "sport")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert QueueEntry.objects.filter(user=alice).count() == 4
    assert QueueEntry.objects.filter(user=alice, status=QueueStatus.WAITING).count() == 1
    assert not Game.objects.exists()


# --- the socket ----------------------------------------------------------------------------


def signed_in_cookie(user):
    """A Cookie header value of a session signed in as ``user`` (as after a real login)."""
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


async def lobby_socket(user=None, cookie=None, connect=True, lang="en"):
    """A WebsocketCommunicator on ws/lobby/ signed in as ``user`` (or with ``cookie``), from
    a page in ``lang``."""
    from nardy_site.asgi import application

    if cookie is None:
        cookie = await sync_to_async(signed_in_cookie)(user)
    headers = [(b"origin", origin().encode()), (b"cookie", cookie.encode())]
    comm = WebsocketCommunicator(application, f"/ws/lobby/?lang={lang}", headers=headers)
    if connect:
        connected, _ = await comm.connect(timeout=TIMEOUT)
        assert connected
    return comm


async def receive(comm, timeout=TIMEOUT, counts=False):
    """The next frame of ``comm``; the ``waiting`` frames (the counts, on connect and from
    beat) are skipped unless ``counts``."""
    while True:
        frame = json.loads(await comm.receive_from(timeout=timeout))
        if counts or frame["type"] != "waiting":
            return frame


def join_frame(preset="sport", match_length=None, clock=None):
    frame = {"type": "join", "preset": preset}
    if match_length is not None:
        frame["match_length"] = match_length
    if clock is not None:
        frame["clock"] = clock
    return frame


@pytest.mark.django_db(transaction=True)
def test_a_visitor_without_a_session_is_closed_with_4401():
    async def scenario():
        for cookie in ("", f"{settings.SESSION_COOKIE_NAME}=unknown"):
            comm = await lobby_socket(cookie=cookie)
            assert await comm.receive_output(timeout=TIMEOUT) == {
                "type": "websocket.close",
                "code": 4401,
            }
            await comm.disconnect()  # ends the consumer, which still listens to the layer

    async_to_sync(scenario)()
    assert not QueueEntry.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_two_sockets_join_and_both_are_told_of_their_game_in_their_language():
    alice, bob = account("alice", 1500), account("bob", 1450)

    async def scenario():
        one, two = await lobby_socket(alice), await lobby_socket(bob, lang="bg")
        await one.send_json_to(join_frame("match", 3, "standard"))
        queued = await receive(one)
        await two.send_json_to(join_frame("match", 3, "standard"))
        paired = [await receive(one), await receive(two)]
        assert await one.receive_nothing(timeout=0.3)
        await one.disconnect()
        await two.disconnect()
        return queued, paired

    queued, paired = async_to_sync(scenario)()
    assert queued["type"] == "queued" and queued["preset"] == "match"
    assert (queued["match_length"], queued["clock"], queued["rating"]) == (3, "standard", 1500)
    # the window has widened by however long the join took on a busy machine, from 100
    assert queued["window"] == round(pairing.window(queued["server_time"] - queued["joined"]))
    assert 100 <= queued["window"] < 110 and abs(queued["server_time"] - clocks.now_ms()) < 5_000
    game = Game.objects.get(pk=paired[0]["game"])
    assert paired == [
        {"type": "paired", "game": str(game.pk), "url": f"/en/game/{game.pk}/"},
        {"type": "paired", "game": str(game.pk), "url": f"/bg/game/{game.pk}/"},
    ]
    assert game.clock["kind"] == "standard" and game.match.length == 3
    # leaving the page after the pairing changes nothing
    assert statuses(alice, bob) == [["paired"], ["paired"]]


@pytest.mark.django_db(transaction=True)
def test_closing_the_socket_that_joined_leaves_the_queue_and_tells_other_tabs():
    alice, bob = account("alice"), account("bob")

    async def scenario():
        joiner, other = await lobby_socket(alice), await lobby_socket(alice)
        await joiner.send_json_to(join_frame())
        assert (await receive(joiner))["type"] == "queued"
        assert (await receive(other))["type"] == "queued"  # every tab shows the wait
        # a third tab opened meanwhile is told at once
        third = await lobby_socket(alice)
        assert (await receive(third))["type"] == "queued"
        await third.disconnect()  # closing a tab that did not join changes nothing
        assert (
            await sync_to_async(pairing.waiting_entry)(services.Actor(user_id=alice.pk)) is not None
        )
        await joiner.disconnect()
        assert await receive(other) == {"type": "left"}
        await other.disconnect()

    async_to_sync(scenario)()
    assert statuses(alice) == [["left"]]
    # nobody is paired with a player who has gone
    assert pairing.join(services.Actor(user_id=bob.pk), "sport").status == QueueStatus.WAITING


@pytest.mark.django_db(transaction=True)
def test_the_leave_frame_leaves_from_any_tab():
    alice = account("alice")

    async def scenario():
        joiner, other = await lobby_socket(alice), await lobby_socket(alice)
        await joiner.send_json_to(join_frame())
        await receive(joiner)
        await receive(other)
        await other.send_json_to({"type": "leave"})
        assert await receive(other) == {"type": "left"}
        assert await receive(joiner) == {"type": "left"}
        await joiner.disconnect()
        await other.disconnect()

    async_to_sync(scenario)()
    assert statuses(alice) == [["left"]]


@pytest.mark.django_db(transaction=True)
def test_bad_frames_get_errors_and_queue_nothing():
    alice = account("alice")

    async def scenario():
        comm = await lobby_socket(alice)
        answers = []
        for text in (
            "not json",
            "[1]",
            json.dumps({"type": "dance"}),
            json.dumps(join_frame("blitz")),
            json.dumps(join_frame("sport", 3)),
            json.dumps({"type": "join", "preset": "sport", "clock": ["match"]}),
            json.dumps(join_frame("sport", clock="bullet")),
        ):
            await comm.send_to(text_data=text)
            answers.append(await receive(comm))
        await comm.disconnect()
        return answers

    answers = async_to_sync(scenario)()
    assert [a["type"] for a in answers] == ["error"] * 7
    assert [a["code"] for a in answers] == ["bad_frame"] * 7
    assert answers[3]["message"] == "Unknown rules preset."
    assert answers[4]["message"] == "Only the match rules play a match of several games."
    assert answers[6]["message"] == "Unknown clock."
    assert not QueueEntry.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_errors_come_in_the_language_of_the_page():
    alice = account("alice")

    async def scenario():
        from nardy_site.asgi import application

        cookie = await sync_to_async(signed_in_cookie)(alice)
        comm = WebsocketCommunicator(
            application,
            "/ws/lobby/?lang=ru",
            headers=[(b"origin", origin().encode()), (b"cookie", cookie.encode())],
        )
        await comm.connect(timeout=TIMEOUT)
        await comm.send_json_to(join_frame("blitz"))
        answer = await receive(comm)
        await comm.disconnect()
        return answer

    answer = async_to_sync(scenario)()
    assert answer["code"] == "bad_frame" and answer["message"] != "Unknown rules preset."


@pytest.mark.django_db(transaction=True)
def test_a_socket_whose_session_signed_out_is_closed_on_its_next_frame():
    alice = account("alice")
    client = Client()
    client.force_login(alice)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"

    async def scenario():
        comm = await lobby_socket(cookie=cookie)
        assert (await receive(comm, counts=True))["type"] == "waiting"
        await sync_to_async(client.logout)()
        await comm.send_json_to(join_frame())
        assert await comm.receive_output(timeout=TIMEOUT) == {
            "type": "websocket.close",
            "code": 4401,
        }
        await comm.disconnect()

    async_to_sync(scenario)()
    assert not QueueEntry.objects.exists()
