"""Hand-written evaluations: the easy and medium bots (pure Python, no Django).

Every legal play of the roll (``games.engine.legal_plays``) is scored by the position it leads
to, seen from the side that played it, and the best is chosen.

- ``medium`` (``score_position``): checkers borne off and pips gained; points held in front of
  the opponent's checkers, weighted by how many opponent checkers they hold back, more when
  close in front of them, and runs of such points (no hitting in nardy: blocking is the way
  to slow the opponent, R4, R7); points taken in front of the opponent's head early on;
  checkers left on the head (R5); the opponent's die faces with no legal step at all; stacking;
  and, once the race is on, spreading the checkers over the home for bearing off (R8).
- ``easy`` (``easy_score``): borne off, pips and the head only, with noise — sensible but weak.
"""

from __future__ import annotations

import random

from games.engine.movegen import PATH_POINT, mask_steps
from games.engine.position import FLAGS, HEAD, Board, mirror, mirrored, occupied

from .bearoff import race_is_over

W_OFF = 30.0  # per checker borne off
W_PIP = 1.0  # per pip still to travel (subtracted)
W_HEAD = 2.5  # per checker still on the head (subtracted)
W_HOLD = 0.6  # per held point, per opponent checker still to pass it (up to 6)
W_NEAR = 2.0  # per held point within six pips in front of an opponent checker
W_RUN = 1.2  # per (length of a run of blocking points) squared
W_FRONT = 2.0  # per point held in front of the opponent's head while it is loaded
W_NO_REPLY = 3.0  # per opponent die face with no legal step
W_STACK = 1.5  # per checker beyond three on one point (head excepted; subtracted)
W_HOME_SPREAD = 1.5  # per home point occupied once the race is on
EASY_HELD = 1.0  # easy: per point held
EASY_NOISE = 2.0


def _behind(opponent: Board) -> list[int]:
    """``behind[q]``: opponent checkers on its points above q (they must still pass q)."""
    behind = [0] * 25
    for q in range(23, 0, -1):
        behind[q] = behind[q + 1] + opponent[q + 1]
    return behind


def faces_without_step(opponent: Board, board: Board) -> int:
    """How many die faces 1..6 give the side whose board is ``opponent`` (to move next) no legal
    single step at all against ``board`` (R4, R5 with the head free to move, R7, R8). Uses the
    engine's flag form of the step rules (``mask_steps``), the same steps as its ``_gen``."""
    occ = occupied(int.from_bytes(bytes(opponent), "little"))
    # Points in the opponent's numbering that ``board`` does not hold (R1, R4).
    free = FLAGS ^ occupied(mirrored(int.from_bytes(bytes(board), "little")))
    front = 0 if board[0] else next((q for q in range(1, 25) if board[q]), 0)
    opp = list(opponent)
    # A checker on p may step to p - d when that point is free: p's flag in ``free << 8d``.
    return sum(1 for d in range(1, 7) if not mask_steps(opp, occ, occ & free << 8 * d, d, front))


def medium_terms(board: Board, opponent: Board) -> dict[str, int]:
    """The unweighted terms of the medium evaluation (see ``score_position``): ``off``, ``pips``,
    ``head``, ``stacked``; with contact also ``hold``, ``near``, ``run_squares``, ``front``,
    ``no_reply``; in a race ``home_spread``. Absent terms are 0."""
    terms = dict(
        off=board[0],
        pips=sum(p * board[p] for p in range(1, 25)),
        head=board[HEAD],
        stacked=sum(board[p] - 3 for p in range(1, HEAD) if board[p] > 3),
        hold=0,
        near=0,
        run_squares=0,
        front=0,
        no_reply=0,
        home_spread=0,
    )
    behind = _behind(opponent)
    if not race_is_over(board, opponent):
        run = 0
        for i in range(24):  # along the opponent's path, as R7 counts runs
            p = PATH_POINT[i]
            q = mirror(p)
            if board[p] and behind[q]:
                terms["hold"] += min(behind[q], 6)
                if any(opponent[r] for r in range(q + 1, min(q + 6, 24) + 1)):
                    terms["near"] += 1
                run += 1
            else:
                terms["run_squares"] += run * run
                run = 0
        terms["run_squares"] += run * run
        if opponent[HEAD] >= 5:
            terms["front"] = sum(1 for p in range(6, 12) if board[p])
        terms["no_reply"] = faces_without_step(opponent, board)
    else:
        terms["home_spread"] = sum(1 for p in range(1, 7) if board[p])
    return terms


_WEIGHTS = dict(
    off=W_OFF,
    pips=-W_PIP,
    head=-W_HEAD,
    stacked=-W_STACK,
    hold=W_HOLD,
    near=W_NEAR,
    run_squares=W_RUN,
    front=W_FRONT,
    no_reply=W_NO_REPLY,
    home_spread=W_HOME_SPREAD,
)


def score_position(board: Board, opponent: Board) -> float:
    """The medium evaluation of a position for the side whose ``board`` it is (higher is
    better), the opponent being to move. ``board``, ``opponent``: engine boards (25 ints,
    index 0 = borne off, 1..24 own numbering, R1). A pure function of the two boards: the
    weighted sum of ``medium_terms``."""
    terms = medium_terms(board, opponent)
    return sum(w * terms[name] for name, w in _WEIGHTS.items())


def easy_score(board: Board, opponent: Board, rng: random.Random) -> float:
    """The easy evaluation: borne off, the head, points held and stacking, plus Gaussian noise
    from ``rng``. It knows nothing of blocking or the opponent."""
    held = sum(1 for p in range(1, HEAD) if board[p])
    stacked = sum(board[p] - 3 for p in range(1, HEAD) if board[p] > 3)
    return (
        W_OFF * board[0]
        - W_HEAD * board[HEAD]
        + EASY_HELD * held
        - W_STACK * stacked
        + rng.gauss(0, EASY_NOISE)
    )
