"""The computer's doubling-cube decisions (RULES.md R10): pure Python, no Django.

The winning chance is estimated from the race: each side needs about ``pips / 8.17`` rolls
(8.17 is the average number of pips a roll moves, doubles counting four times), with a spread
that grows with the square root of the pips left; the side on roll gains half a roll. It ignores
blocks, so it is a rough but honest guide. The bot

- takes an offered double when its chance is above ``TAKE_THRESHOLD`` (25%: taking risks two
  stakes to win two, dropping loses one for sure), or above ``TAKE_THRESHOLD_MARS`` when it is in
  danger of losing a mars (it has borne off nothing and is unlikely to before the opponent
  finishes, R9: a turned cube makes mars and koks count);
- offers a double before its roll when its chance is at least ``DOUBLE_THRESHOLD`` (clearly
  ahead).

The ``hard`` and ``expert`` levels judge by their network instead
(``games.bots.neural.cubeless_chances``), which sees blocks and the mars: they take when the
cubeless equity is above ``TAKE_EQUITY`` (-0.5 points per cube: taking then loses less than
the point a drop gives away, twice the stake being at risk), and double when the chance to
win is at least ``DOUBLE_THRESHOLD`` unless it is "too good": an equity above
``TOO_GOOD_EQUITY`` (1 point) means the opponent would drop and playing on for the mars is
worth more than that point.
"""

from __future__ import annotations

import math

from games.engine.position import Position, other
from games.engine.rules import Ruleset

from .neural import NETWORK_LEVELS, cubeless_chances

AVERAGE_ROLL = 8.1667  # mean pips per roll: (30 * 7 + 4 * 21) / 36
ROLL_SPREAD = 0.526  # standard deviation of one roll (4.30) / AVERAGE_ROLL
TAKE_THRESHOLD = 0.25
TAKE_THRESHOLD_MARS = 0.40
DOUBLE_THRESHOLD = 0.70
TAKE_EQUITY = -0.5
TOO_GOOD_EQUITY = 1.0


def _normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def win_chance(position: Position, side: str) -> float:
    """Estimated chance (0..1) that ``side`` wins the race from ``position`` (whose ``turn`` is
    the side on roll). Pure function of the two pip counts and who is on roll."""
    mine, theirs = position.pip(side), position.pip(other(side))
    if mine == 0:
        return 1.0
    if theirs == 0:
        return 0.0
    lead = (theirs - mine) / AVERAGE_ROLL
    lead += 0.5 if position.turn == side else -0.5
    spread = ROLL_SPREAD * math.sqrt((mine + theirs) / AVERAGE_ROLL)
    return _normal_cdf(lead / spread)


def mars_danger(position: Position, side: str) -> bool:
    """Whether ``side`` risks a mars (R9): it has borne off nothing and needs about as many
    rolls to bring everything home and bear one checker off as the opponent needs to finish."""
    board = position.board(side)
    if board[0]:
        return False
    to_home = sum((p - 6) * board[p] for p in range(7, 25))
    rolls_to_first_off = to_home / AVERAGE_ROLL + 1
    opponent_rolls = position.pip(other(side)) / AVERAGE_ROLL
    return rolls_to_first_off >= opponent_rolls - 1


def should_take(
    position: Position,
    side: str,
    cube_value: int,
    ruleset: Ruleset | str,
    level: str = "medium",
) -> bool:
    """Whether ``side``, offered a double in ``position`` (the offerer to move), should take.
    ``cube_value`` is the cube before the double; ``ruleset`` the table's rules; ``level`` the
    bot's level (``hard`` and ``expert`` judge by the network, the others by the race)."""
    if level in NETWORK_LEVELS:
        _, my_equity = cubeless_chances(position, side)
        return my_equity > TAKE_EQUITY
    threshold = TAKE_THRESHOLD_MARS if mars_danger(position, side) else TAKE_THRESHOLD
    return win_chance(position, side) > threshold


def should_double(
    position: Position,
    side: str,
    cube_value: int,
    ruleset: Ruleset | str,
    level: str = "medium",
) -> bool:
    """Whether ``side`` (to roll in ``position``, allowed to double) should offer a double;
    ``level`` as for ``should_take``."""
    if level in NETWORK_LEVELS:
        chance, my_equity = cubeless_chances(position, side)
        return chance >= DOUBLE_THRESHOLD and my_equity <= TOO_GOOD_EQUITY
    return win_chance(position, side) >= DOUBLE_THRESHOLD
