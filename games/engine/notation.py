"""Move notation (RULES.md Notation): a step is ``from/to`` in the mover's own numbering,
bearing off is ``from/off``, a play is its steps separated by spaces, ``""`` is a pass."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TypeAlias

from .errors import NotationError

OFF = 0

#: a step ``(from, to)`` in the mover's numbering, ``to == OFF`` bearing off
Step: TypeAlias = tuple[int, int]


def format_step(step: Sequence[int]) -> str:
    """``(24, 18)`` -> ``"24/18"``; ``(3, 0)`` -> ``"3/off"``."""
    frm, to = step
    return f"{frm}/{'off' if to == OFF else to}"


def format_play(steps: Iterable[Sequence[int]]) -> str:
    """A sequence of steps -> ``"24/18 18/13"``; no steps -> ``""`` (a pass)."""
    return " ".join(format_step(s) for s in steps)


def parse_step(text: str) -> Step:
    """``"24/18"`` -> ``(24, 18)``, ``"3/off"`` -> ``(3, 0)``.

    Raises NotationError unless ``from`` is 1..24 and ``to`` is 1..23 or ``off``.
    """
    parts = text.strip().split("/")
    if not text.isascii():
        raise NotationError(f"{text!r}: write points with the digits 0-9")
    if len(parts) != 2:
        raise NotationError(f"a step is written from/to, e.g. 24/18; got {text!r}")
    frm_s, to_s = (x.strip() for x in parts)
    if not frm_s.isdigit() or not 1 <= int(frm_s) <= 24:
        raise NotationError(f"{text!r}: the point a checker leaves must be 1 to 24")
    if to_s.lower() == "off":
        return (int(frm_s), OFF)
    if not to_s.isdigit() or not 1 <= int(to_s) <= 23:
        raise NotationError(f"{text!r}: a checker moves to a point from 1 to 23, or off")
    return (int(frm_s), int(to_s))


def parse_play(text: str) -> tuple[Step, ...]:
    """``"24/18 18/13"`` -> ``((24, 18), (18, 13))``; ``""`` -> ``()`` (a pass).

    Commas are accepted as separators too, and spaces around "/". Raises NotationError on a
    malformed step or on more than four steps.
    """
    if not isinstance(text, str):
        raise NotationError("a play must be a string such as '24/18 18/13'")
    tokens = re.sub(r"\s*/\s*", "/", text.replace(",", " ")).split()
    if len(tokens) > 4:
        raise NotationError("a play has at most four steps")
    return tuple(parse_step(t) for t in tokens)
