"""The engine's command line (RULES.md "Engine command line"), standard library only.

- ``python -m games.engine moves``: JSON Lines of ``{"ruleset", "position", "dice"}`` on stdin;
  one line out per request, ``{"moves": [{"play", "result"}, …]}`` or ``{"error": reason}``.
- ``python -m games.engine score``: JSON Lines of finished games; ``{"result", "points"}`` each.
- ``python -m games.engine bench FILE``: lists the legal plays of every request in FILE with no
  cache carried between requests; last line ``positions_per_s=<n> median_us=<n>``.

Exit status 2 if any input line was malformed (or on a usage error), else 0.
"""
from __future__ import annotations

import json
import statistics
import sys
import time

from .errors import EngineError
from .movegen import legal_plays
from .position import WHITE, BLACK, Position, board_from_json, board_to_json, other
from .rules import get_ruleset
from .scoring import game_value

USAGE = "usage: python -m games.engine {moves | score | bench FILE}"


class RequestError(EngineError):
    """A request line that is not a valid request."""


def _load(line: str) -> dict:
    try:
        req = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RequestError(f"not JSON: {exc.msg} at column {exc.colno}") from None
    if not isinstance(req, dict):
        raise RequestError("a request must be a JSON object")
    return req


def moves_request(req: dict) -> tuple:
    """Parse a ``moves`` request into ``(position, dice, ruleset)``; raises EngineError."""
    ruleset = get_ruleset(req.get("ruleset"), req.get("table"))
    if "position" not in req:
        raise RequestError("missing 'position'")
    if "dice" not in req:
        raise RequestError("missing 'dice'")
    return Position.from_json(req["position"]), req["dice"], ruleset


def answer_moves(req: dict) -> dict:
    """One ``moves`` answer: ``{"moves": [{"play": str, "result": {point: n}}, …]}``."""
    pos, dice, ruleset = moves_request(req)
    mover = pos.turn
    return {"moves": [{"play": p.notation, "result": board_to_json(p.result.board(mover))}
                      for p in legal_plays(pos, dice, ruleset)]}


def answer_score(req: dict) -> dict:
    """One ``score`` answer: ``{"result": "oin"|"mars"|"koks", "points": int}`` (R9, R10)."""
    ruleset = get_ruleset(req.get("ruleset"), req.get("table"))
    if req.get("winner") not in (WHITE, BLACK):
        raise RequestError("winner must be 'white' or 'black'")
    loser = board_from_json(req.get("loser", {}), other(req["winner"]))
    if loser[0] == 15:
        raise RequestError("the loser cannot have borne off all 15 checkers")
    cube = req.get("cube", 1)
    turned = req.get("cube_turned", False)
    if isinstance(cube, bool) or not isinstance(cube, int):
        raise RequestError("cube must be an integer")
    if not isinstance(turned, bool):
        raise RequestError("cube_turned must be true or false")
    kind, points = game_value(loser, ruleset, cube, turned)
    return {"result": kind, "points": points}


def _serve(answer, stdin, stdout) -> int:
    bad = False
    for line in stdin:
        if not line.strip():
            continue
        try:
            out = answer(_load(line))
        except (EngineError, ValueError, TypeError) as exc:
            bad = True
            out = {"error": " ".join(str(exc).split()) or type(exc).__name__}
        stdout.write(json.dumps(out) + "\n")
        stdout.flush()
    return 2 if bad else 0


def bench(path: str, stdout) -> int:
    """Time legal_plays over every request in ``path`` (parsing the position included)."""
    with open(path, encoding="utf-8") as fh:
        requests = [_load(line) for line in fh if line.strip()]
    times = []
    total_plays = 0
    for req in requests:
        start = time.perf_counter()
        pos, dice, ruleset = moves_request(req)
        total_plays += len(legal_plays(pos, dice, ruleset))
        times.append(time.perf_counter() - start)
    total = sum(times)
    stdout.write(f"positions={len(requests)} plays={total_plays} seconds={total:.3f}\n")
    stdout.write(f"positions_per_s={len(requests) / total:.0f} "
                 f"median_us={statistics.median(times) * 1e6:.1f}\n")
    return 0


def main(argv=None, stdin=None, stdout=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    if argv == ["moves"]:
        return _serve(answer_moves, stdin, stdout)
    if argv == ["score"]:
        return _serve(answer_score, stdin, stdout)
    if len(argv) == 2 and argv[0] == "bench":
        return bench(argv[1], stdout)
    sys.stderr.write(USAGE + "\n")
    return 2
