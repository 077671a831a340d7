"""Server-side dice (RULES.md R1, R3), verifiable after the game (docs/protocol.md "Dice").

Each game gets a secret seed from ``secrets`` when it is created; every roll is derived from
the seed and the roll's number by ``games.engine.fairdice`` (HMAC-SHA256 with rejection
sampling), never in a browser. Only the seed's SHA-256 is shown while the game is on.
"""

import secrets

from games.engine import fairdice

SEED_BYTES = 32


def new_seed():
    """A fresh secret seed: 32 bytes from the operating system's secure random source."""
    return secrets.token_bytes(SEED_BYTES)


def roll(seed, n):
    """Roll number ``n`` of the game whose seed is ``seed`` (bytes): ``[a, b]`` (a double is
    ``[a, a]``; RULES.md R4). A game made before seeds existed (``seed`` None or empty) gets
    dice straight from ``secrets``."""
    if not seed:
        return [secrets.randbelow(6) + 1, secrets.randbelow(6) + 1]
    return fairdice.roll(seed, n)


def opening_roll(seed, start=0):
    """The R3 roll-off from roll number ``start``: each side rolls one die, equal dice are
    rolled again. Returns ``(white_die, black_die, ties, next_n)``: the deciding dice (never
    equal; the higher moves first), the equal rolls before them as ``[[w, b], …]``, and the
    number of the game's next roll."""
    return fairdice.opening(seed, start)
