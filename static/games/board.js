/*
 * The long-nardy board drawing, an ES module shared by the live game room (room/board-view.js
 * and the room's texts) and the replay page (replay.js): `create` draws a board into an <svg>;
 * the small helpers beside it (numbering, plays, dice, positions, descriptions for screen
 * readers) need no DOM and are tested in Node (games/tests/js/board.test.mjs).
 *
 * Draws a position as an SVG in the standard layout of RULES.md R1 (white's head top right,
 * black's head bottom left, both moving counter-clockwise; white's home bottom right, black's
 * top left). Two layouts: "wide" (bear-off trays beside the board) and "compact" for phones
 * (trays above and below the board, so the 24 points get the whole width of the screen and
 * the trays become long tap targets). No rule is computed here.
 *
 * Points are labelled in the viewer's own numbering (white's for an onlooker). Interface text
 * goes through Django's JavaScript catalogue (gettext, ngettext, interpolate).
 */
const SVG_NS = "http://www.w3.org/2000/svg";
export const SIDES = ["white", "black"];
const MAX_STACK = 5; // checkers drawn on one point before a count is shown

/**
 * Geometry of one layout in viewBox units (the SVG scales to its width).
 * compact: trays are horizontal strips above (black) and below (white) the field.
 */
function makeLayout(compact) {
  const L = {
    compact,
    PW: 60, // point width
    CD: 56, // checker diameter
    PH: 290, // point (triangle area) height: five checkers and a little air
    MID: 88, // gap between the two rows, where the dice and the cube lie
    LABEL: compact ? 42 : 36, // frame strips above and below the field, with the numbers
    LABEL_FONT: compact ? 31 : 24,
    FRAME: compact ? 4 : 10,
    BAR: compact ? 24 : 40,
    TRAY_W: compact ? 0 : 40,
    TRAY_GAP: compact ? 4 : 5,
    TRAY_H: compact ? 50 : 0,
  };
  L.BOARD_X0 = compact ? 0 : L.TRAY_W + L.TRAY_GAP;
  L.FIELD_X0 = L.BOARD_X0 + L.FRAME;
  L.FIELD_W = 12 * L.PW + L.BAR;
  L.BOARD_X1 = L.FIELD_X0 + L.FIELD_W + L.FRAME;
  L.TRAY_R_X0 = L.BOARD_X1 + L.TRAY_GAP;
  L.VIEW_W = compact ? L.BOARD_X1 : L.TRAY_R_X0 + L.TRAY_W;
  L.BOARD_Y0 = compact ? L.TRAY_H + L.TRAY_GAP : 0;
  L.FIELD_Y0 = L.BOARD_Y0 + L.LABEL;
  L.FIELD_H = 2 * L.PH + L.MID;
  L.FIELD_Y1 = L.FIELD_Y0 + L.FIELD_H;
  L.BOARD_Y1 = L.FIELD_Y1 + L.LABEL;
  L.VIEW_H = compact ? L.BOARD_Y1 + L.TRAY_GAP + L.TRAY_H : L.BOARD_Y1;
  L.MID_Y = L.FIELD_Y0 + L.PH + L.MID / 2;
  return L;
}

const LAYOUTS = { wide: makeLayout(false), compact: makeLayout(true) };

// ---- Small helpers ---------------------------------------------------------------------

export function fmt(text, values) {
  return interpolate(text, values, true);
}

export function other(side) {
  return side === "white" ? "black" : "white";
}

export function sideName(side) {
  return side === "white" ? gettext("White") : gettext("Black");
}

/** The same physical point in the other side's numbering (RULES.md R1); 0 (off) stays 0. */
export function flip(point) {
  if (!point) return point;
  return point <= 12 ? point + 12 : point - 12;
}

/** A point in `side`'s own numbering -> white's numbering (the board's geometry). */
export function toWhite(side, point) {
  return side === "white" ? point : flip(point);
}

/** A white point number -> `side`'s own numbering. */
export function fromWhite(side, whitePoint) {
  return side === "white" ? whitePoint : flip(whitePoint);
}

/** "24/18" -> {from: 24, to: 18}; "3/off" -> {from: 3, to: 0} (RULES.md Notation). */
export function parseStep(step) {
  const [a, b] = step.split("/");
  return { from: parseInt(a, 10), to: b === "off" ? 0 : parseInt(b, 10) };
}

export function formatStep(from, to) {
  return `${from}/${to === 0 ? "off" : to}`;
}

/** The steps of a play ("" = pass -> []). */
export function playSteps(play) {
  return play ? play.trim().split(/\s+/).map(parseStep) : [];
}

/**
 * A play of `side`, written in its own numbering, in the numbering of `viewer` (the side whose
 * labels the board shows; white for an onlooker): the opponent's points are converted
 * (p -> p + 12 if p <= 12, else p - 12; off stays off).
 */
export function playForViewer(play, side, viewer) {
  if (!play) return "";
  const numbering = viewer || "white";
  if (numbering === side) return play;
  return playSteps(play).map(({ from, to }) => formatStep(flip(from), flip(to))).join(" ");
}

/** "6‑5": a non-breaking hyphen, so a roll never splits across two lines. */
export function diceText(dice) {
  return (dice || []).join("\u2011");
}

/** A board as an array of 25 counts (index 0 unused) from the RULES.md JSON side object. */
export function boardFromJson(sideObject) {
  const board = new Array(25).fill(0);
  for (const [point, count] of Object.entries(sideObject || {})) {
    board[parseInt(point, 10)] = count;
  }
  return board;
}

export function pipCount(board) {
  let pips = 0;
  for (let point = 1; point <= 24; point += 1) pips += point * board[point];
  return pips;
}

function onBoard(board) {
  let count = 0;
  for (let point = 1; point <= 24; point += 1) count += board[point];
  return count;
}

/** {boards, off} of a RULES.md JSON position (checkers not on the board are off). */
export function positionBoards(position) {
  const boards = {};
  const off = {};
  for (const side of SIDES) {
    boards[side] = boardFromJson(position && position[side]);
    off[side] = 15 - onBoard(boards[side]);
  }
  return { boards, off };
}

function svg(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attrs || {})) {
    node.setAttribute(key, String(value));
  }
  if (parent) parent.appendChild(node);
  return node;
}

export function prefersReducedMotion() {
  return Boolean(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

// ---- Geometry --------------------------------------------------------------------------

/** Column 0..11 from the left and row ("top"/"bottom") of a white point (R1 screen layout). */
function pointPlace(whitePoint) {
  if (whitePoint <= 12) return { col: 12 - whitePoint, row: "bottom" };
  return { col: whitePoint - 13, row: "top" };
}

function columnX(L, col) {
  return L.FIELD_X0 + col * L.PW + (col >= 6 ? L.BAR : 0);
}

/** Centre of the i-th checker (0 = at the edge) on a white point. */
function checkerCentre(L, whitePoint, index) {
  const { col, row } = pointPlace(whitePoint);
  const cx = columnX(L, col) + L.PW / 2;
  const offset = L.CD / 2 + Math.min(index, MAX_STACK - 1) * L.CD;
  return { cx, cy: row === "top" ? L.FIELD_Y0 + offset : L.FIELD_Y1 - offset };
}

/** The rectangle of a side's bear-off tray: white's beside its home (bottom right), black's top left. */
function trayBox(L, side) {
  if (L.compact) {
    const x = side === "white" ? L.FIELD_X0 + 6 * L.PW + L.BAR : L.FIELD_X0;
    const y = side === "white" ? L.BOARD_Y1 + L.TRAY_GAP : 0;
    return { x, y, width: 6 * L.PW, height: L.TRAY_H };
  }
  const x = side === "white" ? L.TRAY_R_X0 : 0;
  const y = side === "white" ? L.FIELD_Y1 - L.PH : L.FIELD_Y0;
  return { x, y, width: L.TRAY_W, height: L.PH };
}

/** Where a checker borne off by `side` lands (for animations). */
function trayCentre(L, side, count) {
  const box = trayBox(L, side);
  if (L.compact) {
    const slab = (box.width - 12) / 15;
    const i = Math.min(count, 14);
    const x = side === "white" ? box.x + box.width - 6 - (i + 0.5) * slab : box.x + 6 + (i + 0.5) * slab;
    return { cx: x, cy: box.y + box.height / 2 };
  }
  return { cx: box.x + box.width / 2, cy: side === "white" ? box.y + box.height - 20 : box.y + 20 };
}

// ---- Descriptions (screen readers) -----------------------------------------------------

function describePoint(label, whitePoint, boards) {
  for (const side of SIDES) {
    const count = boards[side][fromWhite(side, whitePoint)];
    if (count > 0) {
      const text = side === "white"
        ? ngettext("Point %(point)s: %(count)s white checker", "Point %(point)s: %(count)s white checkers", count)
        : ngettext("Point %(point)s: %(count)s black checker", "Point %(point)s: %(count)s black checkers", count);
      return fmt(text, { point: label, count });
    }
  }
  return fmt(gettext("Point %(point)s: empty"), { point: label });
}

/**
 * A short text listing of a position for screen readers, in the viewer's numbering:
 * "White: 14 on 24, 1 on 13. Black: 15 on 12." (onlookers: white's numbering).
 */
export function describePosition(boards, viewer) {
  const numbering = viewer || "white";
  const parts = [];
  for (const side of SIDES) {
    const items = [];
    for (let p = 24; p >= 1; p -= 1) {
      const count = boards[side][p];
      if (count) {
        const label = side === numbering ? p : flip(p);
        items.push(fmt(gettext("%(count)s on %(point)s"), { count, point: label }));
      }
    }
    const list = items.length ? items.join(", ") : gettext("none on the board");
    parts.push(fmt(side === "white" ? gettext("White: %(list)s.") : gettext("Black: %(list)s."), { list }));
  }
  return parts.join(" ");
}

/**
 * Focus `el` and scroll only as far as needed to show it (the browser's own focus scroll
 * may centre it, and on a phone push the board off the top of the screen).
 */
export function focusInView(el) {
  el.focus({ preventScroll: true });
  el.scrollIntoView({ block: "nearest", inline: "nearest" });
}

// ---- The board object ------------------------------------------------------------------

/**
 * A board drawn into the <svg> element `svgEl`. `draw(view)` shows `view` (redrawing only
 * the parts that changed); view fields:
 *   boards {white: [25], black: [25]}, off {white, black}  -- the position shown
 *   viewer "white" | "black" | null                           -- whose numbering labels use
 *   mover, steps (Map from -> Map to -> entry), selected, dests (Map to -> entry),
 *   stagedTo (Set of white points), lastPoints (Set of white points),
 *   dice {side, faces, used} | null, cube {value, owner} | null,
 *   hidden {side, whitePoint} | null                            -- a checker in flight
 * Layout follows the element's width (compact below 520 CSS px) unless `options.layout`.
 */
export function create(svgEl, options) {
  const opts = options || {};
  let layout = null;
  let lastView = null;
  const parts = new Map(); // part name -> {key, group}: what draw() last drew

  function chooseLayout() {
    if (opts.layout) return LAYOUTS[opts.layout];
    const width = svgEl.getBoundingClientRect().width || window.innerWidth;
    return width < 520 ? LAYOUTS.compact : LAYOUTS.wide;
  }

  function label(view, whitePoint) {
    return view.viewer === "black" ? flip(whitePoint) : whitePoint;
  }

  function drawFrame(L, parent) {
    svg("rect", { class: "board-wood", x: L.BOARD_X0, y: L.BOARD_Y0, width: L.BOARD_X1 - L.BOARD_X0, height: L.BOARD_Y1 - L.BOARD_Y0, rx: 10 }, parent);
    svg("rect", { class: "board-field", x: L.FIELD_X0, y: L.FIELD_Y0, width: 6 * L.PW, height: L.FIELD_H }, parent);
    svg("rect", { class: "board-field", x: L.FIELD_X0 + 6 * L.PW + L.BAR, y: L.FIELD_Y0, width: 6 * L.PW, height: L.FIELD_H }, parent);
    svg("rect", { class: "board-bar", x: L.FIELD_X0 + 6 * L.PW, y: L.FIELD_Y0, width: L.BAR, height: L.FIELD_H }, parent);
  }

  function drawChecker(parent, side, cx, cy, extraClass) {
    const L = layout;
    const g = svg("g", { class: "checker-g" }, parent);
    svg("circle", {
      class: "checker checker-" + side + (extraClass ? " " + extraClass : ""),
      cx, cy, r: L.CD / 2 - 2,
    }, g);
    svg("circle", { class: "checker-rim checker-rim-" + side, cx, cy, r: L.CD / 2 - 10 }, g);
    return g;
  }

  /**
   * What the view says about `whitePoint` (white's numbering) for the side moving: drawPoint
   * draws from it, and pointKey tells from it whether the point changed.
   */
  function pointFacts(view, whitePoint) {
    const moverPoint = view.mover ? fromWhite(view.mover, whitePoint) : null;
    const moverCount = moverPoint !== null ? view.boards[view.mover][moverPoint] : 0;
    const dest = moverPoint !== null && view.dests ? view.dests.get(moverPoint) : undefined;
    const selectable = moverPoint !== null && view.steps ? view.steps.has(moverPoint) : false;
    return {
      moverCount,
      dest,
      selectable,
      selected: selectable && view.selected === moverPoint,
      last: Boolean(view.lastPoints && view.lastPoints.has(whitePoint)),
      staged: Boolean(view.stagedTo && view.stagedTo.has(whitePoint)),
      mine: Boolean(view.interactive && moverCount > 0),
    };
  }

  /**
   * Everything drawPoint's drawing of `whitePoint` depends on, as a string (equal: nothing
   * to do). Only what shows on this point: a roll changes the points whose checkers can now
   * be chosen, not the rest of the board.
   */
  function pointKey(view, whitePoint, facts) {
    return [
      label(view, whitePoint),
      view.boards.white[whitePoint],
      view.boards.black[flip(whitePoint)],
      view.hidden && view.hidden.whitePoint === whitePoint ? view.hidden.side : "",
      facts.mine,
      facts.selectable,
      facts.selected,
      facts.dest ? `${facts.dest.path ? facts.dest.path.length : 1}@${facts.moverCount}` : "",
      facts.last ? view.lastSide || "" : "-",
      facts.staged,
    ].join("|");
  }

  function drawPoint(view, whitePoint, parent, facts) {
    const L = layout;
    const { col, row } = pointPlace(whitePoint);
    const x = columnX(L, col);
    const { selectable: isSelectable, selected: isSelected, last: isLast, dest } = facts;
    const isDest = Boolean(dest);

    const g = svg("g", {
      class: "point" + (isSelected ? " selected" : "") + (isDest ? " dest" : "") + (isSelectable ? " can-move" : "")
        + (isLast ? " last" : ""),
      "data-point": whitePoint,
      "aria-label": describePoint(label(view, whitePoint), whitePoint, view.boards),
    }, parent);
    // Choosable: a button in the board's one tab stop (roving, see draw); else a labelled image.
    if (isSelectable || isDest || facts.mine) {
      g.setAttribute("tabindex", "-1");
      g.setAttribute("role", "button");
    } else {
      g.setAttribute("role", "img");
    }

    const top = row === "top";
    // The tap target: the whole half-column, its number in the frame and half the middle gap.
    const hitY0 = top ? L.BOARD_Y0 : L.FIELD_Y1 - L.PH - L.MID / 2;
    svg("rect", { class: "point-hit", x, y: hitY0, width: L.PW, height: L.PH + L.LABEL + L.MID / 2 }, g);
    const tipY = top ? L.FIELD_Y0 + L.PH - 18 : L.FIELD_Y1 - L.PH + 18;
    const baseY = top ? L.FIELD_Y0 : L.FIELD_Y1;
    const shade = (col + (top ? 0 : 1)) % 2 === 0 ? "point-dark" : "point-light";
    svg("polygon", {
      class: "point-tri " + shade,
      points: `${x + 2},${baseY} ${x + L.PW - 2},${baseY} ${x + L.PW / 2},${tipY}`,
    }, g);

    // Checkers (at most one side on a point).
    for (const side of SIDES) {
      let count = view.boards[side][fromWhite(side, whitePoint)];
      if (view.hidden && view.hidden.side === side && view.hidden.whitePoint === whitePoint) count -= 1;
      if (count <= 0) continue;
      const shown = Math.min(count, MAX_STACK);
      for (let i = 0; i < shown; i += 1) {
        const { cx, cy } = checkerCentre(L, whitePoint, i);
        const topmost = i === shown - 1;
        let extra = "";
        if (topmost && isSelectable) extra = "selectable";
        if (topmost && isSelected) extra += " selected-checker";
        if (topmost && facts.staged && side === view.mover) extra += " staged";
        if (topmost && isLast && view.lastSide === side) extra += " last-moved";
        drawChecker(g, side, cx, cy, extra.trim());
      }
      if (count > MAX_STACK) {
        const { cx, cy } = checkerCentre(L, whitePoint, MAX_STACK - 1);
        const t = svg("text", { class: "checker-count checker-count-" + side, x: cx, y: cy }, g);
        t.textContent = String(count);
      }
    }

    if (isDest) {
      const { cx, cy } = checkerCentre(L, whitePoint, facts.moverCount);
      svg("circle", { class: "dest-ghost", cx, cy, r: L.CD / 2 - 4 }, g);
      if (dest.path && dest.path.length > 1) {
        // A destination reached with several dice: say how many (the legend explains "×2").
        const t = svg("text", { class: "dest-dice", x: cx, y: cy }, g);
        t.textContent = "×" + dest.path.length;
        g.setAttribute("aria-label", g.getAttribute("aria-label") + ". " + fmt(
          gettext("The checker gets here with %(count)s dice, one after the other."), { count: dest.path.length },
        ));
      }
    }

    const labelY = top ? L.BOARD_Y0 + L.LABEL / 2 : L.BOARD_Y1 - L.LABEL / 2;
    if (isLast) {
      svg("rect", { class: "last-mark", x: x + 5, y: labelY - L.LABEL / 2 + 4, width: L.PW - 10, height: L.LABEL - 8, rx: 8 }, parent);
    }
    const text = svg("text", {
      class: "point-label" + (isLast ? " last" : ""),
      x: x + L.PW / 2,
      y: labelY,
      "font-size": L.LABEL_FONT,
    }, parent);
    text.textContent = String(label(view, whitePoint));
  }

  function trayCount(view, side) {
    return view.off[side] - (view.hiddenOff && view.hiddenOff === side ? 1 : 0);
  }

  function trayIsDest(view, side) {
    return Boolean(view.mover === side && view.dests && view.dests.has(0));
  }

  function drawTray(view, side, parent) {
    const L = layout;
    const box = trayBox(L, side);
    const isDest = trayIsDest(view, side);
    const count = trayCount(view, side);
    const g = svg("g", {
      class: "tray tray-" + side + (isDest ? " dest" : ""),
      "data-tray": side,
      "aria-label": fmt(side === "white" ? gettext("White borne off: %(count)s") : gettext("Black borne off: %(count)s"), { count }),
    }, parent);
    if (isDest) {
      g.setAttribute("tabindex", "-1");
      g.setAttribute("role", "button");
    } else {
      g.setAttribute("role", "img");
    }
    svg("rect", { class: "tray-box", x: box.x, y: box.y, width: box.width, height: box.height, rx: 8 }, g);
    if (L.compact) {
      const slab = (box.width - 12) / 15;
      for (let i = 0; i < count; i += 1) {
        const sx = side === "white" ? box.x + box.width - 6 - (i + 1) * slab : box.x + 6 + i * slab;
        svg("rect", { class: "tray-checker checker-" + side, x: sx + 1, y: box.y + 6, width: slab - 2, height: box.height - 12, rx: 3 }, g);
      }
      // The count sits in the free end of the strip (the other half's width).
      const tx = side === "white" ? box.x - L.BAR / 2 - 3 * L.PW : box.x + box.width + L.BAR / 2 + 3 * L.PW;
      const t = svg("text", { class: "tray-count tray-count-compact", x: tx, y: box.y + box.height / 2 }, parent);
      t.textContent = fmt(side === "white" ? gettext("White off: %(count)s") : gettext("Black off: %(count)s"), { count });
    } else {
      const slab = (box.height - 12) / 15;
      for (let i = 0; i < count; i += 1) {
        const sy = side === "white" ? box.y + box.height - 6 - (i + 1) * slab : box.y + 6 + i * slab;
        svg("rect", { class: "tray-checker checker-" + side, x: box.x + 6, y: sy + 1, width: box.width - 12, height: slab - 2, rx: 3 }, g);
      }
      const ty = side === "white" ? box.y - 14 : box.y + box.height + 20;
      const t = svg("text", { class: "tray-count", x: box.x + box.width / 2, y: ty }, parent);
      t.textContent = String(count);
    }
    if (isDest) {
      const c = trayCentre(L, side, count);
      svg("circle", { class: "dest-ghost", cx: c.cx, cy: c.cy, r: Math.min(L.CD, box.height) / 2 - 6 }, g);
    }
  }

  function drawDie(parent, value, x, y, size, used) {
    const g = svg("g", { class: "die" + (used ? " used" : "") }, parent);
    svg("rect", { class: "die-face", x, y, width: size, height: size, rx: size * 0.18 }, g);
    const pipsAt = {
      1: [[1, 1]],
      2: [[0, 0], [2, 2]],
      3: [[0, 0], [1, 1], [2, 2]],
      4: [[0, 0], [2, 0], [0, 2], [2, 2]],
      5: [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]],
      6: [[0, 0], [2, 0], [0, 1], [2, 1], [0, 2], [2, 2]],
    }[value] || [];
    const step = size * 0.28;
    for (const [i, j] of pipsAt) {
      svg("circle", {
        class: "die-pip",
        cx: x + size / 2 + (i - 1) * step,
        cy: y + size / 2 + (j - 1) * step,
        r: size * 0.09,
      }, g);
    }
  }

  function drawDice(view, parent) {
    const L = layout;
    const dice = view.dice;
    if (!dice || !dice.faces || !dice.faces.length) return;
    const faces = dice.faces;
    const used = dice.used || faces.map(() => false);
    const size = faces.length > 2 ? 60 : 68;
    const gap = faces.length > 2 ? 10 : 14;
    const total = faces.length * size + (faces.length - 1) * gap;
    // The dice lie in the half of the side that rolled them: white's right, black's left.
    const halfX = dice.side === "white" ? L.FIELD_X0 + 6 * L.PW + L.BAR : L.FIELD_X0;
    let x = halfX + (6 * L.PW - total) / 2;
    const group = svg("g", { class: "dice dice-" + dice.side + (dice.faded ? " faded" : "") }, parent);
    faces.forEach((value, i) => {
      drawDie(group, value, x, L.MID_Y - size / 2, size, used[i]);
      x += size + gap;
    });
  }

  /** R3: each side's single opening die, in its own half (white right, black left). */
  function drawOpeningDice(view, parent) {
    const L = layout;
    const o = view.openingDice;
    if (!o || view.dice) return;
    const size = 60;
    const group = svg("g", { class: "dice opening-dice" }, parent);
    for (const side of SIDES) {
      const halfX = side === "white" ? L.FIELD_X0 + 6 * L.PW + L.BAR : L.FIELD_X0;
      drawDie(group, o[side], halfX + (6 * L.PW - size) / 2, L.MID_Y - size / 2, size, false);
    }
  }

  function drawCube(view, parent) {
    const L = layout;
    const cube = view.cube;
    if (!cube) return;
    // In the middle while nobody owns it; on the bar at its owner's edge (white bottom,
    // black top) once taken, half over the frame so it never covers a checker.
    const offered = Boolean(cube.offered);
    const size = cube.owner && !offered ? (L.compact ? 36 : 44) : 54;
    const cx = L.FIELD_X0 + 6 * L.PW + L.BAR / 2;
    let cy = L.MID_Y;
    if (!offered && cube.owner === "white") cy = L.FIELD_Y1;
    if (!offered && cube.owner === "black") cy = L.FIELD_Y0;
    // While a double waits for its answer, the cube shows the stake offered, in the middle.
    const shown = offered ? cube.value * 2 : cube.value;
    let text;
    if (offered) text = fmt(gettext("Doubling cube offered: the stake would be %(value)s"), { value: shown });
    else if (cube.owner === "white") text = fmt(gettext("Doubling cube: %(value)s, owned by white"), { value: shown });
    else if (cube.owner === "black") text = fmt(gettext("Doubling cube: %(value)s, owned by black"), { value: shown });
    else text = fmt(gettext("Doubling cube: %(value)s, in the middle"), { value: shown });
    const g = svg("g", { class: "cube" + (cube.owner ? " cube-" + cube.owner : "") + (offered ? " offered" : ""), role: "img", "aria-label": text }, parent);
    svg("rect", { class: "cube-face", x: cx - size / 2, y: cy - size / 2, width: size, height: size, rx: 9 }, g);
    const t = svg("text", { class: "cube-value", x: cx, y: cy + 1, "font-size": Math.round(size * 0.55) }, g);
    t.textContent = String(shown);
  }

  /**
   * Draw one part of the board (the frame, a point with its number, a tray, the cube, the
   * dice) into its own group, unless `key` says it looks as it did: a change redraws only
   * the points and pieces it touched, so a roll or a step costs the browser little.
   */
  function part(name, key, drawInto) {
    const old = parts.get(name);
    if (old && old.key === key) return;
    const group = document.createElementNS(SVG_NS, "g");
    drawInto(group);
    if (old) old.group.replaceWith(group);
    else svgEl.appendChild(group);
    parts.set(name, { key, group });
  }

  /** Draw `view` (see above): the parts it changed. */
  function draw(view) {
    lastView = view;
    const L = chooseLayout();
    const focused = document.activeElement && svgEl.contains(document.activeElement)
      ? (document.activeElement.getAttribute("data-point") || "tray-" + document.activeElement.getAttribute("data-tray"))
      : null;

    if (L !== layout) {
      // another layout: every part is drawn anew, in the order that stacks them right
      layout = L;
      parts.clear();
      svgEl.replaceChildren();
      svgEl.setAttribute("viewBox", `0 0 ${L.VIEW_W} ${L.VIEW_H}`);
      svgEl.style.aspectRatio = `${L.VIEW_W} / ${L.VIEW_H}`;
      svgEl.classList.toggle("compact", L.compact);
    }
    for (const flyer of svgEl.querySelectorAll(":scope > [data-flyer]")) flyer.remove();
    part("frame", "", (g) => drawFrame(L, g));
    for (let p = 1; p <= 24; p += 1) {
      const facts = pointFacts(view, p);
      part("point" + p, pointKey(view, p, facts), (g) => drawPoint(view, p, g, facts));
    }
    for (const side of SIDES) {
      const key = [trayCount(view, side), trayIsDest(view, side)].join("|");
      part("tray-" + side, key, (g) => drawTray(view, side, g));
    }
    part("cube", JSON.stringify(view.cube || null), (g) => drawCube(view, g));
    part("dice", JSON.stringify(view.dice || null), (g) => drawDice(view, g));
    part("opening", JSON.stringify(view.dice ? null : view.openingDice || null), (g) => drawOpeningDice(view, g));
    svgEl.classList.toggle("is-staging", Boolean(view.mover));

    // One tab stop for the board (a roving tabindex): the place focused before the redraw if
    // it can still be chosen, else the first destination, else the first place to choose.
    const again = !focused ? null : focused.startsWith("tray-")
      ? svgEl.querySelector(`[data-tray="${focused.slice(5)}"][tabindex]`)
      : svgEl.querySelector(`[data-point="${focused}"][tabindex]`);
    const stop = again || svgEl.querySelector(".dest[tabindex]") || svgEl.querySelector("[tabindex]");
    for (const el of svgEl.querySelectorAll('[tabindex="0"]')) if (el !== stop) el.setAttribute("tabindex", "-1");
    if (stop) stop.setAttribute("tabindex", "0");
    // The focus stays on the board: on the same place, or else on its new tab stop.
    if (focused && stop && document.activeElement !== stop) stop.focus();
  }

  /**
   * The places that can be chosen as the screen shows them: rows from the top (the top
   * points, the bottom points, and the trays where they lie), each from left to right.
   * @returns {{y: number, items: {el: Element, x: number, y: number}[]}[]}
   */
  function stopRows() {
    const tolerance = svgEl.getBoundingClientRect().height * 0.1;
    const placed = Array.from(svgEl.querySelectorAll("[tabindex]"), (el) => {
      const r = el.getBoundingClientRect();
      return { el, x: r.left + r.width / 2, y: r.top + r.height / 2 };
    }).sort((a, b) => a.y - b.y);
    const rows = [];
    for (const place of placed) {
      const row = rows.find((r) => Math.abs(r.y - place.y) < tolerance);
      if (row) row.items.push(place);
      else rows.push({ y: place.y, items: [place] });
    }
    for (const row of rows) row.items.sort((a, b) => a.x - b.x);
    return rows;
  }

  /**
   * Move the focus among the places that can be chosen, as they lie on the screen:
   * `step` "right" or "left" the next or previous one in reading order (rows from the top,
   * each left to right, wrapping), "down" or "up" the nearest one in the next or previous
   * row, "first" or "last". Returns the element focused, or null when nothing can be chosen.
   */
  function moveFocus(step) {
    const rows = stopRows();
    const flat = rows.flatMap((row) => row.items);
    if (!flat.length) return null;
    const at = flat.findIndex((place) => place.el === document.activeElement);
    let next;
    if (step === "first" || at < 0) next = flat[0];
    else if (step === "last") next = flat[flat.length - 1];
    else if (step === "right" || step === "left") {
      next = flat[(at + (step === "right" ? 1 : -1) + flat.length) % flat.length];
    } else {
      const here = flat[at];
      const rowAt = rows.findIndex((row) => row.items.includes(here));
      const row = rows[(rowAt + (step === "down" ? 1 : -1) + rows.length) % rows.length];
      next = row.items.reduce((best, place) => (Math.abs(place.x - here.x) < Math.abs(best.x - here.x) ? place : best));
    }
    for (const place of flat) place.el.setAttribute("tabindex", "-1");
    next.el.setAttribute("tabindex", "0");
    next.el.focus();
    return next.el;
  }

  /**
   * Focus the board where the player can act: a destination, else a checker that can move,
   * else the board's tab stop; that place becomes the tab stop. False when nothing on the
   * board can be chosen.
   */
  function focusBoard() {
    const stop = svgEl.querySelector(".dest[tabindex], .can-move[tabindex]")
      || svgEl.querySelector('[tabindex="0"]');
    if (!stop) return false;
    for (const el of svgEl.querySelectorAll("[tabindex]")) el.setAttribute("tabindex", "-1");
    stop.setAttribute("tabindex", "0");
    focusInView(stop);
    return true;
  }

  /** Redraw with the last view when the element's width crosses the phone/desktop line. */
  function relayout() {
    if (lastView && chooseLayout() !== layout) draw(lastView);
  }
  if (!opts.layout && window.ResizeObserver) {
    new ResizeObserver(relayout).observe(svgEl);
  }

  /** Centre of the place a checker of `side` stands at (own point; 0 = tray), in viewBox units. */
  function placeCentre(side, point, index) {
    if (point === 0) return trayCentre(layout, side, index);
    return checkerCentre(layout, toWhite(side, point), index);
  }

  /**
   * Slide one checker of `side` from its point `from` to `to` (own numbering, 0 = off);
   * `view` is the position before the step. Resolves when it has landed (at once when
   * motion is reduced). The caller redraws with the position after the step.
   */
  function animateStep(view, side, from, to, ms) {
    draw(Object.assign({}, view, { hidden: { side, whitePoint: toWhite(side, from) } }));
    const fromIndex = view.boards[side][from] - 1;
    const toIndex = to === 0 ? view.off[side] : view.boards[side][to];
    const start = placeCentre(side, from, fromIndex);
    const end = placeCentre(side, to, toIndex);
    // Counted for tests (how many checkers have been seen flying).
    svgEl.dataset.flights = String((Number(svgEl.dataset.flights) || 0) + 1);
    const flyer = drawChecker(svgEl, side, start.cx, start.cy, "flying");
    flyer.dataset.flyer = "";
    return new Promise((resolve) => {
      if (!flyer.animate) {
        resolve();
        return;
      }
      const animation = flyer.animate(
        [{ transform: "translate(0px, 0px)" }, { transform: `translate(${end.cx - start.cx}px, ${end.cy - start.cy}px)` }],
        { duration: ms, easing: "ease-in-out", fill: "forwards" },
      );
      animation.onfinish = () => resolve();
      animation.oncancel = () => resolve();
    });
  }

  return { draw, animateStep, relayout, moveFocus, focusBoard, element: svgEl };
}
