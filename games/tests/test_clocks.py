"""The clock arithmetic of RULES.md R11/R12 (games.clocks): pure functions of the spec and
instants in ms, checked on the real ``standard`` and ``match`` clocks."""

import dataclasses
from datetime import UTC, datetime

import pytest

from games import clocks
from games.clocks import ANSWER, CLOCKS, MATCH, MOVE, ROLL, STANDARD, ClockError, ClockSpec

T0 = 1_800_000_000_000  # an instant in ms
SECOND = 1_000
STD = CLOCKS[STANDARD]
MCH = CLOCKS[MATCH]


def test_the_preset_clocks_are_those_of_rules_r12():
    assert (STD.roll_ms, STD.move_ms, STD.reserve_ms) == (15_000, 45_000, 120_000)
    assert STD.max_move_ms is None and STD.reconnect_ms is None
    assert STD.claim_after_ms == 60_000 and STD.loses == clocks.LOSES_GAME
    assert MCH.auto_roll and not STD.auto_roll
    assert (MCH.move_ms, MCH.reserve_ms, MCH.max_move_ms, MCH.reconnect_ms) == (
        12_000,
        120_000,
        60_000,
        60_000,
    )
    assert MCH.claim_after_ms is None and MCH.loses == clocks.LOSES_MATCH
    assert STD.first_move_ms == MCH.first_move_ms == 60_000
    assert clocks.PRESET_CLOCK == {"sport": STANDARD, "classic": STANDARD, "match": MATCH}


def test_each_period_has_its_own_free_time():
    assert STD.free_ms(ROLL) == 15_000
    assert STD.free_ms(MOVE) == STD.free_ms(ANSWER) == 45_000
    assert MCH.free_ms(ROLL) == 0  # the roll is automatic: no time to roll
    assert MCH.free_ms(MOVE) == 12_000
    with pytest.raises(ClockError):
        STD.free_ms("lunch")


@pytest.mark.parametrize(
    "spec, period, free", [(STD, ROLL, 15_000), (STD, MOVE, 45_000), (MCH, MOVE, 12_000)]
)
def test_reserve_is_spent_only_after_the_free_time(spec, period, free):
    for used in (0, 1, free // 2, free - 1, free):
        assert clocks.spent_from_reserve(spec, period, T0, T0 + used) == 0
        assert clocks.reserve_after(spec, period, T0, 120_000, T0 + used) == 120_000
    assert clocks.spent_from_reserve(spec, period, T0, T0 + free + 1) == 1
    assert clocks.reserve_after(spec, period, T0, 120_000, T0 + free + 7_500) == 112_500
    # never below nothing
    assert clocks.reserve_after(spec, period, T0, 5_000, T0 + free + 60_000) == 0


def test_a_first_move_spends_no_reserve():
    assert clocks.reserve_after(STD, MOVE, T0, 120_000, T0 + 59_000, first_move=True) == 120_000
    assert clocks.reserve_after(MCH, MOVE, T0, 30_000, T0 + 59_000, first_move=True) == 30_000


def test_standard_deadlines_are_free_time_then_reserve():
    assert clocks.deadline(STD, ROLL, T0, T0, 120_000) == T0 + 135_000
    # the move period starts when the dice are rolled, the turn keeps its start
    assert clocks.deadline(STD, MOVE, T0 + 4_000, T0, 100_000) == T0 + 4_000 + 145_000
    assert clocks.deadline(STD, ANSWER, T0, T0, 0) == T0 + 45_000


def test_the_match_clock_caps_a_turn_at_60_s_even_with_reserve_left():
    # 12 s free + 120 s reserve would be 132 s: the cap ends the turn at 60 s
    assert clocks.deadline(MCH, MOVE, T0, T0, 120_000) == T0 + 60_000
    free, reserve, total = clocks.time_left(MCH, MOVE, T0, T0, 120_000, T0 + 50_000)
    assert (free, reserve, total) == (0, 120_000 - 38_000, 10_000)
    # with little reserve the reserve ends it first
    assert clocks.deadline(MCH, MOVE, T0, T0, 20_000) == T0 + 32_000
    # the cap counts from the start of the turn, not of the period
    assert clocks.deadline(MCH, MOVE, T0 + 30_000, T0, 120_000) == T0 + 60_000


def test_a_first_move_has_its_own_time_from_the_start_of_the_turn():
    for spec, period in ((STD, ROLL), (STD, MOVE), (MCH, MOVE)):
        assert clocks.deadline(spec, period, T0 + 9_000, T0, 0, first_move=True) == T0 + 60_000
    quick = ClockSpec(
        kind=STANDARD, roll_ms=1_000, move_ms=1_000, reserve_ms=0, first_move_ms=2_500
    )
    assert clocks.deadline(quick, MOVE, T0, T0, 0, first_move=True) == T0 + 2_500


def test_time_left_counts_free_time_then_reserve_then_nothing():
    assert clocks.time_left(STD, ROLL, T0, T0, 120_000, T0) == (15_000, 120_000, 135_000)
    assert clocks.time_left(STD, ROLL, T0, T0, 120_000, T0 + 20_000) == (0, 115_000, 115_000)
    assert clocks.time_left(STD, ROLL, T0, T0, 120_000, T0 + 200_000) == (0, 0, 0)
    assert clocks.time_left(STD, MOVE, T0, T0, 0, T0 + 30_000, first_move=True) == (
        15_000,
        0,
        30_000,
    )


def test_away_and_claim_moments():
    assert clocks.away_deadline(MCH, T0) == T0 + 60_000
    assert clocks.away_deadline(MCH, None) is None
    assert clocks.away_deadline(STD, T0) is None  # standard: the clock keeps running instead
    assert clocks.claim_from(STD, T0) == T0 + 60_000
    assert clocks.claim_from(STD, None) is None
    assert clocks.claim_from(MCH, T0) is None  # match: the absent player loses by themselves


def test_a_spec_survives_its_json_and_refuses_other_data():
    for spec in CLOCKS.values():
        assert ClockSpec.from_json(spec.to_json()) == spec
    with pytest.raises(ClockError):
        ClockSpec.from_json({"kind": STANDARD})
    with pytest.raises(ClockError):
        ClockSpec.from_json(dict(STD.to_json(), colour="red"))
    with pytest.raises(ClockError):
        ClockSpec.from_json(dataclasses.replace(STD, loses="set").to_json())


def test_now_is_the_wall_clock_in_ms(time_machine):
    time_machine.move_to(datetime.fromtimestamp(T0 / 1000, tz=UTC), tick=False)
    assert clocks.now_ms() == T0
    time_machine.shift(1.25)
    assert clocks.now_ms() == T0 + 1_250
