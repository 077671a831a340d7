"""The computer opponent: picks one of the engine's legal plays (pure Python, no Django).

``choose_play(position, dice, ruleset, level="medium", rng=None)`` returns an engine ``Play``.
Levels offered to players (``LEVELS``): ``easy`` and ``medium``, the hand-written evaluations
of ``games.bots.heuristic``; ``hard``, the TD(lambda)-trained network with a look-ahead over
the opponent's 21 rolls, and ``expert``, the same network searching one more roll deep on its
best candidates (``games.bots.neural`` and ``games.bots.search``; docs/bots.md). For
the arena and tests also (``ALL_LEVELS``): ``random`` (any legal play) and ``reference``
(``games.bots.reference``: the hard level of 2026-12-02, frozen, the yardstick of later
levels). In a finished race every level but easy bears off by the exact table of
``games.bots.bearoff``.
"""

from __future__ import annotations

import os

# One BLAS thread (see nardy_site/__init__.py), also for the command-line tools (arena,
# training), which do not load the site: set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import random as _random
from collections.abc import Sequence

from games.engine import Play, Position, Ruleset, legal_plays, other

from .bearoff import best_bearoff_play
from .heuristic import easy_score, score_position
from .neural import NETWORK_LEVELS, choose_expert, choose_hard
from .reference import choose_reference

LEVELS = ("easy", "medium", "hard", "expert")
ALL_LEVELS = LEVELS + ("random", "reference")
TIE = 1e-9


def choose_play(
    position: Position,
    dice: Sequence[int],
    ruleset: Ruleset | str,
    level: str = "medium",
    rng: _random.Random | None = None,
) -> Play:
    """Choose the bot's play for ``position`` with ``dice`` under ``ruleset``.

    Returns one of ``legal_plays(position, dice, ruleset)`` (the pass when nothing else is
    legal). ``level`` is one of ``ALL_LEVELS``; ``rng`` (a ``random.Random``)
    breaks ties and makes the choice reproducible (default: a fresh OS-seeded one). Raises
    ValueError for an unknown level.
    """
    if level not in ALL_LEVELS:
        raise ValueError(f"unknown bot level {level!r}; expected one of {', '.join(ALL_LEVELS)}")
    rng = rng or _random.Random()
    plays = legal_plays(position, dice, ruleset)
    if len(plays) == 1:
        return plays[0]
    if level == "random":
        return rng.choice(plays)
    if level != "easy":
        finished_race = best_bearoff_play(position, plays)
        if finished_race is not None:
            return finished_race
    if level == "hard":
        return choose_hard(position, dice, plays)
    if level == "expert":
        return choose_expert(position, dice, plays)
    if level == "reference":
        return choose_reference(position, dice, plays)
    mover = position.turn
    them = position.board(other(mover))
    if level == "easy":
        scored = [(easy_score(p.result.board(mover), them, rng), p) for p in plays]
    else:
        scored = [(score_position(p.result.board(mover), them), p) for p in plays]
    best = max(s for s, _ in scored)
    return rng.choice([p for s, p in scored if s >= best - TIE])


__all__ = [
    "ALL_LEVELS",
    "LEVELS",
    "NETWORK_LEVELS",
    "choose_play",
    "easy_score",
    "score_position",
]
