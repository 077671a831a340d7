"""Compact position IDs (docs/protocol.md "Position ID"): exact round trip on random positions,
one ID per position, and clear refusal of anything that is not an ID."""

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import Position, PositionError
from games.engine.position import mirror
from games.engine.position_id import ID_LENGTH, decode, encode


@st.composite
def positions(draw):
    """Any valid position: each physical point empty, white's or black's, at most 15 checkers
    a side on the board (the rest off) but not both sides all off, either side to move, and
    first_turn only while the mover has all 15 on its head (R5)."""
    owners = draw(st.lists(st.sampled_from([None, "white", "black"]), min_size=24, max_size=24))
    boards = {"white": {}, "black": {}}
    left = {"white": draw(st.integers(0, 15)), "black": draw(st.integers(0, 15))}
    for white_point, owner in enumerate(owners, start=1):
        if owner is None or not left[owner]:
            continue
        count = draw(st.integers(1, left[owner]))
        left[owner] -= count
        point = white_point if owner == "white" else mirror(white_point)
        boards[owner][str(point)] = count
    turn = draw(st.sampled_from(["white", "black"]))
    if not boards["white"] and not boards["black"]:
        boards[turn]["24"] = 15
    first_turn = boards[turn] == {"24": 15} and draw(st.booleans())
    return Position.from_json(
        {"turn": turn, "white": boards["white"], "black": boards["black"], "first_turn": first_turn}
    )


@settings(max_examples=300, deadline=None)
@given(positions())
def test_position_id_round_trips_exactly(position):
    position_id = encode(position)
    assert len(position_id) == ID_LENGTH
    assert set(position_id) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    )
    assert decode(position_id) == position


@settings(max_examples=150, deadline=None)
@given(positions(), positions())
def test_different_positions_have_different_ids(a, b):
    assert (encode(a) == encode(b)) == (a == b)


def test_the_start_position_and_its_flags_have_their_own_ids():
    ids = {
        encode(Position.initial("white")),
        encode(Position.initial("black")),
        encode(Position.initial("white")._replace(first_turn=False)),
    }
    assert len(ids) == 3
    assert decode(encode(Position.initial("black"))) == Position.initial("black")


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "short",
        "A" * 13,
        "A" * 15,
        "AAAAAAAAAAAAA=",
        "AAAAAAAAAAAAA.",
        "ААААААААААААAA",
        None,
        12345678901234,
    ],
)
def test_malformed_ids_are_refused(bad):
    with pytest.raises(PositionError):
        decode(bad)


def test_ids_of_impossible_positions_are_refused():
    start = encode(Position.initial("white"))
    # All ones: far more than 15 checkers on a point.
    with pytest.raises(PositionError):
        decode("_" * ID_LENGTH)
    # Every byte flipped somewhere in the middle gives no valid position or another one,
    # never the start position again.
    for i in range(ID_LENGTH):
        for ch in "AQgw_":
            candidate = start[:i] + ch + start[i + 1 :]
            if candidate == start:
                continue
            with contextlib.suppress(PositionError):
                assert decode(candidate) != Position.initial("white")


def test_both_sides_on_one_point_is_refused():
    # White 1 checker on its 1 and black 1 checker on its 13 (the same physical point).
    bits = "00" + "10" + "0" * 23 + "0" * 12 + "10" + "0" * 11
    bits += "0" * (80 - len(bits))
    raw = int(bits, 2).to_bytes(10, "big")
    import base64

    crafted = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    with pytest.raises(PositionError, match="same point"):
        decode(crafted)


def test_non_canonical_padding_bits_are_refused():
    start = encode(Position.initial("white"))
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    last = alphabet.index(start[-1])
    assert last & 3 == 0  # 80 bits in 14 characters leave the last two bits unused
    with pytest.raises(PositionError):
        decode(start[:-1] + alphabet[last | 1])


@pytest.mark.parametrize("position_id", ["AAAAAAAAAAAAAA", "gAAAAAAAAAAAAA"])
def test_both_sides_with_all_checkers_borne_off_is_refused(position_id):
    with pytest.raises(PositionError, match="both sides"):
        decode(position_id)


def test_a_first_turn_without_all_the_movers_checkers_on_its_head_is_refused():
    with pytest.raises(PositionError, match="head"):
        decode("YAAAAAAAAAAAAA")
    # white to move on its first turn, but one checker already moved off the head
    moved = Position.from_json(
        {"turn": "white", "white": {"24": 14, "18": 1}, "black": {"24": 15}, "first_turn": True}
    )
    with pytest.raises(PositionError, match="head"):
        decode(encode(moved))
    # the reply to the first play is black's first turn: still all on black's head, accepted
    reply = Position.from_json(
        {"turn": "black", "white": {"24": 14, "18": 1}, "black": {"24": 15}, "first_turn": True}
    )
    assert decode(encode(reply)) == reply
