"""The rollout benchmark (``games.bots.benchmark``) in miniature: positions made from a seeded
game with two-game rollouts, a file that resumes and grows, phases, and a level scored with a
choice outside the candidates rolled out on the spot."""

from games.bots import benchmark
from games.engine import Position, legal_plays


def test_phases_name_the_opening_a_block_the_race_and_the_bear_off():
    start = Position.initial("white")
    assert benchmark.phase(start, 0) == "opening"
    blocked = Position.from_json(
        {
            "turn": "white",
            "white": {"24": 9, "18": 1, "17": 1, "16": 1, "15": 1, "14": 1, "13": 1},
            "black": {"24": 15},
            "first_turn": False,
        }
    )
    assert benchmark.longest_block(blocked.board("white")) == 6
    assert benchmark.phase(blocked, 20) == "prime"
    race = Position.from_json(
        {"turn": "white", "white": {"6": 10, "8": 5}, "black": {"5": 15}, "first_turn": False}
    )
    assert benchmark.phase(race, 90) == "race"
    home = Position.from_json(
        {"turn": "white", "white": {"6": 10, "2": 5}, "black": {"5": 15}, "first_turn": False}
    )
    assert benchmark.phase(home, 90) == "bearoff"


def test_make_resumes_and_grows_and_score_judges_every_choice(tmp_path):
    path = tmp_path / "bench.jsonl"
    held = benchmark.make(path, positions=1, trials=2, seed=7, jobs=1, log=lambda _line: None)
    rows = benchmark.load(path)
    assert held == len(rows) >= 1
    first = rows[0]
    assert first["phase"] in benchmark.PHASES and first["trials"] == 2
    assert 2 <= len(first["candidates"]) <= benchmark.CANDIDATES + 1
    means = [c["mean"] for c in first["candidates"]]
    assert means == sorted(means, reverse=True)  # the best first
    gaps = [c["gap"] for c in first["candidates"]]
    assert gaps[0] == 0 and gaps == sorted(gaps)
    assert all(c["gap_error"] >= 0 for c in first["candidates"])
    # asked again for as many: nothing rolled out again; asked for more: the next game
    assert benchmark.make(path, held, 2, 7, 1, log=lambda _line: None) == held
    more = benchmark.make(path, held + 1, 2, 7, 1, log=lambda _line: None)
    assert more > held and {row["game"] for row in benchmark.load(path)} == {0, 1}
    assert len({row["id"] for row in benchmark.load(path)}) == more  # no position twice

    # a play outside the candidates is rolled out now, on the position's own dice
    position = Position.from_json(first["position"])
    plays = legal_plays(position, tuple(first["dice"]))
    named = {c["play"] for c in first["candidates"]}
    outside = [p for p in plays if p.notation not in named]
    if outside:
        assert benchmark.loss_of(first, outside[0], position, plays) >= 0
    best = next(p for p in plays if p.notation == first["candidates"][0]["play"])
    assert benchmark.loss_of(first, best, position, plays) == 0

    report = benchmark.score(path, "network", jobs=1, limit=3)
    assert report["all"]["positions"] == min(3, more)
    assert 0 <= report["all"]["blunders"] <= 1 and report["all"]["mean_loss"] >= 0
    assert sum(p["positions"] for p in report["by_phase"].values()) == report["all"]["positions"]
