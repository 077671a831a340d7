"""Game records as text (docs/record-format.md): ``write`` a Record, ``parse`` one, and the
header values the writer needs. The two are inverse on every Record that ``parse`` accepts;
whether the game is legal is ``record_replay``'s question."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .record_model import DOUBLE, MAX_CHARS, MAX_LINES, PLAY, Entry, Record, RecordError, Result

_HEADER = re.compile(r'\[([A-Za-z][A-Za-z ]{0,30}) "([^"\n]*)"\]')
_PLAY = re.compile(r"(\d{1,4}) (white|black) ([1-6])-([1-6])(?: (.*))?")
_CUBE = re.compile(r"(\d{1,4}) (white|black) double (\d{1,12})")
_ACTION = re.compile(r"(\d{1,4}) (white|black) (take|drop|resign|timeout|abandon|abort)")
_RESULT = re.compile(
    r"result (?:(white|black) (oin|mars|koks) (\d{1,3}) "
    r"(bore_off|resign|drop|timeout|abandon)|(aborted))"
)
#: control characters a record may not hold (tab, line feed and carriage return are allowed);
#: a database text column may refuse them (PostgreSQL refuses NUL)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


# --- writing -------------------------------------------------------------------------------


def clean_header_value(value: object) -> str:
    """A header value that the format can hold: no double quotes or line breaks."""
    return " ".join(str(value).replace('"', "'").split())


def write(record: Record) -> str:
    """The record as text: headers, a blank line, one line per entry, the result line."""
    lines = [f'[{name} "{clean_header_value(value)}"]' for name, value in record.headers]
    lines.append("")
    lines.extend(entry.text() for entry in record.entries)
    if record.result is not None:
        lines.append(f"result {record.result.text()}")
    return "\n".join(lines) + "\n"


def opening_text(pairs: Sequence[Sequence[int]], starter: str | None = None) -> str:
    """The Opening header: roll-off rolls ``[(white, black), …]`` as ``"3-3 6-5"``, or
    ``"white starts"`` when ``pairs`` is empty (a match game started by the previous winner)."""
    if pairs:
        return " ".join(f"{w}-{b}" for w, b in pairs)
    return f"{starter} starts"


# --- parsing -------------------------------------------------------------------------------


def parse(text: str) -> Record:
    """Read a record. Raises RecordError (with the line number) for a line that is neither a
    header, a turn line, the result line, a comment (``#``) nor blank, for headers after the
    first turn line, for anything after the result line, and for text too long to be a game."""
    if not isinstance(text, str):
        raise RecordError(0, "a record is text", "not_text")
    if len(text) > MAX_CHARS:
        raise RecordError(
            0,
            f"the record is longer than {MAX_CHARS} characters",
            "too_long",
            params={"limit": MAX_CHARS},
        )
    text = text.removeprefix("\ufeff")  # a byte-order mark left by some editors
    control = _CONTROL.search(text)
    if control:
        # line breaks before it are only \n, \r, \r\n and the Unicode ones: count as parse does
        number = len((text[: control.start()] + "x").splitlines())
        char = f"U+{ord(control[0]):04X}"
        raise RecordError(
            number,
            f"a record is plain text: the control character {char} is not allowed",
            "control_character",
            params={"char": char},
        )
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise RecordError(
            0,
            f"the record has more than {MAX_LINES} lines",
            "too_many_lines",
            params={"limit": MAX_LINES},
        )
    record = Record()
    in_body = False
    for number, raw in enumerate(lines, start=1):
        line = " ".join(raw.split())
        if not line or line.startswith("#"):
            continue
        if record.result is not None:
            raise RecordError(number, "nothing may follow the result line", "after_result")
        if line.startswith("["):
            if in_body:
                raise RecordError(
                    number, "headers must come before the first turn line", "header_after_turns"
                )
            match = _HEADER.fullmatch(line)
            if not match:
                raise RecordError(number, 'a header is written [Name "value"]', "header_format")
            record.headers.append((match[1], match[2]))
            record.header_lines[match[1]] = number
            continue
        in_body = True
        lowered = line.lower()
        if lowered.startswith("result"):
            match = _RESULT.fullmatch(lowered)
            if not match:
                raise RecordError(
                    number,
                    "the result line is written 'result <winner> "
                    "<oin|mars|koks> <points> <bore_off|resign|drop|timeout|"
                    "abandon>', or 'result aborted'",
                    "result_format",
                )
            if match[5]:
                record.result = Result.aborted(line=number)
            else:
                record.result = Result(match[1], match[2], int(match[3]), match[4], line=number)
            continue
        record.entries.append(_parse_entry(line, number))
    return record


def _parse_entry(line: str, number: int) -> Entry:
    lowered = line.lower()
    match = _CUBE.fullmatch(lowered)
    if match:
        return Entry(int(match[1]), match[2], DOUBLE, cube=int(match[3]), line=number)
    match = _ACTION.fullmatch(lowered)
    if match:
        return Entry(int(match[1]), match[2], match[3], line=number)
    match = _PLAY.fullmatch(lowered)
    if match:
        play = (match[5] or "").strip()
        if not play:
            raise RecordError(number, "a turn line ends with the play or 'pass'", "play_missing")
        if play == "pass":
            play = ""
        return Entry(
            int(match[1]),
            match[2],
            PLAY,
            dice=(int(match[3]), int(match[4])),
            play=play,
            line=number,
        )
    raise RecordError(
        number,
        "a turn line is written '<number> <white|black> <die>-<die> "
        "<play|pass>' (or 'double <value>', 'take', 'drop', 'resign', 'timeout', "
        "'abandon', 'abort')",
        "turn_format",
    )
