"""The doubling cube (RULES.md R10, R9) through games.services: offer before rolling, take or
drop, who may redouble, the value of a game played for a turned cube, and the computer's
answers and offers. Every refused request changes nothing."""

import pytest

from games import services
from games.bots import cube as cube_bot
from games.bots.neural import cubeless_chances
from games.choices import Phase, Status
from games.engine import Position
from games.room.models import Game
from games.tests.factories import HUMAN, FixedDice, new_bot_game, set_position, unchanged

pytestmark = [pytest.mark.django_db]

ME = services.Actor(guest_id=HUMAN)

# White (the human) far ahead in the race; black far behind, and the reverse.
WHITE_AHEAD = {
    "turn": "white",
    "white": {"3": 5, "2": 5, "1": 5},
    "black": {"24": 10, "20": 5},
    "first_turn": False,
}
BLACK_AHEAD = {
    "turn": "white",
    "white": {"24": 10, "20": 5},
    "black": {"3": 5, "2": 5, "1": 5},
    "first_turn": False,
}
EVEN = {
    "turn": "white",
    "white": {"6": 5, "5": 5, "4": 5},
    "black": {"6": 5, "5": 5, "4": 5},
    "first_turn": False,
}


@pytest.fixture
def fixed(monkeypatch):
    return FixedDice(monkeypatch)


def cube_game(fixed, position=EVEN, human_side="white"):
    """A classic game with the cube, ``position`` set, the side to move to roll."""
    game = new_bot_game(fixed, opening=(6, 5), preset="classic", cube=True, human_side=human_side)
    set_position(game, position)
    return Game.objects.get(pk=game.pk)


def cube_game_after_a_play(fixed, position):
    """As ``cube_game``, the human (white) having made its first play: its drop or resignation
    is then a result, not an abort (``turns.aborts``)."""
    game = new_bot_game(fixed, opening=(6, 5), preset="classic", cube=True)
    game = services.play(game.id, ME, 1, "24/18 18/13")
    set_position(game, position)
    return Game.objects.get(pk=game.pk)


def test_dropping_or_resigning_before_the_first_play_aborts_the_game(fixed):
    game = cube_game(fixed, dict(BLACK_AHEAD, turn="black"))
    game = services.bot_turn(game.id, game.version)  # the bot doubles
    game = services.drop(game.id, ME, game.version)
    assert (game.status, game.winner, game.end_reason) == ("aborted", "", "drop")
    assert services.result_of(game)["aborted_by"] == "drop"


def test_a_double_waits_for_the_answer_of_the_other_side(fixed):
    game = cube_game(fixed)
    game = services.double(game.id, ME, game.version)
    assert (game.phase, game.awaiting, game.cube_value, game.version) == (Phase.CUBE, "black", 1, 2)
    snap = services.snapshot(game, HUMAN)["game"]
    assert snap["cube"] == {"value": 1, "owner": None, "offered_by": "white", "turned": False}
    assert snap["actions"] == ["resign"] and snap["awaiting"] == "black"
    assert snap["history"][-1] == {
        "n": 1,
        "side": "white",
        "kind": "double",
        "cube": 2,
        "version": 2,
    }
    assert game.is_bot_turn


def test_the_bot_takes_when_it_has_chances_and_then_owns_the_cube(fixed):
    game = cube_game(fixed, EVEN)
    game = services.double(game.id, ME, game.version)
    game = services.bot_turn(game.id, game.version)
    assert (game.phase, game.cube_value, game.cube_owner, game.turn) == (
        Phase.ROLL,
        2,
        "black",
        "white",
    )
    snap = services.snapshot(game, HUMAN)["game"]
    assert snap["actions"] == ["roll", "resign"]  # the cube is black's now
    assert snap["history"][-1]["kind"] == "take" and snap["cube"]["turned"]
    with unchanged(game.id), pytest.raises(services.CubeNotAllowed):
        services.double(game.id, ME, game.version)


def test_the_bot_drops_a_hopeless_game_which_ends_as_oin_at_the_old_stake(fixed):
    game = cube_game(fixed, WHITE_AHEAD)
    game = services.double(game.id, ME, game.version)
    game = services.bot_turn(game.id, game.version)
    assert (game.status, game.winner, game.result_kind, game.result_points, game.end_reason) == (
        Status.FINISHED,
        "white",
        "oin",
        1,
        "drop",
    )
    result = services.snapshot(game, HUMAN)["game"]["result"]
    assert result == {
        "winner": "white",
        "kind": "oin",
        "points": 1,
        "reason": "drop",
        "cube": 1,
        "loser": "black",
        "match_lost": False,
        "rating": None,
    }


def test_the_bot_offers_when_clearly_ahead_and_the_human_answers(fixed):
    game = cube_game(fixed, BLACK_AHEAD, human_side="white")
    # Black (the bot) to roll: it doubles instead.
    set_position(game, dict(BLACK_AHEAD, turn="black"))
    game = services.bot_turn(game.id, game.version)
    assert (game.phase, game.awaiting) == (Phase.CUBE, "white")
    snap = services.snapshot(game, HUMAN)["game"]
    assert snap["actions"] == ["take", "drop", "resign"]
    with unchanged(game.id), pytest.raises(services.WrongPhase):
        services.roll(game.id, ME, game.version)
    fixed.rolls.append([3, 1])
    game = services.take(game.id, ME, game.version)
    assert (game.cube_value, game.cube_owner, game.phase, game.turn) == (
        2,
        "white",
        Phase.ROLL,
        "black",
    )
    assert game.is_bot_turn
    # The bot may not redouble (white owns the cube): it rolls and plays.
    game = services.bot_turn(game.id, game.version)
    assert game.turn == "white" and game.cube_value == 2


def test_the_human_may_drop_the_bots_double(fixed):
    game = cube_game_after_a_play(fixed, dict(BLACK_AHEAD, turn="black"))
    game = services.bot_turn(game.id, game.version)
    game = services.drop(game.id, ME, game.version)
    assert (game.winner, game.result_kind, game.result_points, game.end_reason) == (
        "black",
        "oin",
        1,
        "drop",
    )
    assert [h["kind"] for h in services.snapshot(game, HUMAN)["game"]["history"]] == [
        "play",
        "double",
        "drop",
    ]


def test_a_turned_cube_multiplies_mars_and_koks(fixed):
    game = cube_game(
        fixed, {"turn": "white", "white": {"1": 1}, "black": {"24": 15}, "first_turn": False}
    )
    game = services.double(game.id, ME, game.version)
    game = services.bot_turn(game.id, game.version)  # hopeless: drops
    assert game.result_points == 1
    game = cube_game(fixed, EVEN)
    game = services.double(game.id, ME, game.version)
    game = services.bot_turn(game.id, game.version)  # takes: cube 2
    set_position(
        game,
        {"turn": "white", "white": {"1": 1}, "black": {"24": 15}, "first_turn": False},
        phase=Phase.PLAY,
        dice_rolled=[2, 1],
    )
    game = services.play(game.id, ME, game.version, "1/off")
    assert (game.result_kind, game.result_points) == ("koks", 6)


def test_without_a_turned_cube_koks_counts_as_one_point_times_the_cube(fixed):
    game = cube_game(
        fixed, {"turn": "white", "white": {"1": 1}, "black": {"24": 15}, "first_turn": False}
    )
    set_position(
        game,
        Position.from_json({"turn": "white", "white": {"1": 1}, "black": {"24": 15}}).to_json(),
        phase=Phase.PLAY,
        dice_rolled=[2, 1],
    )
    game = services.play(game.id, ME, game.version, "1/off")
    assert (game.result_kind, game.result_points) == ("koks", 1)


def test_refused_cube_requests_change_nothing(fixed):
    sport = new_bot_game(fixed, opening=(6, 5), human_side="white")
    set_position(sport, EVEN)
    with unchanged(sport.id), pytest.raises(services.CubeNotAllowed):
        services.double(sport.id, ME, 1)
    game = cube_game(fixed)
    for action in (services.take, services.drop):
        with unchanged(game.id), pytest.raises(services.WrongPhase):
            action(game.id, ME, game.version)
    with unchanged(game.id), pytest.raises(services.StaleVersion):
        services.double(game.id, ME, game.version - 1)
    fixed.rolls.append([2, 1])
    game = services.roll(game.id, ME, game.version)
    with unchanged(game.id), pytest.raises(services.WrongPhase):
        services.double(game.id, ME, game.version)
    game = cube_game(fixed)
    game = services.double(game.id, ME, game.version)
    for action in (services.take, services.drop, services.double, services.roll):
        with unchanged(game.id), pytest.raises(services.NotYourTurn):
            action(game.id, ME, game.version)  # the offerer cannot answer its own double
    with unchanged(game.id), pytest.raises(services.NotYourTurn):
        services.take(game.id, services.Actor(guest_id="stranger"), game.version)


def test_the_cube_stops_at_64(fixed):
    game = cube_game(fixed)
    Game.objects.filter(pk=game.pk).update(cube_value=64, cube_owner="white")
    snap = services.snapshot(Game.objects.get(pk=game.pk), HUMAN)["game"]
    assert "double" not in snap["actions"]
    with unchanged(game.id), pytest.raises(services.CubeNotAllowed):
        services.double(game.id, ME, game.version)


def test_resigning_while_a_double_waits_is_scored_on_the_resigners_board(fixed):
    game = cube_game_after_a_play(fixed, dict(BLACK_AHEAD, turn="black"))
    game = services.bot_turn(game.id, game.version)  # the bot doubles
    game = services.resign(game.id, ME, game.version)
    assert (game.winner, game.result_kind, game.result_points, game.end_reason) == (
        "black",
        "koks",
        1,
        "resign",
    )  # cube not turned: 1 x cube 1


@pytest.mark.parametrize(
    "position, side, takes",
    [
        (EVEN, "black", True),
        (WHITE_AHEAD, "black", False),
        (BLACK_AHEAD, "black", True),
    ],
)
def test_bot_take_decisions_follow_the_race(position, side, takes):
    pos = Position.from_json(position)
    assert cube_bot.should_take(pos, side, 1, "classic") is takes


def test_bot_win_chance_is_sensible():
    even = Position.from_json(EVEN)
    assert 0.5 < cube_bot.win_chance(even, "white") < 0.75  # on roll in an even race
    assert abs(cube_bot.win_chance(even, "white") + cube_bot.win_chance(even, "black") - 1) < 0.2
    ahead = Position.from_json(WHITE_AHEAD)
    assert cube_bot.win_chance(ahead, "white") > 0.99
    assert cube_bot.should_double(ahead, "white", 1, "classic")
    assert not cube_bot.should_double(Position.initial("white"), "white", 1, "classic")
    assert cube_bot.mars_danger(ahead, "black") and not cube_bot.mars_danger(ahead, "white")


def test_a_double_at_a_table_without_cube_is_cube_not_allowed_in_every_phase(fixed):
    game = new_bot_game(fixed, opening=(6, 5), human_side="white")
    set_position(game, EVEN)
    game = Game.objects.get(pk=game.pk)
    with unchanged(game.id), pytest.raises(services.CubeNotAllowed) as before_roll:
        services.double(game.id, ME, game.version)
    fixed.rolls.append([2, 1])
    game = services.roll(game.id, ME, game.version)
    assert game.phase == Phase.PLAY
    with unchanged(game.id), pytest.raises(services.CubeNotAllowed) as after_roll:
        services.double(game.id, ME, game.version)
    assert before_roll.value.code == after_roll.value.code == "cube_not_allowed"


@pytest.mark.parametrize(
    "chance, equity, takes, doubles",
    [
        (0.30, -0.45, True, False),  # behind, but taking loses less than a drop's point
        (0.30, -0.60, False, False),  # a mars in sight: drop
        (0.75, 0.55, True, True),  # clearly ahead: double
        (0.97, 1.40, True, False),  # too good: play on for the mars
        (0.60, 0.20, True, False),  # not enough to double
    ],
)
@pytest.mark.parametrize("level", ["hard", "expert"])
def test_network_levels_judge_the_cube_by_the_cubeless_equity(
    monkeypatch, chance, equity, takes, doubles, level
):
    monkeypatch.setattr(cube_bot, "cubeless_chances", lambda position, side: (chance, equity))
    pos = Position.from_json(EVEN)
    assert cube_bot.should_take(pos, "black", 1, "classic", level=level) is takes
    assert cube_bot.should_double(pos, "white", 1, "classic", level=level) is doubles


def test_hard_bots_network_sees_a_lost_race_and_the_mars():
    ahead = Position.from_json(WHITE_AHEAD)
    white_chance, white_equity = cubeless_chances(ahead, "white")
    black_chance, black_equity = cubeless_chances(ahead, "black")
    assert white_chance + black_chance == pytest.approx(1.0, abs=1e-6)
    assert white_equity == pytest.approx(-black_equity, abs=1e-6)
    assert white_chance > 0.95 and white_equity > 1.5  # a mars is all but certain
    # So black drops, and white does not double: a drop would give it one point, not two.
    assert not cube_bot.should_take(ahead, "black", 1, "classic", level="hard")
    assert not cube_bot.should_double(ahead, "white", 1, "classic", level="hard")
    assert cube_bot.should_take(Position.from_json(EVEN), "black", 1, "classic", level="hard")
    assert not cube_bot.should_double(
        Position.initial("white"), "white", 1, "classic", level="hard"
    )


def test_the_hard_bot_drops_a_hopeless_double_through_the_service(fixed):
    game = new_bot_game(fixed, opening=(6, 5), preset="classic", cube=True, level="hard")
    set_position(game, WHITE_AHEAD)
    game = Game.objects.get(pk=game.pk)
    game = services.double(game.id, ME, game.version)
    game = services.bot_turn(game.id, game.version)
    assert (game.status, game.winner, game.end_reason) == (Status.FINISHED, "white", "drop")
