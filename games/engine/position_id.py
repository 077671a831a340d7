"""Compact position IDs for URLs (docs/protocol.md "Position ID"; RULES.md R1, Notation).

A position packs into 80 bits: the turn (0 white, 1 black), ``first_turn``, then white's points
1..24 and black's points 1..24 (each side in its own numbering), each point written as one
1-bit per checker followed by a 0-bit; the rest is 0. Both sides have at most 15 checkers on
the board, so 2 + 30 + 48 = 80 bits always suffice. The 10 bytes are written as 14 characters
of URL-safe base64 without padding. Encoding is a bijection between valid positions and IDs:
``decode`` refuses any string that ``encode`` would not produce.
"""

from __future__ import annotations

import base64
import binascii
import re

from .errors import PositionError
from .position import BLACK, CHECKERS, WHITE, Position, mirror

BITS = 80
ID_LENGTH = 14
_ID_RE = re.compile(r"[A-Za-z0-9_-]{14}")


def encode(position: Position) -> str:
    """The 14-character ID of ``position`` (an engine Position)."""
    bits = [1 if position.turn == BLACK else 0, 1 if position.first_turn else 0]
    for board in (position.white, position.black):
        for point in range(1, 25):
            bits.extend([1] * board[point])
            bits.append(0)
    bits.extend([0] * (BITS - len(bits)))
    value = 0
    for bit in bits:
        value = (value << 1) | bit
    return base64.urlsafe_b64encode(value.to_bytes(BITS // 8, "big")).decode("ascii").rstrip("=")


def decode(position_id: str) -> Position:
    """The Position whose ID is ``position_id``.

    Raises PositionError for anything that is not the ID of a valid position: wrong length or
    alphabet, more than 15 checkers of a side, checkers of both sides on one physical point,
    stray bits after the last point (so each position has exactly one ID), both sides with all
    15 borne off (R8: the game ends at the first), or a first turn (R5) whose mover does not
    have all 15 checkers on its head.
    """
    if not isinstance(position_id, str) or not _ID_RE.fullmatch(position_id):
        raise PositionError(f"a position ID is {ID_LENGTH} characters of A-Z a-z 0-9 - _")
    try:
        raw = base64.urlsafe_b64decode(position_id + "==")
    except (binascii.Error, ValueError):
        raise PositionError("the position ID is not valid base64") from None
    value = int.from_bytes(raw, "big")
    bits = [(value >> (BITS - 1 - i)) & 1 for i in range(BITS)]
    turn = BLACK if bits[0] else WHITE
    first_turn = bool(bits[1])
    i = 2
    boards = []
    for side in (WHITE, BLACK):
        board = [0] * 25
        for point in range(1, 25):
            while i < BITS and bits[i]:
                board[point] += 1
                i += 1
            if i >= BITS:
                raise PositionError("the position ID ends before the last point")
            i += 1  # the 0 that closes the point
        on_board = sum(board)
        if on_board > CHECKERS:
            raise PositionError(f"{side} has {on_board} checkers in the position ID")
        board[0] = CHECKERS - on_board
        boards.append(tuple(board))
    if any(bits[i:]):
        raise PositionError("the position ID has stray bits after the last point")
    white, black = boards
    for p in range(1, 25):
        if white[p] and black[mirror(p)]:
            raise PositionError(f"white {p} and black {mirror(p)} are the same point")
    if white[0] == CHECKERS and black[0] == CHECKERS:
        # the game ends when the first side has borne off all 15 (R8): both never can
        raise PositionError("both sides have borne off all their checkers in the position ID")
    mover = white if turn == WHITE else black
    if first_turn and mover[24] != CHECKERS:
        # R5: a side's first turn starts with all 15 of its checkers on its head
        raise PositionError(f"{turn}'s first turn, but not all its checkers are on its head")
    position = Position(turn, white, black, first_turn)
    if encode(position) != position_id:  # e.g. base64 with unused low bits set
        raise PositionError("the position ID is not in its canonical form")
    return position
