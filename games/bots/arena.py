"""Measure bot strength with dice-paired (duplicate) games.

    python -m games.bots.arena --a hard --b medium --pairs 1000 --seed 1 --jobs 2

Each pair plays two `sport` games with the same dice (the opening roll-off, R3, and every
roll after it) and the colours swapped, so luck cancels out as far as it can. Reports A's
score over pairs (a pair scores 1, 0.5 or 0) with a 95 % confidence interval, points per
game (oin 1, mars 2, R9), the mars rate, and each bot's time per move (median, 95th
percentile, worst) in milliseconds around each ``choose_play`` call (the function the Celery
task ``games.bot_move`` runs; its ``games.bot`` log line adds the database work of the move:
lock, roll, save), as wall-clock time (``move_ms``: what a player waits) and as the thread's
CPU time (``move_cpu_ms``: not inflated when other jobs share the cores). Each process loads
the bear-off table and the network before its first game (as a worker does at start), so no
move pays for loading them.

A long match can be played in slices: with ``--record FILE`` every finished pair is appended
to FILE (JSON lines) and a later run with the same FILE plays only the pairs not yet in it, so
a match stopped at any time (Ctrl-C, a session's end) goes on where it stopped, and the summary
covers every recorded pair. The same seed gives the same dice and the same pairs, whether the
match ran at once or in slices.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from multiprocessing import Pool
from pathlib import Path
from typing import Any, Literal, TypeAlias, TypeVar

from games.engine import Position, game_value, other

from . import bearoff, choose_play, neural, reference

MAX_TURNS = 1000

#: one game as ``play_game`` reports it for A: (A won, kind, points, {level: [(wall s, CPU s)
#: per move]})
GameResult: TypeAlias = tuple[bool, str, int, dict[str, list[tuple[float, float]]]]
_T = TypeVar("_T")
_R = TypeVar("_R")


class DiceStream:
    """The dice of one pair: an opening roll-off and then roll number i, the same whatever
    is played (so both games of the pair see identical luck)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        while True:
            self.opening = (self.rng.randint(1, 6), self.rng.randint(1, 6))
            if self.opening[0] != self.opening[1]:
                break
        self.rolls: list[tuple[int, int]] = []

    def roll(self, i: int) -> tuple[int, int]:
        while len(self.rolls) <= i:
            self.rolls.append((self.rng.randint(1, 6), self.rng.randint(1, 6)))
        return self.rolls[i]


def play_out(dice: DiceStream, choose: Callable[[Position, tuple[int, int]], Position]) -> Position:
    """One game with ``dice`` (the opening roll-off starts it, R3): ``choose(position, roll)``
    returns the position after the play of the side to play (``position.turn``). Returns the
    final position (``winner`` set). Raises RuntimeError if nobody has won after
    ``MAX_TURNS`` rolls."""
    first, second = dice.opening
    pos = Position.initial("white" if first > second else "black")
    roll = dice.opening
    for i in range(MAX_TURNS):
        pos = choose(pos, roll)
        if pos.winner:
            return pos
        roll = dice.roll(i)
    raise RuntimeError("game did not end")


def play_game(
    white: str, black: str, dice: DiceStream, seed: int
) -> tuple[str, str, int, dict[str, list[tuple[float, float]]]]:
    """One game; returns (winner colour, kind, points, {level: [(wall s, CPU s) per move]})."""
    rngs = {"white": random.Random(seed), "black": random.Random(seed + 1)}
    levels = {"white": white, "black": black}
    times: dict[str, list[tuple[float, float]]] = {white: [], black: []}

    def choose(pos: Position, roll: tuple[int, int]) -> Position:
        side = pos.turn
        started, cpu = time.perf_counter(), time.thread_time()
        play = choose_play(pos, roll, "sport", level=levels[side], rng=rngs[side])
        times[levels[side]].append((time.perf_counter() - started, time.thread_time() - cpu))
        return play.result

    pos = play_out(dice, choose)
    assert pos.winner is not None  # play_out returns a finished game
    kind, points = game_value(pos.board(other(pos.winner)), "sport")
    return pos.winner, kind, points, times


def warm_up(levels: Sequence[str] = ("medium", "hard"), weights: str | None = None) -> None:
    """Load what a Celery worker loads at start (games.tasks.load_bot_tables); ``weights``: a
    network file for ``hard`` and ``expert`` other than the shipped one (e.g. a training run's
    save)."""
    bearoff.table()
    if weights:
        neural.use_weights(weights)
    if set(levels) & set(neural.NETWORK_LEVELS):
        neural.preload()
    if "reference" in levels:
        reference.network()


def play_pair(args: tuple[str, str, int]) -> list[GameResult]:
    a, b, seed = args
    results: list[GameResult] = []
    for white, black in ((a, b), (b, a)):
        winner, kind, points, times = play_game(white, black, DiceStream(seed), seed)
        a_won = (winner == "white") == (white == a)
        results.append((a_won, kind, points, times))
    return results


def percentile(values: Iterable[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


class RecordMismatch(ValueError):
    """The record file belongs to another match (other levels, seed or weights)."""


class Record:
    """A match's finished pairs in a JSON-lines file: a header line (the match: ``a``, ``b``,
    ``seed``, ``weights``), then one line per pair, ``{"pair": i, "games": [[a_won, kind,
    points, {level: [[wall s, CPU s], ...]}], [...]]}``. A line cut short by a kill is dropped
    on reading. Raises ``RecordMismatch`` when the file holds another match."""

    def __init__(self, path: str | Path, match: dict[str, str | int | None]) -> None:
        self.path = Path(path)
        self.pairs: dict[int, list[GameResult]] = {}
        if self.path.exists() and self.path.stat().st_size:
            lines = self.path.read_text().splitlines()
            kept: list[Any] = []  # JSON
            for line in lines:
                try:
                    kept.append(json.loads(line))
                except json.JSONDecodeError:
                    break  # the tail of a killed run
            if kept[0] != match:
                raise RecordMismatch(f"{self.path} records {kept[0]}, not {match}")
            for entry in kept[1:]:
                self.pairs[entry["pair"]] = [tuple(g) for g in entry["games"]]
            if len(kept) < len(lines):
                # Rewrite without the cut tail, so that appends start on a fresh line.
                self.path.write_text("".join(json.dumps(e) + "\n" for e in kept))
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(match) + "\n")

    def add(self, index: int, pair: list[GameResult]) -> None:
        """Append pair ``index`` (as ``play_pair`` returns it) to the file, its move times
        rounded to microseconds (a 1,000-pair record of expert stays a few megabytes, small
        enough to keep in the repository between sessions)."""
        with self.path.open("a") as f:
            f.write(json.dumps({"pair": index, "games": rounded(pair)}) + "\n")


def rounded(pair: list[GameResult]) -> list[list[object]]:
    """``pair`` (as ``play_pair`` returns it, or as read from a record) with every move time
    rounded to microseconds."""
    return [
        [
            a_won,
            kind,
            points,
            {
                level: [[round(w, 6), round(c, 6)] for w, c in moves]
                for level, moves in times.items()
            },
        ]
        for a_won, kind, points, times in pair
    ]


def _play_indexed(args: tuple[int, tuple[str, str, int]]) -> tuple[int, list[GameResult]]:
    index, task = args
    return index, play_pair(task)


def run(
    a: str,
    b: str,
    pairs: int,
    seed: int,
    jobs: int,
    progress: int = 0,
    weights: str | None = None,
    record: str | Path | None = None,
) -> dict[str, object]:
    """Play ``pairs`` pairs of A against B; returns the summary dict (see module doc). With
    ``progress`` > 0 a line with A's score so far goes to standard error every that many
    pairs; ``weights`` as for ``warm_up``; ``record``: a file path (see ``Record``) whose pairs
    are not played again. Raises ``RecordMismatch`` for another match's record."""
    kept = Record(record, {"a": a, "b": b, "seed": seed, "weights": weights}) if record else None
    done = kept.pairs if kept else {}
    tasks = [(i, (a, b, seed * 1_000_003 + i)) for i in range(pairs) if i not in done]
    outcomes = {i: done[i] for i in range(pairs) if i in done}
    if tasks:
        if jobs <= 1:
            warm_up((a, b), weights)
        with (
            Pool(jobs, initializer=warm_up, initargs=((a, b), weights)) if jobs > 1 else _Serial()
        ) as pool:
            for index, pair in pool.imap(_play_indexed, tasks):
                outcomes[index] = pair
                if kept:
                    kept.add(index, pair)
                if progress and len(outcomes) % progress == 0:
                    score = sum(sum(r[0] for r in o) / 2 for o in outcomes.values())
                    print(
                        f"pairs={len(outcomes)} a_score={score / len(outcomes):.3f}",
                        file=sys.stderr,
                        flush=True,
                    )
    ordered = [outcomes[i] for i in sorted(outcomes)]
    pair_scores, points, mars = [], [], 0
    times: dict[str, list[tuple[float, float]]] = {a: [], b: []}
    for pair in ordered:
        pair_scores.append(sum(r[0] for r in pair) / 2)
        for a_won, kind, pts, t in pair:
            points.append(pts if a_won else -pts)
            mars += kind != "oin"
            for level, ts in t.items():
                times[level].extend(ts)
    mean, ci95 = score_interval(pair_scores)
    return {
        "a": a,
        "b": b,
        "pairs": pairs,
        "seed": seed,
        "weights": weights,
        "a_score": mean,
        "ci95": ci95,
        "a_points_per_game": round(statistics.fmean(points), 4),
        "mars_rate": round(mars / (2 * pairs), 4),
        "move_ms": {level: _spread([t[0] for t in ts]) for level, ts in times.items()},
        "move_cpu_ms": {level: _spread([t[1] for t in ts]) for level, ts in times.items()},
    }


def score_interval(pair_scores: Sequence[float]) -> tuple[float, list[float]]:
    """``(mean, [low, high])`` of pair scores (each 1, 0.5 or 0): the mean and its 95 %
    interval by the normal approximation, clipped to 0..1, rounded to 4 places."""
    mean = statistics.fmean(pair_scores)
    half = 1.96 * statistics.pstdev(pair_scores) / math.sqrt(len(pair_scores))
    return round(mean, 4), [round(max(0.0, mean - half), 4), round(min(1.0, mean + half), 4)]


def _spread(seconds: Sequence[float]) -> dict[str, float]:
    """Median, 95th percentile and worst of ``seconds``, in milliseconds."""
    return {
        "median": round(statistics.median(seconds) * 1e3, 2),
        "p95": round(percentile(seconds, 0.95) * 1e3, 2),
        "max": round(max(seconds) * 1e3, 2),
    }


class _Serial:
    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        return False

    @staticmethod
    def imap(fn: Callable[[_T], _R], items: Iterable[_T]) -> Iterator[_R]:
        return (fn(x) for x in items)


def main(argv: list[str] | None = None) -> int:
    assert __doc__ is not None  # the module's docstring (absent only under python -OO)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", default="medium")
    ap.add_argument("--b", default="random")
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument(
        "--progress",
        type=int,
        default=0,
        metavar="N",
        help="print A's score so far to standard error every N pairs",
    )
    ap.add_argument(
        "--weights",
        default=None,
        metavar="FILE",
        help="the hard level's network (default: games/bots/data/hard.npz)",
    )
    ap.add_argument(
        "--record",
        default=None,
        metavar="FILE",
        help="append each finished pair to FILE and skip the pairs already in it: a match "
        "stopped at any time goes on where it stopped",
    )
    args = ap.parse_args(argv)
    if args.a == args.b:
        ap.error("--a and --b must differ")
    try:
        summary = run(
            args.a,
            args.b,
            args.pairs,
            args.seed,
            args.jobs,
            args.progress,
            args.weights,
            args.record,
        )
    except RecordMismatch as exc:
        ap.error(str(exc))
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
