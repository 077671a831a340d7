"""games.bots: the heuristic bot chooses legal plays, bears off, leaves the head, and beats
a random player. Pure engine, no database."""

import random

import pytest

from games.bots import LEVELS, choose_play, score_position
from games.engine import Position, legal_plays


def pos(white, black, turn="white"):
    return Position.from_json({"turn": turn, "white": white, "black": black, "first_turn": False})


@pytest.mark.parametrize("level", LEVELS)
def test_bot_chooses_one_of_the_legal_plays(level):
    rng = random.Random(5)
    position = pos({"24": 10, "18": 2, "13": 3}, {"24": 12, "19": 3}, turn="black")
    for dice in [(6, 5), (3, 3), (2, 1), (6, 6)]:
        legal = {p.notation for p in legal_plays(position, dice, "sport")}
        assert choose_play(position, dice, "sport", level=level, rng=rng).notation in legal


def test_bot_passes_when_nothing_is_legal():
    position = pos({"24": 15}, {"24": 14, "6": 1})
    assert choose_play(position, (6, 6), "sport").notation == ""


def test_bot_bears_off_rather_than_moving_inside_home():
    position = pos({"6": 2, "5": 3, "4": 4, "1": 2}, {"24": 15})
    play = choose_play(position, (6, 5), "sport", rng=random.Random(1))
    assert play.notation in ("6/off 5/off", "5/off 6/off")


def test_bot_takes_a_checker_off_the_head():
    # 5-4 can be played by the head checker (24/20 20/15 or 24/19 …) or by the runners.
    position = pos({"24": 13, "13": 1, "11": 1}, {"24": 14, "20": 1}, turn="white")
    play = choose_play(position, (5, 4), "sport", rng=random.Random(2))
    assert play.result.board("white")[24] == 12


def test_score_prefers_points_just_in_front_of_the_opponent():
    # Black has all 15 on its head (white's 12). White 11, 10, 9 stand right in front of
    # them; white 21, 5, 4 have the same pip count (30) but are far from black's checkers.
    opponent = Position.initial("black").board("black")

    def board(points):
        b = [0] * 25
        b[24] = 12
        for p in points:
            b[p] = 1
        return tuple(b)

    assert score_position(board((11, 10, 9)), opponent) > score_position(
        board((21, 5, 4)), opponent
    )


def test_bot_is_reproducible_with_the_same_rng():
    position = pos({"24": 14, "13": 1}, {"24": 14, "13": 1})
    first = [
        choose_play(position, (3, 3), "sport", rng=random.Random(9)).notation for _ in range(3)
    ]
    assert len(set(first)) == 1


def test_unknown_level_is_refused():
    with pytest.raises(ValueError):
        choose_play(Position.initial("white"), (6, 5), "sport", level="grandmaster")


def _play_out(rng, levels):
    """A whole game between two bot levels with seeded dice; returns the winner's level."""
    position = Position.initial(rng.choice(["white", "black"]))
    for _turn in range(1000):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        play = choose_play(position, dice, "sport", level=levels[position.turn], rng=rng)
        position = play.result
        if position.winner:
            return levels[position.winner]
    raise AssertionError("the game did not end")


def test_medium_bot_beats_a_random_player():
    rng = random.Random(2024)
    wins = sum(_play_out(rng, {"white": "medium", "black": "easy"}) == "medium" for _ in range(6))
    assert wins >= 5
