"""The shared engine test vectors (../shared/cases/engine) through the API and the CLI."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import Position, board_to_json, game_value, get_ruleset, legal_plays
from games.engine.position import board_from_json

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "engine"
SHARED = Path(__file__).resolve().parents[4] / "shared" / "cases" / "engine"
ROOT = Path(__file__).resolve().parents[3]
MOVES = json.loads((DATA / "moves.json").read_text())["cases"]
SCORING = json.loads((DATA / "scoring.json").read_text())["cases"]


def canon(result):
    return frozenset((int(k), v) for k, v in result.items() if v)


@pytest.mark.parametrize("name", ["moves.json", "scoring.json", "README.md"])
def test_vector_copies_match_shared_when_present(name):
    if not (SHARED / name).exists():
        pytest.skip("../shared is not beside this checkout")
    assert (DATA / name).read_text() == (SHARED / name).read_text(), f"re-copy {name} from shared"


@pytest.mark.parametrize("case", MOVES, ids=[c["id"] for c in MOVES])
def test_move_vector(case):
    pos = Position.from_json(case["position"])
    plays = legal_plays(pos, case["dice"], case["ruleset"])
    got = [canon(board_to_json(p.result.board(pos.turn))) for p in plays]
    assert len(got) == len(set(got)), "a resulting position is listed twice"
    assert set(got) == {canon(m["result"]) for m in case["expected"]}, case["why"]


@pytest.mark.parametrize("case", SCORING, ids=[c["id"] for c in SCORING])
def test_scoring_vector(case):
    loser = board_from_json(case["loser"])
    kind, points = game_value(
        loser, get_ruleset(case["ruleset"], case.get("table")), case["cube"], case["cube_turned"]
    )
    assert {"result": kind, "points": points} == case["expected"], case["why"]


def run_cli(args, lines):
    return subprocess.run(
        [sys.executable, "-m", "games.engine", *args],
        cwd=ROOT,
        text=True,
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        timeout=60,
    )


def test_cli_moves_agrees_with_every_vector():
    reqs = [json.dumps({k: c[k] for k in ("ruleset", "position", "dice")}) for c in MOVES]
    proc = run_cli(["moves"], reqs)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert len(out) == len(MOVES)
    for case, line in zip(MOVES, out):
        got = {canon(m["result"]) for m in json.loads(line)["moves"]}
        assert got == {canon(m["result"]) for m in case["expected"]}, case["id"]


def test_cli_score_agrees_with_every_vector():
    keys = ("ruleset", "table", "winner", "loser", "cube", "cube_turned")
    reqs = [json.dumps({k: c[k] for k in keys if k in c}) for c in SCORING]
    proc = run_cli(["score"], reqs)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(x) for x in proc.stdout.splitlines()] == [c["expected"] for c in SCORING]


def test_cli_answers_bad_lines_with_errors_and_exit_2():
    good = json.dumps({k: MOVES[0][k] for k in ("ruleset", "position", "dice")})
    bad = [
        "not json",
        "[1, 2]",
        json.dumps({"ruleset": "nope", "position": MOVES[0]["position"], "dice": [1, 2]}),
        json.dumps({"ruleset": "sport", "position": MOVES[0]["position"], "dice": [7, 1]}),
        json.dumps({"ruleset": "sport", "position": {"turn": "red"}, "dice": [1, 2]}),
        json.dumps(
            {
                "ruleset": "sport",
                "position": {"turn": "white", "white": {"24": 16}, "black": {"24": 15}},
                "dice": [1, 2],
            }
        ),
        json.dumps(
            {
                "ruleset": "sport",
                "position": {"turn": "white", "white": {"24": 15}, "black": {"12": 15}},
                "dice": [1, 2],
            }
        ),
    ]
    proc = run_cli(["moves"], [good, *bad, good])
    assert proc.returncode == 2
    out = [json.loads(x) for x in proc.stdout.splitlines()]
    assert len(out) == len(bad) + 2
    assert "moves" in out[0] and "moves" in out[-1]
    for answer in out[1:-1]:
        assert set(answer) == {"error"} and answer["error"] and "\n" not in answer["error"]


def test_cli_bench_prints_rate_last(tmp_path):
    path = tmp_path / "bench.jsonl"
    path.write_text(
        "".join(
            json.dumps({k: c[k] for k in ("ruleset", "position", "dice")}) + "\n" for c in MOVES
        )
    )
    proc = run_cli(["bench", str(path)], [])
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.splitlines()[-1].split()
    assert [x.split("=")[0] for x in last] == ["positions_per_s", "median_us"]
    assert all(float(x.split("=")[1]) > 0 for x in last)
