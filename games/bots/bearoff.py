"""An exact one-sided bear-off table (RULES.md R8) for finished races.

For every way to stand at most 15 checkers on the home points 1..6 (54,264 positions) the
table holds the expected number of rolls to bear them all off with best play, and, for the
positions with none off yet, the chance of bearing off at least one checker within n rolls
(n = 1..MARS_ROLLS) with play aimed at that (to avoid mars, R9). Built by

    python -m games.bots.bearoff build      # writes games/bots/data/bearoff.npz (~0.3 MB)

and loaded once per process. Bots use it when no checker of either side must pass the other.
"""

from __future__ import annotations

import functools
import itertools
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from games.engine import Play, Position, legal_plays, mirror, other
from games.engine.position import Board

from .search import ROLLS

PATH = Path(__file__).with_name("data") / "bearoff.npz"
MARS_ROLLS = 10
_EMPTY_OPPONENT = (15,) + (0,) * 24


def _home_counts() -> list[tuple[int, ...]]:
    """Every (c1..c6) with c1+…+c6 <= 15, ordered by pip count (bearing off lowers it)."""
    counts = [c for c in itertools.product(range(16), repeat=6) if sum(c) <= 15]
    counts.sort(key=lambda c: sum((i + 1) * n for i, n in enumerate(c)))
    return counts


def key(board: Board) -> tuple[int, ...]:
    """The table key of a board whose checkers are all home: its counts on points 1..6."""
    return tuple(board[1:7])


def _board(counts: tuple[int, ...]) -> Board:
    return (15 - sum(counts),) + tuple(counts) + (0,) * 18


def build(path: str | Path = PATH) -> dict[str, float]:
    """Compute the table (about a minute) and save it to ``path``; returns stats."""
    started = time.perf_counter()
    counts = _home_counts()
    index = {c: i for i, c in enumerate(counts)}
    expected = np.zeros(len(counts), np.float64)
    fifteen = [i for i, c in enumerate(counts) if sum(c) == 15]
    replies: dict[int, list[tuple[int, list[int]]]] = {}  # index -> [(weight, [result indices])]
    for i, c in enumerate(counts):
        if sum(c) == 0:
            continue
        pos = Position("white", _board(c), _EMPTY_OPPONENT, False)
        total, stay = 1.0, 0.0
        options = []
        for dice, weight in ROLLS:
            results = [index[key(p.result.white)] for p in legal_plays(pos, dice)]
            options.append((weight, results))
            if results == [i]:
                stay += weight / 36
            else:
                total += weight / 36 * min(expected[r] for r in results)
        expected[i] = total / (1 - stay)
        if sum(c) == 15:
            replies[i] = options
    # Chance of at least one checker off within n rolls, for the positions with none off.
    first_off = np.zeros((MARS_ROLLS + 1, len(counts)), np.float64)
    for n in range(1, MARS_ROLLS + 1):
        for i in fifteen:
            first_off[n, i] = sum(
                weight
                / 36
                * max(1.0 if sum(counts[r]) < 15 else first_off[n - 1, r] for r in results)
                for weight, results in replies[i]
            )
    np.savez_compressed(
        path,
        counts=np.array(counts, np.int8),
        expected=expected.astype(np.float32),
        first_off=first_off[1:, fifteen].astype(np.float32),
        fifteen=np.array(fifteen, np.int32),
    )
    return {
        "positions": len(counts),
        "seconds": round(time.perf_counter() - started, 1),
        "start_expected_rolls": float(expected[index[(0, 0, 0, 0, 0, 15)]]),
    }


class Table:
    """Look-ups in a built table."""

    def __init__(self, path: str | Path = PATH) -> None:
        data = np.load(path)
        self.expected: NDArray[np.float32] = data["expected"]
        self.index = {tuple(int(x) for x in c): i for i, c in enumerate(data["counts"])}
        self.first_off: NDArray[np.float32] = data["first_off"]
        self.fifteen_at = {int(i): j for j, i in enumerate(data["fifteen"])}

    def rolls_to_finish(self, board: Board) -> float:
        """Expected rolls to bear off every checker of an all-home ``board`` (best play)."""
        return float(self.expected[self.index[key(board)]])

    def chance_first_off(self, board: Board, rolls: int) -> float:
        """Chance to bear off at least one checker within ``rolls`` rolls (1 if some are off
        already), from an all-home ``board``; rolls beyond MARS_ROLLS count as MARS_ROLLS."""
        if board[0]:
            return 1.0
        if rolls <= 0:
            return 0.0
        i = self.fifteen_at[self.index[key(board)]]
        return float(self.first_off[min(rolls, MARS_ROLLS) - 1, i])


@functools.lru_cache(maxsize=1)
def table() -> Table:
    """The shipped table, loaded once per process."""
    return Table()


def all_home(board: Board) -> bool:
    """True when every checker of ``board`` still on the board is on points 1..6."""
    return not any(board[7:25])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv != ["build"]:
        print("usage: python -m games.bots.bearoff build", file=sys.stderr)
        return 2
    print(build())
    return 0


if __name__ == "__main__":
    sys.exit(main())


def race_is_over(mine: Board, theirs: Board) -> bool:
    """True when no checker of either side must still pass a checker of the other (RULES.md
    R1: my point p is the opponent's mirror(p)). An opponent checker on its point q must pass
    my checker on p while q > mirror(p), and the other way round."""
    my_back = max((p for p in range(1, 25) if mine[p]), default=0)
    their_back = max((q for q in range(1, 25) if theirs[q]), default=0)
    return not (
        any(mine[p] and their_back > mirror(p) for p in range(1, 25))
        or any(theirs[q] and my_back > mirror(q) for q in range(1, 25))
    )


def best_bearoff_play(position: Position, plays: Sequence[Play]) -> Play | None:
    """In a finished race where every legal play leaves the mover all home, the play the
    table prefers: the fewest expected rolls, or, with none off yet and mars in sight
    (RULES.md R9), the best chance to bear one off before the opponent can finish.
    Returns None when the table does not apply (the caller then evaluates as usual)."""
    mover = position.turn
    mine, theirs = position.board(mover), position.board(other(mover))
    if not race_is_over(mine, theirs) or not all(all_home(p.result.board(mover)) for p in plays):
        return None
    t = table()
    boards = [p.result.board(mover) for p in plays]
    if not mine[0] and all_home(theirs):
        # The opponent rolls next; after its k-th roll it may be done, so we get k-1 more.
        k = max(1, round(t.rolls_to_finish(theirs)))
        chances = [t.chance_first_off(b, k - 1) for b in boards]
        if min(chances) < 0.999:
            best = max(chances)
            pool = [i for i, c in enumerate(chances) if c >= best - 1e-9]
            return plays[min(pool, key=lambda i: t.rolls_to_finish(boards[i]))]
    return plays[min(range(len(plays)), key=lambda i: t.rolls_to_finish(boards[i]))]
