"""Positions (RULES.md R1, R2 and Notation).

A board is a tuple of 25 ints in its side's own numbering: index 0 is the number of checkers
borne off, index p (1..24) the number on point p; point 24 is the head, 1..6 the home.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, TypeAlias

from .errors import PositionError

WHITE = "white"
BLACK = "black"
SIDES = (WHITE, BLACK)
CHECKERS = 15
HEAD = 24

#: a board as described above
Board: TypeAlias = tuple[int, ...]

START_BOARD: Board = (0,) * 24 + (CHECKERS,)
_new = tuple.__new__


def other(side: str) -> str:
    """The opponent of ``side``."""
    return BLACK if side == WHITE else WHITE


def mirror(point: int) -> int:
    """The same physical point in the opponent's numbering (R1): p+12 for p<=12, else p-12."""
    return point + 12 if point <= 12 else point - 12


_POINT_KEYS = {str(p): p for p in range(1, 25)}

# A board read as one integer, a byte per point (int.from_bytes(bytes(board), "little")):
# FLAGS keeps one bit of each point 1..24 that holds a checker (counts are at most 15, so the
# low four bits of a byte say it). LOW_BYTES/HIGH_BYTES select points 1..12 and 13..24.
FLAGS = sum(1 << 8 * p for p in range(1, 25))
LOW_BYTES = sum(0xFF << 8 * p for p in range(1, 13))
HIGH_BYTES = sum(0xFF << 8 * p for p in range(13, 25))


def occupied(counts: int) -> int:
    """The flags (bit 8p) of the points 1..24 with checkers in ``counts``, a board as above."""
    return (counts | counts >> 1 | counts >> 2 | counts >> 3) & FLAGS


def mirrored(counts: int) -> int:
    """``counts`` (a board as above) moved to the opponent's numbering, R1; off is dropped."""
    return (counts & HIGH_BYTES) >> 96 | (counts & LOW_BYTES) << 96


def board_from_json(data: object, side: str = "side") -> Board:
    """A board from ``{"24": 14, "13": 1}`` (own numbering; missing checkers are off).

    Raises PositionError for keys outside 1..24, non-positive or non-integer counts, or more
    than 15 checkers.
    """
    if not isinstance(data, dict):
        raise PositionError(f"{side} must be an object of point -> checkers")
    board = [0] * 25
    for key, count in data.items():
        point = _POINT_KEYS.get(key)
        if point is None:
            point = _slow_point(key, side)
        if type(count) is not int or count < 0:
            raise PositionError(f"{side}: point {key} has a bad checker count {count!r}")
        board[point] += count
    on_board = sum(board)
    if on_board > CHECKERS:
        raise PositionError(f"{side} has {on_board} checkers; at most {CHECKERS}")
    board[0] = CHECKERS - on_board
    return tuple(board)


def _slow_point(key: object, side: str) -> int:
    """A point key that is not one of "1".."24" exactly: an int 1..24 is taken, else an error."""
    if type(key) is int and 1 <= key <= 24:
        return key
    raise PositionError(f"{side}: point {key!r} is not between 1 and 24")


def board_to_json(board: Sequence[int]) -> dict[str, int]:
    """``{"24": 14, "13": 1}``: the occupied points of a board, highest first; off is left out."""
    return {str(p): board[p] for p in range(24, 0, -1) if board[p]}


class Position(NamedTuple):
    """An immutable, hashable long-nardy position.

    - ``turn``: the side to move, ``"white"`` or ``"black"``.
    - ``white``, ``black``: boards (see the module docstring), each in its own numbering.
    - ``first_turn``: the side to move has not yet moved in this game (R5 head exception).
    """

    turn: str
    white: Board
    black: Board
    first_turn: bool = False

    @classmethod
    def initial(cls, turn: str = WHITE) -> Position:
        """The starting position (R2): 15 checkers on each head, ``turn`` to move first."""
        if turn not in SIDES:
            raise PositionError(f"turn must be 'white' or 'black', not {turn!r}")
        return cls(turn, START_BOARD, START_BOARD, True)

    @classmethod
    def from_json(cls, data: object) -> Position:
        """Parse RULES.md position JSON: ``{"turn", "white", "black", "first_turn"}``.

        ``first_turn`` defaults to false. Raises PositionError on anything malformed, including
        checkers of both sides on one physical point.
        """
        if not isinstance(data, dict):
            raise PositionError("position must be an object")
        turn = data.get("turn")
        if turn not in SIDES:
            raise PositionError(f"turn must be 'white' or 'black', not {turn!r}")
        first_turn = data.get("first_turn", False)
        if not isinstance(first_turn, bool):
            raise PositionError("first_turn must be true or false")
        white = board_from_json(data.get("white"), WHITE)
        black = board_from_json(data.get("black"), BLACK)
        if occupied(int.from_bytes(bytes(white), "little")) & occupied(
            mirrored(int.from_bytes(bytes(black), "little"))
        ):
            p = next(p for p in range(1, 25) if white[p] and black[mirror(p)])
            raise PositionError(
                f"white {p} and black {mirror(p)} are the same point; both sides cannot stand on it"
            )
        return _new(cls, (turn, white, black, first_turn))

    def to_json(self) -> dict[str, object]:
        """The RULES.md JSON form of this position."""
        return {
            "turn": self.turn,
            "white": board_to_json(self.white),
            "black": board_to_json(self.black),
            "first_turn": self.first_turn,
        }

    def board(self, side: str) -> Board:
        """The board of ``side`` in its own numbering."""
        return self.white if side == WHITE else self.black

    def pip(self, side: str) -> int:
        """Pip count of ``side`` (R1): the sum of its checkers' point numbers (360 at the start)."""
        board = self.board(side)
        return sum(p * board[p] for p in range(1, 25))

    def off(self, side: str) -> int:
        """Checkers ``side`` has borne off."""
        return self.board(side)[0]

    @property
    def winner(self) -> str | None:
        """The side that has borne off all 15 checkers (R9), or None while the game goes on."""
        if self.white[0] == CHECKERS:
            return WHITE
        if self.black[0] == CHECKERS:
            return BLACK
        return None

    def with_boards(self, mover_board: Board, opponent_board: Board) -> Position:
        """The position after the side to move has played to ``mover_board``: the turn passes.

        ``first_turn`` stays true only while the opponent has not moved either (it still has
        all 15 checkers on its head), i.e. for the second player's first turn (R5).
        """
        opp = other(self.turn)
        next_first = self.first_turn and opponent_board[HEAD] == CHECKERS
        if self.turn == WHITE:
            return Position(opp, mover_board, opponent_board, next_first)
        return Position(opp, opponent_board, mover_board, next_first)

    def passed(self) -> Position:
        """The position after the side to move passes (R6: no legal step)."""
        me = self.board(self.turn)
        return self.with_boards(me, self.board(other(self.turn)))
