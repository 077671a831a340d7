"""Screen training saves: a dice-paired match of two networks at 0-ply, fast enough for
thousands of pairs.

    python -m games.bots.screen artifacts/long-2/hard-40000.npz games/bots/data/hard.npz \
        --pairs 2000 --seed 1 --jobs 2

Each side plays, for every roll, the legal play its network values most (no look-ahead, no
bear-off table: the network alone, as in training), so a game costs some 30 ms of CPU instead
of hard's few seconds and a save can be compared with another over 2,000 pairs (± about 0.02)
in minutes. Pairs as in ``games.bots.arena`` (the same dice, colours swapped). A screening
gain is then checked with the arena at the level's own search against ``reference``.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Sequence
from multiprocessing import Pool

import numpy as np

from games.engine import Position, legal_plays, other

from .arena import DiceStream, play_out, score_interval
from .network import Network
from .search import values


@functools.lru_cache(maxsize=4)
def _network(path: str) -> Network:
    return Network.load(path)


def greedy(net: Network, position: Position, dice: Sequence[int]) -> Position:
    """The position after the play of ``dice`` that ``net`` values most (0-ply,
    ``search.values``; a play that ends the game first)."""
    return best_result(net, position, [play.result for play in legal_plays(position, dice)])


def best_result(net: Network, position: Position, results: list[Position]) -> Position:
    """Of ``results`` (the positions after the legal plays of one roll in ``position``), the
    one ``net`` values most at 0-ply; a result that ends the game first."""
    if len(results) == 1:
        return results[0]
    for result in results:
        if result.winner:
            return result
    mover = position.turn
    return results[int(np.argmax(values(net, mover, results, position.board(other(mover)))))]


def play_pair(args: tuple[str, str, int]) -> float:
    """A's score in one pair (1, 0.5 or 0): ``args`` = (A's weights path, B's, dice seed)."""
    a, b, seed = args
    score = 0.0
    for a_colour, b_colour in (("white", "black"), ("black", "white")):
        nets = {a_colour: _network(a), b_colour: _network(b)}

        def choose(
            pos: Position, roll: tuple[int, int], nets: dict[str, Network] = nets
        ) -> Position:
            return greedy(nets[pos.turn], pos, roll)

        end = play_out(DiceStream(seed), choose)
        score += 0.5 * (end.winner == a_colour)
    return score


def run(a: str, b: str, pairs: int, seed: int, jobs: int) -> dict[str, object]:
    """A's mean score per pair against B over ``pairs`` pairs, with a 95 % interval."""
    tasks = [(a, b, seed * 1_000_003 + i) for i in range(pairs)]
    if jobs > 1:
        with Pool(jobs) as pool:
            scores = pool.map(play_pair, tasks, chunksize=16)
    else:
        scores = [play_pair(t) for t in tasks]
    mean, ci95 = score_interval(scores)
    return {
        "a": a,
        "b": b,
        "pairs": pairs,
        "seed": seed,
        "a_score": mean,
        "ci95": ci95,
    }


def main(argv: list[str] | None = None) -> int:
    assert __doc__ is not None  # the module's docstring (absent only under python -OO)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="a network file (a training save)")
    ap.add_argument("b", help="the network it is measured against")
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    print(json.dumps(run(args.a, args.b, args.pairs, args.seed, args.jobs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
