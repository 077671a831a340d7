"""Game records (docs/record-format.md; games.engine.record): the writer and the parser are
inverse, a replay reaches the same positions as the engine, and a corrupted record is refused
with its line number and the reason."""

import random

import pytest

from games.engine import Position, fairdice, game_value, legal_plays
from games.engine import record as rec

HEADERS = [
    ("Event", "Long nardy game"),
    ("Date", "2026-11-29"),
    ("White", "Guest"),
    ("Black", "Computer (medium)"),
]


def random_record(seed, preset="sport", cube=False, resign_at=None, dice_seed=None):
    """A legal random game as a Record (random plays, random cube actions where allowed),
    and the positions the engine went through. With ``dice_seed`` every roll comes from it."""
    rng = random.Random(seed)
    roll_n = 0

    def roll():
        nonlocal roll_n
        if dice_seed is None:
            return (rng.randint(1, 6), rng.randint(1, 6))
        roll_n += 1
        return tuple(fairdice.roll(dice_seed, roll_n - 1))

    pairs = []
    while True:
        w, b = roll()
        pairs.append((w, b))
        if w != b:
            break
    starter = "white" if w > b else "black"
    headers = [*HEADERS, ("Preset", preset)]
    if preset == "classic":
        headers += [("Koks", "on"), ("Cube", "on" if cube else "off")]
    headers.append(("Opening", rec.opening_text(pairs)))
    if dice_seed is not None:
        headers += [("Seed hash", fairdice.seed_hash(dice_seed)), ("Seed", dice_seed.hex())]
    position = Position.initial(starter)
    positions = [position]
    entries = []
    cube_value, owner = 1, None
    dice = tuple(sorted((w, b), reverse=True)) if preset != "match" else roll()
    n = 1
    result = None
    while True:
        side = position.turn
        if resign_at == n:
            entries.append(rec.Entry(n, side, rec.RESIGN))
            kind, points = game_value(
                position.board(side),
                preset,
                cube=cube_value,
                cube_turned=cube_value > 1,
                table={"cube": cube} if preset == "classic" else None,
            )
            result = rec.Result("black" if side == "white" else "white", kind, points, "resign")
            break
        if cube and n > 1 and owner in (None, side) and cube_value < 64 and rng.random() < 0.1:
            entries.append(rec.Entry(n, side, rec.DOUBLE, cube=cube_value * 2))
            other = "black" if side == "white" else "white"
            if rng.random() < 0.2:
                entries.append(rec.Entry(n, other, rec.DROP))
                result = rec.Result(side, "oin", cube_value, "drop")
                break
            entries.append(rec.Entry(n, other, rec.TAKE))
            cube_value, owner = cube_value * 2, other
        play = rng.choice(legal_plays(position, dice, preset))
        entries.append(rec.Entry(n, side, rec.PLAY, dice=dice, play=play.notation))
        position = play.result
        positions.append(position)
        n += 1
        if position.winner:
            loser = "black" if position.winner == "white" else "white"
            kind, points = game_value(
                position.board(loser),
                preset,
                cube=cube_value,
                cube_turned=cube_value > 1,
                table={"cube": cube} if preset == "classic" else None,
            )
            result = rec.Result(position.winner, kind, points, "bore_off")
            break
        dice = roll()
    headers.append(("Result", result.text()))
    return rec.Record(headers=headers, entries=entries, result=result), positions


@pytest.mark.parametrize(
    "seed, preset, cube, resign_at",
    [
        (1, "sport", False, None),
        (2, "classic", False, None),
        (3, "classic", True, None),
        (4, "match", False, None),
        (5, "sport", False, 7),
        (6, "classic", True, None),
        (7, "classic", True, 30),
        (8, "match", False, 1),
    ],
)
def test_written_records_parse_back_to_the_same_record(seed, preset, cube, resign_at):
    record, _positions = random_record(seed, preset, cube, resign_at)
    text = rec.write(record)
    again = rec.parse(text)
    assert again == record
    assert rec.write(again) == text


@pytest.mark.parametrize(
    "seed, preset, cube",
    [(11, "sport", False), (12, "classic", True), (13, "match", False), (14, "classic", True)],
)
def test_replay_reaches_the_engines_positions_and_result(seed, preset, cube):
    record, positions = random_record(seed, preset, cube)
    replay = rec.replay(rec.parse(rec.write(record)))
    after_plays = [f.position for f in replay.frames if f.kind in ("start", "play")]
    assert after_plays == positions
    assert replay.result == record.result
    # Every play has a roll frame before it that shows the dice on the position before it.
    kinds = [f.kind for f in replay.frames]
    assert kinds[0] == "start" and kinds[-1] == "end"
    for i, frame in enumerate(replay.frames):
        if frame.kind == "play":
            assert replay.frames[i - 1].kind == "roll" and replay.frames[i - 1].dice == frame.dice


def test_a_seeded_record_has_its_dice_verified_and_a_changed_roll_is_found():
    seed = bytes(range(32))
    record, _ = random_record(21, "match", dice_seed=seed)
    assert rec.replay(record).dice_verified is True
    text = rec.write(record)
    lines = text.splitlines()
    # Swap the dice of the third turn for another legal pass-free roll: replay the rest from
    # there would differ, so cut the record after that turn.
    index = next(i for i, line in enumerate(lines) if line.startswith("3 "))
    turn = lines[index].split()
    position_before = [f for f in rec.replay(rec.parse(text)).frames if f.kind == "roll"][
        2
    ].position
    for dice in [(a, b) for a in range(1, 7) for b in range(1, 7)]:
        if list(dice) != [int(x) for x in turn[2].split("-")]:
            play = legal_plays(position_before, dice, "match")[0].notation or "pass"
            break
    lines[index] = f"3 {turn[1]} {dice[0]}-{dice[1]} {play}"
    cut = [line for line in lines[: index + 1] if not line.startswith("[Result")]
    replay = rec.replay(rec.parse("\n".join(cut)))
    assert replay.dice_verified is False and replay.dice_mismatch_line == len(cut)


def test_a_wrong_seed_is_refused():
    seed = bytes(range(32))
    record, _ = random_record(22, "sport", dice_seed=seed)
    text = rec.write(record).replace(seed.hex(), bytes(32).hex())
    with pytest.raises(rec.RecordError, match="Seed hash"):
        rec.replay(rec.parse(text))


GOOD = """[Event "Long nardy game"]
[Preset "classic"]
[Cube "on"]
[Opening "3-3 6-5"]

1 white 6-5 24/18 18/13
2 black 4-4 24/20 24/20 20/16 20/16
3 white double 2
3 black take
3 white 2-1 24/22 22/21
4 black double 4
4 white drop
result black oin 2 drop
"""


def test_a_hand_written_record_with_cube_actions_replays():
    replay = rec.replay(rec.parse(GOOD))
    assert replay.starter == "white"
    assert replay.result == rec.Result("black", "oin", 2, "drop")
    assert [f.kind for f in replay.frames] == [
        "start",
        "roll",
        "play",
        "roll",
        "play",
        "double",
        "take",
        "roll",
        "play",
        "double",
        "drop",
        "end",
    ]
    assert replay.frames[6].cube_value == 2 and replay.frames[6].cube_owner == "black"


def corrupt(old, new):
    assert old in GOOD
    return GOOD.replace(old, new, 1)


CORRUPTED = [
    # (the change, the line refused, a word of the reason)
    (("1 white 6-5 24/18 18/13", "1 white 6-5 24/18 24/19"), 6, "head"),
    (("1 white 6-5 24/18 18/13", "1 white 6-4 24/18 18/14"), 6, "opening dice"),
    (("1 white 6-5", "1 black 6-5"), 6, "white's turn"),
    (("2 black 4-4", "3 black 4-4"), 7, "turn 2"),
    (("2 black 4-4 24/20 24/20 20/16 20/16", "2 black 4-4 24/20 20/16"), 7, "four"),
    (("2 black 4-4 24/20", "2 black 4-7 24/20"), 7, "turn line"),
    (("3 white double 2", "3 white double 4"), 8, "offers 2"),
    (("3 black take", "3 white take"), 9, "offered to black"),
    (("4 black double 4", "4 black double 8"), 11, "offers 4"),
    (("4 white drop", "4 black drop"), 12, "offered to white"),
    (("result black oin 2 drop", "result black mars 4 drop"), 13, "not black mars 4 drop"),
    (("result black oin 2 drop", "result black oin 2 drop\n5 white 1-1 pass"), 14, "follow"),
    (('[Opening "3-3 6-5"]', '[Opening "6-5 3-3"]'), 4, "only equal dice"),
    (('[Opening "3-3 6-5"]', '[Opening "6-6"]'), 4, "unequal"),
    (('[Preset "classic"]', '[Preset "backgammon"]'), 2, "unknown ruleset"),
    (('[Cube "on"]', '[Cube "maybe"]'), 3, "on"),
    (('[Cube "on"]', '[Cube "off"]'), 8, "no doubling cube"),
    (("1 white 6-5 24/18 18/13\n", '1 white 6-5 24/18 18/13\n[Date "2026"]\n'), 7, "headers"),
    (("3 white 2-1 24/22 22/21", "3 white 2-1 pass"), 10, "pass"),
    (("3 white 2-1 24/22 22/21", "3 white 2-1 24/22 22/21 21/20"), 10, "at most"),
    (("3 white 2-1 24/22 22/21", "3 white 2-1 24/x"), 10, "24/x"),
]


@pytest.mark.parametrize("change, line, reason", CORRUPTED)
def test_a_corrupted_record_is_refused_with_its_line_and_reason(change, line, reason):
    text = corrupt(*change)
    with pytest.raises(rec.RecordError) as caught:
        rec.replay(rec.parse(text))
    assert caught.value.line == line
    assert reason.lower() in str(caught.value).lower()


def test_a_record_without_preset_or_opening_is_refused():
    for header in ('[Preset "classic"]\n', '[Opening "3-3 6-5"]\n'):
        with pytest.raises(rec.RecordError, match="needs"):
            rec.replay(rec.parse(GOOD.replace(header, "")))


def test_an_unfinished_record_replays_without_a_result():
    text = GOOD.split("3 white double 2")[0]
    replay = rec.replay(rec.parse(text))
    assert replay.result is None and replay.frames[-1].kind == "play"


def test_oversized_or_binary_input_is_refused():
    with pytest.raises(rec.RecordError):
        rec.parse("1 white 6-5 pass\n" * (rec.MAX_LINES + 1))
    with pytest.raises(rec.RecordError):
        rec.parse(b"bytes")
    with pytest.raises(rec.RecordError):
        rec.parse("x" * (rec.MAX_CHARS + 1))


@pytest.mark.parametrize("value", ["³", "٣", "3.0", "-3", "３"])
def test_a_match_length_that_is_not_ascii_digits_is_refused_with_its_line(value):
    text = GOOD.replace('[Preset "classic"]', f'[Preset "match"]\n[Match length "{value}"]')
    text = text.replace('[Cube "on"]\n', "")
    with pytest.raises(rec.RecordError) as caught:
        rec.replay(rec.parse(text))
    assert caught.value.line == 3 and caught.value.code == "match_length"
    assert caught.value.params["value"] == value


def test_a_leading_byte_order_mark_is_ignored():
    assert rec.parse("\ufeff" + GOOD) == rec.parse(GOOD)
    assert rec.replay(rec.parse("\ufeff" + GOOD)).result == rec.Result("black", "oin", 2, "drop")


@pytest.mark.parametrize("char", ["\x00", "\x07", "\x1b", "\x7f", "\x85", "\x0b", "\x0c"])
def test_control_characters_are_refused_with_their_line(char):
    text = GOOD.replace("2 black 4-4", f"2 black{char} 4-4")
    with pytest.raises(rec.RecordError) as caught:
        rec.parse(text)
    assert caught.value.line == 7 and caught.value.code == "control_character"
    assert caught.value.params["char"] == f"U+{ord(char):04X}"
    with pytest.raises(rec.RecordError, match="control character"):
        rec.parse(text.replace("\n", "\r\n"))


def test_tabs_and_windows_line_ends_are_still_accepted():
    text = GOOD.replace("2 black 4-4 ", "2\tblack 4-4 ").replace("\n", "\r\n")
    assert rec.parse(text) == rec.parse(GOOD)


def test_a_roll_written_in_the_other_order_still_matches_the_seed():
    seed = bytes(range(32))
    record, _ = random_record(23, "match", dice_seed=seed)
    entries = [
        rec.Entry(
            e.n, e.side, e.kind, dice=e.dice[::-1] if e.dice else None, play=e.play, cube=e.cube
        )
        for e in record.entries
    ]
    assert any(e.dice and e.dice[0] != e.dice[1] for e in entries), "no unequal roll to swap"
    swapped = rec.Record(record.headers, entries, record.result)
    replay = rec.replay(rec.parse(rec.write(swapped)))
    assert replay.dice_verified is True and replay.dice_mismatch_line is None


def test_a_seed_that_does_not_hash_to_the_seed_hash_is_refused_with_its_code():
    seed = bytes(range(32))
    record, _ = random_record(24, "sport", dice_seed=seed)
    text = rec.write(record).replace(fairdice.seed_hash(seed), fairdice.seed_hash(bytes(32)))
    with pytest.raises(rec.RecordError) as caught:
        rec.replay(rec.parse(text))
    assert caught.value.code == "seed_hash"
    assert caught.value.line == next(
        i for i, line in enumerate(text.splitlines(), 1) if line.startswith('[Seed "')
    )


MATCH_LATER_GAME = """[Preset "match"]
[Match length "3"]
[Game "2"]
[Opening "white starts"]

1 white 6-5 24/18 18/13
"""


@pytest.mark.parametrize(
    "change",
    [
        ('[Preset "match"]', '[Preset "sport"]'),
        ('[Preset "match"]', '[Preset "classic"]'),
        ('[Game "2"]\n', ""),
        ('[Game "2"]', '[Game "1"]'),
        ('[Game "2"]', '[Game "²"]'),
        ('[Match length "3"]\n', ""),
    ],
)
def test_a_side_starts_only_in_a_match_game_after_the_first(change):
    assert rec.replay(rec.parse(MATCH_LATER_GAME)).starter == "white"
    text = MATCH_LATER_GAME.replace(*change)
    if "sport" in text or "classic" in text:
        text = text.replace('[Match length "3"]\n', "")
    with pytest.raises(rec.RecordError) as caught:
        rec.replay(rec.parse(text))
    assert caught.value.code == "opening_starts"
    assert caught.value.line == next(
        i for i, line in enumerate(text.splitlines(), 1) if line.startswith("[Opening")
    )


@pytest.mark.parametrize("value", [128, 256, 1000000])
def test_a_double_beyond_64_is_refused_because_the_cube_stops_at_64(value):
    text = corrupt("3 white double 2", f"3 white double {value}")
    with pytest.raises(rec.RecordError) as caught:
        rec.replay(rec.parse(text))
    assert caught.value.line == 8 and caught.value.code == "cube_limit"
    assert "stops at 64" in caught.value.reason


@pytest.mark.parametrize("change, line, reason", CORRUPTED)
def test_every_refusal_has_a_code_for_translation(change, line, reason):
    with pytest.raises(rec.RecordError) as caught:
        rec.replay(rec.parse(corrupt(*change)))
    assert caught.value.code != "record"


# --- clocks: timeout, abandon, abort (docs/record-format.md) ---------------------------------


def with_clock(text, clock="standard"):
    """``text`` with a Clock header (a game that a clock may end)."""
    return text.replace('[Opening "', f'[Clock "{clock}"]\n[Opening "', 1)


#: GOOD up to black's double at 4, with a clock: white is to answer
CLOCKED_OFFER = with_clock(GOOD.split("4 white drop")[0])


@pytest.mark.parametrize(
    "seed, preset, cube, resign_at",
    [
        (5, "sport", False, 7),
        (7, "classic", True, 30),
        (8, "match", False, 1),
        (9, "classic", False, 40),
    ],
)
@pytest.mark.parametrize("reason", [rec.TIMEOUT, rec.ABANDON])
def test_a_timeout_or_abandon_is_scored_like_a_resignation(seed, preset, cube, resign_at, reason):
    record, _ = random_record(seed, preset, cube, resign_at)
    resigned = rec.replay(record).result
    loser = record.entries[-1].side
    entries = [*record.entries[:-1], rec.Entry(resign_at, loser, reason)]
    result = rec.Result(resigned.winner, resigned.kind, resigned.points, reason)
    headers = [(k, v) for k, v in record.headers if k != "Result"]
    headers += [("Clock", "match" if preset == "match" else "standard"), ("Result", result.text())]
    text = rec.write(rec.Record(headers, entries, result))
    assert text.endswith(f"{resign_at} {loser} {reason}\nresult {result.text()}\n")
    assert rec.write(rec.parse(text)) == text
    replay = rec.replay(rec.parse(text))
    assert replay.result == result
    assert [f.kind for f in replay.frames][-2:] == [reason, "end"]


def test_a_side_that_is_away_may_abandon_while_the_other_is_to_move():
    before = with_clock(GOOD.split("3 white double 2")[0])
    abandoned = rec.replay(rec.parse(before + "3 black abandon\n"))
    resigned = rec.replay(rec.parse(before + "3 black resign\n"))
    assert abandoned.result == rec.Result(
        "white", resigned.result.kind, resigned.result.points, "abandon"
    )


def test_running_out_of_time_answering_a_double_loses_at_the_stake_before_it():
    replay = rec.replay(rec.parse(CLOCKED_OFFER + "4 white timeout\n"))
    # the cube stood at 2 (taken at turn 3), not at the 4 offered: R9 on white's position, x2
    position = replay.frames[-1].position
    kind, points = game_value(position.board("white"), replay.ruleset, cube=2, cube_turned=True)
    assert kind == "koks" and points == 6
    assert replay.result == rec.Result("black", kind, points, "timeout")
    assert replay.frames[-2].kind == "timeout" and replay.frames[-2].cube_value == 2


@pytest.mark.parametrize(
    "body, side",
    [
        ("1 white abort\n", "white"),
        ("1 black abort\n", "black"),  # away before ever moving: a no-show too
        ("1 white 6-5 24/18 18/13\n2 black abort\n", "black"),
    ],
)
def test_a_no_show_aborts_the_game_without_a_result(body, side):
    head = with_clock(GOOD.split("\n\n")[0]) + "\n"
    text = head.replace("[Event", '[Result "aborted"]\n[Event') + "\n" + body + "result aborted\n"
    record = rec.parse(text)
    assert record.result == rec.Result.aborted() and record.result.text() == "aborted"
    assert rec.write(record) == text
    replay = rec.replay(record)
    assert replay.result == rec.Result(None, None, 0, "aborted")
    assert replay.frames[-2].kind == "abort" and replay.frames[-2].side == side
    assert replay.frames[-1].kind == "end" and replay.frames[-1].side is None


def test_a_later_game_of_a_match_may_be_aborted_by_a_side_that_has_not_played():
    # only a side with no play in the whole match aborts there (games.services.turns.aborts)
    text = with_clock(MATCH_LATER_GAME, "match") + "2 black abort\n"
    replay = rec.replay(rec.parse(text))
    assert replay.frames[-2].kind == "abort" and replay.frames[-2].side == "black"


def test_a_game_without_a_clock_is_aborted_by_a_resignation_before_the_first_play():
    head = GOOD.split("\n\n")[0] + "\n"
    body = "1 white 6-5 24/18 18/13\n2 black abort\n"
    text = head.replace("[Event", '[Result "aborted"]\n[Event') + "\n" + body + "result aborted\n"
    replay = rec.replay(rec.parse(text))
    assert replay.result == rec.Result(None, None, 0, "aborted")
    assert replay.frames[-2].kind == "abort" and replay.frames[-2].side == "black"


CLOCK_REFUSALS = [
    # (the record, the line refused, the code)
    (GOOD.split("3 white double 2")[0] + "3 white timeout\n", 8, "no_clock"),
    (GOOD.split("\n\n")[0] + "\n\n1 white abandon\n", 6, "no_clock"),
    (with_clock(GOOD.split("3 white double 2")[0]) + "3 black timeout\n", 9, "timeout_side"),
    (CLOCKED_OFFER + "4 black timeout\n", 13, "timeout_side"),
    (with_clock(GOOD.split("3 white double 2")[0]) + "3 white abort\n", 9, "abort_after_play"),
    (CLOCKED_OFFER + "4 white timeout\nresult aborted\n", 14, "result_differs"),
    (
        with_clock(GOOD.split("3 white double 2")[0])
        + "3 white timeout\nresult black oin 1 timeout\n",
        10,
        "result_differs",
    ),
    (
        with_clock(GOOD.split("\n\n")[0]) + "\n\n1 white abort\nresult white oin 1 abandon\n",
        8,
        "result_differs",
    ),
    (with_clock(GOOD.split("3 white double 2")[0]) + "result aborted\n", 9, "result_early"),
    (with_clock(GOOD.split("\n\n")[0]) + "\n\n1 white abort\n2 black 4-4 pass\n", 8, "game_over"),
    (with_clock(GOOD.split("\n\n")[0]) + "\n\n1 white abort\nresult abort\n", 8, "result_format"),
    (with_clock(GOOD.split("\n\n")[0]) + "\n\n1 white aborted\n", 7, "turn_format"),
]


@pytest.mark.parametrize("text, line, code", CLOCK_REFUSALS)
def test_a_clock_line_the_clocks_cannot_give_is_refused_with_its_line(text, line, code):
    with pytest.raises(rec.RecordError) as caught:
        rec.replay(rec.parse(text))
    assert (caught.value.line, caught.value.code) == (line, code), str(caught.value)


def test_the_result_line_names_every_way_a_game_ends():
    for reason in ("bore_off", "resign", "drop", "timeout", "abandon"):
        assert reason in rec.REASONS
        line = f"RESULT  White  koks 3 {reason.upper()}"
        assert rec.parse(line).result == rec.Result("white", "koks", 3, reason)
    assert rec.parse("Result Aborted").result == rec.Result.aborted()


def test_the_examples_in_the_record_format_document_replay():
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[3] / "docs" / "record-format.md").read_text()
    examples = re.findall(r"```\n(\[.*?)```", doc, re.S)
    assert len(examples) >= 3
    reasons = set()
    for text in examples:
        # the first example shortens its seed ("2f1c…"): its dice are not what is shown here
        text = "\n".join(line for line in text.splitlines() if not line.startswith("[Seed"))
        replay = rec.replay(rec.parse(text))
        reasons.add(replay.result.reason)
    assert {"drop", "timeout", "aborted"} <= reasons
