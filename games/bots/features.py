"""Inputs of the neural evaluator: a position after a play, seen by the side that played it.

198 inputs: for each of the 24 points, the mover's checkers as 4 units (>=1, >=2, >=3, and
(n-3)/4 beyond three) in its own numbering, then the opponent's checkers the same way on the
same physical points (mover's numbering, RULES.md R1: opponent q = mover q+12 or q-12), then
checkers off, checkers on the head and the pip count of each side, scaled to about 0..1.
Pure numpy; no Django.
"""
from __future__ import annotations

import numpy as np

N_INPUTS = 24 * 4 * 2 + 6

# Opponent's own point for each mover point 1..24 (index 0 = off), R1.
_OPP_INDEX = np.array([0] + [p + 12 if p <= 12 else p - 12 for p in range(1, 25)])
_POINTS = np.arange(1, 25, dtype=np.float32)


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
    extra = np.stack([
        mine[:, 0] / 15, theirs[:, 0] / 15,
        mine[:, 24] / 15, theirs[:, 24] / 15,
        mine[:, 1:] @ _POINTS / 360, theirs[:, 1:] @ _POINTS / 360,
    ], axis=1)
    return np.concatenate([_units(mine[:, 1:]), _units(theirs_here), extra], axis=1)
