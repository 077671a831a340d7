"""Train the hard bot's network by TD(lambda) self-play with the project's engine.

    python -m games.bots.train --games 100000 --seed 1 --out games/bots/data/hard.npz

Reproducible: the same seed, games and options give the same weights (numpy and the game
dice both come from the seed). Each side evaluates every legal play of its roll by the
network (0-ply) and plays the best; after each play the previous position of the other side
moves towards what the network now says (seen from that side), and the last positions move
towards the real result (RULES.md R9 with `sport` values: oin 1, mars 2). Progress lines go to
standard error; the weights are written every ``--save-every`` games and at the end.
"""
from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np

from games.engine import Position, legal_plays, other

from .features import encode
from .network import WEIGHTS, Network, equity, flip


def opening(rng: random.Random):
    """R3 with `play_opening_dice`: the higher single die starts and plays both dice."""
    while True:
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        if a != b:
            return ("white" if a > b else "black"), (a, b)


class Trainer:
    """TD(lambda) on one Network, one eligibility trace per side (its own positions)."""

    def __init__(self, net: Network, alpha: float, lam: float):
        self.net, self.alpha, self.lam = net, alpha, lam

    def _zero_traces(self):
        n = self.net
        return [np.zeros((3,) + n.w1.shape, np.float32), np.zeros((3,) + n.b1.shape, np.float32),
                np.zeros(n.w2.shape, np.float32), np.zeros(n.b2.shape, np.float32)]

    def _accumulate(self, trace, x):
        """trace = lambda * trace + gradient of the three outputs at input ``x``."""
        n = self.net
        h, y = n.forward(x)
        dy = y * (1 - y)                                  # (3,)
        dh = (n.w2 * dy) * (h * (1 - h))[:, None]         # (H, 3)
        for t in trace:
            t *= self.lam
        trace[0] += x[None, :, None] * dh.T[:, None, :]   # (3, N, H)
        trace[1] += dh.T
        trace[2] += h[:, None] * dy[None, :]              # (H, 3): column k for output k
        trace[3] += dy
        return y

    def _learn(self, trace, delta):
        n, a = self.net, self.alpha
        n.w1 += a * np.tensordot(delta, trace[0], axes=1)
        n.b1 += a * (delta @ trace[1])
        n.w2 += a * trace[2] * delta[None, :]
        n.b2 += a * trace[3] * delta

    def play_game(self, rng: random.Random) -> tuple:
        """One self-play game with learning; returns (winner, mars, plies)."""
        net = self.net
        first, dice = opening(rng)
        pos = Position.initial(first)
        traces = {"white": self._zero_traces(), "black": self._zero_traces()}
        last = {}  # side -> network outputs for its latest position (before learning)
        plies = 0
        while True:
            mover = pos.turn
            plays = legal_plays(pos, dice)
            opp_board = pos.board(other(mover))
            x = encode([p.result.board(mover) for p in plays], opp_board)
            wins = [i for i, p in enumerate(plays) if p.result.winner]
            i = wins[0] if wins else int(np.argmax(equity(net.evaluate(x))))
            pos = plays[i].result
            plies += 1
            y = self._accumulate(traces[mover], x[i])
            them = other(mover)
            if pos.winner:
                z = np.array([1.0, float(pos.off(them) == 0), 0.0], np.float32)
                self._learn(traces[mover], z - y)
                if them in last:
                    self._learn(traces[them], flip(z) - last[them])
                return mover, pos.off(them) == 0, plies
            if them in last:
                self._learn(traces[them], flip(y) - last[them])
            last[mover] = y
            dice = (rng.randint(1, 6), rng.randint(1, 6))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--lam", type=float, default=0.7)
    ap.add_argument("--out", default=str(WEIGHTS))
    ap.add_argument("--save-every", type=int, default=5000)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    net = Network(hidden=args.hidden, seed=args.seed)
    trainer = Trainer(net, args.alpha, args.lam)
    started = time.perf_counter()
    wins = mars = plies = 0
    meta = dict(seed=args.seed, hidden=args.hidden, alpha=args.alpha, lam=args.lam)
    for g in range(1, args.games + 1):
        winner, m, n = trainer.play_game(rng)
        wins += winner == "white"
        mars += m
        plies += n
        if g % 1000 == 0:
            rate = g / (time.perf_counter() - started)
            print(f"games={g} games_per_s={rate:.1f} white_wins={wins / 1000:.3f} "
                  f"mars={mars / 1000:.3f} plies={plies / 1000:.1f}", file=sys.stderr, flush=True)
            wins = mars = plies = 0
        if g % args.save_every == 0 or g == args.games:
            net.save(args.out, games=g, **meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
