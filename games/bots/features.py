"""Inputs of the neural evaluator: a position after a play, seen by the side that played it.

213 inputs: for each of the 24 points, the mover's checkers as 4 units (>=1, >=2, >=3, and
(n-3)/4 beyond three) in its own numbering, then the opponent's checkers the same way on the
same physical points (mover's numbering, RULES.md R1: opponent q = mover q+12 or q-12), then
checkers off, checkers on the head and the pip count of each side, scaled to about 0..1; then
five the network would otherwise have to discover: whether the race is over (no checker must
still pass one of the other side), each side's checkers in its home (bearing off, R8, and the
mars, R9), and each side's longest run of held points along the other side's path (/6: the
blocks of R7); then ten terms of the medium evaluation (``_blocking_terms``), for each side as
the blocker: in TD-Gammon's experience such hand-made inputs speed learning up a lot.
Pure numpy; no Django.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

N_BASE = 24 * 4 * 2 + 6 + 5
N_TERMS = 10
N_INPUTS = N_BASE + N_TERMS

# Opponent's own point for each mover point 1..24 (index 0 = off), R1.
_OPP_INDEX: NDArray[np.intp] = np.array([0] + [p + 12 if p <= 12 else p - 12 for p in range(1, 25)])
_POINTS = np.arange(1, 25, dtype=np.float32)
_MIRROR = _OPP_INDEX[1:]  # mirror(p) for p = 1..24
# The other side's path over a side's own points (games.engine.movegen.PATH_POINT), 1-based.
_PATH: NDArray[np.intp] = np.array([12 - i if i < 12 else 36 - i for i in range(24)])


def _back(points: NDArray[np.float32]) -> NDArray[np.intp]:
    """(k, 24) counts -> (k,) the highest occupied point (0 if none)."""
    occupied = points > 0
    return np.where(occupied.any(axis=1), 24 - np.argmax(occupied[:, ::-1], axis=1), 0)


_STEPS = np.arange(24)
# (6, 24): for die d (row d - 1) and point index q, the index q - d, or 24 (a padding column)
# where q - d < 0.
_DIE_FROM: NDArray[np.intp] = np.array(
    [[q - d if q >= d else 24 for q in range(24)] for d in range(1, 7)]
)


def _run_lengths(along: NDArray[np.bool_]) -> NDArray[np.intp]:
    """(k, 24) booleans in path order -> (k, 24): at each held place, its position in its run
    (1, 2, ...), else 0; without a Python loop (the place minus the last empty place before)."""
    last_empty = np.maximum.accumulate(np.where(along, -1, _STEPS), axis=1)
    return (_STEPS - last_empty) * along


def _longest_run(points: NDArray[np.float32]) -> NDArray[np.float32]:
    """(k, 24) counts -> (k,) the longest run of held points along the other side's path."""
    longest: NDArray[np.intp] = _run_lengths(points[:, _PATH - 1] > 0).max(axis=1)
    return longest.astype(np.float32)


def _blocking_terms(
    board: NDArray[np.float32], blocked: NDArray[np.float32]
) -> NDArray[np.float64]:
    """The medium evaluation's blocking terms (``games.bots.heuristic.score_position``), for the
    side holding ``board`` against the side whose checkers are ``blocked``: both (k, 24)
    counts, each in its own numbering. Returns (k, 5), scaled to about 0..1: points held in
    front of blocked checkers weighted by how many still have to pass (at most 6 each, /36);
    such points with a blocked checker within six pips behind them (/6); the runs of such
    points along the blocked side's path, squared and summed (/36); points 6..11 held while the
    blocked side's head has five or more checkers (/6); and the blocked side's die faces with no
    step at all (/6; R4: its target points held by ``board``; the bearing-off steps of a side
    whose checkers are all at home count as steps; the block rule R7 is left to the network)."""
    k = board.shape[0]
    suffix = np.cumsum(blocked[:, ::-1], axis=1)[:, ::-1]  # checkers on q or above
    behind = suffix - blocked  # ... above q only
    behind_here = behind[:, _MIRROR - 1]  # at my point p
    held = board > 0
    blocking = held & (behind_here > 0)
    hold = (blocking * np.minimum(behind_here, 6)).sum(axis=1) / 36
    # A blocked checker on q+1..q+6 (its numbering): suffix(q+1) - suffix(q+7).
    padded = np.concatenate([suffix, np.zeros((k, 7), suffix.dtype)], axis=1)
    near_there = (padded[:, 1:25] - padded[:, 7:31]) > 0
    near = (blocking & near_there[:, _MIRROR - 1]).sum(axis=1) / 6
    runs = _run_lengths(blocking[:, _PATH - 1])
    squares = (2 * runs - 1).clip(0).sum(axis=1) / 36  # 1 + 3 + ... + (2n-1) = n*n
    front = (blocked[:, 23] >= 5) * held[:, 5:11].sum(axis=1) / 6
    occupied = blocked > 0
    # free[q - d] for each die d at each q (a False column where q - d < 0), in one gather.
    free = np.concatenate([~held[:, _MIRROR - 1], np.zeros((k, 1), bool)], axis=1)
    home_only = blocked[:, 6:].sum(axis=1) == 0
    steps = (occupied[:, None, :] & free[:, _DIE_FROM]).any(axis=2) | home_only[:, None]
    stepping = steps.sum(axis=1)
    return np.stack([hold, near, squares, front, (6 - stepping) / 6], axis=1)


def _units(points: NDArray[np.float32]) -> NDArray[np.float32]:
    """(k, 24) checker counts -> (k, 96) units."""
    k = points.shape[0]
    out = np.empty((k, 24, 4), dtype=np.float32)
    out[:, :, 0] = points >= 1
    out[:, :, 1] = points >= 2
    out[:, :, 2] = points >= 3
    out[:, :, 3] = np.maximum(points - 3, 0) * 0.25
    return out.reshape(k, 96)


def encode(mine: ArrayLike, theirs: ArrayLike) -> NDArray[np.float32]:
    """Inputs for k positions: ``mine`` is (k, 25) boards of the side that just played, in its
    own numbering; ``theirs`` is (k, 25) (or (25,), shared) of the opponent in ITS numbering.
    Returns a (k, N_INPUTS) float32 array."""
    mine = np.asarray(mine, dtype=np.float32).reshape(-1, 25)
    theirs = np.asarray(theirs, dtype=np.float32).reshape(-1, 25)
    if theirs.shape[0] == 1 and mine.shape[0] > 1:
        theirs = np.broadcast_to(theirs, mine.shape)
    theirs_here = theirs[:, _OPP_INDEX[1:]]
    my_points, their_points = mine[:, 1:], theirs[:, 1:]
    # Contact (bearoff.race_is_over): a checker on my p still to pass their back checker, whose
    # own number is above mirror(p), or the other way round.
    k = mine.shape[0]
    both = np.concatenate([my_points, their_points])
    back = _back(both)[:, None]
    contact = ((my_points > 0) & (back[k:] > _MIRROR)).any(axis=1) | (
        (their_points > 0) & (back[:k] > _MIRROR)
    ).any(axis=1)
    runs = _longest_run(both)
    extra = np.stack(
        [
            mine[:, 0] / 15,
            theirs[:, 0] / 15,
            mine[:, 24] / 15,
            theirs[:, 24] / 15,
            my_points @ _POINTS / 360,
            their_points @ _POINTS / 360,
            ~contact,
            my_points[:, :6].sum(axis=1) / 15,
            their_points[:, :6].sum(axis=1) / 15,
            runs[:k] / 6,
            runs[k:] / 6,
        ],
        axis=1,
    ).astype(np.float32)
    # Both sides in one call each (half the numpy calls: the batches are small in training).
    terms = _blocking_terms(both, np.concatenate([their_points, my_points]))
    terms = np.concatenate([terms[:k], terms[k:]], axis=1)
    terms[~contact] = 0.0  # a race: nothing to block
    units = _units(np.concatenate([my_points, theirs_here]))
    return np.concatenate([units[:k], units[k:], extra, terms.astype(np.float32)], axis=1)
