"""Judging one play against the best play of its roll (pure Python and numpy, no Django): the
expert search's equities of the plays (``games.bots.search`` with the ``expert`` level's
filters), the play made measured at every ply the search reaches, and the mark of the equity it
lost. Used by the post-game analysis (``games.room.analysis``) and the hints
(``games.services.hints``).

Equities are cubeless points per game for the mover (oin 1, mars 2, koks 3 where the table has
koks; a play that bears off the last checker counts its exact R9 value). Marks (``mark_of``):
``best`` (nothing lost), ``ok`` (less than ``MISTAKE``), ``mistake`` (at least ``MISTAKE``,
0.05 points), ``blunder`` (at least ``BLUNDER``, 0.12 points); a roll with a single legal play
is ``forced``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NotRequired, TypedDict

from games.engine import Play, Position, Ruleset, legal_plays, other
from games.engine.scoring import game_value

from . import neural

#: equity lost (points per game) from which a play is a mistake / a blunder
MISTAKE = 0.05
BLUNDER = 0.12
#: a play losing less than this is the best play (equal to it in three decimals)
BEST_TOLERANCE = 0.0005
#: seconds of search a play gets at most (past it, the deepest ply completed judges)
PLAY_CAP_S = 1.0

MARKS = ("forced", "best", "ok", "mistake", "blunder")


class PlayAnalysis(TypedDict):
    """What ``analyse_play`` returns: ``plays`` and ``mark`` always, the rest unless the play
    was ``forced``."""

    plays: int
    mark: str
    best: NotRequired[str]
    best_position: NotRequired[dict[str, object]]
    best_equity: NotRequired[float]
    played_equity: NotRequired[float]
    lost: NotRequired[float]


def mark_of(lost: float) -> str:
    """The mark of a play that lost ``lost`` points of equity (>= 0)."""
    if lost >= BLUNDER:
        return "blunder"
    if lost >= MISTAKE:
        return "mistake"
    if lost < BEST_TOLERANCE:
        return "best"
    return "ok"


def final_value(result: Position, mover: str, ruleset: Ruleset | str) -> float:
    """Points the mover wins when its play ``result`` has borne off its last checker."""
    return float(game_value(result.board(other(mover)), ruleset)[1])


def play_equities(
    position: Position,
    plays: Sequence[Play],
    ruleset: Ruleset | str,
    played_index: int,
    cap_s: float = PLAY_CAP_S,
) -> dict[int, float]:
    """Equities (cubeless points per game, for the side to move in ``position``) of ``plays``
    (its legal plays of one roll), by the expert search (``games.bots.neural``): every play at
    0-ply, the best at 1-ply and 2-ply through its move filters, and the play made
    (``played_index``) at every ply the search reaches, within ``cap_s`` seconds. Returns
    ``{index: equity}`` for the play made and the plays measured at the deepest ply reached; a
    play that ends the game gets its exact value (RULES.md R9, with koks where the table has it)."""
    ranked = neural.rank_expert(position, plays, cap_s, played_index)
    mover = position.turn
    deepest = ranked.plies[ranked.index]
    measured: dict[int, float] = {}
    for i, (value, ply) in enumerate(zip(ranked.scores, ranked.plies, strict=True)):
        result = plays[i].result
        if result.winner:
            measured[i] = final_value(result, mover, ruleset)
        elif ply == deepest or i == played_index:
            measured[i] = value
    return measured


def analyse_play(
    position: Position,
    dice: Sequence[int],
    played_result: Position,
    ruleset: Ruleset | str,
    cap_s: float = PLAY_CAP_S,
) -> PlayAnalysis:
    """The analysis of one play: ``position`` before it (its ``turn`` moves), the roll ``dice``
    and the position ``played_result`` it led to, searched for at most ``cap_s`` seconds.
    Returns a dict with ``plays`` (how many legal plays the roll had) and ``mark``; unless
    ``forced``, also ``best`` (notation, the mover's numbering), ``best_position`` (RULES.md
    JSON), ``best_equity``, ``played_equity`` and ``lost`` (points, 4 decimals). Raises
    ValueError if no legal play leads to ``played_result``."""
    plays = legal_plays(position, dice, ruleset)
    if len(plays) <= 1:
        return {"plays": len(plays), "mark": "forced"}
    played = next((i for i, p in enumerate(plays) if p.result == played_result), None)
    if played is None:
        raise ValueError("the play made is not one of the legal plays of the roll")
    equities = play_equities(position, plays, ruleset, played, cap_s)
    best = max(equities, key=lambda i: (equities[i], i == played))
    lost = max(0.0, equities[best] - equities[played])
    if best == played:
        lost = 0.0
    return {
        "plays": len(plays),
        "best": plays[best].notation,
        "best_position": plays[best].result.to_json(),
        "best_equity": round(equities[best], 4),
        "played_equity": round(equities[played], 4),
        "lost": round(lost, 4),
        "mark": mark_of(lost),
    }
