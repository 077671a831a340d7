"""The rollout benchmark (issue #33; gnubg's benchmark files are the model): positions from
varied games, each roll's candidate plays judged by rollouts, and any level or network scored
against them. Pure Python and numpy: no Django.

    python -m games.bots.benchmark make --positions 2000 --trials 72 --seed 1 --jobs 2
    python -m games.bots.benchmark score --level expert [--weights FILE] [--limit N]

``make`` plays games of the 0-ply network against itself (seeded dice; one play in ten chosen
at random among the legal ones, so the games wander into positions good play avoids) and keeps
about one roll in four where the plays need judging (``rollout.settled``: not a single play, a
win or the bear-off table's). For each kept roll the candidates are the best ``CANDIDATES``
plays by 1-ply among the best eight at 0-ply, and the expert level's choice. Each candidate is
rolled out ``--trials`` games to the end at 0-ply (``rollout.rollout``: trial i of every
candidate sees the same dice, so their differences carry little noise); its mean (points per
game for the mover, `sport` values) and standard error are stored. Every game's positions are
appended to the file together once rolled out, so the command resumes where it stopped (games
already in the file are skipped) and extends the file when asked for more positions.

``score`` lets a level (``easy``… ``expert``, or ``network``: the 0-ply network alone) choose
in every position and reports the mean equity lost against the rollout-best candidate, the
share of blunders (``judge.BLUNDER``: 0.12 points or more), the share of rollout-best choices,
over all positions and per phase. A choice that is not among the candidates is rolled out on the
spot with the position's own seed and trials, so it is judged on the same dice.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

from games.engine import Play, Position, legal_plays, other
from games.engine.position import Board

from . import ALL_LEVELS, bearoff, choose_play, neural
from .judge import BLUNDER
from .rollout import rollout, settled
from .screen import best_result
from .search import one_ply, rank, values

#: the benchmark file in the repository
DEFAULT_FILE = Path(__file__).resolve().parent / "data" / "benchmark.jsonl"
#: plays rolled out per position, besides the expert level's choice
CANDIDATES = 5
#: plays the 1-ply look at, the best at 0-ply
SCREENED = 8
#: share of rolls kept, and of plays made at random in the games the positions come from
TAKE, WANDER = 0.25, 0.1
#: the first plies of a game (both sides' first four rolls) count as the opening
OPENING_PLIES = 8
PHASES = ("opening", "contact", "prime", "bear_in", "bearoff_contact", "race", "bearoff")


def longest_block(board: Board) -> int:
    """The longest run of neighbouring points (1–24, the side's own numbering) the side holds
    with at least one checker (in long nardy a single checker blocks a point)."""
    best = run = 0
    for point in range(1, 25):
        run = run + 1 if board[point] else 0
        best = max(best, run)
    return best


def phase(position: Position, ply: int) -> str:
    """The kind of position, for the benchmark's per-phase figures (one of PHASES): the
    opening (the first OPENING_PLIES plies), a finished race (``bearoff`` once the mover is all
    home, else ``race``), bearing off against contact, a five- or six-point block of either
    side (``prime``), the mover bringing its checkers in (ten or more in its last half, not all
    home: ``bear_in``), else ``contact``."""
    mover = position.turn
    mine, theirs = position.board(mover), position.board(other(mover))
    if ply < OPENING_PLIES:
        return "opening"
    if bearoff.race_is_over(mine, theirs):
        return "bearoff" if bearoff.all_home(mine) else "race"
    if bearoff.all_home(mine) or bearoff.all_home(theirs):
        return "bearoff_contact"
    if max(longest_block(mine), longest_block(theirs)) >= 5:
        return "prime"
    if mine[0] + sum(mine[1:13]) >= 10:
        return "bear_in"
    return "contact"


def candidates(position: Position, plays: Sequence[Play]) -> list[int]:
    """The indices of ``plays`` to roll out: the best CANDIDATES by 1-ply among the best
    SCREENED at 0-ply, and the expert level's choice (no time cap)."""
    net = neural.network()
    mover = position.turn
    scores = values(net, mover, [p.result for p in plays], position.board(other(mover)))
    screened = [int(i) for i in np.argsort(-scores)[:SCREENED]]
    deeper = one_ply(net, [plays[i].result for i in screened], mover)
    chosen = [screened[int(i)] for i in np.argsort(-deeper)[:CANDIDATES]]
    expert = neural.rank_expert(position, plays, cap_s=None).index
    return chosen if expert in chosen else [*chosen, expert]


def judged(
    position: Position, plays: Sequence[Play], picks: Sequence[int], trials: int, seed: str
) -> list[dict[str, Any]]:
    """The plays ``picks`` (indices of ``plays``) rolled out ``trials`` games each with the dice
    of ``seed``, the best first: ``[{"play": notation, "mean", "error", "gap", "gap_error"}]``
    (points per game for the mover; ``gap`` is the best candidate's mean minus this one's and
    ``gap_error`` its standard error over the paired trials, far below ``error`` since trial i
    of every candidate saw the same dice)."""
    rows = rollout(neural.network(), [plays[i].result for i in picks], position.turn, trials, seed)
    best = max(rows, key=statistics.fmean)
    found = []
    for i, row in zip(picks, rows, strict=True):
        gaps = [b - r for b, r in zip(best, row, strict=True)]
        found.append(
            {
                "play": plays[i].notation,
                "mean": round(statistics.fmean(row), 4),
                "error": round(statistics.stdev(row) / math.sqrt(len(row)), 4),
                "gap": round(statistics.fmean(gaps), 4),
                "gap_error": round(statistics.stdev(gaps) / math.sqrt(len(gaps)), 4),
            }
        )
    return sorted(found, key=lambda row: row["gap"])


def make_game(args: tuple[int, int, int]) -> list[dict[str, Any]]:
    """The benchmark positions of game ``game`` (``args`` = (seed, game, trials)), each a dict
    ready for the file: ``id``, ``game``, ``ply``, ``phase``, ``ruleset``, ``position``
    (``Position.to_json``), ``dice``, ``seed`` (of the rollouts' dice), ``trials`` and
    ``candidates`` (``judged``'s rows, the best first)."""
    seed, game, trials = args
    net = neural.network()
    rng = random.Random(f"{seed}:bench:{game}")
    position = Position.initial("white" if game % 2 else "black")
    found = []
    for ply in range(1000):
        if position.winner:
            break
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = legal_plays(position, dice)
        if settled(position, plays) is None and rng.random() < TAKE:
            picks = candidates(position, plays)
            rolled = f"{seed}:bench:{game}:{ply}"
            rows = judged(position, plays, picks, trials, rolled)
            found.append(
                {
                    "id": f"{seed}:{game}:{ply}",
                    "game": game,
                    "ply": ply,
                    "phase": phase(position, ply),
                    "ruleset": "sport",
                    "position": position.to_json(),
                    "dice": list(dice),
                    "seed": rolled,
                    "trials": trials,
                    "candidates": rows,
                }
            )
        if rng.random() < WANDER:
            position = rng.choice(plays).result
        else:
            position = best_result(net, position, [p.result for p in plays])
    return found


def load(path: Path) -> list[dict[str, Any]]:
    """The benchmark positions in ``path`` (none if it does not exist)."""
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def make(
    path: Path,
    positions: int,
    trials: int,
    seed: int,
    jobs: int,
    log: Callable[[str], None] = print,
) -> int:
    """Add games' positions to ``path`` until it holds at least ``positions`` (resuming: the
    games of ``seed`` already there are skipped). Returns how many positions it holds."""
    held = load(path)
    done = {row["game"] for row in held if row["id"].startswith(f"{seed}:")}
    count = len(held)
    if count >= positions:
        return count
    todo = ((seed, game, trials) for game in itertools.count() if game not in done)
    path.parent.mkdir(parents=True, exist_ok=True)
    with Pool(jobs) as pool, path.open("a", encoding="utf-8") as out:
        for rows in pool.imap_unordered(make_game, todo):
            out.writelines(json.dumps(row, separators=(",", ":")) + "\n" for row in rows)
            out.flush()
            count += len(rows)
            log(f"{count} positions")
            if count >= positions:
                pool.terminate()
                break
    return count


def chooser(level: str) -> Callable[[Position, tuple[int, int], list[Play]], Play]:
    """The choice of ``level``: ``network`` (the 0-ply network alone), ``hard`` and ``expert``
    searching with no time cap (the benchmark judges the search, not the machine's speed), or
    another of ``ALL_LEVELS`` as ``choose_play`` makes it (seeded, so a rerun agrees)."""
    if level == "network":
        net = neural.network()

        def by_network(position: Position, dice: tuple[int, int], plays: list[Play]) -> Play:
            best = best_result(net, position, [p.result for p in plays])
            return next(p for p in plays if p.result is best)

        return by_network
    if level == "expert":
        return lambda position, dice, plays: plays[neural.rank_expert(position, plays, None).index]
    if level == "hard":
        return lambda position, dice, plays: plays[
            rank(neural.network(), position, plays, (neural.HARD,), None).index
        ]
    if level not in ALL_LEVELS:
        raise ValueError(f"unknown level {level!r}: network or one of {', '.join(ALL_LEVELS)}")
    return lambda position, dice, plays: choose_play(
        position, dice, "sport", level, random.Random(0)
    )


def loss_of(row: dict[str, Any], play: Play, position: Position, plays: list[Play]) -> float:
    """Points lost by choosing ``play`` in the benchmark position ``row``: the best candidate's
    mean minus the play's (a play not among the candidates is rolled out now with the row's
    seed and trials; a better one than them all loses nothing)."""
    means: dict[str, float] = {c["play"]: float(c["mean"]) for c in row["candidates"]}
    mine = means.get(play.notation)
    if mine is None:
        index = next(i for i, p in enumerate(plays) if p.notation == play.notation)
        mine = float(judged(position, plays, [index], row["trials"], row["seed"])[0]["mean"])
    return max(0.0, max(means.values()) - mine)


def score_row(args: tuple[str, dict[str, Any]]) -> tuple[str, float]:
    """(phase, points lost) of ``level``'s choice in one benchmark position."""
    level, row = args
    position = Position.from_json(row["position"])
    dice = (row["dice"][0], row["dice"][1])
    plays = legal_plays(position, dice)
    play = chooser(level)(position, dice, plays)
    return row["phase"], loss_of(row, play, position, plays)


def score(path: Path, level: str, jobs: int, limit: int | None = None) -> dict[str, Any]:
    """``level`` scored on the benchmark in ``path`` (its first ``limit`` positions): over all
    and per phase, ``positions``, ``mean_loss`` (points per position), ``blunders`` (share of
    losses of at least BLUNDER) and ``best`` (share of rollout-best choices)."""
    rows = load(path)[:limit]
    with Pool(jobs) as pool:
        found = pool.map(score_row, [(level, row) for row in rows])

    def figures(losses: list[float]) -> dict[str, Any]:
        if not losses:
            return {"positions": 0}
        return {
            "positions": len(losses),
            "mean_loss": round(statistics.fmean(losses), 4),
            "blunders": round(sum(loss >= BLUNDER for loss in losses) / len(losses), 4),
            "best": round(sum(loss == 0 for loss in losses) / len(losses), 4),
        }

    return {
        "level": level,
        "all": figures([loss for _phase, loss in found]),
        "by_phase": {
            name: figures([loss for kind, loss in found if kind == name]) for name in PHASES
        },
    }


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    assert __doc__ is not None  # the module's docstring (absent only under python -OO)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    making = commands.add_parser("make", help="add rolled-out positions to the benchmark")
    making.add_argument("--positions", type=int, default=2000)
    making.add_argument("--trials", type=int, default=72, help="games rolled out per play")
    making.add_argument("--seed", type=int, default=1)
    making.add_argument("--jobs", type=int, default=2)
    making.add_argument("--file", type=Path, default=DEFAULT_FILE)
    scoring = commands.add_parser("score", help="score a level against the benchmark")
    scoring.add_argument("--level", default="expert")
    scoring.add_argument("--weights", default=None, help="another network file")
    scoring.add_argument("--limit", type=int, default=None, help="only the first N positions")
    scoring.add_argument("--jobs", type=int, default=2)
    scoring.add_argument("--file", type=Path, default=DEFAULT_FILE)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    if args.command == "make":
        held = make(args.file, args.positions, args.trials, args.seed, args.jobs)
        print(json.dumps({"file": str(args.file), "positions": held}))
        return 0
    if args.weights:
        neural.use_weights(args.weights)
    print(json.dumps(score(args.file, args.level, args.jobs, args.limit)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
