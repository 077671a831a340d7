"""legal_plays on crowded boards agrees with the naive reference (engine_reference.py): long runs
of the mover's points next to a six-point block (R7) with the opponent near or far, bearing off
(R8), and every roll. Random games seldom reach these boards, and the engine's shortcuts (the
R7 window check, the bit masks) live exactly there."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import Position, PositionError, legal_plays, mirror, other
from games.engine.movegen import _ALL, _NO_HEAD, _context, _gen, mask_steps
from games.engine.position import mirrored, occupied
from games.tests.engine_reference import OPP_PATH, _has_forbidden_block, reference_results

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def spread(rng, points, checkers, board):
    for _ in range(checkers):
        board[rng.choice(points)] += 1


def crowded_position(seed):
    """A position where the mover holds a run of 4-7 points along the opponent's path, or has
    everything home, and the opponent stands anywhere else (or has borne some off). A forbidden
    block cannot arise in play, so boards already holding one are drawn again."""
    rng = random.Random(seed)
    while True:
        me, opp = _draw(rng)
        if not _has_forbidden_block(me, opp):
            break
    turn = rng.choice(["white", "black"])
    return Position(turn, me, opp) if turn == "white" else Position(turn, opp, me)


def _draw(rng):
    me = [0] * 25
    if rng.random() < 0.25:
        home = rng.sample(range(1, 7), rng.randint(1, 6))
        me[0] = rng.randint(0, 10)
        for p in home:
            me[p] = 1
        spread(rng, home, 15 - me[0] - len(home), me)
    else:
        length = rng.randint(4, 7)
        start = rng.randint(0, 24 - length)
        run = OPP_PATH[start : start + length]
        for p in run:
            me[p] = 1
        others = rng.sample([p for p in range(1, 25) if p not in run], rng.randint(0, 4))
        for p in others:
            me[p] = 1
        spread(rng, run + others, 15 - length - len(others), me)
    free = [q for q in range(1, 25) if not me[mirror(q)]]
    opp = [0] * 25
    opp[0] = rng.choice([0, 0, 0, rng.randint(1, 12)])
    held = rng.sample(free, min(len(free), rng.randint(1, 8)))
    for q in held:
        opp[q] = 1
    spread(rng, held, 15 - opp[0] - len(held), opp)
    return tuple(me), tuple(opp)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_every_roll_on_crowded_boards_equals_the_naive_reference(seed):
    pos = crowded_position(seed)
    me, opp = pos.board(pos.turn), pos.board(other(pos.turn))
    for dice in ROLLS:
        for roll in {dice, dice[::-1]}:
            plays = legal_plays(pos, roll)
            got = [p.result.board(pos.turn) for p in plays]
            assert len(got) == len(set(got)), (pos, roll)
            assert set(got) == reference_results(me, opp, roll, False), (pos, roll)
            for play in plays:
                board = list(me)
                for p, t in play.steps:
                    board[p] -= 1
                    board[t] += 1
                assert tuple(board) == play.result.board(pos.turn)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_mask_steps_lists_the_single_steps_of_gen_in_its_order(seed):
    pos = crowded_position(seed)
    me, opp = pos.board(pos.turn), pos.board(other(pos.turn))
    opp_here, front = _context(pos)
    occ = occupied(int.from_bytes(bytes(me), "little"))
    free = _ALL ^ occupied(mirrored(int.from_bytes(bytes(opp), "little")))
    for die in range(1, 7):
        for from_head in (True, False):
            src = occ & (free << 8 * die) & (_ALL if from_head else _NO_HEAD)
            expected = _gen(list(me), die, opp_here, front, from_head)
            assert mask_steps(list(me), occ, src, die, front) == expected, (pos, die)


@pytest.mark.parametrize("point", range(1, 25))
def test_from_json_refuses_both_sides_on_any_one_point(point):
    with pytest.raises(PositionError, match=f"white {point} and black {mirror(point)}"):
        Position.from_json(
            {"turn": "white", "white": {str(point): 1, "24": 14}, "black": {str(mirror(point)): 1}}
        )
