"""The pure rules of the events (games.tournaments.rules): arena points and streaks, arena
pairing, and the seeded bracket."""

import pytest

from games.tournaments import rules
from games.tournaments.rules import Free


def test_an_arena_win_scores_two_a_mars_or_koks_three_and_a_streak_doubles_them():
    assert rules.arena_points("oin", 0) == 2
    assert rules.arena_points("mars", 1) == 3
    assert rules.arena_points("koks", 0) == 3
    assert rules.arena_points("oin", 2) == 4  # the third win in a row
    assert rules.arena_points("mars", 5) == 6
    assert not rules.on_fire(1) and rules.on_fire(2)


def test_arena_pairs_players_of_close_score_and_rating():
    free = [
        Free("a", 10, 1500),
        Free("b", 0, 1900),
        Free("c", 8, 1500),
        Free("d", 0, 1400),
    ]
    pairs = [(x.key, y.key) for x, y in rules.arena_pairs(free)]
    assert pairs == [("a", "c"), ("b", "d")]


def test_arena_never_pairs_the_same_opponents_twice_in_a_row():
    free = [Free("a", 4, 1500, last_opponent="b"), Free("b", 4, 1500, last_opponent="a")]
    assert rules.arena_pairs(free) == []  # they wait for someone else
    free.append(Free("c", 0, 1500))
    pairs = [(x.key, y.key) for x, y in rules.arena_pairs(free)]
    assert pairs == [("a", "c")]  # b waits
    # one-sided memory is enough: a played b last, b has played someone since
    free = [Free("a", 4, 1500, last_opponent="b"), Free("b", 4, 1500, last_opponent="z")]
    assert rules.arena_pairs(free) == []


def test_two_left_over_who_just_met_swap_partners_so_that_nobody_waits():
    free = [
        Free("a", 4, 1500),
        Free("b", 4, 1500),
        Free("c", 0, 1500, last_opponent="d"),
        Free("d", 0, 1500, last_opponent="c"),
    ]
    pairs = {frozenset((x.key, y.key)) for x, y in rules.arena_pairs(free)}
    assert len(pairs) == 2 and frozenset("cd") not in pairs
    # and the same when a and b are also each other's last opponents
    free[0] = Free("a", 4, 1500, last_opponent="b")
    free[1] = Free("b", 4, 1500, last_opponent="a")
    pairs = {frozenset((x.key, y.key)) for x, y in rules.arena_pairs(free)}
    assert pairs == {frozenset("ac"), frozenset("bd")} or pairs == {
        frozenset("ad"),
        frozenset("bc"),
    }


def test_among_equals_the_longest_waiting_is_paired_first():
    free = [Free("late", 0, 1500, free_since=200), Free("early", 0, 1500, free_since=100)]
    free.append(Free("third", 0, 1500, free_since=150))
    pairs = [(x.key, y.key) for x, y in rules.arena_pairs(free)]
    assert pairs == [("early", "third")]


def test_the_bracket_keeps_the_best_seeds_apart_until_the_end():
    assert rules.bracket_seeds(4) == [1, 4, 2, 3]
    assert rules.bracket_seeds(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    sixteen = rules.bracket_seeds(16)
    assert sorted(sixteen) == list(range(1, 17))
    assert sixteen[:2] == [1, 16] and sixteen.index(2) >= 8  # 1 and 2 meet in the final
    assert [rules.rounds_of(n) for n in (4, 8, 16)] == [2, 3, 4]
    with pytest.raises(ValueError):
        rules.rounds_of(6)


def test_the_bracket_feeds_the_final_with_winners_and_third_place_with_losers():
    assert rules.feeders(1, 0, 3) is None
    assert rules.feeders(2, 1, 3) == [(1, 2, "winner"), (1, 3, "winner")]
    assert rules.feeders(3, 0, 3) == [(2, 0, "winner"), (2, 1, "winner")]
    assert rules.feeders(3, 1, 3) == [(2, 0, "loser"), (2, 1, "loser")]
    assert rules.elimination_place(8, 1) == 5
    assert rules.elimination_place(16, 1) == 9 and rules.elimination_place(16, 2) == 5
