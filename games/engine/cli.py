"""The engine's command line (RULES.md "Engine command line"), standard library only.

- ``python -m games.engine moves``: JSON Lines of ``{"ruleset", "position", "dice"}`` on stdin;
  one line out per request, ``{"moves": [{"play", "result"}, …]}`` or ``{"error": reason}``.
- ``python -m games.engine score``: JSON Lines of finished games; ``{"result", "points"}`` each.
- ``python -m games.engine bench FILE``: lists the legal plays of every request in FILE with no
  cache carried between requests; last line ``positions_per_s=<n> median_us=<n>``.
- ``python -m games.engine selfplay N [--seed S] [--preset P]``: plays N games to the end, each
  turn a random one of the legal plays; last line ``games_per_s=<n> turns_per_s=<n>``.

Exit status 2 if any input line was malformed (or on a usage error), else 0.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO, TypeAlias

from .errors import EngineError
from .movegen import legal_plays
from .position import BLACK, WHITE, Position, board_from_json, board_to_json, other
from .rules import PLAY_OPENING_DICE, PRESETS, Ruleset, get_ruleset
from .scoring import game_value

USAGE = (
    "usage: python -m games.engine {moves | score | bench FILE"
    " | selfplay N [--seed S] [--preset sport|classic|match]}"
)


class RequestError(EngineError):
    """A request line that is not a valid request."""


#: a request: a JSON object, its values of any JSON type until checked where they are used
Request: TypeAlias = dict[str, Any]


def _load(line: str) -> Request:
    try:
        req = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RequestError(f"not JSON: {exc.msg} at column {exc.colno}") from None
    if not isinstance(req, dict):
        raise RequestError("a request must be a JSON object")
    return req


def moves_request(req: Request) -> tuple[Position, Any, Ruleset]:
    """Parse a ``moves`` request into ``(position, dice, ruleset)``; raises EngineError. The
    dice are as sent: legal_plays checks them."""
    # a missing "ruleset" is None, refused by get_ruleset like any name that is not a preset
    ruleset = get_ruleset(req.get("ruleset"), req.get("table"))  # type: ignore[arg-type]
    if "position" not in req:
        raise RequestError("missing 'position'")
    if "dice" not in req:
        raise RequestError("missing 'dice'")
    return Position.from_json(req["position"]), req["dice"], ruleset


def answer_moves(req: Request) -> dict[str, list[dict[str, object]]]:
    """One ``moves`` answer: ``{"moves": [{"play": str, "result": {point: n}}, …]}``."""
    pos, dice, ruleset = moves_request(req)
    mover = pos.turn
    return {
        "moves": [
            {"play": p.notation, "result": board_to_json(p.result.board(mover))}
            for p in legal_plays(pos, dice, ruleset)
        ]
    }


def answer_score(req: Request) -> dict[str, str | int]:
    """One ``score`` answer: ``{"result": "oin"|"mars"|"koks", "points": int}`` (R9, R10)."""
    # a missing "ruleset" is None, refused by get_ruleset like any name that is not a preset
    ruleset = get_ruleset(req.get("ruleset"), req.get("table"))  # type: ignore[arg-type]
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


def _serve(
    answer: Callable[[Request], Mapping[str, object]], stdin: Iterable[str], stdout: TextIO
) -> int:
    bad = False
    for line in stdin:
        if not line.strip():
            continue
        out: Mapping[str, object]
        try:
            out = answer(_load(line))
        except (EngineError, ValueError, TypeError) as exc:
            bad = True
            out = {"error": " ".join(str(exc).split()) or type(exc).__name__}
        stdout.write(json.dumps(out) + "\n")
        stdout.flush()
    return 2 if bad else 0


def bench(path: str, stdout: TextIO) -> int:
    """Time legal_plays over every request in ``path`` (parsing the position included)."""
    with Path(path).open(encoding="utf-8") as fh:
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
    stdout.write(
        f"positions_per_s={len(requests) / total:.0f} "
        f"median_us={statistics.median(times) * 1e6:.1f}\n"
    )
    return 0


def random_game(rng: random.Random, ruleset: Ruleset) -> int:
    """Play one game with ``rng`` choosing the dice and, each turn, one of the legal plays at
    random, from the opening (R3, by the ruleset's ``opening``) to the last checker borne off.
    Returns the number of turns played, passes included."""
    while True:
        first, second = rng.randint(1, 6), rng.randint(1, 6)
        if first != second:
            break
    pos = Position.initial(WHITE if first > second else BLACK)
    if ruleset.opening == PLAY_OPENING_DICE:
        dice = (first, second)
    else:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
    turns = 0
    while True:
        pos = rng.choice(legal_plays(pos, dice, ruleset)).result
        turns += 1
        if pos.winner:
            return turns
        dice = (rng.randint(1, 6), rng.randint(1, 6))


def selfplay(games: int, seed: int | None, preset: str, stdout: TextIO) -> int:
    """Time ``games`` random games (random_game) from ``random.Random(seed)``; the whole loop is
    timed, dice and choices included. Prints ``games= turns= seconds=`` and, last,
    ``games_per_s=<n> turns_per_s=<n>``."""
    ruleset = get_ruleset(preset)
    rng = random.Random(seed)
    turns = 0
    start = time.perf_counter()
    for _ in range(games):
        turns += random_game(rng, ruleset)
    seconds = time.perf_counter() - start
    stdout.write(f"games={games} turns={turns} seconds={seconds:.3f}\n")
    stdout.write(f"games_per_s={games / seconds:.1f} turns_per_s={turns / seconds:.0f}\n")
    return 0


def _selfplay_args(args: list[str]) -> tuple[int, int | None, str] | None:
    """``(games, seed, preset)`` from ``N [--seed S] [--preset P]``, or None if malformed."""
    options: dict[str, str | None] = {"--seed": None, "--preset": "sport"}
    rest = args[1:]
    if not args or len(rest) % 2:
        return None
    for name, value in zip(rest[::2], rest[1::2]):
        if name not in options:
            return None
        options[name] = value
    try:
        games = int(args[0])
        seed = None if options["--seed"] is None else int(options["--seed"])
    except ValueError:
        return None
    if games < 1 or options["--preset"] not in PRESETS:
        return None
    return games, seed, options["--preset"]


def main(
    argv: list[str] | None = None, stdin: Iterable[str] | None = None, stdout: TextIO | None = None
) -> int:
    argv = sys.argv[1:] if argv is None else argv
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    if argv == ["moves"]:
        return _serve(answer_moves, stdin, stdout)
    if argv == ["score"]:
        return _serve(answer_score, stdin, stdout)
    if len(argv) == 2 and argv[0] == "bench":
        return bench(argv[1], stdout)
    if argv and argv[0] == "selfplay":
        parsed = _selfplay_args(argv[1:])
        if parsed is not None:
            return selfplay(*parsed, stdout)
    sys.stderr.write(USAGE + "\n")
    return 2
