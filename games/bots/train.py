"""Train the hard bot's network by TD(lambda) self-play with the project's engine.

    python -m games.bots.train --games 10000 --seed 1 --out games/bots/data/hard.npz

Reproducible: the same seed, games and options give the same weights (numpy and the game
dice both come from the seed; a run's save at game g equals a run of ``--games g``). Each side
evaluates every legal play of its roll by the network (0-ply) and plays the best; after each
play the previous position (of either side) moves towards what the network now says of the
new one, through one trace over the game (see ``Trainer``), and at the end towards the real
result (RULES.md R9 with `sport` values: oin 1, mars 2). Progress lines go to standard error;
the weights are written every ``--save-every`` games and at the end.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np

from games.engine import WHITE, Position, legal_plays, other

from .features import encode
from .network import WEIGHTS, Network, equity, flip

# flip as a signed permutation of the outputs:
# flip(y)[k] = const + _FLIP_SIGN[k] * y[_FLIP_ORDER[k]]
_FLIP_ORDER = np.array([0, 2, 1])
_FLIP_SIGN = np.array([-1.0, 1.0, 1.0], np.float32)


def opening(rng: random.Random):
    """R3 with `play_opening_dice`: the higher single die starts and plays both dice."""
    while True:
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        if a != b:
            return ("white" if a > b else "black"), (a, b)


class Trainer:
    """TD(lambda) on one Network with one eligibility trace over the whole game.

    The network speaks for the side that has just played; the trace and the TD errors are kept
    in White's terms (outputs: White wins, White wins by mars, White loses by mars), so a
    position after Black's play enters the trace through ``flip`` (win -> 1 - win, the two mars
    outputs swapped). Every ply's error then reaches all earlier positions of both sides, as
    TD(lambda) needs: one trace per side would miss the errors of the other side's plies.
    """

    def __init__(self, net: Network, alpha: float, lam: float):
        self.net, self.alpha, self.lam = net, alpha, lam

    def _zero_trace(self):
        n = self.net
        return [
            np.zeros((3,) + n.w1.shape, np.float32),
            np.zeros((3,) + n.b1.shape, np.float32),
            np.zeros((3,) + n.w2.shape, np.float32),
            np.zeros((3,) + n.b2.shape, np.float32),
        ]

    def _accumulate(self, trace, x, side):
        """trace = lambda * trace + gradient of White's three values at input ``x`` (a position
        after ``side`` played); returns the network's outputs for ``side``."""
        n = self.net
        h, y = n.forward(x)
        dy = y * (1 - y)  # (3,) d output / d pre-activation
        dh = (n.w2 * dy) * (h * (1 - h))[:, None]  # (H, 3): hidden deltas per output
        gw2 = np.zeros((3,) + n.w2.shape, np.float32)  # gw2[k][:, k] = h * dy[k]
        gb2 = np.zeros((3, 3), np.float32)
        for k in range(3):
            gw2[k][:, k] = h * dy[k]
            gb2[k, k] = dy[k]
        gb1 = dh.T  # (3, H)
        if side != WHITE:  # White's values are flip(y)
            gw2, gb2, gb1, dh = (
                _FLIP_SIGN[:, None, None] * gw2[_FLIP_ORDER],
                _FLIP_SIGN[:, None] * gb2[_FLIP_ORDER],
                _FLIP_SIGN[:, None] * gb1[_FLIP_ORDER],
                dh[:, _FLIP_ORDER] * _FLIP_SIGN,
            )
        for t in trace:
            t *= self.lam
        trace[0] += x[None, :, None] * dh.T[:, None, :]  # (3, N, H)
        trace[1] += gb1
        trace[2] += gw2
        trace[3] += gb2
        return y

    def _learn(self, trace, delta):
        """Move the weights by alpha * (White's TD errors ``delta``, (3,)) . trace."""
        n, a = self.net, self.alpha
        n.w1 += a * np.tensordot(delta, trace[0], axes=1)
        n.b1 += a * (delta @ trace[1])
        n.w2 += a * np.tensordot(delta, trace[2], axes=1)
        n.b2 += a * (delta @ trace[3])

    def play_game(self, rng: random.Random) -> tuple:
        """One self-play game with learning; returns (winner, mars, plies)."""
        net = self.net
        first, dice = opening(rng)
        pos = Position.initial(first)
        trace = self._zero_trace()
        previous = None  # White's values of the position before, as the network said then
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
            if previous is not None:
                # The error of the previous position, now that this play is known.
                y = self.net.forward(x[i])[1]
                now = y if mover == WHITE else flip(y)
                self._learn(trace, now - previous)
            y = self._accumulate(trace, x[i], mover)
            now = y if mover == WHITE else flip(y)
            if pos.winner:
                z = np.array([1.0, float(pos.off(other(mover)) == 0), 0.0], np.float32)
                self._learn(trace, (z if mover == WHITE else flip(z)) - now)
                return mover, pos.off(other(mover)) == 0, plies
            previous = now
            dice = (rng.randint(1, 6), rng.randint(1, 6))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--alpha", type=float, default=0.1)
    ap.add_argument(
        "--alpha-end",
        type=float,
        default=None,
        help="step size at the last game (default: --alpha throughout); the step "
        "falls geometrically from --alpha to it over the run",
    )
    ap.add_argument("--lam", type=float, default=0.7)
    ap.add_argument(
        "--out",
        default=str(WEIGHTS),
        help="where the weights go; '{games}' in it is replaced by the games so far, "
        "keeping every save",
    )
    ap.add_argument("--save-every", type=int, default=5000)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    net = Network(hidden=args.hidden, seed=args.seed)
    trainer = Trainer(net, args.alpha, args.lam)
    started = time.perf_counter()
    wins = mars = plies = 0
    alpha_end = args.alpha if args.alpha_end is None else args.alpha_end
    meta = dict(
        seed=args.seed,
        hidden=args.hidden,
        alpha=args.alpha,
        alpha_end=alpha_end,
        lam=args.lam,
        games_planned=args.games,
    )
    for g in range(1, args.games + 1):
        trainer.alpha = args.alpha * (alpha_end / args.alpha) ** ((g - 1) / max(args.games - 1, 1))
        winner, m, n = trainer.play_game(rng)
        wins += winner == "white"
        mars += m
        plies += n
        if g % 1000 == 0:
            rate = g / (time.perf_counter() - started)
            print(
                f"games={g} games_per_s={rate:.1f} alpha={trainer.alpha:.4f} "
                f"white_wins={wins / 1000:.3f} mars={mars / 1000:.3f} plies={plies / 1000:.1f}",
                file=sys.stderr,
                flush=True,
            )
            wins = mars = plies = 0
        if g % args.save_every == 0 or g == args.games:
            net.save(args.out.format(games=g), games=g, **meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
