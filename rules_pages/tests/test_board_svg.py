"""games/room/board_svg.py: the server-side board drawing follows the R1 layout and marks plays."""

import xml.etree.ElementTree as ET

import pytest

from games.engine import Position
from games.room.board_svg import VIEW_H, VIEW_W, render_board

NS = {"svg": "http://www.w3.org/2000/svg"}
START = {"turn": "white", "white": {"24": 15}, "black": {"24": 15}, "first_turn": True}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def checkers(root, side):
    """The checkers drawn for ``side`` (each is a disc of radius 26 and a rim inside it)."""
    groups = [
        g for g in root.iter(f"{{{NS['svg']}}}g") if g.get("class") == f"checkers checkers-{side}"
    ]
    return [c for g in groups for c in g.findall("svg:circle", NS) if c.get("r") == "26"]


def label_positions(root) -> dict:
    """Point label text -> (x, y) of the label."""
    out = {}
    for text in root.iter(f"{{{NS['svg']}}}text"):
        if text.get("class") is None and text.text and text.text.isdigit():
            out[int(text.text)] = (float(text.get("x")), float(text.get("y")))
    return out


def test_svg_is_well_formed_with_accessible_name_and_description():
    svg = render_board(START, title="The start & more", desc='15 "checkers" <each>', id_prefix="t1")
    root = parse(svg)
    assert root.get("role") == "img"
    assert root.get("viewBox") == f"0 0 {VIEW_W} {VIEW_H}"
    assert root.get("aria-labelledby") == "t1-title t1-desc"
    assert root.find("svg:title", NS).text == "The start & more"
    assert root.find("svg:desc", NS).text == '15 "checkers" <each>'
    assert root.find("svg:title", NS).get("id") == "t1-title"


def test_heads_stand_in_the_standard_corners_of_rules_r1():
    root = parse(render_board(START))
    whites = checkers(root, "white")
    blacks = checkers(root, "black")
    # Five drawn per stack, the count written on the fifth.
    assert len(whites) == 5 and len(blacks) == 5
    counts = [
        t.text for t in root.iter(f"{{{NS['svg']}}}text") if t.get("class") == "checker-count"
    ]
    assert counts == ["15", "15"]
    # White's head top right, black's head bottom left.
    wx = min(float(c.get("cx")) for c in whites)
    bx = max(float(c.get("cx")) for c in blacks)
    assert wx > VIEW_W * 0.75 and bx < VIEW_W * 0.25
    assert max(float(c.get("cy")) for c in whites) < VIEW_H / 2
    assert min(float(c.get("cy")) for c in blacks) > VIEW_H / 2


def test_point_labels_follow_the_chosen_side_numbering():
    white_labels = label_positions(parse(render_board(START, labels_for="white")))
    black_labels = label_positions(parse(render_board(START, labels_for="black")))
    # White's 24 is top right, white's 1 bottom right (its home), white's 12 bottom left.
    x24, y24 = white_labels[24]
    x1, y1 = white_labels[1]
    x12, y12 = white_labels[12]
    assert x24 == x1 > x12 and y24 < VIEW_H / 2 < y1 == y12
    # In black's numbering the same physical corner (white 12) is black's 24.
    assert black_labels[24] == white_labels[12]
    assert black_labels[1] == white_labels[13]


def test_borne_off_checkers_fill_the_trays_with_counts():
    pos = {"turn": "white", "white": {"3": 2, "1": 1}, "black": {"20": 5}}
    root = parse(render_board(pos))
    tray_counts = {
        t.get("class").split()[-1]: t.text
        for t in root.iter(f"{{{NS['svg']}}}text")
        if "tray-count" in (t.get("class") or "")
    }
    assert tray_counts == {"tray-count-white": "12", "tray-count-black": "10"}


def test_engine_position_is_accepted_like_its_json():
    assert render_board(Position.initial("white")) == render_board(START)


def test_legal_and_refused_arrows_are_drawn_differently():
    pos = {"turn": "white", "white": {"24": 14, "6": 1}, "black": {"24": 15}}
    root = parse(
        render_board(
            pos, arrows=[("white", 24, 18), ("white", 24, 19, False), ("white", 18, 13, None)]
        )
    )
    groups = [
        g for g in root.iter(f"{{{NS['svg']}}}g") if "arrow" in (g.get("class") or "").split()
    ]
    assert [g.get("class") for g in groups] == [
        "arrow arrow-legal",
        "arrow arrow-illegal",
        "arrow arrow-unjudged",
    ]
    legal_path = groups[0].findall("svg:path", NS)[-1]
    illegal_path = groups[1].findall("svg:path", NS)[-1]
    assert legal_path.get("stroke-dasharray") is None
    assert illegal_path.get("stroke-dasharray")
    assert len(groups[1].findall("svg:line", NS)) == 4  # the cross, over its halo
    # A step that is not judged is neither green nor red, and has no cross.
    unjudged_path = groups[2].findall("svg:path", NS)[-1]
    assert unjudged_path.get("stroke") not in {legal_path.get("stroke"), illegal_path.get("stroke")}
    assert not groups[2].findall("svg:line", NS)
    # Ghost checkers where the three steps land.
    assert len([c for c in root.iter(f"{{{NS['svg']}}}circle") if c.get("class") == "ghost"]) == 3


def test_bearing_off_arrow_ends_in_the_movers_tray():
    pos = {"turn": "black", "white": {"24": 15}, "black": {"2": 1}}
    root = parse(render_board(pos, arrows=[("black", 2, 0)], dice=(3, 1)))
    path = [g for g in root.iter(f"{{{NS['svg']}}}g") if g.get("class") == "arrow arrow-legal"][0]
    d = path.find("svg:path", NS).get("d")
    end_x = float(d.split()[-2])
    assert end_x < 60  # black's tray is at the left edge, beside its home (top left)
    dice = [g for g in root.iter(f"{{{NS['svg']}}}g") if g.get("class") == "die"]
    assert [g.get("data-value") for g in dice] == ["3", "1"]


def test_a_double_shows_four_dice_in_the_movers_home_half():
    root = parse(render_board(START, dice=(4, 4)))
    dice = [g for g in root.iter(f"{{{NS['svg']}}}g") if g.get("class") == "die"]
    assert [g.get("data-value") for g in dice] == ["4"] * 4
    xs = [float(g.find("svg:rect", NS).get("x")) for g in dice]
    assert min(xs) > VIEW_W / 2  # white's home half is on the right


def test_marks_highlight_the_point_in_the_sides_numbering():
    root = parse(render_board(START, marks=[("black", 24)]))
    marks = [r for r in root.iter(f"{{{NS['svg']}}}rect") if r.get("class") == "mark"]
    assert len(marks) == 1
    assert float(marks[0].get("x")) < VIEW_W / 4 and float(marks[0].get("y")) > VIEW_H / 2


@pytest.mark.parametrize(
    ("position", "kwargs"),
    [
        ({"turn": "white", "white": {"25": 1}, "black": {}}, {}),
        ({"turn": "white", "white": {"24": 16}, "black": {}}, {}),
        (START, {"dice": (7, 1)}),
        (START, {"arrows": [("red", 24, 18)]}),
        (START, {"marks": [("white", 0)]}),
        (START, {"labels_for": "green"}),
    ],
)
def test_bad_input_raises_value_error(position, kwargs):
    with pytest.raises(ValueError):
        render_board(position, **kwargs)


def test_size_sets_width_and_height():
    root = parse(render_board(START, size=435))
    assert root.get("width") == "435" and root.get("height") == str(round(435 * VIEW_H / VIEW_W))
