"""What a game record holds (docs/record-format.md): the line kinds and limits, the turn
``Entry``, the ``Result``, the parsed ``Record`` and ``RecordError``. The text itself is read
and written by ``record_text``, checked against the rules by ``record_replay``; callers import
all of it from ``games.engine.record``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import overload

from .errors import EngineError
from .scoring import KOKS, MARS, OIN

PLAY, DOUBLE, TAKE, DROP, RESIGN = "play", "double", "take", "drop", "resign"
TIMEOUT, ABANDON, ABORT = "timeout", "abandon", "abort"
BORE_OFF = "bore_off"
#: how a game with a result ended (the result line's last word)
REASONS = (BORE_OFF, RESIGN, DROP, TIMEOUT, ABANDON)
#: the result "line" of a game aborted without a result: ``result aborted``
ABORTED = "aborted"
#: lines that end the game with the named side losing (or, for abort, not showing up)
LOSS_KINDS = (RESIGN, TIMEOUT, ABANDON)
#: lines that need a clock: only a game with a clock runs out of time or waits for a player
CLOCK_KINDS = (TIMEOUT, ABANDON, ABORT)
KINDS = (OIN, MARS, KOKS)
CUBE_VALUES = (2, 4, 8, 16, 32, 64)
MAX_LINES = 2000
MAX_CHARS = 100_000

#: the headers the record modules read, in the order the writer puts them; others are kept as text
KNOWN_HEADERS = (
    "Event",
    "Site",
    "Date",
    "White",
    "Black",
    "Preset",
    "Koks",
    "Cube",
    "Match length",
    "Match score",
    "Game",
    "Clock",
    "Opening",
    "Seed hash",
    "Seed",
    "Result",
)


class RecordError(EngineError):
    """A record that cannot be read or is not a legal game: ``line`` is the 1-based line number
    (0 when the record as a whole is wrong), ``reason`` says what is wrong in English words.

    ``code`` names the fault so that a caller can say it in another language: the engine's
    rule code when the engine refused a play (e.g. ``head``; ``cause`` is then the engine's
    error), else one of the record codes (``turn_number``, ``game_over``, ``unknown_preset``,
    …; see ``raise RecordError`` in ``record_text`` and ``record_replay``). ``params`` holds
    the values the reason names (e.g. ``{"expected": 1, "got": 2}``); a side is ``"white"``
    or ``"black"``.
    """

    def __init__(
        self,
        line: int,
        reason: str,
        code: str = "record",
        cause: EngineError | None = None,
        params: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(f"line {line}: {reason}" if line else reason)
        self.line = line
        self.reason = reason
        self.code = code
        self.cause = cause
        self.params = dict(params or {})


@dataclass(frozen=True)
class Entry:
    """One turn line: ``n`` the turn number, ``side``, ``kind`` (play, double, take, drop,
    resign, timeout, abandon, abort; for the last three ``side`` is the side that lost or did
    not show up); for a play ``dice`` ``(a, b)`` and ``play`` (mover's notation, "" for a
    pass); for a double ``cube`` the value offered. ``line`` is where it stood in the text (0
    if built)."""

    n: int
    side: str
    kind: str
    dice: tuple[int, int] | None = None
    play: str | None = None
    cube: int | None = None
    line: int = field(default=0, compare=False)

    def text(self) -> str:
        """The entry as a record line."""
        if self.kind == PLAY:
            assert self.dice is not None  # a play has its dice (see the class docstring)
            return f"{self.n} {self.side} {self.dice[0]}-{self.dice[1]} {self.play or 'pass'}"
        if self.kind == DOUBLE:
            return f"{self.n} {self.side} double {self.cube}"
        return f"{self.n} {self.side} {self.kind}"


@dataclass(frozen=True)
class Result:
    """How the game ended (RULES.md R9, R10): ``winner``, ``kind`` (oin/mars/koks), ``points``
    (with the cube) and ``reason`` (bore_off, resign, drop, timeout, abandon). An aborted game
    has no result: ``Result.aborted()``, with ``winner`` and ``kind`` None, ``points`` 0 and
    ``reason`` "aborted"."""

    winner: str | None
    kind: str | None
    points: int
    reason: str
    line: int = field(default=0, compare=False)

    @classmethod
    def aborted(cls, line: int = 0) -> Result:
        """The "result" of a game aborted before a side's first move (a no-show)."""
        return cls(None, None, 0, ABORTED, line=line)

    @property
    def is_aborted(self) -> bool:
        return self.reason == ABORTED

    def text(self) -> str:
        """As on the result line after ``result``: ``black oin 2 drop`` or ``aborted``."""
        if self.is_aborted:
            return ABORTED
        return f"{self.winner} {self.kind} {self.points} {self.reason}"


@dataclass
class Record:
    """A parsed record: ``headers`` as ``[(name, value), …]`` in order, the turn ``entries``,
    and the final ``result`` (None for a game still going on)."""

    headers: list[tuple[str, str]] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    result: Result | None = None
    header_lines: dict[str, int] = field(default_factory=dict, compare=False)

    @overload
    def header(self, name: str) -> str | None: ...
    @overload
    def header(self, name: str, default: str) -> str: ...
    def header(self, name: str, default: str | None = None) -> str | None:
        """The value of header ``name`` (the last one if repeated), or ``default``."""
        for key, value in reversed(self.headers):
            if key == name:
                return value
        return default
