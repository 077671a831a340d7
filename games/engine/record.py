"""Game records as text (docs/record-format.md): a writer, a parser and a replay that checks
every line with the engine (RULES.md R3–R11, Notation). Pure Python, standard library only.

A record is a block of headers (``[Name "value"]``) followed by one line per turn::

    [Event "Long nardy game"]
    [Preset "classic"]
    [Cube "on"]
    [Opening "3-3 6-5"]
    [Result "black oin 2 drop"]

    1 white 6-5 24/18 18/13
    2 black 4-4 24/20 24/20 20/16 20/16
    3 white double 2
    3 black take
    3 white 2-1 pass
    ...
    result black oin 2 drop

A game with a clock (header ``Clock``) may also end by ``N side timeout`` (the side ran out of
time) or ``N side abandon`` (it left and did not come back, or the opponent claimed the win),
both scored like a resignation. Any game may be aborted with no result (``N side abort``: the
side left before its first play, by resigning, dropping, leaving or not moving in time; result
line ``result aborted``).

``write(record)`` and ``parse(text)`` are inverse on every Record that ``parse`` accepts;
``replay(record)`` plays the record through the engine and returns every position, or raises
RecordError naming the line and the rule broken.

This module is the records' public face; the work is done in three modules beside it:
``record_model`` (the line kinds, Entry, Result, Record, RecordError), ``record_text`` (write
and parse) and ``record_replay`` (Frame, Replay, ruleset_of, replay).
"""

from .position import SIDES
from .record_model import (
    ABANDON,
    ABORT,
    ABORTED,
    BORE_OFF,
    CLOCK_KINDS,
    CUBE_VALUES,
    DOUBLE,
    DROP,
    KINDS,
    KNOWN_HEADERS,
    LOSS_KINDS,
    MAX_CHARS,
    MAX_LINES,
    PLAY,
    REASONS,
    RESIGN,
    TAKE,
    TIMEOUT,
    Entry,
    Record,
    RecordError,
    Result,
)
from .record_replay import Frame, Replay, replay, ruleset_of
from .record_text import clean_header_value, opening_text, parse, write

__all__ = [
    "ABANDON",
    "ABORT",
    "ABORTED",
    "BORE_OFF",
    "CLOCK_KINDS",
    "CUBE_VALUES",
    "DOUBLE",
    "DROP",
    "Entry",
    "Frame",
    "KINDS",
    "KNOWN_HEADERS",
    "LOSS_KINDS",
    "MAX_CHARS",
    "MAX_LINES",
    "PLAY",
    "REASONS",
    "RESIGN",
    "Record",
    "RecordError",
    "Replay",
    "Result",
    "SIDES",
    "TAKE",
    "TIMEOUT",
    "clean_header_value",
    "opening_text",
    "parse",
    "replay",
    "ruleset_of",
    "write",
]
