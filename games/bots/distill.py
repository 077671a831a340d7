"""Supervised training on positions labelled by a deeper search (issue #17, docs/bots.md
"Distillation"): the network learns what its own 1-ply look-ahead says, gnubg's way of
training on positions evaluated more deeply than the network itself can.

    python -m games.bots.distill label --positions 200000 --seed 3 --data runs/d1
    python -m games.bots.distill fit --data runs/d1 --init games/bots/data/hard.npz --out new.npz

``label`` plays games of the network against itself (0-ply, with a little exploration: a
``EXPLORE`` share of plays is one of the best three instead of the best) and keeps every
position after a play, seen by the side that played it, with its **1-ply target**: for each of
the opponent's 21 rolls the reply the network picks, its three outputs turned to the side that
played (``flip``), averaged over the 36 outcomes (a reply that bears off the last checker counts
its exact result). Positions go to shards of ``SHARD`` positions, each made from its own seed,
so a run stopped at any time is continued by running the same command again: finished shards
are kept, the rest are made. Reproducible from the seed and the network.

``fit`` trains the three outputs on the shards (cross-entropy of each sigmoid output, Adam,
minibatches), from ``--init``'s weights, holding every twentieth position out to report the
error on positions it did not learn from. Pure numpy; no Django.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from games.engine import Position, legal_plays, other

from .features import encode
from .network import Network, equity, flip
from .search import ROLLS, boards, replies
from .search import values as search_values
from .train import opening, sha256

#: positions per shard file
SHARD = 2000
#: the share of self-play plays chosen among the best three instead of the best
EXPLORE = 0.1
#: afters labelled in one batch (their replies evaluated together)
BATCH = 32
_WEIGHTS = np.array([w for _dice, w in ROLLS], np.float32) / 36


def final_outputs(result: Position, mover: str) -> NDArray[np.float32]:
    """The exact outputs of a finished game for ``mover``, who has just borne off its last
    checker in ``result``: it won, by mars when the other side has none off."""
    return np.array([1.0, float(result.off(other(mover)) == 0), 0.0], np.float32)


def one_ply_targets(net: Network, afters: Sequence[Position], mover: str) -> NDArray[np.float32]:
    """(k, 3) float32: the 1-ply outputs of the positions ``afters`` for ``mover`` (the side that
    has just played in each): for every opponent roll, the outputs of the reply the network
    picks (best 0-ply equity for the opponent), turned to ``mover``, averaged over the 36
    outcomes."""
    them = other(mover)
    results, rows = replies(afters)
    spans = [span for row in rows for span in row]
    outputs = net.evaluate(encode(boards(results, them), boards(results, mover)))
    values = equity(outputs)
    picked = np.empty((len(spans), 3), np.float32)
    for j, (a, b) in enumerate(spans):
        i = a + int(np.argmax(values[a:b]))
        reply = results[i]
        picked[j] = final_outputs(reply, them) if reply.winner else outputs[i]
    ours = flip(picked).reshape(len(afters), len(ROLLS), 3)
    targets: NDArray[np.float32] = np.einsum("krc,r->kc", ours, _WEIGHTS).astype(np.float32)
    return targets


def self_play_positions(net: Network, rng: random.Random, count: int) -> list[tuple[str, Position]]:
    """``count`` positions (or a few more: whole games) of the network against itself: a list of
    ``(mover, position after its play)``, the game not over."""
    found: list[tuple[str, Position]] = []
    while len(found) < count:
        first, dice = opening(rng)
        position = Position.initial(first)
        while True:
            mover = position.turn
            plays = legal_plays(position, dice)
            won = [p for p in plays if p.result.winner]
            if won:
                break
            if len(plays) == 1:
                choice = plays[0]
            else:
                results = [p.result for p in plays]
                values = search_values(net, mover, results, position.board(other(mover)))
                order = np.argsort(-values, kind="stable")
                explore = rng.random() < EXPLORE
                choice = plays[
                    int(order[rng.randrange(min(3, len(plays)))] if explore else order[0])
                ]
            position = choice.result
            found.append((mover, position))
            dice = (rng.randint(1, 6), rng.randint(1, 6))
    return found


def label_shard(
    net: Network, seed: int
) -> tuple[NDArray[np.int8], NDArray[np.int8], NDArray[np.float32]]:
    """One shard: ``SHARD`` positions of self-play from ``seed`` with their 1-ply targets, as
    ``(mine, theirs, targets)``: int8 (k, 25) boards of the side that played and of the other
    side (each in its own numbering) and float32 (k, 3)."""
    rng = random.Random(seed)
    positions = self_play_positions(net, rng, SHARD)[:SHARD]
    mine = np.zeros((SHARD, 25), np.int8)
    theirs = np.zeros((SHARD, 25), np.int8)
    targets = np.zeros((SHARD, 3), np.float32)
    by_side: dict[str, list[int]] = {"white": [], "black": []}
    for i, (mover, position) in enumerate(positions):
        mine[i] = position.board(mover)
        theirs[i] = position.board(other(mover))
        by_side[mover].append(i)
    for mover, indices in by_side.items():
        for start in range(0, len(indices), BATCH):
            chunk = indices[start : start + BATCH]
            afters = [positions[i][1] for i in chunk]
            targets[chunk] = one_ply_targets(net, afters, mover)
    return mine, theirs, targets


def label(args: argparse.Namespace) -> int:
    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    net = Network.load(args.init)
    meta = {"seed": args.seed, "init": f"{Path(args.init).name} sha256:{sha256(args.init)}"}
    meta_file = data / "meta.json"
    if meta_file.exists() and json.loads(meta_file.read_text()) != meta:
        print(
            f"{data} holds shards of another seed or network: choose another --data",
            file=sys.stderr,
        )
        return 2
    meta_file.write_text(json.dumps(meta))
    shards = -(-args.positions // SHARD)
    for index in range(shards):
        path = data / f"shard-{index:05d}.npz"
        if path.exists():
            continue
        started, cpu = time.perf_counter(), time.process_time()
        mine, theirs, targets = label_shard(net, _shard_seed(args.seed, index))
        temporary = data / f".{path.name}.tmp.npz"
        np.savez_compressed(temporary, mine=mine, theirs=theirs, targets=targets)
        temporary.replace(path)
        print(
            f"shard={index + 1}/{shards} positions={SHARD} "
            f"s={time.perf_counter() - started:.1f} cpu_s={time.process_time() - cpu:.1f}",
            file=sys.stderr,
            flush=True,
        )
    return 0


def _shard_seed(seed: int, index: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{index}".encode()).digest()[:8], "big")


def load_data(data: str | Path) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Inputs (n, N_INPUTS) and targets (n, 3) of every shard in ``data``, in shard order."""
    xs, ts = [], []
    for path in sorted(Path(data).glob("shard-*.npz")):
        shard = np.load(path)
        xs.append(encode(shard["mine"].astype(np.float32), shard["theirs"].astype(np.float32)))
        ts.append(shard["targets"])
    if not xs:
        raise FileNotFoundError(f"no shards in {data}")
    return np.concatenate(xs), np.concatenate(ts)


def _sigmoid(z: NDArray[np.float32]) -> NDArray[np.float32]:
    # numpy's stubs make float + float32 array float64; at run time (NEP 50) it stays float32
    return 1.0 / (1.0 + np.exp(-z))  # type: ignore[return-value]


def cross_entropy(y: NDArray[np.float32], t: NDArray[np.float32]) -> float:
    """Mean cross-entropy of outputs ``y`` against targets ``t`` (both (n, 3), in 0..1)."""
    y = np.clip(y, 1e-6, 1 - 1e-6)
    return float(-np.mean(t * np.log(y) + (1 - t) * np.log(1 - y)))


def fit(
    net: Network,
    x: NDArray[np.float32],
    t: NDArray[np.float32],
    epochs: int,
    rate: float,
    batch: int,
    rng: np.random.Generator,
    log: Callable[[int, float], None] | None = None,
) -> None:
    """Train ``net`` in place on inputs ``x`` and targets ``t`` with Adam (step ``rate``) over
    ``epochs`` passes in minibatches of ``batch``, shuffled by ``rng`` (a numpy Generator).
    Calls ``log(epoch, training loss)`` after each pass."""
    params = [net.w1, net.b1, net.w2, net.b2]
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    beta1, beta2, eps, step = 0.9, 0.999, 1e-8, 0
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(x))
        total = 0.0
        for start in range(0, len(x), batch):
            rows = order[start : start + batch]
            xb, tb = x[rows], t[rows]
            h = _sigmoid(xb @ net.w1 + net.b1)
            y = _sigmoid(h @ net.w2 + net.b2)
            total += cross_entropy(y, tb) * len(rows)
            dz2 = (y - tb) / len(rows)  # cross-entropy through a sigmoid
            dz1 = (dz2 @ net.w2.T) * h * (1 - h)
            grads = [xb.T @ dz1, dz1.sum(axis=0), h.T @ dz2, dz2.sum(axis=0)]
            step += 1
            for p, g, m, v in zip(params, grads, first, second, strict=True):
                m *= beta1
                m += (1 - beta1) * g
                v *= beta2
                v += (1 - beta2) * g * g
                m_hat = m / (1 - beta1**step)
                v_hat = v / (1 - beta2**step)
                p -= (rate * m_hat / (np.sqrt(v_hat) + eps)).astype(p.dtype)
        if log is not None:
            log(epoch, total / len(x))


def fit_command(args: argparse.Namespace) -> int:
    x, t = load_data(args.data)
    held = np.arange(len(x)) % 20 == 0
    net = Network.load(args.init)
    before = cross_entropy(net.evaluate(x[held]), t[held])
    print(
        f"positions={len(x)} held_out={int(held.sum())} held_loss_before={before:.5f}",
        file=sys.stderr,
    )
    started = time.perf_counter()

    def log(epoch: int, loss: float) -> None:
        held_loss = cross_entropy(net.evaluate(x[held]), t[held])
        print(
            f"epoch={epoch} loss={loss:.5f} held_loss={held_loss:.5f} "
            f"s={time.perf_counter() - started:.0f}",
            file=sys.stderr,
            flush=True,
        )

    fit(
        net,
        x[~held],
        t[~held],
        args.epochs,
        args.rate,
        args.batch,
        np.random.default_rng(args.seed),
        log,
    )
    meta = json.loads((Path(args.data) / "meta.json").read_text())
    net.save(
        args.out,
        distilled_from=meta,
        positions=int((~held).sum()),
        epochs=args.epochs,
        rate=args.rate,
        batch=args.batch,
        seed=args.seed,
        init=f"{Path(args.init).name} sha256:{sha256(args.init)}",
        held_loss=cross_entropy(net.evaluate(x[held]), t[held]),
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    assert __doc__ is not None  # the module's docstring (absent only under python -OO)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = ap.add_subparsers(dest="command", required=True)
    lab = commands.add_parser("label", help="self-play positions with their 1-ply targets")
    lab.add_argument("--positions", type=int, default=200_000)
    lab.add_argument("--seed", type=int, default=1)
    lab.add_argument("--init", default="games/bots/data/hard.npz", help="the labelling network")
    lab.add_argument("--data", required=True, help="the folder of the shards")
    fitting = commands.add_parser("fit", help="train a network on the labelled shards")
    fitting.add_argument("--data", required=True)
    fitting.add_argument("--init", default="games/bots/data/hard.npz")
    fitting.add_argument("--out", required=True)
    fitting.add_argument("--epochs", type=int, default=10)
    fitting.add_argument("--rate", type=float, default=1e-3)
    fitting.add_argument("--batch", type=int, default=256)
    fitting.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    return label(args) if args.command == "label" else fit_command(args)


if __name__ == "__main__":
    sys.exit(main())
