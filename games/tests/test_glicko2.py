"""Glicko-2 (games.glicko2) against Glickman's worked example and its own invariants."""

import math

import pytest

from games.glicko2 import Rating, Result, expected_score, rate, rate_game


def test_the_papers_worked_example():
    # "Example of the Glicko-2 system", steps 1-8: 1500/200/0.06 beats 1400/30, loses to
    # 1550/100 and 1700/300 with tau = 0.5.
    player = Rating(1500, 200, 0.06)
    results = [
        Result(Rating(1400, 30), 1),
        Result(Rating(1550, 100), 0),
        Result(Rating(1700, 300), 0),
    ]
    after = rate(player, results, tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


@pytest.mark.parametrize("shift", [-500, 500, 1000])
def test_shifting_every_rating_shifts_only_the_result(shift):
    # Glicko-2 depends on rating differences only. (The glicko2 package on PyPI squares the
    # rating instead of the deviation in step 5, so its volatility drifts with the rating.)
    games = [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)]
    base = rate(Rating(1500, 200, 0.06), [Result(Rating(r, d), s) for r, d, s in games])
    shifted = rate(
        Rating(1500 + shift, 200, 0.06), [Result(Rating(r + shift, d), s) for r, d, s in games]
    )
    assert shifted.rating - shift == pytest.approx(base.rating, rel=1e-12)
    assert shifted.deviation == pytest.approx(base.deviation, rel=1e-12)
    assert shifted.volatility == pytest.approx(base.volatility, rel=1e-12)


def test_a_period_without_games_only_widens_the_deviation():
    after = rate(Rating(1700, 60, 0.06), [])
    assert after.rating == 1700 and after.volatility == 0.06
    assert after.deviation == pytest.approx(173.7178 * math.sqrt((60 / 173.7178) ** 2 + 0.06**2))


def test_one_game_moves_both_players_in_opposite_directions_and_narrows_their_deviation():
    white, black = rate_game(Rating(), Rating(), 1)
    assert white.rating > 1500 > black.rating
    assert white.rating - 1500 == pytest.approx(1500 - black.rating)
    assert white.deviation < 350 and black.deviation < 350


def test_an_upset_moves_ratings_more_than_an_expected_win():
    strong, weak = Rating(1800, 80), Rating(1400, 80)
    assert expected_score(strong, weak) > 0.8
    expected_win, _ = rate_game(strong, weak, 1)
    upset, _ = rate_game(strong, weak, 0)
    assert 0 < expected_win.rating - 1800 < 1800 - upset.rating


@pytest.mark.parametrize("bad", [Result(Rating(), 1.5), Result(Rating(), -0.1)])
def test_a_score_outside_zero_to_one_is_refused(bad):
    with pytest.raises(ValueError):
        rate(Rating(), [bad])
