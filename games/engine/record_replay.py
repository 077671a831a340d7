"""Replaying a game record through the engine (docs/record-format.md; RULES.md R3–R11): the
headers (preset and table options, match length, the opening roll-off, the revealed seed) and
every turn line are checked, and each position is returned as a ``Frame``; a record that is
not a legal game raises ``RecordError`` naming the line and the rule broken."""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import fairdice
from .errors import EngineError
from .movegen import check_dice, check_play
from .position import BLACK, WHITE, Position, other
from .record_model import (
    ABORT,
    ABORTED,
    BORE_OFF,
    CLOCK_KINDS,
    CUBE_VALUES,
    DOUBLE,
    DROP,
    PLAY,
    RESIGN,
    TAKE,
    TIMEOUT,
    Entry,
    Record,
    RecordError,
    Result,
)
from .rules import PLAY_OPENING_DICE, PRESETS, Ruleset, get_ruleset
from .scoring import OIN, game_value

_PAIR = re.compile(r"([1-6])-([1-6])")
_STARTS = re.compile(r"(white|black) starts")
_ASCII_NUMBER = re.compile(r"[0-9]{1,6}")


@dataclass
class Frame:
    """One step of a replay: ``kind`` (start, roll, play, double, take, drop, resign, timeout,
    abandon, abort, end),
    the turn number ``n``, ``side``, ``dice``, ``play``, the ``position`` after the step, the
    cube (``cube_value``, ``cube_owner``) and the record ``line`` it comes from."""

    kind: str
    position: Position
    n: int | None = None
    side: str | None = None
    dice: tuple[int, int] | None = None
    play: str | None = None
    cube_value: int = 1
    cube_owner: str | None = None
    line: int = 0


@dataclass
class Replay:
    """What ``replay`` found: the ``frames``, the ruleset, the ``result`` the record leads to
    (None while unfinished; ``Result.aborted()`` for an aborted game), the opening
    ``starter``, and the dice check: ``dice_verified`` is None without a Seed header, else
    whether every roll equals the seed's, and ``dice_mismatch_line`` the first line that does
    not."""

    frames: list[Frame]
    ruleset: Ruleset
    result: Result | None
    starter: str
    match_length: int
    dice_verified: bool | None = None
    dice_mismatch_line: int | None = None


def _on_off(record: Record, name: str) -> bool | None:
    value = record.header(name)
    if value is None:
        return None
    lowered = value.strip().lower()
    if lowered not in ("on", "off"):
        raise RecordError(
            record.header_lines.get(name, 0),
            f'{name} is "on" or "off", not {value!r}',
            "on_off",
            params={"name": name, "value": value},
        )
    return lowered == "on"


def _opening(
    record: Record, ruleset: Ruleset, match_length: int
) -> tuple[list[tuple[int, int]], str]:
    """``(pairs, starter)`` from the Opening header. ``"<side> starts"`` (no roll-off) is
    allowed only in a match game after the first, started by the previous game's winner (R11);
    every other game begins with the R3 roll-off."""
    value = record.header("Opening")
    line = record.header_lines.get("Opening", 0)
    if value is None:
        raise RecordError(
            0, 'the record needs an Opening header ("6-5", or "white starts")', "opening_missing"
        )
    value = " ".join(value.lower().split())
    starts = _STARTS.fullmatch(value)
    if starts:
        game = (record.header("Game") or "").strip()
        later_game = _ASCII_NUMBER.fullmatch(game) is not None and int(game) >= 2
        if ruleset.name != "match" or match_length < 2 or not later_game:
            raise RecordError(
                line,
                f'"{starts[1]} starts" is only for a match game after the '
                "first (R11): this game begins with the roll-off (R3)",
                "opening_starts",
                params={"side": starts[1]},
            )
        return [], starts[1]
    pairs: list[tuple[int, int]] = []
    for token in value.split():
        match = _PAIR.fullmatch(token)
        if not match:
            raise RecordError(
                line,
                "the Opening header lists the roll-off as white-black dice, "
                'e.g. "3-3 6-5", or says "white starts"',
                "opening_format",
            )
        pairs.append((int(match[1]), int(match[2])))
    if not pairs:
        raise RecordError(line, "the Opening header is empty", "opening_empty")
    if any(w != b for w, b in pairs[:-1]):
        raise RecordError(
            line, "only equal dice are rolled again in the opening (R3)", "opening_reroll"
        )
    white, black = pairs[-1]
    if white == black:
        raise RecordError(line, "the opening ends with unequal dice (R3)", "opening_unequal")
    return pairs, WHITE if white > black else BLACK


def ruleset_of(record: Record) -> Ruleset:
    """The engine Ruleset a record is played under: the Preset header with Koks/Cube."""
    preset = record.header("Preset")
    if preset is None:
        raise RecordError(
            0, 'the record needs a Preset header ("sport", "classic" or "match")', "preset_missing"
        )
    table: dict[str, bool] = {}
    for name in ("Koks", "Cube"):
        value = _on_off(record, name)
        if value is not None:
            table[name.lower()] = value
    name = preset.strip().lower()
    line = record.header_lines.get("Preset", 0)
    if name not in PRESETS:
        raise RecordError(
            line,
            f"unknown ruleset {preset!r}; expected one of: {', '.join(PRESETS)}",
            "unknown_preset",
            params={"preset": preset},
        )
    try:
        return get_ruleset(name, table)
    except EngineError as exc:
        # the only table options a record names are Koks and Cube, which only classic has
        raise RecordError(line, str(exc), "preset_option", params={"preset": name}) from None


def replay(record: Record) -> Replay:
    """Play ``record`` through the engine from the start position (R2).

    Checks the headers (preset, table options, match length, opening roll-off R3), every turn
    line in order (the side to move, the turn number, the dice, the play by RULES.md R4–R8 via
    ``check_play``, the cube R10: only at a table with the cube, before the roll, by the side
    that may turn it, doubled values, take/drop by the other side), the clock lines (timeout,
    abandon, abort: see ``_check_clock_line``; a timeout or abandon is scored like a
    resignation, an abort has no result), that nothing follows the end
    of the game, and that the result line (and Result header, if any) equals the value the
    engine gives (R9, R10). When the Seed header is present its SHA-256 must equal Seed hash,
    and every roll is compared with the seed's (``Replay.dice_verified``).
    Raises RecordError with the line number and the reason; returns a Replay.
    """
    ruleset = ruleset_of(record)
    length_text = record.header("Match length", "1").strip()
    # ASCII digits only: str.isdigit() also takes "³", which int() refuses
    if not _ASCII_NUMBER.fullmatch(length_text) or int(length_text) not in ruleset.match_lengths:
        lengths = ", ".join(map(str, ruleset.match_lengths))
        raise RecordError(
            record.header_lines.get("Match length", 0),
            f"a {ruleset.name} match is played to {lengths} points, not {length_text!r}",
            "match_length",
            params={"preset": ruleset.name, "lengths": lengths, "value": length_text},
        )
    match_length = int(length_text)
    pairs, starter = _opening(record, ruleset, match_length)
    seed_check = _seed(record)

    position = Position.initial(starter)
    frames = [Frame("start", position)]
    cube, owner, offer = 1, None, None
    expected_n = 1
    ended: tuple[str | None, str] | None = None  # (winner, reason) once the game is over
    opening_dice = sorted(pairs[-1], reverse=True) if pairs else None
    roll_n = len(pairs)
    mismatch = None
    if seed_check is not None:
        for n, pair in enumerate(pairs):
            if fairdice.roll(seed_check, n) != list(pair):
                mismatch = record.header_lines.get("Opening", 0)
                break
    plays_seen = 0
    played = {WHITE: 0, BLACK: 0}

    for entry in record.entries:
        line = entry.line
        if ended:
            raise RecordError(line, "the game is already over", "game_over")
        if entry.n != expected_n:
            raise RecordError(
                line,
                f"this is turn {expected_n}, not {entry.n}",
                "turn_number",
                params={"expected": expected_n, "got": entry.n},
            )
        if entry.kind == PLAY:
            if offer:
                raise RecordError(
                    line,
                    f"{other(offer)} must first take or drop the double",
                    "answer_double",
                    params={"side": other(offer)},
                )
            if entry.side != position.turn:
                raise RecordError(
                    line,
                    f"it is {position.turn}'s turn",
                    "not_turn",
                    params={"side": position.turn},
                )
            try:
                dice = check_dice(entry.dice or ())  # a built Entry may lack them
            except EngineError as exc:  # the line pattern admits 1-6 only; kept as a guard
                raise RecordError(line, str(exc), "dice") from None
            if plays_seen == 0 and opening_dice and ruleset.opening == PLAY_OPENING_DICE:
                if sorted(dice, reverse=True) != opening_dice:
                    raise RecordError(
                        line,
                        "the first player plays the opening dice "
                        f"{opening_dice[0]}-{opening_dice[1]} (R3)",
                        "opening_dice",
                        params={"dice": f"{opening_dice[0]}-{opening_dice[1]}"},
                    )
            else:
                # a roll is the same in either written order (6-5 is 5-6)
                if (
                    seed_check is not None
                    and mismatch is None
                    and sorted(fairdice.roll(seed_check, roll_n)) != sorted(dice)
                ):
                    mismatch = line
                roll_n += 1
            frames.append(
                Frame("roll", position, entry.n, entry.side, dice, None, cube, owner, line)
            )
            assert entry.play is not None  # a play line has its play ("" for a pass)
            try:
                chosen = check_play(position, dice, entry.play, ruleset)
            except EngineError as exc:
                raise RecordError(line, str(exc), getattr(exc, "code", "notation"), exc) from None
            position = chosen.result
            plays_seen += 1
            played[entry.side] += 1
            frames.append(
                Frame(PLAY, position, entry.n, entry.side, dice, chosen.notation, cube, owner, line)
            )
            expected_n += 1
            if position.winner:
                ended = (position.winner, BORE_OFF)
        elif entry.kind == DOUBLE:
            if not ruleset.cube:
                raise RecordError(line, "this table has no doubling cube (R10)", "no_cube")
            assert entry.cube is not None  # a double line has the value offered
            if entry.cube > CUBE_VALUES[-1]:
                raise RecordError(
                    line,
                    f"the cube stops at {CUBE_VALUES[-1]}: no double offers {entry.cube} (R10)",
                    "cube_limit",
                    params={"value": entry.cube, "limit": CUBE_VALUES[-1]},
                )
            if offer:
                raise RecordError(line, "a double is already offered", "double_pending")
            if entry.side != position.turn:
                raise RecordError(
                    line,
                    f"only {position.turn}, the side to move, may double now",
                    "double_not_mover",
                    params={"side": position.turn},
                )
            if owner not in (None, entry.side):
                raise RecordError(
                    line,
                    f"{owner} owns the cube; only it may redouble (R10)",
                    "cube_owner",
                    params={"side": owner},
                )
            if cube >= 64:
                raise RecordError(
                    line, "the cube is at 64 and cannot be turned again", "cube_at_limit"
                )
            if entry.cube != cube * 2:
                raise RecordError(
                    line,
                    f"the cube stands at {cube}; a double offers {cube * 2}",
                    "cube_value",
                    params={"cube": cube, "offer": cube * 2},
                )
            offer = entry.side
            frames.append(
                Frame(DOUBLE, position, entry.n, entry.side, None, None, cube, owner, line)
            )
        elif entry.kind in (TAKE, DROP):
            if not offer:
                raise RecordError(
                    line,
                    f"no double was offered to {entry.kind}",
                    "no_double",
                    params={"action": entry.kind},
                )
            if entry.side != other(offer):
                raise RecordError(
                    line,
                    f"the double was offered to {other(offer)}",
                    "double_offered_to",
                    params={"side": other(offer)},
                )
            if entry.kind == TAKE:
                cube, owner, offer = cube * 2, entry.side, None
            else:
                ended = (offer, DROP)
            frames.append(
                Frame(entry.kind, position, entry.n, entry.side, None, None, cube, owner, line)
            )
        elif entry.kind in CLOCK_KINDS:
            _check_clock_line(record, entry, position, offer, played)
            ended = (None, ABORTED) if entry.kind == ABORT else (other(entry.side), entry.kind)
            frames.append(
                Frame(entry.kind, position, entry.n, entry.side, None, None, cube, owner, line)
            )
        else:  # resign
            if offer:
                raise RecordError(
                    line,
                    f"{other(offer)} must first take or drop the double",
                    "answer_double",
                    params={"side": other(offer)},
                )
            ended = (other(entry.side), RESIGN)
            frames.append(
                Frame(RESIGN, position, entry.n, entry.side, None, None, cube, owner, line)
            )

    result = None
    if ended:
        winner, reason = ended
        if reason == ABORTED:
            kind, points = None, 0
        elif reason == DROP:
            kind, points = OIN, cube
        else:  # bore off, resign, timeout, abandon: R9 on the loser's position, times the cube
            assert winner is not None  # only an abort has no winner
            kind, points = game_value(
                position.board(other(winner)), ruleset, cube=cube, cube_turned=cube > 1
            )
        result = Result(winner, kind, points, reason)
        frames.append(
            Frame(
                "end",
                position,
                None,
                winner,
                None,
                None,
                cube,
                owner,
                record.result.line if record.result else 0,
            )
        )
    _check_result(record, result)
    return Replay(
        frames,
        ruleset,
        result,
        starter,
        match_length,
        dice_verified=None if seed_check is None else mismatch is None,
        dice_mismatch_line=mismatch,
    )


def _check_clock_line(
    record: Record, entry: Entry, position: Position, offer: str | None, played: dict[str, int]
) -> None:
    """Refuse a timeout, abandon or abort line that cannot happen: a timeout or abandon needs a
    Clock header (RULES.md R11); only the side whose clock runs (the side to move, or the side
    offered a double) runs out of time; an abort is by a side that has not played yet in the
    game (with or without a clock: resigning before the first play aborts too; in a later game
    of a match only a side with no play in the whole match aborts, which one game's record
    cannot show). A side may be away (abandon) whoever is to act."""
    line = entry.line
    if entry.kind != ABORT and not (record.header("Clock") or "").strip():
        raise RecordError(
            line, f"only a game with a clock (a Clock header) ends by '{entry.kind}'", "no_clock"
        )
    if entry.kind == TIMEOUT:
        running = other(offer) if offer else position.turn
        if entry.side != running:
            raise RecordError(
                line,
                f"only {running}'s clock was running: {entry.side} cannot run out of time",
                "timeout_side",
                params={"side": running},
            )
    elif entry.kind == ABORT and played[entry.side]:
        raise RecordError(
            line,
            f"{entry.side} has already moved: only a side that has not "
            "made its first move can be a no-show",
            "abort_after_play",
            params={"side": entry.side},
        )


def _seed(record: Record) -> bytes | None:
    """The revealed seed (bytes) if the record has one; checks it against Seed hash."""
    seed_text = record.header("Seed")
    if seed_text is None:
        return None
    line = record.header_lines.get("Seed", 0)
    try:
        seed = bytes.fromhex(seed_text.strip())
    except ValueError:
        raise RecordError(
            line, "the Seed header is written in hexadecimal", "seed_format"
        ) from None
    expected = record.header("Seed hash")
    # a revealed seed that does not hash to the committed fingerprint proves nothing about the
    # dice: the record is refused (docs/record-format.md)
    if expected is not None and fairdice.seed_hash(seed) != expected.strip().lower():
        raise RecordError(line, "the SHA-256 of the Seed is not the Seed hash", "seed_hash")
    return seed


def _check_result(record: Record, result: Result | None) -> None:
    stated = record.result
    header = record.header("Result")
    header_line = record.header_lines.get("Result", 0)
    if stated is not None:
        if result is None:
            raise RecordError(
                stated.line, "the result line comes before the game is over", "result_early"
            )
        if stated != result:
            raise RecordError(
                stated.line,
                f"the game ends {result.text()}, not {stated.text()}",
                "result_differs",
                params={"result": result.text(), "stated": stated.text()},
            )
    if header is not None and header.strip() not in ("", "*"):
        if result is None:
            raise RecordError(
                header_line,
                "the Result header names a result, but the game is not over",
                "result_header_early",
            )
        if " ".join(header.lower().split()) != result.text():
            raise RecordError(
                header_line,
                f"the game ends {result.text()}, not {header!r}",
                "result_differs",
                params={"result": result.text(), "stated": header.strip()},
            )
