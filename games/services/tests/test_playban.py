"""Abandoning lost rated games has a cost (issue #16; games/services/playban.py, FAQ
"leaving-a-lost-game"): a signed-in player who loses a rated game on time or by leaving, in a
position the hard bot's network gives them less than a 20 % chance in, waits 5 minutes, then
15, then an hour, then a day before the next rated game (counting the last 7 days); the lobby
(over its real socket) and the challenge links refuse them with the reason and the time left,
which the lobby page and their profile show too. Resigning, positions still worth playing,
casual games, guests and outages never count."""

from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.test import Client
from django.urls import reverse

from games import clocks, services
from games.accounts.models import Abandonment
from games.accounts.tests.test_rated_games import account, person, rated_game
from games.choices import Status
from games.lobby import pairing
from games.lobby.models import QueueEntry
from games.lobby.tests.test_lobby import join_frame, lobby_socket, receive
from games.room.models import Game
from games.services import outages, playban
from games.services.models import Heartbeat
from games.tests.factories import play_turns, set_position

pytestmark = pytest.mark.django_db

T0 = "2027-06-01 12:00:00+00:00"
#: the standard clock's move period and reserve: a side that never acts runs out after this
RUNS_OUT_S = (45_000 + 120_000 + services.TIMER_GRACE_MS) / 1000 + 1


def lost_for_the_side_to_act(game):
    """The side to act has all 15 checkers on its head; the other has one left to bear off."""
    side = game.awaiting
    other = "black" if side == "white" else "white"
    return set_position(
        game, {"turn": side, side: {"24": 15}, other: {"1": 1}, "first_turn": False}
    )


def lost_game_of(sitter, opponent):
    """A rated game in which ``sitter`` is to act in a lost position (when the roll-off gave
    the opponent the first turn, the opponent plays it first)."""
    game = rated_game(sitter, opponent)
    if game.user_of(game.awaiting) != sitter.pk:
        game = play_turns(game.pk, 1)
    return lost_for_the_side_to_act(game)


def runs_out(game, time_machine):
    """Nobody acts until the side to act has run out of time; returns the finished game."""
    time_machine.shift(RUNS_OUT_S)
    return services.apply_timeouts(game.pk)


def test_losing_a_lost_rated_game_on_time_closes_rated_games_for_5_minutes(time_machine):
    time_machine.move_to(T0, tick=False)
    alice, bob = account("alice"), account("bob")
    game = lost_for_the_side_to_act(rated_game(alice, bob))
    loser = game.user_of(game.awaiting)
    game = runs_out(game, time_machine)
    assert game.end_reason == "timeout" and game.status == Status.FINISHED
    noted = Abandonment.objects.get()
    assert noted.user_id == loser and noted.reason == "timeout" and noted.chance < 0.2
    # the lobby refuses the join with the reason and the time left; nothing is queued
    with pytest.raises(services.PlayBanned) as refused:
        pairing.join(services.Actor(user_id=loser), "sport")
    assert refused.value.code == "play_banned" and 299 <= refused.value.retry_after <= 300
    assert "5 minutes" in refused.value.message and "let the clock run out" in refused.value.message
    assert not QueueEntry.objects.filter(user_id=loser).exists()
    # the winner is not held back
    winner = alice.pk if loser == bob.pk else bob.pk
    assert pairing.join(services.Actor(user_id=winner), "sport").status == "waiting"
    time_machine.shift(299)
    with pytest.raises(services.PlayBanned):
        pairing.join(services.Actor(user_id=loser), "sport")
    time_machine.shift(1)
    assert pairing.join(services.Actor(user_id=loser), "sport") is not None


def test_the_wait_grows_with_each_abandonment_within_7_days(time_machine):
    time_machine.move_to(T0, tick=False)
    alice, bob = account("alice"), account("bob")
    waits = []
    for _n in range(5):
        runs_out(lost_game_of(alice, bob), time_machine)
        waits.append(playban.current_wait(alice.pk).seconds_left())
        time_machine.shift(timedelta(days=1, minutes=1))
    minute, hour = 60, 3600
    assert waits == [5 * minute, 15 * minute, hour, 24 * hour, 24 * hour]
    assert playban.current_wait(alice.pk) is None  # the day is over
    # a week later the count starts again: the next one costs 5 minutes
    time_machine.shift(timedelta(days=7))
    runs_out(lost_game_of(alice, bob), time_machine)
    assert playban.current_wait(alice.pk).seconds_left() == 5 * minute


def test_a_timeout_in_a_position_still_worth_playing_does_not_count(time_machine):
    time_machine.move_to(T0, tick=False)
    game = rated_game(account("alice"), account("bob"))
    set_position(
        game,
        {"turn": game.awaiting, "white": {"24": 15}, "black": {"24": 15}, "first_turn": False},
    )
    game = runs_out(game, time_machine)
    assert game.end_reason == "timeout"
    assert not Abandonment.objects.exists()


def test_resigning_casual_games_and_guests_never_count_but_a_rated_no_show_does(time_machine):
    time_machine.move_to(T0, tick=False)
    alice, bob = account("alice"), account("bob")
    resigned = lost_for_the_side_to_act(rated_game(alice, bob))
    services.resign(resigned.pk, services.Actor(user_id=resigned.user_of(resigned.awaiting)), 1)
    casual = services.accept_challenge(
        services.create_challenge(person(alice), colour="white").pk, person(bob), clock=True
    )
    runs_out(lost_for_the_side_to_act(casual), time_machine)
    guests = services.accept_challenge(
        services.create_challenge("guest-a", colour="white").pk, "guest-b", clock=True
    )
    runs_out(lost_for_the_side_to_act(guests), time_machine)
    assert Game.objects.filter(end_reason="timeout").count() == 2
    assert not Abandonment.objects.exists()
    no_show = rated_game(alice, bob)  # nobody moves: aborted after 60 s, and that counts
    absent = no_show.user_of(no_show.awaiting)
    time_machine.shift(61)
    assert services.apply_timeouts(no_show.pk).status == Status.ABORTED
    assert list(Abandonment.objects.values_list("user_id", "reason")) == [(absent, "abort")]
    assert "before making your first play" in playban.current_wait(absent).message()


def test_leaving_a_lost_rated_match_counts(time_machine):
    time_machine.move_to(T0, tick=False)
    alice, bob = account("alice"), account("bob")
    game = lost_for_the_side_to_act(rated_game(alice, bob, preset="match", match_length=3))
    side = game.awaiting
    sitter = alice if game.user_of(side) == alice.pk else bob
    services.player_here(game.pk, person(sitter), "sits-1")
    services.player_left(game.pk, "sits-1")  # the loser closes the page and does not come back
    time_machine.shift(61)
    game = services.apply_timeouts(game.pk)
    assert game.end_reason == "abandon"
    assert Abandonment.objects.get().reason == "abandon"
    wait = playban.current_wait(game.user_of(side))
    assert "left a lost rated game" in wait.message()


def test_an_outage_never_counts(time_machine, settings):
    settings.GAMES_OUTAGE_MIN_MS = 5_000  # as in production (conftest.py turns it off)
    time_machine.move_to(T0, tick=False)
    outages.serve_here()  # this process is a web process: it notes the heartbeat
    outages.keep_alive(lambda: None)
    game = lost_for_the_side_to_act(rated_game(account("alice"), account("bob")))
    time_machine.shift(RUNS_OUT_S + 60)  # the whole site was down meanwhile
    assert services.sweep_clocks() == (0, 0)
    assert Game.objects.get(pk=game.pk).status == Status.ACTIVE
    assert not Abandonment.objects.exists()
    assert Heartbeat.objects.get().last_outage > 0


def test_rated_challenges_are_refused_while_waiting_and_casual_ones_are_not(time_machine):
    time_machine.move_to(T0, tick=False)
    alice, bob, carol = account("alice"), account("bob"), account("carol")
    game = lost_for_the_side_to_act(rated_game(alice, bob))
    loser = alice if game.user_of(game.awaiting) == alice.pk else bob
    runs_out(game, time_machine)
    with pytest.raises(services.PlayBanned):
        services.create_challenge(person(loser), colour="white", rated=True)
    open_challenge = services.create_challenge(person(carol), colour="white", rated=True)
    with pytest.raises(services.ChallengeError) as refused:
        services.accept_challenge(open_challenge.pk, person(loser))
    assert "Rated games are closed to you" in refused.value.message
    casual = services.create_challenge(person(loser), colour="white")
    assert services.accept_challenge(casual.pk, person(carol)).rated is False


def abandoned(user, game, reason="abandon"):
    """``user`` abandoned a lost rated game a minute ago (a row, as ``note_loss`` writes)."""
    Abandonment.objects.create(
        user=user,
        game=game,
        reason=reason,
        chance=0.01,
        created=clocks.from_ms(clocks.now_ms() - 60_000),
    )


def test_what_was_queued_or_offered_before_the_wait_does_not_dodge_it():
    alice, bob, carol = account("alice"), account("bob"), account("carol")
    entry = pairing.join(services.Actor(user_id=alice.pk), "classic")
    link = services.create_challenge(person(alice), colour="white", rated=True)
    abandoned(alice, rated_game(bob, carol))
    # the lobby entry leaves the queue at the next pairing instead of being paired
    assert pairing.join(services.Actor(user_id=bob.pk), "classic").game is None
    entry.refresh_from_db()
    assert entry.status == "left" and not Game.objects.filter(white_user=alice, preset="classic")
    # the rated link alice made before cannot be accepted meanwhile
    with pytest.raises(services.ChallengeError) as refused:
        services.accept_challenge(link.pk, person(carol))
    assert "made this challenge" in refused.value.message


@pytest.mark.django_db(transaction=True)
def test_the_lobby_socket_the_lobby_page_and_the_profile_say_why_and_how_long():
    alice, bob = account("alice"), account("bob")
    game = rated_game(alice, bob)
    loser = alice if game.user_of(game.awaiting) == alice.pk else bob
    abandoned(loser, game, reason="timeout")

    async def join():
        comm = await lobby_socket(loser, lang="ru")
        await comm.send_json_to(join_frame("sport"))
        frame = await receive(comm)
        await comm.disconnect()
        return frame

    frame = async_to_sync(join)()
    assert frame["type"] == "error" and frame["code"] == "play_banned"
    assert 235 <= frame["retry_after"] <= 240
    assert "Рейтинговые партии для вас закрыты" in frame["message"]
    assert not QueueEntry.objects.exists()
    client = Client()
    client.force_login(loser)
    for name in ("games:lobby", "games:profile"):
        page = client.get(reverse(name).replace("/en/", "/bg/")).content.decode()
        assert 'id="playban"' in page and "4 минути" in page, name
        assert "#leaving-a-lost-game" in page
    lobby_page = client.get(reverse("games:lobby")).content.decode()
    assert 'data-playban-until="' in lobby_page  # the page keeps "Find an opponent" off
    assert 'id="lobby-join" aria-describedby="playban"' in lobby_page
    other = Client()
    other.force_login(alice if loser == bob else bob)
    assert 'id="playban"' not in other.get(reverse("games:lobby")).content.decode()
