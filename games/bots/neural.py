"""The network levels, ``hard`` and ``expert``: the TD(lambda)-trained network
(games/bots/data/hard.npz, made by ``python -m games.bots.train``) with the look-ahead of
``games.bots.search`` (docs/bots.md "Search").

- ``hard``: every legal play at 0-ply, then the best ``HARD.keep`` within ``HARD.margin``
  points at 1-ply (the opponent's 21 rolls, every reply, one numpy batch); ``HARD_CAP_S``.
- ``expert``: as hard, then the best ``EXPERT_DEEP.keep`` of those within
  ``EXPERT_DEEP.margin`` points at 2-ply; ``EXPERT_CAP_S``.

Past its time cap a level plays the best play of the deepest ply it completed.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

from games.engine import Play, Position, other

from .features import encode
from .network import WEIGHTS, Network, equity, flip
from .search import Filter, Ranked, rank

#: the levels that judge by the network (plays and the cube)
NETWORK_LEVELS = ("hard", "expert")
#: hard's move filter for the 1-ply look-ahead, and its time cap (seconds)
HARD = Filter(keep=8, margin=0.4)
HARD_CAP_S = 0.25
#: expert's filters (1-ply, then 2-ply) and time cap (seconds): room left under the 1 s p95
EXPERT = Filter(keep=8, margin=0.4)
EXPERT_DEEP = Filter(keep=2, margin=0.1)
EXPERT_CAP_S = 0.6

_weights: str | Path = WEIGHTS


@functools.lru_cache(maxsize=1)
def network() -> Network:
    """The shipped network, loaded once per process (a Celery worker loads it at start)."""
    return Network.load(_weights)


def use_weights(path: str | Path) -> None:
    """Play ``hard`` and ``expert`` with the network in ``path`` from now on, in this process
    (the arena's ``--weights``, to measure a training run's saves)."""
    global _weights
    _weights = path
    network.cache_clear()


def choose_hard(
    position: Position, dice: Sequence[int], plays: Sequence[Play], cap_s: float = HARD_CAP_S
) -> Play:
    """The hard level's choice among ``plays`` (the legal plays of ``dice`` in ``position``)."""
    return plays[rank(network(), position, plays, (HARD,), cap_s).index]


def rank_expert(
    position: Position,
    plays: Sequence[Play],
    cap_s: float | None = EXPERT_CAP_S,
    also: int | None = None,
) -> Ranked:
    """``search.rank`` of ``plays`` (the legal plays of one roll in ``position``) by the expert
    level's search: its network, filters and cap (the play of index ``also`` measured at every
    ply beside them). The search of the expert level, the analysis and the hints."""
    return rank(network(), position, plays, (EXPERT, EXPERT_DEEP), cap_s, also)


def choose_expert(
    position: Position, dice: Sequence[int], plays: Sequence[Play], cap_s: float = EXPERT_CAP_S
) -> Play:
    """The expert level's choice among ``plays`` (the legal plays of ``dice`` in
    ``position``)."""
    return plays[rank_expert(position, plays, cap_s).index]


def cubeless_chances(position: Position, side: str) -> tuple[float, float]:
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
    """Load the network now (at worker start) rather than on the first move."""
    network()
