"""The hard bot: the TD(lambda)-trained network (games/bots/data/hard.npz, made by
``python -m games.bots.train``) with a look-ahead over the opponent's 21 rolls.

Each legal play is first scored by the network (0-ply); the best few are then scored by the
average, over the 36 dice outcomes, of the opponent's best reply as the network sees it. The
look-ahead stops at a time cap, and the 0-ply choice is played if the cap is hit.
"""
from __future__ import annotations

import functools
import time

import numpy as np

from games.engine import legal_plays, other

from .features import encode
from .network import Network, equity

#: the 21 distinct rolls with their weights out of 36
ROLLS = tuple(((a, b), 1 if a == b else 2) for a in range(1, 7) for b in range(a, 7))
CANDIDATES = 4        # plays looked at one roll deeper
TIME_CAP_S = 0.8      # beyond this the 0-ply choice is played


@functools.lru_cache(maxsize=1)
def network() -> Network:
    """The shipped network, loaded once per process."""
    return Network.load()


def _values(net, mover, results, opp_board):
    """0-ply equities (points, for ``mover``) of the positions ``results`` after its play;
    a position where ``mover`` has borne off everything counts its exact R9 value."""
    boards = [r.board(mover) for r in results]
    values = equity(net.evaluate(encode(boards, opp_board)))
    for i, r in enumerate(results):
        if r.winner:
            values[i] = 2.0 if r.off(other(mover)) == 0 else 1.0
    return values


def one_ply(net, after, mover) -> float:
    """``mover``'s equity in ``after`` (the opponent to roll): the mean over its 36 rolls of
    minus the opponent's best 0-ply reply."""
    them = other(mover)
    mine = after.board(mover)
    results, spans = [], []
    for dice, weight in ROLLS:
        replies = legal_plays(after, dice)
        spans.append((len(results), len(results) + len(replies), weight))
        results.extend(p.result for p in replies)
    values = _values(net, them, results, mine)
    return -sum(w * values[a:b].max() for a, b, w in spans) / 36


def choose_hard(position, dice, plays, candidates=CANDIDATES, cap_s=TIME_CAP_S):
    """The hard bot's choice among ``plays`` (the legal plays of ``dice`` in ``position``)."""
    net = network()
    mover = position.turn
    values = _values(net, mover, [p.result for p in plays], position.board(other(mover)))
    order = np.argsort(-values)
    best = int(order[0])
    if plays[best].result.winner or len(plays) == 1:
        return plays[best]
    deadline = time.perf_counter() + cap_s
    scored = []
    for i in order[:candidates]:
        scored.append((one_ply(net, plays[int(i)].result, mover), int(i)))
        if time.perf_counter() > deadline:
            return plays[best]
    return plays[max(scored)[1]]
