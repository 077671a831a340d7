"""Inputs of the neural evaluator: a position after a play, seen by the side that played it.

203 inputs: for each of the 24 points, the mover's checkers as 4 units (>=1, >=2, >=3, and
(n-3)/4 beyond three) in its own numbering, then the opponent's checkers the same way on the
same physical points (mover's numbering, RULES.md R1: opponent q = mover q+12 or q-12), then
checkers off, checkers on the head and the pip count of each side, scaled to about 0..1; then
five the network would otherwise have to discover: whether the race is over (no checker must
still pass one of the other side), each side's checkers in its home (bearing off, R8, and the
mars, R9), and each side's longest run of held points along the other side's path (/6: the
blocks of R7). Pure numpy; no Django.
"""
from __future__ import annotations

import numpy as np

N_INPUTS = 24 * 4 * 2 + 6 + 5

# Opponent's own point for each mover point 1..24 (index 0 = off), R1.
_OPP_INDEX = np.array([0] + [p + 12 if p <= 12 else p - 12 for p in range(1, 25)])
_POINTS = np.arange(1, 25, dtype=np.float32)
_MIRROR = _OPP_INDEX[1:]                      # mirror(p) for p = 1..24
# The other side's path over a side's own points (games.engine.movegen.PATH_POINT), 1-based.
_PATH = np.array([12 - i if i < 12 else 36 - i for i in range(24)])


def _back(points: np.ndarray) -> np.ndarray:
    """(k, 24) counts -> (k,) the highest occupied point (0 if none)."""
    occupied = points > 0
    return np.where(occupied.any(axis=1), 24 - np.argmax(occupied[:, ::-1], axis=1), 0)


def _longest_run(points: np.ndarray) -> np.ndarray:
    """(k, 24) counts -> (k,) the longest run of held points along the other side's path."""
    held = points[:, _PATH - 1] > 0
    run = np.zeros(points.shape[0], dtype=np.float32)
    best = run.copy()
    for i in range(24):
        run = (run + 1) * held[:, i]
        np.maximum(best, run, out=best)
    return best


def _units(points: np.ndarray) -> np.ndarray:
    """(k, 24) checker counts -> (k, 96) units."""
    k = points.shape[0]
    out = np.empty((k, 24, 4), dtype=np.float32)
    out[:, :, 0] = points >= 1
    out[:, :, 1] = points >= 2
    out[:, :, 2] = points >= 3
    out[:, :, 3] = np.maximum(points - 3, 0) * 0.25
    return out.reshape(k, 96)


def encode(mine, theirs) -> np.ndarray:
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
    contact = (((my_points > 0) & (_back(their_points)[:, None] > _MIRROR)).any(axis=1)
               | ((their_points > 0) & (_back(my_points)[:, None] > _MIRROR)).any(axis=1))
    extra = np.stack([
        mine[:, 0] / 15, theirs[:, 0] / 15,
        mine[:, 24] / 15, theirs[:, 24] / 15,
        my_points @ _POINTS / 360, their_points @ _POINTS / 360,
        ~contact, my_points[:, :6].sum(axis=1) / 15, their_points[:, :6].sum(axis=1) / 15,
        _longest_run(my_points) / 6, _longest_run(their_points) / 6,
    ], axis=1).astype(np.float32)
    return np.concatenate([_units(mine[:, 1:]), _units(theirs_here), extra], axis=1)
