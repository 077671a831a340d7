"""Why a checker cannot move (games.engine.explain; docs/protocol.md "Explanations"): one
position per rule of RULES.md R4-R8, staged steps, and agreement with the step graph on random
positions."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import IllegalPlay, Position, step_graph
from games.engine.explain import CODES, explain_point, immovable_points
from games.engine.tests.test_engine_position_id import positions


def pos(white, black, turn="white", first_turn=False):
    return Position.from_json(
        {"turn": turn, "white": white, "black": black, "first_turn": first_turn}
    )


def reasons(position, dice, point, staged=()):
    return explain_point(position, dice, point, staged).reasons


def test_blocked_by_the_opponent_names_each_die():
    # Black holds white's 18 and 19 (its own 6 and 7): neither die moves a head checker.
    position = pos({"24": 15}, {"24": 13, "6": 1, "7": 1})
    assert reasons(position, (6, 5), 24) == ((6, "blocked"), (5, "blocked"))
    assert set(immovable_points(position, (6, 5))) == {24}


def test_head_rule_after_one_checker_left_the_head():
    position = pos({"24": 14, "18": 1}, {"24": 15})
    assert reasons(position, (6, 5), 24, staged="24/18") == ((5, "head"),)
    assert explain_point(position, (6, 5), 18, staged="24/18").movable


def test_head_rule_on_a_first_turn_with_6_6_allows_two_then_stops():
    position = Position.initial("white")
    assert explain_point(position, (6, 6), 24, staged="24/18").movable
    assert reasons(position, (6, 6), 24, staged="24/18 24/18") == ((6, "head"),)


def test_six_point_block_with_no_opponent_checker_ahead():
    position = pos(
        {"18": 1, "17": 1, "16": 1, "15": 2, "13": 4, "11": 4, "10": 2},
        {"21": 2, "20": 2, "19": 2, "14": 4, "9": 2, "8": 3},
    )
    assert reasons(position, (1, 6), 15) == ((6, "blocked"), (1, "six_block"))


def test_bearing_off_needs_every_checker_home():
    position = pos({"8": 1, "1": 1}, {"14": 1})
    assert reasons(position, (5, 3), 1) == ((5, "bear_off_not_home"), (3, "bear_off_not_home"))


def test_a_larger_die_bears_off_only_from_the_highest_point():
    position = pos({"4": 1, "3": 1}, {"13": 1})
    assert reasons(position, (4, 5), 3) == ((5, "bear_off_higher"), (4, "bear_off_higher"))


def test_a_step_that_would_leave_a_die_unplayed_is_explained_by_the_whole_roll():
    # 6/4 is a legal step, but then the 6 cannot be played; 9/7 7/1 plays both dice (R6).
    position = pos({"9": 1, "6": 2}, {"15": 2})
    assert reasons(position, (6, 2), 6) == ((6, "bear_off_not_home"), (2, "must_play_more"))


def test_no_dice_left_and_no_checker():
    position = pos({"24": 14, "18": 1}, {"24": 15})
    assert reasons(position, (6, 5), 13, staged="24/18 18/13") == ((None, "no_dice_left"),)
    assert reasons(position, (6, 5), 7) == ((None, "no_checker"),)
    assert reasons(position, (6, 5), 30) == ((None, "no_checker"),)


def test_staged_steps_that_begin_no_legal_play_are_refused():
    with pytest.raises(IllegalPlay):
        explain_point(Position.initial("white"), (6, 5), 24, staged="24/20")


def test_a_movable_checker_has_no_reasons():
    found = explain_point(Position.initial("white"), (6, 5), 24)
    assert found.movable and found.reasons == ()


@settings(max_examples=250, deadline=None)
@given(positions(), st.integers(1, 6), st.integers(1, 6), st.randoms(use_true_random=False))
def test_explanations_agree_with_the_step_graph(position, a, b, rng):
    """A point is explained as immovable exactly when no step of the graph leaves it, with
    one known reason per die still to play; the same holds after random staged steps."""
    if position.winner:
        return
    nodes = step_graph(position, (a, b))["nodes"]
    node, staged = nodes[0], []
    for _ in range(rng.randint(0, 3)):
        if not node["steps"]:
            break
        label = rng.choice(sorted(node["steps"]))
        staged.append(label)
        node = nodes[node["steps"][label]]
    starts = {int(label.split("/")[0]) for label in node["steps"]}
    dice_values = {a, b}
    for point in range(1, 25):
        found = explain_point(position, (a, b), point, " ".join(staged))
        assert found.movable == (point in starts)
        if found.movable:
            continue
        assert found.reasons and all(code in CODES for _die, code in found.reasons)
        dice = [die for die, _code in found.reasons]
        if dice != [None]:
            assert set(dice) <= dice_values and dice == sorted(dice, reverse=True)
    if not staged:
        assert {p for p, e in immovable_points(position, (a, b)).items()} == {
            p for p in range(1, 25) if position.board(position.turn)[p] and p not in starts
        }
