"""Server-side SVG drawing of a long-nardy board (pure Python: no Django import).

One renderer for every static picture of a position: the diagrams of the rules pages, and
later replays and share images. It draws the standard layout of RULES.md R1 with the same
geometry and colours as the live board (``static/games/board.js`` and ``board.css``):

- white's head (white 24) top right, black's head (black 24 = white 12) bottom left; both
  sides move counter-clockwise; white's home (white 1..6) bottom right, black's top left;
- white's bear-off tray right of its home (bottom right), black's left of its home (top left);
- the dice lie in the half of the side to move's home.

The SVG is self-contained (presentation attributes, no stylesheet, no script), scales to the
width of its container, and carries ``role="img"``, a ``<title>`` and a ``<desc>``.
"""

from __future__ import annotations

import math
from html import escape

__all__ = ["VIEW_W", "VIEW_H", "render_board", "to_white", "flip"]

# Geometry in viewBox units, as in board.js.
TRAY_W = 40
TRAY_GAP = 5
FRAME = 10
LABEL = 36
PW = 60
BAR = 40
CD = 56
PH = 290
MID = 88
MAX_STACK = 5

BOARD_X0 = TRAY_W + TRAY_GAP
FIELD_X0 = BOARD_X0 + FRAME
FIELD_W = 12 * PW + BAR
BOARD_X1 = FIELD_X0 + FIELD_W + FRAME
TRAY_R_X0 = BOARD_X1 + TRAY_GAP
VIEW_W = TRAY_R_X0 + TRAY_W
FIELD_Y0 = LABEL
FIELD_H = 2 * PH + MID
FIELD_Y1 = FIELD_Y0 + FIELD_H
VIEW_H = FIELD_Y1 + LABEL
MID_Y = FIELD_Y0 + PH + MID / 2

# Colours of board.css.
WOOD = "#6b4423"
WOOD_EDGE = "#4a2e17"
FIELD = "#efe0bf"
BAR_FILL = "#5a381c"
POINT_DARK = "#8c2f23"
POINT_LIGHT = "#35566b"
LABEL_FILL = "#f6e7c8"
CHECKER = {"white": ("#fbf8f0", "#8f836c", "#d8cfbb"), "black": ("#2b2b2b", "#050505", "#4a4a4a")}
COUNT_FILL = {"white": "#222", "black": "#fff"}
ACCENT = "#f2b705"
LEGAL = "#1f7a45"
ILLEGAL = "#b3261e"
# Steps after a refused one: never judged, so neither green nor red.
UNJUDGED = "#857a6b"
FONT = "system-ui, sans-serif"

SIDES = ("white", "black")


def flip(point: int) -> int:
    """The same physical point in the other side's numbering (RULES.md R1): p+12 or p-12."""
    return point + 12 if point <= 12 else point - 12


def to_white(side: str, point: int) -> int:
    """A point 1..24 in ``side``'s own numbering -> white's numbering (the drawing's geometry)."""
    return point if side == "white" else flip(point)


def _num(value: float) -> str:
    """A coordinate written short: 12, 12.5 (no 12.000001)."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _attrs(**attrs) -> str:
    parts = []
    for key, value in attrs.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        if isinstance(value, float):
            value = _num(value)
        parts.append(f'{name}="{escape(str(value), quote=True)}"')
    return " ".join(parts)


def _el(name: str, text: str | None = None, **attrs) -> str:
    if text is None:
        return f"<{name} {_attrs(**attrs)}/>"
    return f"<{name} {_attrs(**attrs)}>{escape(text, quote=False)}</{name}>"


def _boards(position) -> dict:
    """``{"white": [25 counts], "black": [...]}`` (index 0 = borne off) and the side to move.

    ``position`` is a RULES.md JSON dict or an engine Position (anything with ``to_json()``).
    Raises ValueError on a count that is not a non-negative integer or a point outside 1..24.
    """
    data = position.to_json() if hasattr(position, "to_json") else position
    if not isinstance(data, dict):
        raise ValueError("position must be a RULES.md JSON object or an engine Position")
    boards = {}
    for side in SIDES:
        board = [0] * 25
        for key, count in (data.get(side) or {}).items():
            point = int(key)
            if not 1 <= point <= 24 or not isinstance(count, int) or count < 0:
                raise ValueError(f"{side} {key!r}: {count!r} is not a checker count on a point")
            board[point] += count
        on_board = sum(board)
        if on_board > 15:
            raise ValueError(f"{side} has {on_board} checkers on the board; a side has 15")
        board[0] = 15 - on_board
        boards[side] = board
    return boards, data.get("turn")


def _place(white_point: int) -> tuple[int, str]:
    """Column 0..11 from the left and row of a white point (RULES.md R1 screen layout)."""
    if white_point <= 12:
        return 12 - white_point, "bottom"
    return white_point - 13, "top"


def _column_x(col: int) -> float:
    return FIELD_X0 + col * PW + (BAR if col >= 6 else 0)


def _checker_centre(white_point: int, index: int) -> tuple[float, float]:
    """Centre of the index-th checker (0 = at the edge) on a white point."""
    col, row = _place(white_point)
    cx = _column_x(col) + PW / 2
    offset = CD / 2 + min(index, MAX_STACK - 1) * CD
    return cx, (FIELD_Y0 + offset if row == "top" else FIELD_Y1 - offset)


def _tray_box(side: str) -> tuple[float, float]:
    """Top-left corner of ``side``'s bear-off tray: white right of its home, black left of its."""
    if side == "white":
        return TRAY_R_X0, FIELD_Y1 - PH
    return 0, FIELD_Y0


def _tray_slot(side: str, index: int) -> tuple[float, float]:
    """Centre of the index-th borne-off checker (0 = first) in ``side``'s tray."""
    x, y = _tray_box(side)
    slab = (PH - 12) / 15
    index = min(index, 14)
    sy = y + PH - 6 - (index + 1) * slab if side == "white" else y + 6 + index * slab
    return x + TRAY_W / 2, sy + slab / 2


def _checker(side: str, cx: float, cy: float, ghost: bool = False) -> str:
    fill, edge, rim = CHECKER[side]
    if ghost:
        # Where the example play puts a checker: an outline of the mover's colour.
        return _el(
            "circle",
            cx=cx,
            cy=cy,
            r=CD / 2 - 4,
            fill=fill,
            fill_opacity="0.9",
            stroke=edge,
            stroke_width=3,
            stroke_dasharray="7 5",
            class_="ghost",
        )
    # Colours come from the side's group (see render_board): only the geometry here.
    return _el("circle", cx=cx, cy=cy, r=CD / 2 - 2)


def _die(value: int, x: float, y: float, size: float) -> str:
    pips = {
        1: [(1, 1)],
        2: [(0, 0), (2, 2)],
        3: [(0, 0), (1, 1), (2, 2)],
        4: [(0, 0), (2, 0), (0, 2), (2, 2)],
        5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)],
        6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)],
    }[value]
    step = size * 0.28
    out = [
        _el(
            "rect",
            x=x,
            y=y,
            width=size,
            height=size,
            rx=size * 0.18,
            fill="#fffdf7",
            stroke="#333",
            stroke_width=2.5,
        )
    ]
    for i, j in pips:
        out.append(
            _el(
                "circle",
                cx=x + size / 2 + (i - 1) * step,
                cy=y + size / 2 + (j - 1) * step,
                r=size * 0.09,
                fill="#1b1b1b",
            )
        )
    return f'<g class="die" data-value="{value}">' + "".join(out) + "</g>"


def _arrow(start, end, legal: bool | None, cross_rows: bool) -> str:
    """A curved arrow from ``start`` to ``end`` (viewBox points): solid green when ``legal`` is
    True, dashed red with a cross at its end when False, and thin grey when None (a step that
    is not judged, e.g. one after a refused step). Drawn over a pale halo to stay visible on
    both colours of points."""
    (x1, y1), (x2, y2) = start, end
    if cross_rows:
        cx, cy = (x1 + x2) / 2, MID_Y
    else:
        # Bulge toward the middle of the board, more for longer moves.
        towards_mid = 1 if y1 < MID_Y else -1
        bulge = min(120.0, 30 + abs(x2 - x1) * 0.25)
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2 + towards_mid * bulge
    # Start on the rim of the moving checker (its count stays readable) and stop short of the
    # end so that the head touches the rim of the landing checker.
    sx, sy = cx - x1, cy - y1
    slen = math.hypot(sx, sy) or 1.0
    x1, y1 = x1 + sx / slen * (CD / 2 - 8), y1 + sy / slen * (CD / 2 - 8)
    tx, ty = x2 - cx, y2 - cy
    length = math.hypot(tx, ty) or 1.0
    ux, uy = tx / length, ty / length
    ex, ey = x2 - ux * (CD / 2 - 6), y2 - uy * (CD / 2 - 6)
    colour = LEGAL if legal else UNJUDGED if legal is None else ILLEGAL
    d = f"M{_num(x1)} {_num(y1)} Q{_num(cx)} {_num(cy)} {_num(ex)} {_num(ey)}"
    head_len, head_w = 34, 18
    bx, by = ex - ux * head_len, ey - uy * head_len
    head = " ".join(
        f"{_num(px)},{_num(py)}"
        for px, py in (
            (ex, ey),
            (bx - uy * head_w, by + ux * head_w),
            (bx + uy * head_w, by - ux * head_w),
        )
    )
    dash = "18 12" if legal is False else None
    width = 6 if legal is None else 9
    parts = [
        _el(
            "path",
            d=d,
            fill="none",
            stroke="#fff",
            stroke_opacity="0.85",
            stroke_width=width + 7,
            stroke_linecap="round",
        ),
        _el(
            "path",
            d=d,
            fill="none",
            stroke=colour,
            stroke_width=width,
            stroke_linecap="round",
            stroke_dasharray=dash,
        ),
        _el("polygon", points=head, fill=colour, stroke="#fff", stroke_width=2),
    ]
    if legal is False:
        # A cross where the refused step would land.
        s = 18
        for dx in (-s, s):
            parts.append(
                _el(
                    "line",
                    x1=x2 - s,
                    y1=y2 - dx,
                    x2=x2 + s,
                    y2=y2 + dx,
                    stroke="#fff",
                    stroke_width=16,
                    stroke_linecap="round",
                )
            )
        for dx in (-s, s):
            parts.append(
                _el(
                    "line",
                    x1=x2 - s,
                    y1=y2 - dx,
                    x2=x2 + s,
                    y2=y2 + dx,
                    stroke=ILLEGAL,
                    stroke_width=9,
                    stroke_linecap="round",
                )
            )
    cls = (
        "arrow arrow-legal"
        if legal
        else "arrow arrow-unjudged"
        if legal is None
        else "arrow arrow-illegal"
    )
    return f'<g class="{cls}">' + "".join(parts) + "</g>"


def render_board(
    position,
    *,
    arrows=(),
    marks=(),
    dice=None,
    title: str = "",
    desc: str = "",
    labels_for: str = "white",
    size: int | None = None,
    id_prefix: str = "board",
) -> str:
    """Draw ``position`` as an ``<svg>`` string (RULES.md R1 standard layout).

    - ``position``: a RULES.md JSON position dict or an engine ``Position``; checkers missing
      from a side's board are borne off and shown in its tray with a count.
    - ``arrows``: ``(side, from, to)`` or ``(side, from, to, legal)`` in ``side``'s own
      numbering, ``to`` 0 = off (drawn into the tray). Arrows are applied in order, so a checker
      moved on by a later arrow starts where the earlier one put it. ``legal`` (default True):
      solid green; False: dashed red with a cross; None: thin grey, not judged (the steps after
      a refused one). Each destination gets a ghost checker.
    - ``marks``: ``(side, point)`` points to highlight, in ``side``'s own numbering.
    - ``dice``: ``(a, b)`` shown in the home half of the side to move (four dice for a double),
      or None.
    - ``title``, ``desc``: the accessible name and description (``<title>``, ``<desc>``).
    - ``labels_for``: whose numbering the point labels use, ``"white"`` or ``"black"``.
    - ``size``: width in CSS pixels written on the SVG, or None to fill its container.
    - ``id_prefix``: prefix of the element ids (unique per page when several boards are shown).

    Raises ValueError on a malformed position, side, point or die.
    """
    if labels_for not in SIDES:
        raise ValueError(f"labels_for must be 'white' or 'black', not {labels_for!r}")
    boards, turn = _boards(position)
    title_id, desc_id = f"{id_prefix}-title", f"{id_prefix}-desc"
    sizing = {"width": size, "height": round(size * VIEW_H / VIEW_W)} if size else {}
    out = [
        "<svg "
        + _attrs(
            xmlns="http://www.w3.org/2000/svg",
            viewBox=f"0 0 {VIEW_W} {VIEW_H}",
            role="img",
            aria_labelledby=f"{title_id} {desc_id}",
            class_="board-svg",
            # Defaults inherited by every text: written once, not on each label.
            font_family=FONT,
            font_weight=700,
            text_anchor="middle",
            dominant_baseline="central",
            **sizing,
        )
        + ">",
        _el("title", title, id=title_id),
        _el("desc", desc, id=desc_id),
    ]

    # Frame, two fields and the bar.
    out.append(
        _el(
            "rect",
            x=BOARD_X0,
            y=0,
            width=BOARD_X1 - BOARD_X0,
            height=VIEW_H,
            rx=10,
            fill=WOOD,
            stroke=WOOD_EDGE,
            stroke_width=4,
        )
    )
    out.append(_el("rect", x=FIELD_X0, y=FIELD_Y0, width=6 * PW, height=FIELD_H, fill=FIELD))
    out.append(
        _el("rect", x=FIELD_X0 + 6 * PW + BAR, y=FIELD_Y0, width=6 * PW, height=FIELD_H, fill=FIELD)
    )
    out.append(
        _el("rect", x=FIELD_X0 + 6 * PW, y=FIELD_Y0, width=BAR, height=FIELD_H, fill=BAR_FILL)
    )

    marked = set()
    for side, point in marks:
        if side not in SIDES or not 1 <= int(point) <= 24:
            raise ValueError(f"a mark is (side, point 1..24), not {(side, point)!r}")
        marked.add(to_white(side, int(point)))

    labels = []
    triangles = {POINT_DARK: [], POINT_LIGHT: []}
    for wp in range(1, 25):
        col, row = _place(wp)
        x = _column_x(col)
        top = row == "top"
        if wp in marked:
            y0 = FIELD_Y0 if top else FIELD_Y1 - PH
            out.append(
                _el(
                    "rect",
                    x=x,
                    y=y0,
                    width=PW,
                    height=PH,
                    fill=ACCENT,
                    fill_opacity="0.3",
                    class_="mark",
                )
            )
        base_y = FIELD_Y0 if top else FIELD_Y1
        tip_y = FIELD_Y0 + PH - 18 if top else FIELD_Y1 - PH + 18
        shade = POINT_DARK if (col + (0 if top else 1)) % 2 == 0 else POINT_LIGHT
        triangles[shade].append(f"M{x + 2} {base_y}H{x + PW - 2}L{x + PW / 2:g} {tip_y}Z")
        label_y = LABEL / 2 if top else VIEW_H - LABEL / 2
        label_fill = None
        if wp in marked:
            out.append(
                _el("rect", x=x + 6, y=label_y - 14, width=PW - 12, height=28, rx=8, fill=ACCENT)
            )
            label_fill = "#2b1a08"
        labels.append(
            _el(
                "text",
                str(wp if labels_for == "white" else flip(wp)),
                x=x + PW / 2,
                y=label_y,
                fill=label_fill,
            )
        )
    # All points of one colour as one path, then the labels.
    for shade, parts in triangles.items():
        out.append(_el("path", d="".join(parts), fill=shade, class_="points"))
    out.append(f'<g class="labels" fill="{LABEL_FILL}" font-size="27">' + "".join(labels) + "</g>")

    # Checkers: at most five drawn on a point, the fifth carrying the count of a taller stack.
    for side in SIDES:
        board = boards[side]
        fill, edge, rim = CHECKER[side]
        group, rims, counts = [], [], []
        for point in range(1, 25):
            count = board[point]
            if not count:
                continue
            wp = to_white(side, point)
            for i in range(min(count, MAX_STACK)):
                cx, cy = _checker_centre(wp, i)
                group.append(_checker(side, cx, cy))
                rims.append(_el("circle", cx=cx, cy=cy, r=CD / 2 - 10))
            if count > MAX_STACK:
                cx, cy = _checker_centre(wp, MAX_STACK - 1)
                counts.append(_el("text", str(count), x=cx, y=cy, class_="checker-count"))
        if group:
            out.append(
                f'<g class="checkers checkers-{side}" fill="{fill}" stroke="{edge}" '
                f'stroke-width="2.5">' + "".join(group) + "</g>"
            )
            out.append(
                f'<g fill="none" stroke="{rim}" stroke-width="1.5">' + "".join(rims) + "</g>"
            )
        if counts:
            out.append(f'<g fill="{COUNT_FILL[side]}" font-size="27">' + "".join(counts) + "</g>")

    # Bear-off trays with their counts.
    for side in SIDES:
        x, y = _tray_box(side)
        out.append(
            _el(
                "rect",
                x=x,
                y=y,
                width=TRAY_W,
                height=PH,
                rx=8,
                fill=WOOD,
                stroke=WOOD_EDGE,
                stroke_width=3,
            )
        )
        fill, edge, _rim = CHECKER[side]
        slab = (PH - 12) / 15
        slabs = []
        for i in range(boards[side][0]):
            _cx, cy = _tray_slot(side, i)
            slabs.append(
                _el("rect", x=x + 6, y=cy - slab / 2 + 1, width=TRAY_W - 12, height=slab - 2, rx=3)
            )
        if slabs:
            out.append(
                f'<g fill="{fill}" stroke="{edge}" stroke-width="1.5">' + "".join(slabs) + "</g>"
            )
        ty = y - 14 if side == "white" else y + PH + 20
        out.append(
            _el(
                "text",
                str(boards[side][0]),
                x=x + TRAY_W / 2,
                y=ty,
                fill="#333",
                font_size=26,
                class_=f"tray-count tray-count-{side}",
            )
        )

    # Dice in the home half of the side to move.
    if dice is not None:
        a, b = dice
        for d in (a, b):
            if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
                raise ValueError(f"a die shows 1 to 6, not {d!r}")
        faces = [a] * 4 if a == b else [a, b]
        die, gap = 68, 14
        total = len(faces) * die + (len(faces) - 1) * gap
        half_x = FIELD_X0 + 6 * PW + BAR if turn != "black" else FIELD_X0
        x = half_x + (6 * PW - total) / 2
        group = []
        for value in faces:
            group.append(_die(value, x, MID_Y - die / 2, die))
            x += die + gap
        out.append('<g class="dice">' + "".join(group) + "</g>")

    # Arrows of the example play, over ghosts of the checkers they move.
    counts = {side: list(boards[side]) for side in SIDES}
    ghosts, drawn = [], []
    for arrow in arrows:
        side, frm, to = arrow[0], int(arrow[1]), int(arrow[2])
        legal = True if len(arrow) < 4 else None if arrow[3] is None else bool(arrow[3])
        if side not in SIDES or not 1 <= frm <= 24 or not 0 <= to <= 23:
            raise ValueError(f"an arrow is (side, from 1..24, to 0..23), not {tuple(arrow)!r}")
        board = counts[side]
        start = _checker_centre(to_white(side, frm), max(board[frm] - 1, 0))
        board[frm] = max(board[frm] - 1, 0)
        if to == 0:
            end = _tray_slot(side, board[0])
            cross_rows = False
        else:
            end = _checker_centre(to_white(side, to), board[to])
            cross_rows = _place(to_white(side, frm))[1] != _place(to_white(side, to))[1]
            ghosts.append(_checker(side, *end, ghost=True))
        board[to] += 1
        drawn.append(_arrow(start, end, legal, cross_rows))
    out.extend(ghosts)
    out.extend(drawn)
    out.append("</svg>")
    return "".join(out)
