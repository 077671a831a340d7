"""The arena (games.bots.arena): dice-paired matches. Smoke sizes with loose thresholds; the
measurements over 1,000 pairs are in docs/bots.md. Pure Python: no database."""

import pytest

from games.bots import arena


def test_both_games_of_a_pair_see_the_same_dice_with_the_colours_swapped():
    first, second = arena.play_pair(("easy", "random", 5))
    again = arena.play_pair(("easy", "random", 5))
    assert [r[:3] for r in (first, second)] == [r[:3] for r in again]  # reproducible
    a, b = arena.DiceStream(5), arena.DiceStream(5)
    assert a.opening == b.opening and [a.roll(i) for i in range(50)] == [
        b.roll(i) for i in range(50)
    ]


def test_easy_and_medium_beat_a_random_player():
    easy = arena.run("easy", "random", pairs=60, seed=11, jobs=2)
    medium = arena.run("medium", "random", pairs=100, seed=12, jobs=2)
    # Measured over 1,000 pairs: about 0.82 and 0.98 (docs/bots.md); loose bounds here.
    assert easy["ci95"][0] > 0.6 and medium["ci95"][0] > 0.8
    assert medium["a_score"] > easy["a_score"]
    for summary, level in ((easy, "easy"), (medium, "medium")):
        assert 0 <= summary["mars_rate"] <= 1
        assert summary["a_points_per_game"] > 0
        times = summary["move_ms"][level]
        assert times["median"] <= times["p95"] <= times["max"]
        assert summary["move_cpu_ms"][level]["p95"] < 50


def test_medium_beats_easy():
    medium = arena.run("medium", "easy", pairs=40, seed=12, jobs=2)
    assert medium["a_score"] > 0.55
    assert set(medium["move_ms"]) == {"medium", "easy"}


def test_hard_beats_a_random_player_within_its_time_limits():
    hard = arena.run("hard", "random", pairs=4, seed=13, jobs=1)
    assert hard["a_score"] >= 0.75
    cpu = hard["move_cpu_ms"]["hard"]
    assert cpu["p95"] < 400 and cpu["max"] < 1000  # goals on an idle machine: 400 ms, 1 s


def test_hard_beats_medium():
    # Seeded, so the same 12 pairs every run; the goal (lower bound >= 0.75 over 1,000 pairs)
    # is measured by the arena command in docs/bots.md.
    hard = arena.run("hard", "medium", pairs=12, seed=21, jobs=2)
    assert hard["ci95"][0] > 0.5 and hard["a_points_per_game"] > 0


def _results(summary):
    return {k: summary[k] for k in ("pairs", "a_score", "ci95", "a_points_per_game", "mars_rate")}


def test_a_recorded_match_stopped_and_continued_equals_one_played_at_once(tmp_path):
    record = tmp_path / "match.jsonl"
    at_once = arena.run("easy", "random", pairs=6, seed=31, jobs=1)
    arena.run("easy", "random", pairs=3, seed=31, jobs=1, record=record)
    with record.open("a") as f:
        f.write('{"pair": 3, "games": [[tru')  # a line cut short by a kill
    sliced = arena.run("easy", "random", pairs=6, seed=31, jobs=2, record=record)
    assert _results(sliced) == _results(at_once)
    lines = record.read_text().splitlines()
    assert len(lines) == 1 + 6  # the header and each pair once; the cut line is gone
    # Asking again plays nothing and reports the same.
    assert _results(arena.run("easy", "random", pairs=6, seed=31, jobs=1, record=record)) == (
        _results(at_once)
    )


def test_a_record_of_another_match_is_refused_and_left_as_it_was(tmp_path):
    record = tmp_path / "match.jsonl"
    arena.run("easy", "random", pairs=1, seed=32, jobs=1, record=record)
    before = record.read_text()
    with pytest.raises(arena.RecordMismatch):
        arena.run("easy", "random", pairs=2, seed=33, jobs=1, record=record)
    assert record.read_text() == before
