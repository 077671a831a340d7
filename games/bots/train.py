"""Train the hard bot's network by TD(lambda) self-play with the project's engine.

    python -m games.bots.train --games 10000 --seed 1 --out games/bots/data/hard.npz

A long run keeps a checkpoint and can be stopped at any time (Ctrl-C or SIGTERM: the game in
play ends, the checkpoint is written, then the process exits) and continued later:

    python -m games.bots.train --games 300000 --seed 2 --checkpoint runs/long
    python -m games.bots.train --resume --checkpoint runs/long

Reproducible: the same seed, games and options give the same weights (numpy and the game
dice both come from the seed; a run's save at game g equals a run of ``--games g``, and a run
stopped and resumed equals one that never stopped: the checkpoint holds the weights, the
dice generator's state and the games played). Each side evaluates every legal play of its roll
by the network (0-ply) and plays the best; after each play the previous position (of either
side) moves towards what the network now says of the new one, through one trace over the game
(see ``Trainer``), and at the end towards the real result (RULES.md R9 with `sport` values:
oin 1, mars 2). ``--init`` starts from saved weights instead of random ones (their SHA-256 is
kept in the run's meta). Progress lines go to standard error and, with a checkpoint, to
``log.jsonl`` beside it; the weights are written every ``--save-every`` games and at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import signal
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from games.engine import WHITE, Position, legal_plays, other

from .features import encode
from .network import WEIGHTS, Network, equity, flip

# flip as a signed permutation of the outputs: output k of flip(y) is a constant plus
# _FLIP_SIGN[k] times output _FLIP_ORDER[k] of y
_FLIP_ORDER = np.array([0, 2, 1])
_FLIP_SIGN = np.array([-1.0, 1.0, 1.0], np.float32)


def opening(rng: random.Random) -> tuple[str, tuple[int, int]]:
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

    def __init__(self, net: Network, alpha: float, lam: float) -> None:
        self.net, self.alpha, self.lam = net, alpha, lam

    def _zero_trace(self) -> list[NDArray[np.float32]]:
        n = self.net
        return [
            np.zeros((3,) + n.w1.shape, np.float32),
            np.zeros((3,) + n.b1.shape, np.float32),
            np.zeros((3,) + n.w2.shape, np.float32),
            np.zeros((3,) + n.b2.shape, np.float32),
        ]

    def _accumulate(
        self, trace: list[NDArray[np.float32]], x: NDArray[np.float32], side: str
    ) -> NDArray[np.float32]:
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

    def _learn(self, trace: list[NDArray[np.float32]], delta: NDArray[np.float32]) -> None:
        """Move the weights by alpha * (White's TD errors ``delta``, (3,)) . trace."""
        n, a = self.net, self.alpha
        n.w1 += a * np.tensordot(delta, trace[0], axes=1)
        n.b1 += a * (delta @ trace[1])
        n.w2 += a * np.tensordot(delta, trace[2], axes=1)
        n.b2 += a * (delta @ trace[3])

    def play_game(self, rng: random.Random) -> tuple[str, bool, int]:
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


#: file names inside a ``--checkpoint`` directory
CHECKPOINT, LOG = "checkpoint.npz", "log.jsonl"
#: the options a resumed run takes from its checkpoint (all that decide the weights)
RUN_OPTIONS = ("games", "seed", "hidden", "alpha", "alpha_end", "lam", "init", "out", "save_every")


class Checkpoint:
    """A run's state in directory ``path``: ``checkpoint.npz`` (the weights, with the run's
    options, the games played and the dice generator's state in its meta) and ``log.jsonl``
    (one JSON object per progress line). Written atomically (a temporary file renamed), so a
    run killed while writing keeps the previous checkpoint."""

    def __init__(self, path: str | Path) -> None:
        self.dir = Path(path)
        self.file = self.dir / CHECKPOINT

    def exists(self) -> bool:
        return self.file.exists()

    def save(self, net: Network, options: dict[str, Any], games: int, rng: random.Random) -> None:
        """Write the weights and the state after ``games`` games."""
        self.dir.mkdir(parents=True, exist_ok=True)
        version, internal, gauss = rng.getstate()
        state = dict(games=games, rng=[version, list(internal), gauss])
        temporary = self.dir / f".{CHECKPOINT}.{os.getpid()}.npz"
        net.save(temporary, options=options, state=state)
        temporary.replace(self.file)

    def load(self) -> tuple[Network, dict[str, Any], int, random.Random]:
        """``(net, options, games, rng)`` as saved. Raises FileNotFoundError without one."""
        net = Network.load(self.file)
        options, state = net.meta["options"], net.meta["state"]
        version, internal, gauss = state["rng"]
        rng = random.Random()
        rng.setstate((version, tuple(internal), gauss))
        net.meta = {}
        return net, options, state["games"], rng

    def log(self, line: dict[str, float]) -> None:
        """Append one progress line."""
        self.dir.mkdir(parents=True, exist_ok=True)
        with (self.dir / LOG).open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")


def sha256(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class _StopRequest:
    """Set by SIGINT or SIGTERM: the run ends after the game in play, with a checkpoint."""

    def __init__(self) -> None:
        self.asked = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.asked = True


def step_size(options: dict[str, Any], game: int) -> float:
    """The TD step of game ``game`` (1-based): falls geometrically from ``alpha`` at the first
    game to ``alpha_end`` at the last planned one."""
    alpha, end, games = options["alpha"], options["alpha_end"], options["games"]
    # the options are JSON or argparse values (Any); the step is a float
    step: float = alpha * (end / alpha) ** ((game - 1) / max(games - 1, 1))
    return step


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    assert __doc__ is not None  # the module's docstring (absent only under python -OO)
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
        "--init",
        default=None,
        help="start from the weights in this file (written by a run or shipped) instead of "
        "random ones; its hidden width is kept unless --hidden asks for more, which widens "
        "it (net2net) without changing what it plays",
    )
    ap.add_argument(
        "--out",
        default=str(WEIGHTS),
        help="where the weights go; '{games}' in it is replaced by the games so far, "
        "keeping every save",
    )
    ap.add_argument("--save-every", type=int, default=5000)
    ap.add_argument(
        "--checkpoint",
        default=None,
        help="a directory for the run's checkpoint (written every --checkpoint-every games "
        "and when the run is stopped) and its log.jsonl",
    )
    ap.add_argument("--checkpoint-every", type=int, default=500)
    ap.add_argument("--progress-every", type=int, default=1000, help="games between progress lines")
    ap.add_argument(
        "--resume",
        action="store_true",
        help="continue the run whose checkpoint is in --checkpoint, with its own options",
    )
    ap.add_argument(
        "--stop-after",
        type=int,
        default=None,
        help="end this process after so many more games (with a checkpoint): a run can be "
        "done in slices",
    )
    args = ap.parse_args(argv)
    if args.resume and not args.checkpoint:
        ap.error("--resume needs --checkpoint (the directory of the run to continue)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    checkpoint = Checkpoint(args.checkpoint) if args.checkpoint else None
    if args.resume:
        assert checkpoint is not None  # parse() refuses --resume without --checkpoint
        if not checkpoint.exists():
            print(f"no checkpoint in {checkpoint.dir}: nothing to resume", file=sys.stderr)
            return 2
        net, options, done, rng = checkpoint.load()
    else:
        if checkpoint is not None and checkpoint.exists():
            print(
                f"{checkpoint.file} exists: continue it with --resume, or choose another "
                "--checkpoint directory",
                file=sys.stderr,
            )
            return 2
        options = {name: getattr(args, name) for name in RUN_OPTIONS}
        if options["alpha_end"] is None:
            options["alpha_end"] = options["alpha"]
        rng = random.Random(args.seed)
        if args.init:
            net = Network.load(args.init)
            net.meta = {}
            if args.hidden > net.b1.shape[0]:
                net = net.widened(args.hidden, seed=args.seed)
            options["init"] = f"{Path(args.init).name} sha256:{sha256(args.init)}"
            options["hidden"] = int(net.b1.shape[0])
        else:
            net = Network(hidden=args.hidden, seed=args.seed)
        done = 0
    meta = dict(
        seed=options["seed"],
        hidden=options["hidden"],
        alpha=options["alpha"],
        alpha_end=options["alpha_end"],
        lam=options["lam"],
        games_planned=options["games"],
        init=options["init"],
    )
    trainer = Trainer(net, options["alpha"], options["lam"])
    stop = _StopRequest()
    previous = [signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)]
    last = (
        options["games"]
        if args.stop_after is None
        else min(options["games"], done + args.stop_after)
    )
    started, since = time.perf_counter(), done
    wins = mars = plies = played = 0  # since the last progress line
    try:
        for g in range(done + 1, last + 1):
            trainer.alpha = step_size(options, g)
            winner, m, n = trainer.play_game(rng)
            played += 1
            wins += winner == "white"
            mars += m
            plies += n
            if g % args.progress_every == 0:
                n_games = played  # fewer than --progress-every after a resume
                elapsed = time.perf_counter() - started
                line = dict(
                    games=g,
                    games_per_s=round((g - since) / elapsed, 2),
                    alpha=round(trainer.alpha, 5),
                    white_wins=wins / n_games,
                    mars=mars / n_games,
                    plies=plies / n_games,
                    cpu_s=round(time.process_time(), 1),
                    load=os.getloadavg()[0],
                )
                print(" ".join(f"{k}={v}" for k, v in line.items()), file=sys.stderr, flush=True)
                if checkpoint is not None:
                    checkpoint.log(line)
                wins = mars = plies = played = 0
            if g % options["save_every"] == 0 or g == options["games"]:
                out = Path(options["out"].format(games=g))
                out.parent.mkdir(parents=True, exist_ok=True)  # a resumed run on a new clone
                net.save(out, games=g, **meta)
            finished = g == last or stop.asked
            if checkpoint is not None and (g % args.checkpoint_every == 0 or finished):
                checkpoint.save(net, options, g, rng)
            if stop.asked:
                print(f"stopped after game {g}; continue with --resume", file=sys.stderr)
                break
    finally:
        for sig, handler in zip((signal.SIGINT, signal.SIGTERM), previous, strict=True):
            signal.signal(sig, handler)
    return 0


if __name__ == "__main__":
    sys.exit(main())
