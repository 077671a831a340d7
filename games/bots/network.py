"""A small multilayer perceptron in numpy: the hard bot's evaluation (TD(lambda) trained).

Outputs, for the side that has just played (RULES.md R9, `sport` values): the chance to win,
to win by mars, and to lose by mars. Its equity in points per game is
``2 * win - 1 + win_mars - lose_mars``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .features import N_INPUTS

WEIGHTS = Path(__file__).with_name("data") / "hard.npz"


def _sigmoid(x: NDArray[np.float32]) -> NDArray[np.float32]:
    # numpy's stubs make float + float32 array float64; at run time (NEP 50) it stays float32
    return 1.0 / (1.0 + np.exp(-x))  # type: ignore[return-value]


def flip(outputs: NDArray[np.float32]) -> NDArray[np.float32]:
    """The same outputs seen by the other side: win <-> loss, mars won <-> mars lost."""
    outputs = np.asarray(outputs)
    return np.stack([1.0 - outputs[..., 0], outputs[..., 2], outputs[..., 1]], axis=-1)


def equity(outputs: NDArray[np.float32]) -> NDArray[np.float32]:
    """Points per game (oin 1, mars 2) for the side the outputs belong to."""
    return 2 * outputs[..., 0] - 1 + outputs[..., 1] - outputs[..., 2]


class Network:
    """``inputs -> hidden (sigmoid) -> 3 outputs (sigmoid)``; weights are float32 arrays."""

    def __init__(self, hidden: int = 64, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.w1: NDArray[np.float32] = (rng.standard_normal((N_INPUTS, hidden)) * 0.1).astype(
            np.float32
        )
        self.b1: NDArray[np.float32] = np.zeros(hidden, dtype=np.float32)
        self.w2: NDArray[np.float32] = (rng.standard_normal((hidden, 3)) * 0.1).astype(np.float32)
        self.b2: NDArray[np.float32] = np.zeros(3, dtype=np.float32)
        self.meta: dict[str, Any] = {}  # JSON

    def evaluate(self, x: NDArray[np.float32]) -> NDArray[np.float32]:
        """(k, N_INPUTS) inputs -> (k, 3) outputs."""
        return _sigmoid(_sigmoid(x @ self.w1 + self.b1) @ self.w2 + self.b2)

    def forward(self, x: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """One input vector -> (hidden, outputs), for training."""
        h = _sigmoid(x @ self.w1 + self.b1)
        return h, _sigmoid(h @ self.w2 + self.b2)

    def widened(self, hidden: int, seed: int = 0) -> Network:
        """The same network with ``hidden`` hidden units (net2net): each new unit copies a
        randomly chosen old one, the copies share its outgoing weights equally, and their
        incoming weights get noise of 1e-3 so that training can tell them apart. The outputs
        stay within about 1e-3 of the original's. Raises ValueError if ``hidden`` is smaller
        than the current width."""
        old = self.b1.shape[0]
        if hidden < old:
            raise ValueError(f"cannot widen {old} hidden units to {hidden}")
        rng = np.random.default_rng(seed)
        source = np.concatenate([np.arange(old), rng.integers(0, old, hidden - old)])
        copies = np.bincount(source, minlength=old).astype(np.float32)
        net = Network.__new__(Network)
        noise = rng.standard_normal((self.w1.shape[0], hidden)) * 1e-3
        noise[:, :old] = 0.0
        net.w1 = (self.w1[:, source] + noise).astype(np.float32)
        net.b1 = self.b1[source].copy()
        net.w2 = (self.w2[source] / copies[source][:, None]).astype(np.float32)
        net.b2 = self.b2.copy()
        net.meta = dict(self.meta)
        return net

    def save(self, path: str | Path, **meta: object) -> None:
        """Write the weights (and ``meta``, e.g. the training seed and games) to ``path``."""
        np.savez_compressed(
            path, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2, meta=np.array(json.dumps(meta))
        )

    @classmethod
    def load(cls, path: str | Path = WEIGHTS) -> Network:
        """Read weights written by ``save``. Raises FileNotFoundError if there are none."""
        data = np.load(path)
        net = cls.__new__(cls)
        net.w1, net.b1, net.w2, net.b2 = (data[k] for k in ("w1", "b1", "w2", "b2"))
        net.meta = json.loads(str(data["meta"]))
        return net
