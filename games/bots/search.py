"""Look-ahead with a neural evaluation: 0-ply, 1-ply and 2-ply values of the positions after a
play, each ply's positions evaluated in one numpy batch, and a gnubg-style move filter that
keeps only the most promising plays for each deeper ply (docs/bots.md "Search").

Values are equities in points per game (RULES.md R9 with `sport` values: oin 1, mars 2) for the
side that has just played, the other side to roll:

- 0-ply: the network's own value of the position;
- 1-ply: the mean, over the opponent's 36 dice outcomes (21 distinct rolls), of minus the
  opponent's best reply at 0-ply;
- 2-ply: the mean, over the opponent's 36 outcomes, of minus the 1-ply value of the reply the
  opponent picks at 0-ply (a filter of one reply per roll, as gnubg's 2-ply does).

A position where the side that just played has borne off everything counts its exact R9 value
at every ply. Pure Python and numpy: no Django.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter

import numpy as np
from numpy.typing import NDArray

from games.engine import CHECKERS, Play, Position, legal_plays, other
from games.engine.position import Board

from .features import encode
from .network import Network, equity

#: the 21 distinct rolls with their weights out of 36
ROLLS = tuple(((a, b), 1 if a == b else 2) for a in range(1, 7) for b in range(a, 7))
_WEIGHTS = np.array([w for _dice, w in ROLLS], np.float64) / 36


class OutOfTime(Exception):
    """Raised inside a search when ``time.perf_counter()`` has passed its deadline."""


#: seconds the inputs and the network take per position, about (a 2-core EPYC: 6-10 us)
EVAL_S = 10e-6


def _check(deadline: float | None, positions: int = 0) -> None:
    """OutOfTime unless evaluating ``positions`` more positions should end before ``deadline``
    (a 2-ply's last batch holds tens of thousands)."""
    if deadline is not None and time.perf_counter() + positions * EVAL_S > deadline:
        raise OutOfTime


def boards(results: Sequence[Position], side: str) -> NDArray[np.float32]:
    """(k, 25) float32: the boards of ``side`` in the engine positions ``results``."""
    if not results:
        return np.zeros((0, 25), np.float32)
    read = attrgetter(side)
    flat = np.fromiter(chain.from_iterable(map(read, results)), np.float32, 25 * len(results))
    return flat.reshape(len(results), 25)


def values(
    net: Network, mover: str, results: Sequence[Position], opp_board: Board | None = None
) -> NDArray[np.float64]:
    """0-ply equities (points, for ``mover``: the side that has just played) of the engine
    positions ``results`` (a list, each with the other side to roll), as a (k,) float array.
    ``opp_board`` (25,) is the other side's board when all results share it (the plays of one
    roll), else it is read from each result."""
    if not results:
        return np.zeros(0)
    mine = boards(results, mover)
    theirs = boards(results, other(mover)) if opp_board is None else np.asarray(opp_board)
    out = equity(net.evaluate(encode(mine, theirs))).astype(np.float64)
    won = mine[:, 0] == CHECKERS
    if won.any():
        their_off = theirs[:, 0] if theirs.ndim == 2 else np.full(len(results), theirs[0])
        out[won] = np.where(their_off[won] == 0, 2.0, 1.0)
    return out


def replies(
    afters: Sequence[Position], deadline: float | None = None
) -> tuple[list[Position], list[list[tuple[int, int]]]]:
    """Every reply of the side to roll in each position of ``afters`` to each of the 21 rolls:
    ``(results, spans)``, where ``spans[i][j]`` is the slice of ``results`` holding the replies
    of ``afters[i]`` to ``ROLLS[j]`` (a pass is one reply: the position itself). Raises
    OutOfTime past ``deadline`` (checked after each position's replies)."""
    results: list[Position] = []
    spans: list[list[tuple[int, int]]] = []
    for after in afters:
        row = []
        for dice, _weight in ROLLS:
            start = len(results)
            results.extend(p.result for p in legal_plays(after, dice))
            row.append((start, len(results)))
        spans.append(row)
        _check(deadline)
    return results, spans


def one_ply(
    net: Network, afters: Sequence[Position], mover: str, deadline: float | None = None
) -> NDArray[np.float64]:
    """1-ply equities (points, for ``mover``) of the positions ``afters`` (``mover`` has just
    played, the other side to roll), as a (k,) array: every reply of every position to every
    roll evaluated in one batch. Raises OutOfTime past ``deadline`` (checked after each
    position's replies are generated)."""
    if not afters:
        return np.zeros(0)
    results, spans = replies(afters, deadline)
    _check(deadline, len(results))
    scores = values(net, other(mover), results)
    best = np.array([[scores[a:b].max() for a, b in row] for row in spans])
    return -(best @ _WEIGHTS)


def two_ply(
    net: Network, afters: Sequence[Position], mover: str, deadline: float | None = None
) -> NDArray[np.float64]:
    """2-ply equities (points, for ``mover``) of the positions ``afters``: for each opponent
    roll the opponent's best reply at 0-ply, then that reply's value at 1-ply (seen from the
    opponent), averaged over the 36 outcomes and negated. Raises OutOfTime past
    ``deadline``."""
    if not afters:
        return np.zeros(0)
    them = other(mover)
    results, spans = replies(afters, deadline)
    scores = values(net, them, results)
    picked, finished = [], []
    for row in spans:
        for a, b in row:
            i = a + int(np.argmax(scores[a:b]))
            picked.append(results[i])
            finished.append(scores[i] if results[i].winner else None)
    # The replies that end the game keep their exact value; the rest go one ply deeper.
    open_ = [r for r, done in zip(picked, finished, strict=True) if done is None]
    deeper = iter(one_ply(net, open_, them, deadline))
    theirs = np.array([next(deeper) if done is None else done for done in finished])
    return -(theirs.reshape(len(afters), len(ROLLS)) @ _WEIGHTS)


@dataclass(frozen=True)
class Filter:
    """Which plays go one ply deeper: at most ``keep`` of the best, and only those within
    ``margin`` points of the best at the ply before (gnubg's move filter)."""

    keep: int
    margin: float

    def apply(self, scores: NDArray[np.float64], pool: list[int]) -> list[int]:
        """The indices of ``pool`` (indices into the plays) that pass, best first; ``scores``
        are the pool's values at the ply before, in the pool's order."""
        order = np.argsort(-np.asarray(scores), kind="stable")
        best = scores[order[0]]
        return [pool[int(i)] for i in order[: self.keep] if scores[i] >= best - self.margin]


@dataclass(frozen=True)
class Ranked:
    """A search's result: ``index`` of the chosen play, the ``ply`` that decided it, and each
    play's best-known value (points, for the side to play) with the ply it was measured at:
    ``scores`` and ``plies``, both in the plays' order."""

    index: int
    ply: int
    scores: tuple[float, ...]
    plies: tuple[int, ...]


def rank(
    net: Network,
    position: Position,
    plays: Sequence[Play],
    filters: Sequence[Filter] = (),
    cap_s: float | None = None,
    also: int | None = None,
) -> Ranked:
    """Rank ``plays`` (the legal plays of one roll in ``position``) for the side to play:
    every play at 0-ply, then, for each ``Filter`` in ``filters`` in turn, the plays it keeps
    one ply deeper (the first at 1-ply, the second at 2-ply), and the play of index ``also``
    (the play a player made, to be judged beside the best) at every ply the search reaches.
    A play that bears off the last checker is chosen at once (the best such, at 0-ply). If
    ``cap_s`` seconds pass, the deepest ply completed decides. Returns ``Ranked``."""
    started = time.perf_counter()
    deadline = None if cap_s is None else started + cap_s
    mover = position.turn
    scores = values(net, mover, [p.result for p in plays], position.board(other(mover)))
    plies = [0] * len(plays)
    pool = list(range(len(plays)))
    chosen, ply = int(np.argmax(scores)), 0
    won = [i for i, p in enumerate(plays) if p.result.winner]
    if won or len(plays) == 1:
        # bearing off the last checker is worth the most the game can give now (R9)
        chosen = max(won, key=lambda i: scores[i]) if won else chosen
        if won and also is not None and also not in won and filters:
            # the play made instead is judged a roll deeper: what throwing the win away costs
            scores[also], plies[also] = one_ply(net, [plays[also].result], mover)[0], 1
        return Ranked(chosen, 0, tuple(float(s) for s in scores), tuple(plies))
    for depth, (step, keep) in enumerate(zip((one_ply, two_ply), filters, strict=False), start=1):
        pool = keep.apply(np.array([scores[i] for i in pool]), pool)
        if also is not None and also not in pool:
            pool.append(also)
        if len(pool) == 1:
            break
        try:
            measured = step(net, [plays[i].result for i in pool], mover, deadline)
        except OutOfTime:
            break
        for i, value in zip(pool, measured, strict=True):
            scores[i], plies[i] = value, depth
        chosen, ply = pool[int(np.argmax(measured))], depth
    return Ranked(chosen, ply, tuple(float(s) for s in scores), tuple(plies))
