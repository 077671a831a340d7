"""End of a game and its value (RULES.md R9, R10)."""

from __future__ import annotations

from collections.abc import Sequence

from .rules import Ruleset, get_ruleset

OIN, MARS, KOKS = "oin", "mars", "koks"
BASE_POINTS = {OIN: 1, MARS: 2, KOKS: 3}


def game_value(
    loser_board: Sequence[int],
    ruleset: Ruleset | str,
    cube: int = 1,
    cube_turned: bool = False,
    table: dict[str, bool] | None = None,
) -> tuple[str, int]:
    """The result and points of a finished game, from the loser's board (R9, R10).

    ``loser_board``: 25 ints in the loser's own numbering (index 0 = borne off).
    ``ruleset``: a Ruleset or preset name; ``table``: overrides such as ``{"cube": True}``.
    ``cube``: the cube's value (1, 2, 4, … 64); ``cube_turned``: whether it was ever turned.

    Returns ``(kind, points)`` with kind ``"oin"`` (the loser bore off at least one checker),
    ``"mars"`` (none) or ``"koks"`` (none, and, where the rule set has koks, a checker still on
    the loser's points 13–24). With the cube at the table points are multiplied by the cube,
    and where mars/koks need a turned cube an unturned game counts 1 × cube (R9).
    Resignation and loss on time are scored the same way on the loser's position (R9).
    Raises ValueError for a cube value that is not a power of two from 1 to 64.
    """
    rules = get_ruleset(ruleset, table)
    if cube not in (1, 2, 4, 8, 16, 32, 64):
        raise ValueError(f"cube must be 1, 2, 4, … 64, not {cube!r}")
    if loser_board[0] > 0:
        kind = OIN
    elif rules.koks and any(loser_board[13:25]):
        kind = KOKS
    else:
        kind = MARS
    points = BASE_POINTS[kind]
    if rules.cube and rules.gammons_need_turned_cube and not cube_turned:
        points = 1
    return kind, points * cube
