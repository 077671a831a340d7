"""Glicko-2 ratings, from Mark Glickman's "Example of the Glicko-2 system" (Boston University,
2013), steps 1-8. Pure Python, no Django.

Written here rather than taken from PyPI: the ``glicko2`` package (2.1.0, the fork of Ryan
Kirkman's pyglicko2) squares the player's *rating* instead of its *deviation* in step 5's
function f, which the paper's worked example barely shows (its player is rated 1500, so
mu = 0) but which makes the volatility depend on where on the scale a player stands.
``games/tests/test_glicko2.py`` checks this module against the worked example and checks that
shifting every rating shifts only the result.

Ratings are on the Glicko scale (1500 = average); ``rating``/``deviation`` are points,
``volatility`` is a pure number. One call of ``rate`` is one rating period; the site rates
after every game, so a period holds one game.
"""

import math
from dataclasses import dataclass

#: the scale factor between the Glicko and Glicko-2 scales (step 2)
SCALE = 173.7178
#: a new player (step 1)
DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
#: the system constant tau: how fast volatility may change (the paper suggests 0.3-1.2)
TAU = 0.5
#: convergence tolerance of step 5
EPSILON = 0.000001


@dataclass(frozen=True)
class Rating:
    """A player's Glicko-2 state: ``rating`` and ``deviation`` in rating points, ``volatility``."""

    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY


@dataclass(frozen=True)
class Result:
    """One game of the period against ``opponent`` (their Rating before the period), with
    ``score`` 1 (win), 0.5 (draw) or 0 (loss)."""

    opponent: Rating
    score: float


def _g(phi):
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _expected(mu, mu_j, phi_j):
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected_score(player, opponent):
    """The expected score (0..1) of ``player`` against ``opponent`` (step 3's E)."""
    return _expected(
        (player.rating - DEFAULT_RATING) / SCALE,
        (opponent.rating - DEFAULT_RATING) / SCALE,
        opponent.deviation / SCALE,
    )


def _new_volatility(phi, sigma, delta, v, tau):
    """Step 5: the new volatility by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x):
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2)) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def rate(player, results, tau=TAU):
    """The ``player``'s Rating after a rating period with ``results`` (Result list; empty: the
    player did not play, only the deviation grows, step 6). Raises ValueError for a score
    outside 0..1 or a non-positive deviation/volatility."""
    if player.deviation <= 0 or player.volatility <= 0:
        raise ValueError("deviation and volatility must be positive")
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, phi_star * SCALE, sigma)
    inverse_v = 0.0
    improvement = 0.0
    for result in results:
        if not 0 <= result.score <= 1:
            raise ValueError(f"a score is between 0 and 1, not {result.score!r}")
        mu_j = (result.opponent.rating - DEFAULT_RATING) / SCALE
        phi_j = result.opponent.deviation / SCALE
        g_j = _g(phi_j)
        e_j = _expected(mu, mu_j, phi_j)
        inverse_v += g_j * g_j * e_j * (1 - e_j)
        improvement += g_j * (result.score - e_j)
    v = 1 / inverse_v
    delta = v * improvement
    sigma_new = _new_volatility(phi, sigma, delta, v, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    mu_new = mu + phi_new * phi_new * improvement
    return Rating(SCALE * mu_new + DEFAULT_RATING, SCALE * phi_new, sigma_new)


def rate_game(white, black, white_score):
    """Both players' new Ratings after one game between them (each game is its own rating
    period): ``white_score`` 1 if white won, 0 if black won. Returns ``(white, black)``."""
    return (
        rate(white, [Result(black, white_score)]),
        rate(black, [Result(white, 1 - white_score)]),
    )
