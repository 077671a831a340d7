"""The clocks through the game service (RULES.md R11/R12, docs/protocol.md "Clocks") with the
time under the test's control (time-machine): periods and reserves, the 60 s cap, loss on time
and its R9 value, the first-move rule, presence and claims, and that a deadline is applied
once whichever comes first: the player's message, a timer or the sweep."""

import dataclasses
import random
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from games import clocks, services
from games.choices import Phase, Status, other_side
from games.clocks import CLOCKS, MATCH, STANDARD, ClockSpec
from games.room.models import Game, Match
from games.services.models import Heartbeat
from games.tests.factories import (
    HUMAN,
    WHITE_GUEST,
    FixedDice,
    guest_to_act,
    new_bot_game,
    new_people_game,
    play_turn,
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
