"""The clocks through the game service (RULES.md R11/R12, docs/protocol.md "Clocks") with the
time under the test's control (time-machine): periods and reserves, the 60 s cap, loss on time
and its R9 value, the first-move rule, presence and claims, and that a deadline is applied
once whichever comes first: the player's message, a timer or the sweep."""

import dataclasses
import random
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from games import app_settings, clocks, services
from games.choices import Phase, Status, other_side
from games.clocks import CLOCKS, MATCH, STANDARD, ClockSpec
from games.room.models import Game, Match, Presence
from games.services import outages
from games.services.models import Heartbeat, Outage
from games.tests.factories import (
    BLACK_GUEST,
    HUMAN,
    ONLOOKER,
    WHITE_GUEST,
    FixedDice,
    guest_to_act,
    new_bot_game,
    new_people_game,
    play_turn,
    random_legal_play,
    set_position,
    unchanged,
)

pytestmark = pytest.mark.django_db

T0 = datetime(2027, 3, 1, 12, 0, tzinfo=UTC)
GRACE = services.TIMER_GRACE_MS
#: the match clock without its cap and with a long reserve: only presence ends a game
PRESENCE_ONLY = dataclasses.replace(CLOCKS[MATCH], reserve_ms=3_600_000, max_move_ms=None)


class Clock:
    """The test's time: stands still at T0 until moved (all in ms since the epoch). The site
    stays up while it moves: the sweep's heartbeat keeps up (``outage`` stops the site)."""

    def __init__(self, traveller):
        self.traveller = traveller
        traveller.move_to(T0, tick=False)

    @staticmethod
    def now():
        return clocks.now_ms()

    def wait(self, ms):
        self.traveller.shift(timedelta(milliseconds=ms))
        self.kept()

    def to(self, ms):
        self.traveller.move_to(datetime.fromtimestamp(ms / 1000, tz=UTC), tick=False)
        self.kept()

    def outage(self, ms):
        """The whole site is down for ``ms``: time moves, no heartbeat."""
        self.traveller.shift(timedelta(milliseconds=ms))

    @staticmethod
    def kept():
        Heartbeat.objects.filter(pk=1).update(beat_at=clocks.from_ms(clocks.now_ms()))


@pytest.fixture
def clock(time_machine):
    return Clock(time_machine)


@pytest.fixture
def fixed(monkeypatch):
    return FixedDice(monkeypatch)


def fresh(game):
    return Game.objects.get(pk=game.pk)


def past_first_moves(game, rng=None):
    """Both sides make their first move at once (the first-move rule no longer applies);
    returns the game with the starter to act again."""
    rng = rng or random.Random(1)
    for _side in range(2):
        game = play_turn(game.pk, rng)
    assert not game.position["first_turn"]
    return game


def clock_snap(game, viewer=WHITE_GUEST):
    return services.snapshot(fresh(game), viewer)["game"]["clock"]


def kinds(game):
    return list(fresh(game).events.order_by("seq").values_list("kind", flat=True))


# --- periods, reserves, the cap -----------------------------------------------------------


def test_standard_reserve_is_spent_only_after_the_roll_and_move_free_times(clock):
    game = past_first_moves(new_people_game(True))
    side, other = game.awaiting, other_side(game.awaiting)
    actor = guest_to_act(game)
    snap = clock_snap(game)
    assert (snap["running"], snap["period"], snap["free_ms"]) == (side, "roll", 15_000)
    assert snap["deadline"] == clock.now() + 15_000 + 120_000

    clock.wait(15_000)  # all of the roll's free time
    game = services.roll(game.pk, actor, game.version)
    assert game.reserve_of(side) == 120_000
    snap = clock_snap(game)
    assert (snap["period"], snap["free_ms"], snap["period_started"]) == (
        "move",
        45_000,
        clock.now(),
    )
    assert snap["turn_started"] == clock.now() - 15_000
    assert snap["deadline"] == clock.now() + 45_000 + 120_000

    clock.wait(50_000)  # 5 s beyond the move's free time
    game = play_turn(game.pk)
    assert (game.reserve_of(side), game.reserve_of(other)) == (115_000, 120_000)

    game = play_turn(game.pk)  # the other side at once
    clock.wait(20_000)  # 5 s beyond the roll's free time
    game = services.roll(game.pk, actor, game.version)
    assert game.reserve_of(side) == 110_000
    assert game.reserve_of(other) == 120_000


def test_out_of_reserve_loses_the_standard_game_scored_by_r9(clock):
    game = past_first_moves(new_people_game(True))
    loser = game.awaiting
    clock.wait(15_000 + 120_000 + GRACE - 1)
    with unchanged(game.pk):
        assert services.apply_timeouts(game.pk) is None
    clock.wait(1)
    game = services.apply_timeouts(game.pk)
    assert game.status == Status.FINISHED and game.end_reason == "timeout"
    assert game.winner == other_side(loser) and game.reserve_of(loser) == 0
    assert game.deadline is None and game.clock_period == ""
    assert kinds(game)[-2:] == ["timeout", "end"]
    result = services.snapshot(fresh(game), WHITE_GUEST)["game"]["result"]
    # both sides still have all their checkers: a mars (R9), one game lost, not a match
    assert result == {
        "winner": other_side(loser),
        "kind": "mars",
        "points": 2,
        "reason": "timeout",
        "cube": 1,
        "loser": loser,
        "match_lost": False,
        "rating": None,
    }


WINNER_HOME = {"1": 15}  # the winner's checkers, all in its home


@pytest.mark.parametrize(
    "preset, table, loser_board, cube, kind, points",
    [
        ("sport", {}, {"12": 14}, 1, "oin", 1),  # one checker off
        ("sport", {}, {"12": 15}, 1, "mars", 2),  # none off
        ("sport", {}, {"12": 14, "20": 1}, 1, "mars", 2),  # no koks in sport
        ("classic", {"koks": True}, {"12": 14, "20": 1}, 1, "koks", 3),  # one in the winner's half
        ("classic", {"koks": True, "cube": True}, {"12": 14, "20": 1}, 2, "koks", 6),  # x the cube
        ("classic", {"koks": True, "cube": True}, {"12": 15}, 4, "mars", 8),
        ("classic", {"koks": False}, {"12": 14, "20": 1}, 1, "mars", 2),
    ],
)
def test_a_loss_on_time_is_scored_by_r9_on_the_losers_position(
    clock, fixed, preset, table, loser_board, cube, kind, points
):
    game = new_people_game(True, preset=preset, fixed=fixed, opening=(6, 5), **table)
    # a later turn of black's (the loser's), arranged directly
    set_position(
        game,
        {"turn": "black", "white": WINNER_HOME, "black": loser_board, "first_turn": False},
        phase=Phase.ROLL,
    )
    game.cube_value, game.cube_owner = cube, ("white" if cube > 1 else "")
    game.clock_period = clocks.ROLL
    game.period_started = game.turn_started = T0
    game.save()
    clock.wait(15_000 + 120_000 + GRACE)
    game = services.apply_timeouts(game.pk)
    assert (game.winner, game.end_reason, game.result_kind, game.result_points) == (
        "white",
        "timeout",
        kind,
        points,
    )


def test_the_match_clock_caps_a_turn_at_60_s_and_losing_on_time_loses_the_match(clock):
    game = past_first_moves(new_people_game(True, preset="match", match_length=3))
    loser = game.awaiting
    winner = other_side(loser)
    # the side that runs out leads the match 2-0
    Match.objects.filter(pk=game.match_id).update(**{f"{loser}_score": 2})
    snap = clock_snap(game)
    assert snap["deadline"] == clock.now() + 60_000  # 12 s + 120 s reserve, capped at 60 s
    assert game.reserve_of(loser) == 120_000
    clock.wait(60_000 + GRACE - 1)
    assert services.apply_timeouts(game.pk) is None
    clock.wait(1)
    game = services.apply_timeouts(game.pk)
    assert game.end_reason == "timeout" and game.winner == winner
    assert game.reserve_of(loser) == 120_000 - (60_000 - 12_000)  # spent up to the cap
    match = Match.objects.get(pk=game.match_id)
    assert match.status == Status.FINISHED and match.winner == winner
    assert match.games.count() == 1  # no next game
    result = services.snapshot(fresh(game), WHITE_GUEST)["game"]["result"]
    assert result["match_lost"] is True and result["loser"] == loser


def test_answering_a_double_runs_the_answerers_clock(clock):
    game = past_first_moves(new_people_game(True, preset="classic", cube=True))
    doubler = game.awaiting
    answerer = other_side(doubler)
    clock.wait(5_000)
    game = services.double(game.pk, guest_to_act(game), game.version)
    snap = clock_snap(game)
    assert (snap["running"], snap["period"], snap["free_ms"]) == (answerer, "answer", 45_000)
    assert snap["deadline"] == clock.now() + 45_000 + 120_000
    clock.wait(50_000)
    game = services.take(game.pk, guest_to_act(game), game.version)
    assert (game.reserve_of(doubler), game.reserve_of(answerer)) == (120_000, 115_000)
    snap = clock_snap(game)
    assert (snap["running"], snap["period"]) == (doubler, "roll")
    # the doubler's reserve runs out before it rolls: lost at the doubled stake
    clock.wait(15_000 + 120_000 + GRACE)
    game = services.apply_timeouts(game.pk)
    assert game.winner == answerer and game.end_reason == "timeout"
    assert game.cube_value == 2 and game.result_points == 2 * 3  # koks (classic) x the cube


def test_a_match_clock_rolls_by_itself(clock):
    game = new_people_game(True, preset="match", match_length=3)
    # the opening is rolled off and the starter's roll is made for it at once
    assert game.phase == Phase.PLAY and game.dice
    assert kinds(game) == ["opening", "roll"]
    side = game.awaiting
    snap = services.snapshot(fresh(game), game.guest_of(side))["game"]
    assert "roll" not in snap["actions"] and "play" in snap["actions"]
    assert snap["clock"]["period"] == "move"
    game = play_turn(game.pk)
    assert game.awaiting == other_side(side) and game.phase == Phase.PLAY
    assert kinds(game)[-2:] == ["play", "roll"]


# --- the first move ----------------------------------------------------------------------


def test_a_first_move_may_take_up_to_60_s_and_spends_no_reserve(clock):
    game = new_people_game(True)  # sport: the starter plays the opening dice
    starter = game.awaiting
    assert clock_snap(game)["first_move"] is True
    assert clock_snap(game)["deadline"] == clock.now() + 60_000
    clock.wait(59_000)  # beyond the 45 s of a move
    game = play_turn(game.pk)
    assert game.reserve_of(starter) == 120_000
    assert game.status == Status.ACTIVE


@pytest.mark.parametrize("preset", ["sport", "match"])
def test_no_first_move_in_time_aborts_the_game_and_its_match(clock, preset):
    options = {"match_length": 3} if preset == "match" else {}
    game = new_people_game(True, preset=preset, **options)
    game = play_turn(game.pk)  # the starter moves; the other side never does
    no_show = game.awaiting
    clock.wait(60_000 + GRACE)
    game = services.apply_timeouts(game.pk)
    assert game.status == Status.ABORTED and game.winner == "" and game.deadline is None
    assert kinds(game)[-1] == "abort"
    snap = services.snapshot(fresh(game), WHITE_GUEST)["game"]
    assert snap["result"] == {
        "winner": None,
        "kind": None,
        "points": 0,
        "reason": "aborted",
        "aborted_by": "timeout",
        "cube": 1,
        "loser": no_show,
        "match_lost": False,
        "rating": None,
    }
    assert snap["history"][-1]["kind"] == "abort" and snap["history"][-1]["side"] == no_show
    assert snap["actions"] == []
    if preset == "match":
        match = Match.objects.get(pk=game.match_id)
        assert match.status == Status.ABORTED and match.winner == ""
        assert match.games.count() == 1


# --- matches ------------------------------------------------------------------------------


@pytest.mark.parametrize("per_match", [True, False])
def test_the_match_reserve_carries_into_the_next_game(clock, per_match):
    spec = (
        CLOCKS[MATCH] if per_match else dataclasses.replace(CLOCKS[MATCH], loses=clocks.LOSES_GAME)
    )
    game = past_first_moves(new_people_game(spec, preset="match", match_length=5))
    mover, other = game.awaiting, other_side(game.awaiting)
    clock.wait(12_000 + 20_000)  # 20 s of reserve
    game = play_turn(game.pk)
    assert game.reserve_of(mover) == 100_000
    ended = clock.now()
    game = services.resign(game.pk, guest_to_act(game), game.version)  # the other resigns
    assert game.winner == mover
    second = Game.objects.get(match_id=game.match_id, match_number=2)
    expected = 100_000 if per_match else 120_000
    assert (second.reserve_of(mover), second.reserve_of(other)) == (expected, 120_000)
    # the winner starts the next game (R11), whose clock starts BETWEEN_GAMES_MS later
    assert second.awaiting == mover
    snap = clock_snap(second)
    assert snap["turn_started"] == ended + services.BETWEEN_GAMES_MS
    assert snap["first_move"] is False  # only a match's first game can be aborted
    assert snap["deadline"] == ended + services.BETWEEN_GAMES_MS + 60_000


# --- the computer ------------------------------------------------------------------------


def test_the_bot_never_runs_a_clock(clock, fixed):
    game = new_bot_game(fixed, opening=(5, 6), clock=True)  # black, the bot, starts
    assert game.bot_side == "black" and game.is_bot_turn
    assert game.deadline is None
    assert clock_snap(game, HUMAN)["running"] is None
    assert clock_snap(game, HUMAN)["deadline"] is None
    clock.wait(600_000)  # the bot may take as long as it likes
    assert services.sweep_clocks() == (0, 0)
    game = services.bot_turn(game.pk, game.version)
    assert game.reserve_of("black") == 120_000 and game.awaiting == "white"
    snap = clock_snap(game, HUMAN)
    assert snap["running"] == "white" and snap["first_move"] is True
    assert snap["deadline"] == clock.now() + 60_000
    assert services.snapshot(fresh(game), HUMAN)["game"]["presence"]["black"] is None


def test_a_game_against_the_computer_has_no_clock_unless_asked(clock):
    game = new_bot_game()
    assert game.clock == {} and game.deadline is None
    assert services.snapshot(game, HUMAN)["game"]["clock"] is None
    presence = services.snapshot(game, HUMAN)["game"]["presence"]
    assert presence["white"] == {
        "here": True,
        "away_since": None,
        "loses_at": None,
        "claim_from": None,
    }


# --- which comes first: the move or the deadline -------------------------------------------


def test_a_move_received_before_the_deadline_is_accepted_when_handled_after_it(clock):
    game = past_first_moves(new_people_game(True))
    side = game.awaiting
    game = services.roll(game.pk, guest_to_act(game), game.version)
    deadline = clock_snap(game)["deadline"]
    clock.to(deadline + 400)  # the server gets to it late
    game = play_turn(game.pk, at=deadline - 1)
    assert game.status == Status.ACTIVE and game.reserve_of(side) == 1
    assert "timeout" not in kinds(game)


def test_a_move_received_at_the_deadline_is_too_late(clock):
    game = past_first_moves(new_people_game(True))
    side = game.awaiting
    game = services.roll(game.pk, guest_to_act(game), game.version)
    deadline = clock_snap(game)["deadline"]
    clock.to(deadline)
    with pytest.raises(services.TimeRanOut) as ran_out:
        play_turn(game.pk, at=deadline)
    assert ran_out.value.code == "game_over"
    game = fresh(game)
    assert game.end_reason == "timeout" and game.winner == other_side(side)
    # every later message finds the game over; the timeout stays recorded once
    with pytest.raises(services.GameOver) as over:
        services.resign(game.pk, services.Actor(guest_id=WHITE_GUEST), game.version)
    assert not isinstance(over.value, services.TimeRanOut)
    assert services.apply_timeouts(game.pk) is None
    assert kinds(game).count("timeout") == 1 and kinds(game).count("end") == 1


def test_the_opponents_message_after_the_deadline_applies_it(clock):
    game = past_first_moves(new_people_game(True))
    loser = game.awaiting
    clock.wait(15_000 + 120_000)
    opponent = services.Actor(guest_id=game.guest_of(other_side(loser)))
    with pytest.raises(services.TimeRanOut):
        services.resign(game.pk, opponent, game.version)
    game = fresh(game)
    assert game.winner == other_side(loser) and game.end_reason == "timeout"
    assert "resign" not in kinds(game)


def test_timeouts_are_applied_once_whoever_applies_them(clock):
    game = past_first_moves(new_people_game(True))
    version = game.version
    clock.wait(15_000 + 120_000 - 1)
    with unchanged(game.pk):
        assert services.apply_timeouts(game.pk) is None
        assert services.sweep_clocks() == (0, 0)
    clock.wait(1 + GRACE)
    with unchanged(game.pk):
        assert services.apply_timeouts(game.pk, version - 1) is None  # an old timer
    assert services.apply_timeouts(game.pk, version) is not None
    assert services.apply_timeouts(game.pk, version) is None
    assert services.apply_timeouts(game.pk) is None
    assert services.sweep_clocks() == (0, 0)
    assert kinds(game).count("timeout") == 1 and kinds(game).count("end") == 1


def test_the_game_page_applies_a_deadline_that_passed_before_any_timer(clock, client):
    game = new_people_game(True)
    clock.wait(60_000 + GRACE)  # the first move never came; no timer or sweep has run
    page = client.get(reverse("games:game", kwargs={"game_id": game.pk}))
    assert page.context["initial_snapshot"]["status"] == Status.ABORTED
    assert kinds(game).count("abort") == 1


def test_the_sweep_ends_every_game_past_its_deadline(clock):
    games = [past_first_moves(new_people_game(True)) for _n in range(3)]
    clock.wait(10_000)
    later = play_turn(games[2].pk)  # a new period: its deadline is 10 s later
    clock.wait(15_000 + 120_000 - 10_000 + GRACE)
    assert services.sweep_clocks() == (2, 0)
    assert [fresh(g).status for g in games] == [Status.FINISHED, Status.FINISHED, Status.ACTIVE]
    assert fresh(later).deadline is not None
    assert services.sweep_clocks() == (0, 0)


# --- presence ----------------------------------------------------------------------------


def leave(game, guest, channel):
    """The guest's socket ``channel`` opens and closes again (they are away from now)."""
    services.player_here(game.pk, guest, channel)
    return services.player_left(game.pk, channel)


def test_a_match_player_away_too_long_loses_the_match(clock):
    game = past_first_moves(new_people_game(PRESENCE_ONLY, preset="match", match_length=3))
    services.player_here(game.pk, WHITE_GUEST, "white-1")
    assert leave(game, BLACK_GUEST, "black-1") == "black"
    away = clock.now()
    snap = services.snapshot(fresh(game), WHITE_GUEST)["game"]
    assert snap["presence"]["black"] == {
        "here": False,
        "away_since": away,
        "loses_at": away + 60_000,
        "claim_from": None,
    }
    assert snap["presence"]["white"]["here"] is True
    assert services.deadline_of(fresh(game)) == away + 60_000
    assert "claim" not in snap["actions"]  # the match clock ends it by itself
    with unchanged(game.pk), pytest.raises(services.CannotClaim) as refused:
        services.claim(game.pk, services.Actor(guest_id=WHITE_GUEST), game.version)
    assert "clock has no claim" in refused.value.message
    clock.wait(60_000 + GRACE - 1)
    assert services.apply_timeouts(game.pk) is None
    clock.wait(1)
    game = services.apply_timeouts(game.pk)
    assert game.end_reason == "abandon" and game.winner == "white"
    assert kinds(game)[-2:] == ["abandon", "end"]
    match = Match.objects.get(pk=game.match_id)
    assert match.status == Status.FINISHED and match.winner == "white"
    assert services.snapshot(fresh(game), WHITE_GUEST)["game"]["result"]["match_lost"] is True


def test_a_match_player_back_within_the_grace_period_plays_on(clock):
    game = past_first_moves(new_people_game(PRESENCE_ONLY, preset="match", match_length=3))
    leave(game, BLACK_GUEST, "black-1")
    clock.wait(59_999)
    assert services.player_here(game.pk, BLACK_GUEST, "black-2") == "black"
    game = fresh(game)
    assert game.black_away_since is None and game.status == Status.ACTIVE
    assert services.snapshot(game, WHITE_GUEST)["game"]["presence"]["black"]["here"] is True
    assert services.deadline_of(game) == clock_snap(game)["deadline"]  # the clock's only
    clock.wait(120_000)
    assert services.apply_timeouts(game.pk) is None


def test_a_match_player_back_after_the_grace_period_has_lost_even_before_any_timer(clock):
    game = past_first_moves(new_people_game(PRESENCE_ONLY, preset="match", match_length=3))
    leave(game, BLACK_GUEST, "black-1")
    clock.wait(60_000)  # no timer nor sweep has run yet
    assert services.player_here(game.pk, BLACK_GUEST, "black-2") == "black"
    game = fresh(game)
    assert game.end_reason == "abandon" and game.winner == "white"
    assert not Presence.objects.filter(channel_name="black-2").exists()


def test_a_second_socket_keeps_a_player_here(clock):
    game = past_first_moves(new_people_game(PRESENCE_ONLY, preset="match", match_length=3))
    services.player_here(game.pk, BLACK_GUEST, "black-1")
    assert leave(game, BLACK_GUEST, "black-2") is None
    assert fresh(game).black_away_since is None


def test_a_player_who_never_moved_and_left_is_a_no_show(clock):
    game = new_people_game(PRESENCE_ONLY, preset="match", match_length=3)
    absent = other_side(game.awaiting)  # has not moved yet
    leave(game, game.guest_of(absent), "absent-1")
    clock.wait(60_000 + GRACE)
    game = services.apply_timeouts(game.pk)
    assert game.status == Status.ABORTED and kinds(game)[-1] == "abort"
    assert Match.objects.get(pk=game.match_id).status == Status.ABORTED


def test_a_dead_socket_is_dropped_by_the_sweep(clock):
    game = past_first_moves(new_people_game(PRESENCE_ONLY, preset="match", match_length=3))
    services.player_here(game.pk, BLACK_GUEST, "black-1")
    clock.wait(services.PRESENCE_STALE_MS // 2)
    services.player_still_here(["black-1"])  # touched: still fresh at the first sweep
    touched = clock.now()
    clock.wait(services.PRESENCE_STALE_MS // 2 + 1)
    assert services.sweep_clocks() == (0, 0)
    clock.wait(services.PRESENCE_STALE_MS // 2)
    assert services.sweep_clocks() == (0, 1)
    # away since the touch the dead socket missed, not since the sweep noticed
    assert clocks.to_ms(fresh(game).black_away_since) == touched + services.PRESENCE_TOUCH_MS
    assert not Presence.objects.filter(channel_name="black-1").exists()


def test_standard_claim_is_refused_before_the_grace_period_and_wins_after_it(clock):
    game = past_first_moves(new_people_game(True))
    white = services.Actor(guest_id=WHITE_GUEST)
    with pytest.raises(services.CannotClaim) as here:  # black has not gone anywhere
        services.claim(game.pk, white, game.version)
    assert here.value.code == "cannot_claim" and "opponent is here" in here.value.message
    leave(game, BLACK_GUEST, "black-1")
    away = clock.now()
    presence = services.snapshot(fresh(game), WHITE_GUEST)["game"]["presence"]["black"]
    assert presence == {
        "here": False,
        "away_since": away,
        "loses_at": None,
        "claim_from": away + 60_000,
    }
    clock.wait(59_999)
    with unchanged(game.pk):
        with pytest.raises(services.CannotClaim):
            services.claim(game.pk, white, game.version)
        with pytest.raises(services.NotYourTurn):  # onlookers claim nothing
            services.claim(game.pk, services.Actor(guest_id=ONLOOKER), game.version)
    assert "claim" not in services.snapshot(fresh(game), WHITE_GUEST)["game"]["actions"]
    assert services.apply_timeouts(game.pk) is None  # standard: being away alone ends nothing
    clock.wait(1)
    snap = services.snapshot(fresh(game), WHITE_GUEST)["game"]
    assert "claim" in snap["actions"]
    assert "claim" not in services.snapshot(fresh(game), BLACK_GUEST)["game"]["actions"]
    game = services.claim(game.pk, white, game.version)
    assert (game.winner, game.end_reason, game.result_kind, game.result_points) == (
        "white",
        "abandon",
        "mars",
        2,
    )
    assert kinds(game)[-2:] == ["abandon", "end"]
    result = services.snapshot(fresh(game), WHITE_GUEST)["game"]["result"]
    assert result["loser"] == "black" and result["match_lost"] is False


def test_no_claim_against_the_computer(clock, fixed):
    game = new_bot_game(fixed, opening=(6, 5), clock=True)
    with unchanged(game.pk), pytest.raises(services.CannotClaim) as refused:
        services.claim(game.pk, services.Actor(guest_id=HUMAN), game.version)
    assert "computer never leaves" in refused.value.message


# --- outages (docs/protocol.md "Outages") ------------------------------------------------

OUTAGE_GRACE = outages.RECONNECT_GRACE_MS


@pytest.fixture
def outages_on(settings):
    """Outage crediting as in production (the suite turns it off: conftest.py), this process
    being a web process (``outages.serve_here``) unless a test says otherwise."""
    settings.GAMES_OUTAGE_MIN_MS = 5_000
    outages.serve_here()


def site_up(clock):
    """A web process has noted the heartbeat (a site that never did has no outages)."""
    outages.keep_alive(lambda: None)
    assert Heartbeat.objects.filter(pk=1).exists()


def test_an_outage_longer_than_the_time_left_does_not_decide_the_match(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(True, preset="match", match_length=3))
    mover = game.awaiting
    clock.wait(20_000)  # 20 s of the 60 s turn cap used before the site stops
    before = clock_snap(game)
    clock.outage(75_000)  # longer than the 40 s left
    assert services.sweep_clocks() == (0, 0)
    game = fresh(game)
    assert game.status == Status.ACTIVE and game.awaiting == mover
    assert kinds(game)[-1] == "pause"
    snap = clock_snap(game)
    assert snap["paused_ms"] == 75_000
    assert snap["deadline"] == before["deadline"] + 75_000  # the 40 s are still there
    assert snap["reserve"] == before["reserve"]
    outage = Outage.objects.get()
    assert outage.length_ms == 75_000 and outage.games == 1
    # the game goes on: the player to move plays with the time they had
    game = play_turn(game.pk)
    assert game.awaiting != mover and game.status == Status.ACTIVE
    assert clock_snap(game)["paused_ms"] is None  # the note lasts until the next play


def test_the_first_page_after_an_outage_credits_the_clock_before_the_sweep_runs(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(True, preset="match", match_length=3))
    clock.wait(50_000)
    clock.outage(30_000)  # the deadline fell inside the outage; no sweep has run since
    snap = services.snapshot(services.settle_clock(fresh(game)), WHITE_GUEST)["game"]
    assert snap["status"] == "active" and snap["clock"]["paused_ms"] == 30_000
    # 10 s were left: less than the reconnect grace, so the deadline is the grace's end
    assert snap["clock"]["deadline"] == clock.now() + OUTAGE_GRACE
    assert Outage.objects.count() == 1
    assert services.sweep_clocks() == (0, 0)  # nothing to credit twice
    assert fresh(game).version == game.version + 1


def test_a_move_right_after_an_outage_is_charged_only_the_time_before_it(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(True))  # standard: 15 s to roll, 45 s to move
    mover = game.awaiting
    actor = guest_to_act(game)
    clock.wait(5_000)
    game = services.roll(game.pk, actor, game.version)
    clock.wait(50_000)  # 5 s into the 120 s reserve
    clock.outage(300_000)  # far longer than the reserve
    services.player_here(game.pk, actor.guest_id, "back-1")  # the page comes back first
    game = fresh(game)
    assert kinds(game)[-1] == "pause"
    game = services.play(game.pk, actor, game.version, random_legal_play(game, random.Random(3)))
    assert game.status == Status.ACTIVE and game.awaiting != mover
    assert game.reserve_of(mover) == 115_000


def test_a_player_away_during_an_outage_is_not_marked_gone_for_it(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(PRESENCE_ONLY, preset="match", match_length=3))
    leave(game, BLACK_GUEST, "black-1")
    away = clock.now()
    clock.wait(40_000)
    clock.outage(120_000)
    assert services.sweep_clocks() == (0, 0)
    game = fresh(game)
    assert game.status == Status.ACTIVE
    assert clocks.to_ms(game.black_away_since) == away + 120_000  # 20 s of the 60 s left
    assert services.deadline_of(game) == clock.now() + OUTAGE_GRACE + 5_000


def test_sockets_of_a_server_that_died_in_an_outage_are_judged_from_its_end(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(PRESENCE_ONLY, preset="match", match_length=3))
    services.player_here(game.pk, BLACK_GUEST, "black-1")  # its server dies in the outage
    clock.outage(100_000)
    back = clock.now()
    assert services.sweep_clocks() == (0, 0)  # not dropped at once: seen at the outage's end
    clock.wait(services.PRESENCE_STALE_MS + 1)
    assert services.sweep_clocks() == (0, 1)
    assert clocks.to_ms(fresh(game).black_away_since) == back + services.PRESENCE_TOUCH_MS


def test_a_move_sent_with_the_version_from_before_the_pause_keeps_the_pause(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(True, preset="match", match_length=3))
    clock.outage(90_000)
    with pytest.raises(services.StaleVersion):
        services.roll(game.pk, guest_to_act(game), game.version)
    credited = fresh(game)
    assert kinds(credited)[-1] == "pause" and credited.version == game.version + 1
    # sent again with the version the error gave: accepted, nothing credited twice
    services.play(
        game.pk,
        guest_to_act(credited),
        credited.version,
        random_legal_play(credited, random.Random(2)),
    )
    assert kinds(fresh(game)).count("pause") == 1


def test_while_no_web_process_beats_the_workers_apply_no_deadline(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(True, preset="match", match_length=3))
    outages.forget()  # this process is a worker now: it cannot tell that the site is up
    clock.outage(120_000)  # every web process is down; the worker and beat go on
    assert services.sweep_clocks() == (0, 0)
    assert services.apply_timeouts(game.pk) is None and fresh(game).status == Status.ACTIVE
    assert not Outage.objects.exists()
    outages.serve_here()  # a web process is back: it records the outage
    outages.keep_alive(lambda: None)
    assert services.sweep_clocks() == (0, 0)
    assert kinds(fresh(game))[-1] == "pause" and Outage.objects.get().length_ms == 120_000


def test_a_short_silence_is_no_outage(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(True, preset="match", match_length=3))
    clock.outage(app_settings.OUTAGE_MIN_MS)
    assert services.sweep_clocks() == (0, 0)
    assert not Outage.objects.exists() and kinds(fresh(game))[-1] != "pause"


def test_a_game_begun_after_an_outage_and_a_finished_game_are_not_credited(clock, outages_on):
    site_up(clock)
    finished = past_first_moves(new_people_game(True))
    services.resign(finished.pk, guest_to_act(finished), finished.version)
    clock.outage(60_000)
    services.sweep_clocks()
    game = past_first_moves(new_people_game(True, preset="match", match_length=3))
    clock.wait(30_000)
    services.sweep_clocks()
    assert "pause" not in kinds(fresh(game)) + kinds(fresh(finished))
    assert Outage.objects.get().games == 0


def test_outages_can_be_turned_off(clock, settings):
    settings.GAMES_OUTAGE_MIN_MS = 0
    outages.serve_here()
    assert outages.keep_alive(lambda: None) is None  # no heartbeat is kept
    assert not Heartbeat.objects.exists()
    game = past_first_moves(new_people_game(True, preset="match", match_length=3))
    clock.outage(600_000)
    assert services.sweep_clocks() == (1, 0)
    assert fresh(game).end_reason == "timeout" and not Outage.objects.exists()


# --- the snapshot -------------------------------------------------------------------------


def test_the_snapshot_clock_and_presence_have_the_documented_shape(clock):
    game = past_first_moves(new_people_game(True))
    side = game.awaiting
    started = clock.now()
    clock.wait(25_000)  # 10 s into the reserve
    snap = services.snapshot(fresh(game), WHITE_GUEST)["game"]
    assert snap["clock"] == {
        "kind": STANDARD,
        "spec": CLOCKS[STANDARD].to_json(),
        "server_time": clock.now(),
        "running": side,
        "period": "roll",
        "period_started": started,
        "turn_started": started,
        "first_move": False,
        "free_ms": 15_000,
        "deadline": started + 135_000,
        "reserve": {"white": 120_000, "black": 120_000},
        "paused_ms": None,
    }
    # what a browser shows: the reserve left = reserve - max(0, now - period_started - free)
    c = snap["clock"]
    left = c["reserve"][side] - max(0, c["server_time"] - c["period_started"] - c["free_ms"])
    assert (
        left
        == 110_000
        == clocks.time_left(CLOCKS[STANDARD], "roll", started, started, 120_000, clock.now())[1]
    )
    assert snap["presence"] == {
        s: {"here": True, "away_since": None, "loses_at": None, "claim_from": None}
        for s in ("white", "black")
    }
    # a finished game runs no clock; the reserves stay readable
    clock.wait(200_000)
    services.apply_timeouts(game.pk)
    over = services.snapshot(fresh(game), WHITE_GUEST)["game"]["clock"]
    assert over["running"] is None and over["deadline"] is None and over["period"] is None
    assert over["reserve"][side] == 0


def test_a_clock_of_the_wrong_type_is_refused():
    with pytest.raises(services.BadFrame):
        services.create_bot_game(HUMAN, clock="standard")
    spec = ClockSpec(kind=STANDARD, roll_ms=1_000, move_ms=1_000, reserve_ms=0)
    assert services.clock_for("sport", spec) is spec
