"""Rollouts (games.bots.rollout): games played on from a position at 0-ply, scored for the side
that played, the plays of one roll on the same dice. Pure Python: no database."""

import pytest

from games.bots import neural, rollout
from games.engine import Position


def position(white, black, turn):
    return Position.from_json({"turn": turn, "white": white, "black": black, "first_turn": False})


def test_a_rollout_scores_each_game_for_the_side_that_played():
    # White has one checker left on its 1, black none off and all on its head: whatever
    # black rolls, white bears off next and wins a mars (2 points, R9) in every trial.
    won = position({"1": 1}, {"24": 15}, turn="black")
    assert rollout.rollout(neural.network(), [won], "white", 4, "t") == [[2, 2, 2, 2]]
    assert rollout.rollout(neural.network(), [won], "black", 3, "t") == [[-2, -2, -2]]


def test_the_plays_of_one_roll_are_rolled_out_on_the_same_dice():
    start = Position.initial("black")
    rows = rollout.rollout(neural.network(), [start, start], "white", 6, "same")
    assert rows[0] == rows[1] and set(rows[0]) <= {-2, -1, 1, 2}


def test_a_rollout_of_fewer_than_two_trials_is_refused():
    with pytest.raises(ValueError, match="at least 2 trials"):
        rollout.rollout(neural.network(), [Position.initial("white")], "white", 1, "t")
