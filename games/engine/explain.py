"""Why a checker cannot move now (RULES.md R4–R8), for explaining a tap on an immovable checker.

``explain_point`` looks at one point of the side to move after some staged steps of the roll and
says, for each die still to be played, which rule stops the checker there from using it;
``immovable_points`` does it for every occupied point at the start of the turn. Both work from the
same search as ``legal_plays``/``step_graph`` (a checker is movable exactly when the step graph
has a step from its point), so an explanation never contradicts the legal plays.

Reason codes (docs/protocol.md "Explanations"): ``blocked`` (R4), ``head`` (R5), ``six_block``
(R7), ``bear_off_not_home``, ``bear_off_higher`` (R8), ``must_play_more``, ``must_play_larger``
(R6), ``no_dice_left`` and ``no_checker``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from .errors import IllegalPlay
from .movegen import Search, StepNode, makes_block, step_graph
from .notation import OFF, Step, format_step, parse_play
from .position import HEAD, Board, Position
from .rules import Ruleset

BLOCKED = "blocked"
HEAD_RULE = "head"
SIX_BLOCK = "six_block"
BEAR_OFF_NOT_HOME = "bear_off_not_home"
BEAR_OFF_HIGHER = "bear_off_higher"
MUST_PLAY_MORE = "must_play_more"
MUST_PLAY_LARGER = "must_play_larger"
NO_DICE_LEFT = "no_dice_left"
NO_CHECKER = "no_checker"

CODES = (
    BLOCKED,
    HEAD_RULE,
    SIX_BLOCK,
    BEAR_OFF_NOT_HOME,
    BEAR_OFF_HIGHER,
    MUST_PLAY_MORE,
    MUST_PLAY_LARGER,
    NO_DICE_LEFT,
    NO_CHECKER,
)


class Explanation(NamedTuple):
    """The answer for one point: ``movable`` (some legal play moves a checker from it next) and
    ``reasons``, a tuple of ``(die, code)`` for each die value still to be played, largest first
    (``die`` is None for ``no_dice_left`` and ``no_checker``); empty when movable."""

    point: int
    movable: bool
    reasons: tuple[tuple[int | None, str], ...]


class _Turn:
    """One roll from one position: the search, the step graph and the staged walk through it."""

    def __init__(self, pos: Position, dice: Sequence[int], ruleset: Ruleset | str) -> None:
        self.search = Search(pos, dice)
        self.nodes = step_graph(pos, dice, ruleset)["nodes"]

    def walk(self, staged: tuple[Step, ...]) -> tuple[Board, int, StepNode]:
        """``(board, level, node)`` after the ``staged`` steps; raises IllegalPlay
        (``not_next``) if they are not the start of a legal play."""
        board, node = self.search.me, self.nodes[0]
        for step in staged:
            label = format_step(step)
            if label not in node["steps"]:
                raise IllegalPlay("not_next", f"{label} does not lead to a legal play here.", step)
            node = self.nodes[node["steps"][label]]
            frm, to = step
            nb = list(board)
            nb[frm] -= 1
            nb[to] += 1
            board = tuple(nb)
        return board, len(staged), node

    def dice_left(self, board: Board, level: int) -> list[int]:
        """The die values still to play from ``board`` reached in ``level`` steps, largest first."""
        lefts = self.search.levels[level].get(board, {}) if level < len(self.search.levels) else {}
        return sorted({d for left in lefts for d in left}, reverse=True)

    def explain(self, point: int, board: Board, level: int, node: StepNode) -> Explanation:
        if not 1 <= point <= 24 or not board[point]:
            return Explanation(point, False, ((None, NO_CHECKER),))
        if any(int(label.split("/")[0]) == point for label in node["steps"]):
            return Explanation(point, True, ())
        dice = self.dice_left(board, level)
        if not dice:
            return Explanation(point, False, ((None, NO_DICE_LEFT),))
        return Explanation(point, False, tuple((d, self._reason(point, d, board)) for d in dice))

    def _reason(self, point: int, die: int, board: Board) -> str:
        """The first rule that stops a checker on ``point`` from playing ``die`` from ``board``."""
        search = self.search
        can_head = search.me[HEAD] - board[HEAD] < search.limit
        if point == HEAD and not can_head:
            return HEAD_RULE
        target = point - die
        if target >= 1:
            if search.opp_here[target]:
                return BLOCKED
            if not board[target] and search.front:
                trial = list(board)
                trial[point] -= 1
                if makes_block(trial, target, search.front):
                    return SIX_BLOCK
        else:
            if any(board[7:25]):
                return BEAR_OFF_NOT_HOME
            if target < 0 and any(board[point + 1 : 7]):
                return BEAR_OFF_HIGHER
        # The single step is allowed (see _gen); it is the whole roll (R6) that forbids it.
        a, b = search.dice
        if search.depth == 1 and a != b and die == min(a, b):
            return MUST_PLAY_LARGER
        return MUST_PLAY_MORE


def _staged_steps(staged: str | Iterable[Sequence[int]]) -> tuple[Step, ...]:
    if isinstance(staged, str):
        return parse_play(staged)
    return tuple((int(frm), int(to)) for frm, to in staged)


def explain_point(
    pos: Position,
    dice: Sequence[int],
    point: int,
    staged: str | Iterable[Sequence[int]] = (),
    ruleset: Ruleset | str = "sport",
) -> Explanation:
    """Why the side to move's checker on ``point`` (own numbering) cannot move now.

    ``staged`` is a play string or steps ``(from, to)`` already made this turn (they must be the
    start of a legal play). Returns an Explanation. Raises DiceError for a bad roll,
    NotationError for malformed staged steps and IllegalPlay (``not_next``) for staged steps that
    lead to no legal play.
    """
    turn = _Turn(pos, dice, ruleset)
    board, level, node = turn.walk(_staged_steps(staged))
    return turn.explain(int(point), board, level, node)


def immovable_points(
    pos: Position, dice: Sequence[int], ruleset: Ruleset | str = "sport"
) -> dict[int, Explanation]:
    """``{point: Explanation}`` for every point holding the side to move's checkers from which no
    legal play starts with a step, at the start of the turn (before any staged step)."""
    turn = _Turn(pos, dice, ruleset)
    board, level, node = turn.walk(())
    out: dict[int, Explanation] = {}
    for point in range(24, 0, -1):
        if board[point]:
            found = turn.explain(point, board, level, node)
            if not found.movable:
                out[point] = found
    return out


__all__ = ["CODES", "Explanation", "explain_point", "immovable_points", "OFF"]
