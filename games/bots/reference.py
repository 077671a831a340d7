"""The fixed reference opponent (issue #17, docs/bots.md "Reference"): the hard level as it
stood on 2026-12-02, kept so that every later claim of strength is measured against the same
opponent. Its network is ``data/reference.npz``, a copy of that day's ``hard.npz`` that is
never retrained (``REFERENCE_SHA256`` guards it); its search is that day's hard search with its
parameters frozen here: 0-ply, then one roll deeper on the best ``CANDIDATES`` plays within
``MARGIN`` points, at most ``TIME_CAP_S``. It reads positions with ``features.encode`` and looks
ahead with ``neural.choose_with``: a change to either must keep the old behaviour for this
network. Not offered to players: ``choose_play(..., level="reference")`` is for the arena and
the tests.
"""

from __future__ import annotations

import functools
from pathlib import Path

from .network import Network
from .neural import choose_with

#: the reference network, and the SHA-256 of the file as it was copied
REFERENCE_WEIGHTS = Path(__file__).with_name("data") / "reference.npz"
REFERENCE_SHA256 = "a3e0e07734282a4d0ac223fa8ef1714bd6f8673ab42c5cd62d4ed45548214d85"
#: the hard search of 2026-12-02
CANDIDATES = 4
MARGIN = 0.25
TIME_CAP_S = 0.6


@functools.lru_cache(maxsize=1)
def network() -> Network:
    """The reference network, loaded once per process."""
    return Network.load(REFERENCE_WEIGHTS)


def choose_reference(position, dice, plays):
    """The reference's choice among ``plays`` (the legal plays of ``dice`` in ``position``)."""
    return choose_with(network(), position, plays, CANDIDATES, MARGIN, TIME_CAP_S)
