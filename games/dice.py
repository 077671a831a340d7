"""Server-side dice (RULES.md R1, R3). Every die is rolled with ``secrets``, never in a browser."""
import secrets


def roll_die():
    """One die: an int from 1 to 6, from the operating system's secure random source."""
    return secrets.randbelow(6) + 1


def roll():
    """A roll of two dice, as a list ``[a, b]`` (a double is ``[a, a]``; RULES.md R4)."""
    return [roll_die(), roll_die()]


def opening_roll():
    """The R3 opening: each side rolls one die, equal dice are rolled again.

    Returns ``(white_die, black_die)``, never equal; the side with the higher die moves first.
    """
    while True:
        white, black = roll_die(), roll_die()
        if white != black:
            return white, black
