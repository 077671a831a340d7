"""Rollouts: a play judged by the games played on from it, gnubg's way of checking a search.

    python -m games.bots.rollout --games 20 --trials 48 --seed 2 --jobs 2

A rollout plays a position on to the end many times, both sides choosing at 0-ply (the network
alone, ``screen.best_result``, and the exact table of ``bearoff`` in a finished race) and
scores each game for the side that made the play (RULES.md R9 with `sport` values: oin 1,
mars 2). Plays of one roll are rolled out with the same dice (trial i of every play sees the
same rolls), so their difference is measured with much less noise than either value.

The command answers one question cheaply: where the ``hard`` and ``expert`` levels' searches
choose differently, whose play is better? It plays games of the hard search against itself
(seeded dice, no time cap), and at each roll where the two searches pick different plays it
rolls both out. A few hundred such rolls say in minutes what would take a 1,000-pair match of
expert (hours) to see. It reports the mean of expert's play minus hard's (points per game)
with a 95 % interval, over all those rolls and apart for contact and race positions, and with
``--record FILE`` writes one JSON line per roll. Pure Python and numpy: no Django.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from collections.abc import Sequence
from multiprocessing import Pool
from pathlib import Path

from games.engine import Play, Position, legal_plays, other
from games.engine.scoring import game_value

from . import bearoff, neural
from .network import Network
from .screen import best_result
from .search import rank


def settled(position: Position, plays: list[Play]) -> Play | None:
    """The play of ``plays`` (the legal plays of one roll in ``position``) that needs no
    judging: the only one, one that ends the game, or the bear-off table's in a finished race;
    None when the plays must be judged."""
    if len(plays) == 1:
        return plays[0]
    for play in plays:
        if play.result.winner:
            return play
    return bearoff.best_bearoff_play(position, plays)


def policy(net: Network, position: Position, dice: Sequence[int]) -> Position:
    """The position after the rollout's play of ``dice``: ``settled``'s play if there is one,
    else the play ``net`` values most at 0-ply."""
    plays = legal_plays(position, dice)
    play = settled(position, plays)
    if play is not None:
        return play.result
    return best_result(net, position, [p.result for p in plays])


def play_on(net: Network, position: Position, rng: random.Random) -> Position:
    """``position`` (the side to roll: ``position.turn``) played on to the end by ``policy``
    with dice from ``rng``; returns the final position. ``position`` itself may be final."""
    while not position.winner:
        position = policy(net, position, (rng.randint(1, 6), rng.randint(1, 6)))
    return position


def points(final: Position, side: str) -> int:
    """Points of the finished game ``final`` for ``side``: +1/+2 won (oin/mars), -1/-2 lost."""
    assert final.winner is not None  # a finished game
    loser = other(final.winner)
    value = game_value(final.board(loser), "sport")[1]
    return value if final.winner == side else -value


def rollout(
    net: Network, results: Sequence[Position], side: str, trials: int, seed: str
) -> list[list[int]]:
    """For each position of ``results`` (each after a play by ``side``, the other side to
    roll), the points for ``side`` of ``trials`` games played on from it: a list per position.
    Trial i of every position uses the dice of ``random.Random(f"{seed}:{i}")``, so the
    positions of one roll are compared on the same dice. Raises ValueError if ``trials`` < 2."""
    if trials < 2:
        raise ValueError(f"a rollout needs at least 2 trials, not {trials}")
    return [
        [points(play_on(net, result, random.Random(f"{seed}:{i}")), side) for i in range(trials)]
        for result in results
    ]


def _mean_and_error(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of ``values`` (at least two)."""
    return statistics.fmean(values), statistics.stdev(values) / math.sqrt(len(values))


def compare_game(args: tuple[int, int, int]) -> list[dict[str, float]]:
    """One game of the hard search against itself (``args`` = (seed, game, trials)); a dict
    for each roll where expert's search chooses another play than hard's: both plays' 1-ply
    and 2-ply values (points for the mover), their rollouts' means, and the difference
    (expert's minus hard's) with its standard error."""
    seed, game, trials = args
    net = neural.network()
    dice = random.Random(f"{seed}:game:{game}")
    found: list[dict[str, float]]
    position, found = Position.initial("white" if game % 2 else "black"), []
    for ply in range(1000):
        if position.winner:
            break
        roll = (dice.randint(1, 6), dice.randint(1, 6))
        plays = legal_plays(position, roll)
        play = settled(position, plays)
        if play is not None:
            position = play.result
            continue
        hard = rank(net, position, plays, (neural.HARD,))
        expert = neural.rank_expert(position, plays, cap_s=None, also=hard.index)
        if expert.index != hard.index:
            chosen = (plays[hard.index].result, plays[expert.index].result)
            rows = rollout(net, chosen, position.turn, trials, f"{seed}:{game}:{ply}")
            mean, error = _mean_and_error([b - a for a, b in zip(*rows, strict=True)])
            found.append(
                {
                    "game": game,
                    "ply": ply,
                    "race": bearoff.race_is_over(
                        position.board(position.turn), position.board(other(position.turn))
                    ),
                    "hard_1ply": round(hard.scores[hard.index], 4),
                    "hard_2ply": round(expert.scores[hard.index], 4),
                    "expert_2ply": round(expert.scores[expert.index], 4),
                    "hard_rollout": statistics.fmean(rows[0]),
                    "expert_rollout": statistics.fmean(rows[1]),
                    "difference": mean,
                    "error": error,
                }
            )
        position = plays[hard.index].result
    return found


def summary(
    found: list[dict[str, float]], games: int
) -> dict[str, int | dict[str, float | list[float]]]:
    """The mean difference (expert's play minus hard's, points per game) and its 95 % interval
    over the rolls of ``found``, over all of them and apart for contact and race."""

    def interval(rows: list[dict[str, float]]) -> dict[str, float | list[float]]:
        if len(rows) < 2:
            return {"rolls": len(rows)}
        mean, error = _mean_and_error([row["difference"] for row in rows])
        half = 1.96 * error
        return {
            "rolls": len(rows),
            "difference": round(mean, 4),
            "ci95": [round(mean - half, 4), round(mean + half, 4)],
        }

    return {
        "games": games,
        "all": interval(found),
        "contact": interval([row for row in found if not row["race"]]),
        "race": interval([row for row in found if row["race"]]),
    }


def main(argv: list[str] | None = None) -> int:
    assert __doc__ is not None  # the module's docstring (absent only under python -OO)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--trials", type=int, default=48, help="games rolled out for each play")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--weights", default=None, help="another network file for both searches")
    ap.add_argument("--record", default=None, help="append one JSON line per compared roll")
    args = ap.parse_args(argv)
    if args.weights:
        neural.use_weights(args.weights)
    tasks = [(args.seed, game, args.trials) for game in range(args.games)]
    found = []
    with Pool(args.jobs) as pool:
        for rows in pool.imap(compare_game, tasks):
            found.extend(rows)
            if args.record:
                with Path(args.record).open("a", encoding="utf-8") as record:
                    record.writelines(json.dumps(row) + "\n" for row in rows)
    print(json.dumps(summary(found, args.games)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
