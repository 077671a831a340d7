"""The hard bot: the TD(lambda)-trained network (games/bots/data/hard.npz, made by
``python -m games.bots.train``) with a look-ahead over the opponent's 21 rolls.

Each legal play is first scored by the network (0-ply: the position after it, seen by the side
that played). The best few (``CANDIDATES``, and only those within ``MARGIN`` points of the
best) are then scored one roll deeper: the mean, over the opponent's 36 dice outcomes (21
distinct rolls), of minus the opponent's best reply as the network sees it. The look-ahead is
checked against a time cap after every roll it expands; at the cap the 0-ply choice is played.
"""

from __future__ import annotations

import functools
import time

import numpy as np

from games.engine import legal_plays, other

from .features import encode
from .network import WEIGHTS, Network, equity, flip

#: the 21 distinct rolls with their weights out of 36
ROLLS = tuple(((a, b), 1 if a == b else 2) for a in range(1, 7) for b in range(a, 7))
CANDIDATES = 4  # plays looked at one roll deeper
MARGIN = 0.25  # ... if their 0-ply equity is within this many points of the best
TIME_CAP_S = 0.6  # beyond this the 0-ply choice is played (room left for the 1 s limit)


_weights = WEIGHTS


@functools.lru_cache(maxsize=1)
def network() -> Network:
    """The shipped network, loaded once per process (a Celery worker loads it at start)."""
    return Network.load(_weights)


def use_weights(path) -> None:
    """Play ``hard`` with the network in ``path`` from now on, in this process (the arena's
    ``--weights``, to measure a training run's saves)."""
    global _weights
    _weights = path
    network.cache_clear()


def _values(net, mover, results, opp_board):
    """0-ply equities (points, for ``mover``) of the positions ``results`` after its play;
    a position where ``mover`` has borne off everything counts its exact R9 value."""
    boards = [r.board(mover) for r in results]
    values = equity(net.evaluate(encode(boards, opp_board)))
    for i, r in enumerate(results):
        if r.winner:
            values[i] = 2.0 if r.off(other(mover)) == 0 else 1.0
    return values


def one_ply(net, after, mover, deadline=None):
    """``mover``'s equity (points) in ``after``, the opponent to roll: the mean over its 36
    rolls of minus its best 0-ply reply. Returns None once ``time.perf_counter()`` passes
    ``deadline`` (checked after each of the 21 rolls)."""
    them = other(mover)
    mine = after.board(mover)
    results, spans = [], []
    for dice, weight in ROLLS:
        replies = legal_plays(after, dice)
        spans.append((len(results), len(results) + len(replies), weight))
        results.extend(p.result for p in replies)
        if deadline is not None and time.perf_counter() > deadline:
            return None
    values = _values(net, them, results, mine)
    return -sum(w * values[a:b].max() for a, b, w in spans) / 36


def choose_hard(position, dice, plays, candidates=CANDIDATES, cap_s=TIME_CAP_S):
    """The hard bot's choice among ``plays`` (the legal plays of ``dice`` in ``position``):
    the best of the top 0-ply ``candidates`` by one-roll look-ahead, or the best 0-ply play
    when the look-ahead passes ``cap_s`` seconds (or a play wins at once)."""
    return choose_with(network(), position, plays, candidates, MARGIN, cap_s)


def choose_with(net, position, plays, candidates, margin, cap_s):
    """The choice of network ``net`` among ``plays`` of ``position``: its 0-ply best, unless
    one of the top ``candidates`` within ``margin`` points of it is better by one-roll
    look-ahead, all within ``cap_s`` seconds (else the 0-ply best). A play that wins at once
    is played."""
    started = time.perf_counter()
    mover = position.turn
    values = _values(net, mover, [p.result for p in plays], position.board(other(mover)))
    order = np.argsort(-values, kind="stable")
    best = int(order[0])
    if plays[best].result.winner or len(plays) == 1:
        return plays[best]
    deadline = started + cap_s
    pool = [int(i) for i in order[:candidates] if values[i] >= values[best] - margin]
    if len(pool) == 1:
        return plays[best]
    scored = []
    for i in pool:
        value = one_ply(net, plays[i].result, mover, deadline)
        if value is None:
            return plays[best]
        scored.append((value, -len(scored), i))
    return plays[max(scored)[2]]


def cubeless_chances(position, side):
    """``(chance to win, equity in points per cube)`` of ``side`` in ``position`` before the
    side on roll (``position.turn``) rolls, by the network (0-ply), cubeless. The network speaks
    for the side that has just played, the one not on roll; for the other its answer is turned
    round (``flip``)."""
    played = other(position.turn)
    outputs = network().evaluate(encode([position.board(played)], position.board(position.turn)))
    if side != played:
        outputs = flip(outputs)
    return float(outputs[0, 0]), float(equity(outputs)[0])


def preload() -> None:
    """Load the network now (at worker start) rather than on the first hard move."""
    network()
