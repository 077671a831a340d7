"""Verifiable dice (docs/protocol.md "Dice"): every roll derived from a secret seed.

Roll number ``n`` (0, 1, 2, … over a whole game, the opening roll-off included) reads the bytes
of ``HMAC-SHA256(key=seed, message=f"{n}:{k}")`` for ``k = 0, 1, …``; a byte below 252 gives the
die ``byte % 6 + 1`` and larger bytes are skipped, so each face has probability exactly 1/6
(252 = 6 × 42). The first two dice found form the roll. Standard library only, so anyone can
check a finished game with the revealed seed.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator

ACCEPT_BELOW = 252  # the largest multiple of 6 not above 256


def seed_hash(seed: bytes) -> str:
    """SHA-256 of ``seed``, in hex: the commitment shown while the game is on."""
    return hashlib.sha256(seed).hexdigest()


def dice_stream(seed: bytes, n: int) -> Iterator[int]:
    """The unbiased dice (ints 1..6) of roll number ``n``, in order, without end."""
    k = 0
    while True:
        block = hmac.new(seed, f"{n}:{k}".encode("ascii"), hashlib.sha256).digest()
        for byte in block:
            if byte < ACCEPT_BELOW:
                yield byte % 6 + 1
        k += 1


def roll(seed: bytes, n: int) -> list[int]:
    """Roll number ``n`` of the game with ``seed``: ``[a, b]``."""
    stream = dice_stream(seed, n)
    return [next(stream), next(stream)]


def opening(seed: bytes, start: int = 0) -> tuple[int, int, list[list[int]], int]:
    """The R3 roll-off from roll number ``start``: white's and black's die from one roll, rolled
    again while equal. Returns ``(white_die, black_die, ties, next_n)``: ``ties`` lists the equal
    rolls before it, ``next_n`` is the number of the game's next roll."""
    ties: list[list[int]] = []
    n = start
    while True:
        white, black = roll(seed, n)
        n += 1
        if white != black:
            return white, black, ties, n
        ties.append([white, black])


#: A one-line check of a finished game, to run with the revealed seed (hex) and a roll number.
VERIFY_COMMAND = (
    'python3 -c "import hashlib,hmac,sys;s=bytes.fromhex(sys.argv[1]);n=int(sys.argv[2]);'
    "d=[b%6+1 for k in range(9) for b in hmac.new(s,f'{n}:{k}'.encode(),hashlib.sha256).digest()"
    ' if b<252];print(hashlib.sha256(s).hexdigest(),d[:2])" SEED N'
)
