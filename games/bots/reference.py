"""The fixed reference opponent (issue #17, docs/bots.md "Reference"): the hard level as it
stood on 2026-12-02, kept so that every later claim of strength is measured against the same
opponent. Its network is ``data/reference.npz``, a copy of that day's ``hard.npz`` that is
never retrained (``REFERENCE_SHA256`` guards it); its search is that day's hard search, kept
here with its parameters: 0-ply, then one roll deeper on the best ``CANDIDATES`` plays within
``MARGIN`` points, at most ``TIME_CAP_S``. It reads positions with ``features.encode``: a change
there must keep the old inputs for this network. Not offered to players:
``choose_play(..., level="reference")`` is for the arena and the tests.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from games.engine import Play, Position, legal_plays, other

from .network import Network
from .search import ROLLS, values

#: the reference network, and the SHA-256 of the file as it was copied
REFERENCE_WEIGHTS = Path(__file__).with_name("data") / "reference.npz"
REFERENCE_SHA256 = "a3e0e07734282a4d0ac223fa8ef1714bd6f8673ab42c5cd62d4ed45548214d85"
#: the hard search of 2026-12-02
CANDIDATES = 4
MARGIN = 0.25
TIME_CAP_S = 0.6


@functools.lru_cache(maxsize=1)
def network() -> Network:
    """The reference network, loaded once per process."""
    return Network.load(REFERENCE_WEIGHTS)


def one_ply(
    net: Network, after: Position, mover: str, deadline: float | None = None
) -> np.float32 | None:
    """``mover``'s equity (points) in ``after``, the opponent to roll: the mean over its 36
    rolls of minus its best 0-ply reply. Returns None once ``time.perf_counter()`` passes
    ``deadline`` (checked after each of the 21 rolls)."""
    results: list[Position] = []
    spans: list[tuple[int, int, int]] = []
    replies: list[Play] | NDArray[np.float32]  # a roll's plays, then the values of all replies
    for dice, weight in ROLLS:
        replies = legal_plays(after, dice)
        spans.append((len(results), len(results) + len(replies), weight))
        results.extend(p.result for p in replies)
        if deadline is not None and time.perf_counter() > deadline:
            return None
    # float32, as the day's search summed them: the same sums, so the same choices
    replies = values(net, other(mover), results, after.board(mover)).astype(np.float32)
    value: np.float32 = -sum(w * replies[a:b].max() for a, b, w in spans) / 36
    return value


def choose_reference(position: Position, dice: Sequence[int], plays: Sequence[Play]) -> Play:
    """The reference's choice among ``plays`` (the legal plays of ``dice`` in ``position``):
    its 0-ply best, unless one of the top ``CANDIDATES`` within ``MARGIN`` points of it is
    better by one-roll look-ahead, all within ``TIME_CAP_S`` (else the 0-ply best). A play that
    wins at once is played."""
    started = time.perf_counter()
    net, mover = network(), position.turn
    scores = values(net, mover, [p.result for p in plays], position.board(other(mover)))
    scores = scores.astype(np.float32)
    order = np.argsort(-scores, kind="stable")
    best = int(order[0])
    if plays[best].result.winner or len(plays) == 1:
        return plays[best]
    deadline = started + TIME_CAP_S
    pool = [int(i) for i in order[:CANDIDATES] if scores[i] >= scores[best] - MARGIN]
    if len(pool) == 1:
        return plays[best]
    scored: list[tuple[np.float32, int, int]] = []
    for i in pool:
        value = one_ply(net, plays[i].result, mover, deadline)
        if value is None:
            return plays[best]
        scored.append((value, -len(scored), i))
    return plays[max(scored)[2]]
