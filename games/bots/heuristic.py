"""A simple long-nardy heuristic bot.

Every legal play of the roll (``games.engine.legal_plays``) is scored by the position it leads
to, seen from the side that played it, and the best is chosen. The score favours, in order of
weight: checkers borne off (R8), pips gained, points held just in front of the opponent's
checkers (no hitting in nardy, so blocking is the way to slow the opponent; R4, R7), longer
runs of such points, fewer checkers left on the head (R5), and not stacking many checkers on
one point. Leaving single checkers costs nothing: there is no hitting.
"""
from __future__ import annotations

import random

from games.engine import legal_plays
from games.engine.position import HEAD, mirror, other

LEVELS = ("easy", "medium")

#: weights of the medium level's score terms (points per unit)
WEIGHT_OFF = 40.0          # per checker borne off
WEIGHT_PIP = 1.0           # per pip still to travel (subtracted)
WEIGHT_NEAR_BLOCK = 3.0    # per held point within six pips in front of an opponent checker
WEIGHT_FAR_BLOCK = 1.0     # per held point further in front of an opponent checker
WEIGHT_RUN = 1.5           # per (run length squared) of consecutive blocking points
WEIGHT_HEAD = 2.5          # per checker still on the head (subtracted)
WEIGHT_STACK = 1.5         # per checker beyond STACK_FREE on one point (subtracted)
STACK_FREE = 3
TIE = 1e-9


def score_position(board, opponent):
    """Score a position for the side whose ``board`` it is (higher is better).

    ``board`` and ``opponent`` are engine boards (25 ints, index 0 = borne off, 1..24 = points
    in each side's own numbering, R1). Pure function of the two boards.
    """
    score = WEIGHT_OFF * board[0]
    score -= WEIGHT_PIP * sum(p * board[p] for p in range(1, 25))
    score -= WEIGHT_HEAD * board[HEAD]
    for p in range(1, HEAD):
        if board[p] > STACK_FREE:
            score -= WEIGHT_STACK * (board[p] - STACK_FREE)

    # Opponent checkers still to pass each physical point: opponent point q is passed by
    # every opponent checker on a higher opponent point.
    behind = [0] * 25
    for q in range(23, 0, -1):
        behind[q] = behind[q + 1] + opponent[q + 1]
    run = 0
    runs = 0.0
    # Walk along the opponent's path (its 24 down to 1) so that runs are the ones R7 counts.
    for q in range(23, 0, -1):
        p = mirror(q)
        blocking = board[p] > 0 and behind[q] > 0
        if blocking:
            near = any(opponent[r] for r in range(q + 1, min(q + 6, 24) + 1))
            score += WEIGHT_NEAR_BLOCK if near else WEIGHT_FAR_BLOCK
            run += 1
        else:
            runs += run * run
            run = 0
    runs += run * run
    score += WEIGHT_RUN * runs
    return score


def choose_play(position, dice, ruleset, level="medium", rng=None):
    """Choose the bot's play for ``position`` with ``dice`` under ``ruleset``.

    Returns one of ``legal_plays(position, dice, ruleset)`` (the pass when nothing else is
    legal). ``level`` is one of ``LEVELS``; ``rng`` (a ``random.Random``) breaks ties and makes
    the choice reproducible; by default a fresh, OS-seeded one is used. Raises ValueError for
    an unknown level.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; expected one of {', '.join(LEVELS)}")
    rng = rng or random.Random()
    plays = legal_plays(position, dice, ruleset)
    if len(plays) == 1:
        return plays[0]
    if level == "easy":
        return rng.choice(plays)
    mover = position.turn
    scored = [(score_position(p.result.board(mover), p.result.board(other(mover))), p)
              for p in plays]
    best = max(s for s, _ in scored)
    top = [p for s, p in scored if s >= best - TIE]
    return rng.choice(top)
