/*
 * The live long-nardy board (issue 2, section 5).
 *
 * Draws the position of a snapshot (docs/protocol.md) as an SVG in the standard layout of
 * RULES.md R1 and lets the player stage a turn one step at a time by walking the server's
 * `legal.graph`. No rule is computed here: which checkers may move and where they may go come
 * only from the graph; the page shows, stages and asks, the server decides.
 *
 * Interface text goes through Django's JavaScript catalogue (gettext, ngettext, interpolate).
 */
(function () {
  "use strict";

  const SVG_NS = "http://www.w3.org/2000/svg";

  // Geometry of the board in viewBox units (the SVG scales to its width).
  const TRAY_W = 40; // bear-off tray column on each side
  const TRAY_GAP = 5;
  const FRAME = 10; // wooden frame left and right of the field
  const LABEL = 36; // frame strips above and below the field, holding the point numbers
  const PW = 60; // point width
  const BAR = 40; // bar between the two halves
  const CD = 56; // checker diameter
  const PH = 290; // point (triangle area) height: five checkers and a little air
  const MID = 88; // gap between the two rows, where the dice lie
  const MAX_STACK = 5; // checkers drawn on one point before a count is shown

  const BOARD_X0 = TRAY_W + TRAY_GAP;
  const FIELD_X0 = BOARD_X0 + FRAME;
  const FIELD_W = 12 * PW + BAR;
  const BOARD_X1 = FIELD_X0 + FIELD_W + FRAME;
  const TRAY_R_X0 = BOARD_X1 + TRAY_GAP;
  const VIEW_W = TRAY_R_X0 + TRAY_W;
  const FIELD_Y0 = LABEL;
  const FIELD_H = 2 * PH + MID;
  const FIELD_Y1 = FIELD_Y0 + FIELD_H;
  const VIEW_H = FIELD_Y1 + LABEL;
  const MID_Y = FIELD_Y0 + PH + MID / 2;

  const SIDES = ["white", "black"];

  // ---- Small helpers ---------------------------------------------------------------------

  function fmt(text, values) {
    return interpolate(text, values, true);
  }

  function sideName(side) {
    return side === "white" ? gettext("White") : gettext("Black");
  }

  function other(side) {
    return side === "white" ? "black" : "white";
  }

  /** The same physical point in the other side's numbering (RULES.md R1). */
  function flip(point) {
    return point <= 12 ? point + 12 : point - 12;
  }

  /** A point in `side`'s own numbering -> white's numbering (the board's geometry). */
  function toWhite(side, point) {
    return side === "white" ? point : flip(point);
  }

  /** A white point number -> `side`'s own numbering. */
  function fromWhite(side, whitePoint) {
    return side === "white" ? whitePoint : flip(whitePoint);
  }

  /** "24/18" -> {from: 24, to: 18}; "3/off" -> {from: 3, to: 0} (RULES.md Notation). */
  function parseStep(step) {
    const [a, b] = step.split("/");
    return { from: parseInt(a, 10), to: b === "off" ? 0 : parseInt(b, 10) };
  }

  function diceText(dice) {
    return dice.join("-");
  }

  function svg(name, attrs, parent) {
    const node = document.createElementNS(SVG_NS, name);
    for (const [key, value] of Object.entries(attrs || {})) {
      node.setAttribute(key, String(value));
    }
    if (parent) parent.appendChild(node);
    return node;
  }

  /** Column 0..11 from the left and row ("top"/"bottom") of a white point (R1 screen layout). */
  function pointPlace(whitePoint) {
    if (whitePoint <= 12) return { col: 12 - whitePoint, row: "bottom" };
    return { col: whitePoint - 13, row: "top" };
  }

  function columnX(col) {
    return FIELD_X0 + col * PW + (col >= 6 ? BAR : 0);
  }

  /** Centre of the i-th checker (0 = at the edge) on a white point. */
  function checkerCentre(whitePoint, index) {
    const { col, row } = pointPlace(whitePoint);
    const cx = columnX(col) + PW / 2;
    const offset = CD / 2 + Math.min(index, MAX_STACK - 1) * CD;
    return { cx, cy: row === "top" ? FIELD_Y0 + offset : FIELD_Y1 - offset };
  }

  // ---- State -----------------------------------------------------------------------------

  const root = document.getElementById("game");
  if (!root) return;
  const boardEl = document.getElementById("board");
  const els = {
    players: document.getElementById("players"),
    connection: document.getElementById("connection"),
    status: document.getElementById("status"),
    message: document.getElementById("message"),
    roll: document.getElementById("roll-btn"),
    undo: document.getElementById("undo-btn"),
    confirm: document.getElementById("confirm-btn"),
    pass: document.getElementById("pass-btn"),
    resign: document.getElementById("resign-btn"),
    result: document.getElementById("result"),
    resultTitle: document.getElementById("result-title"),
    resultScore: document.getElementById("result-score"),
    resultExplain: document.getElementById("result-explain"),
    resultReason: document.getElementById("result-reason"),
    lastPlay: document.getElementById("last-play"),
  };

  /** The embedded snapshot: the protocol's "game" object, or a whole snapshot frame. */
  function initialGame() {
    const data = JSON.parse(document.getElementById("initial-snapshot").textContent);
    return data && data.type === "snapshot" && data.game ? data.game : data;
  }

  const state = {
    game: initialGame(),
    isPlayer: root.dataset.isPlayer === "true",
    wsPath: root.dataset.wsPath,
    staged: [], // [{key: "24/18", node: <graph node index reached>}]
    selected: null, // a point in the mover's numbering, or null
    pending: false, // a frame was sent and its answer has not come yet
    connected: false,
    everConnected: false,
    slowStart: false, // the first connection has taken more than a second
    closedForGood: 0, // the close code that ended the connection for good (4403, 4404)
    socket: null,
    retries: 0,
  };

  /** True when the viewer is the side to move and the game goes on. */
  function myTurn() {
    const g = state.game;
    return state.isPlayer && g.status === "active" && g.you && g.turn === g.you;
  }

  function graph() {
    const legal = state.game.legal;
    return legal && legal.graph ? legal.graph : null;
  }

  function canStage() {
    return myTurn() && state.game.phase === "play" && graph() && !state.game.legal.pass;
  }

  function currentNode() {
    const g = graph();
    if (!g) return null;
    const index = state.staged.length ? state.staged[state.staged.length - 1].node : 0;
    return g.nodes[index] || null;
  }

  /** {from: {to: {key, node}}} for the steps that may come next, mover's numbering. */
  function nextSteps() {
    const result = new Map();
    if (!canStage()) return result;
    const node = currentNode();
    if (!node) return result;
    for (const [key, target] of Object.entries(node.steps)) {
      const { from, to } = parseStep(key);
      if (!result.has(from)) result.set(from, new Map());
      result.get(from).set(to, { key, node: target });
    }
    return result;
  }

  /** The position shown: the snapshot's, with the staged steps applied (just moving checkers). */
  function shownPosition() {
    const pos = state.game.position;
    const boards = {};
    const off = {};
    for (const side of SIDES) {
      const b = new Array(25).fill(0);
      for (const [point, count] of Object.entries(pos[side] || {})) {
        b[parseInt(point, 10)] = count;
      }
      boards[side] = b;
      off[side] = (state.game.off && state.game.off[side]) || 0;
    }
    const mover = state.game.turn;
    for (const { key } of state.staged) {
      const { from, to } = parseStep(key);
      boards[mover][from] -= 1;
      if (to === 0) off[mover] += 1;
      else boards[mover][to] += 1;
    }
    return { boards, off };
  }

  function pipCount(board) {
    let pips = 0;
    for (let point = 1; point <= 24; point += 1) pips += point * board[point];
    return pips;
  }

  /**
   * Which dice the staged steps have used, for dimming them. Display only: a step uses the
   * die equal to its length; a bear-off with no die of its length uses the smallest larger
   * one (RULES.md R8). The server judges the play.
   */
  function usedDice() {
    const dice = state.game.dice || [];
    const faces = dice.length === 2 && dice[0] === dice[1] ? [dice[0], dice[0], dice[0], dice[0]] : dice.slice();
    const used = faces.map(() => false);
    for (const { key } of state.staged) {
      const { from, to } = parseStep(key);
      const length = from - to;
      let pick = faces.findIndex((f, i) => !used[i] && f === length);
      if (pick < 0 && to === 0) {
        let best = -1;
        faces.forEach((f, i) => {
          if (!used[i] && f > length && (best < 0 || f < faces[best])) best = i;
        });
        pick = best;
      }
      if (pick >= 0) used[pick] = true;
    }
    return { faces, used };
  }

  // ---- Drawing ---------------------------------------------------------------------------

  function pointLabel(whitePoint) {
    // Points are numbered in the viewer's own numbering (white's for an onlooker).
    const you = state.game.you;
    return you === "black" ? flip(whitePoint) : whitePoint;
  }

  function describePoint(whitePoint, boards) {
    const number = pointLabel(whitePoint);
    for (const side of SIDES) {
      const count = boards[side][fromWhite(side, whitePoint)];
      if (count > 0) {
        const text = side === "white"
          ? ngettext("Point %(point)s: %(count)s white checker", "Point %(point)s: %(count)s white checkers", count)
          : ngettext("Point %(point)s: %(count)s black checker", "Point %(point)s: %(count)s black checkers", count);
        return fmt(text, { point: number, count });
      }
    }
    return fmt(gettext("Point %(point)s: empty"), { point: number });
  }

  function drawFrame(parent) {
    svg("rect", { class: "board-wood", x: BOARD_X0, y: 0, width: BOARD_X1 - BOARD_X0, height: VIEW_H, rx: 10 }, parent);
    svg("rect", { class: "board-field", x: FIELD_X0, y: FIELD_Y0, width: 6 * PW, height: FIELD_H }, parent);
    svg("rect", { class: "board-field", x: FIELD_X0 + 6 * PW + BAR, y: FIELD_Y0, width: 6 * PW, height: FIELD_H }, parent);
    svg("rect", { class: "board-bar", x: FIELD_X0 + 6 * PW, y: FIELD_Y0, width: BAR, height: FIELD_H }, parent);
  }

  function drawChecker(parent, side, cx, cy, extraClass) {
    const c = svg("circle", {
      class: "checker checker-" + side + (extraClass ? " " + extraClass : ""),
      cx, cy, r: CD / 2 - 2,
    }, parent);
    svg("circle", { class: "checker-rim checker-rim-" + side, cx, cy, r: CD / 2 - 10 }, parent);
    return c;
  }

  function drawPoint(parent, whitePoint, ctx) {
    const { col, row } = pointPlace(whitePoint);
    const x = columnX(col);
    const moverPoint = ctx.mover ? fromWhite(ctx.mover, whitePoint) : null;
    const isSelectable = ctx.steps.has(moverPoint);
    const isSelected = isSelectable && state.selected === moverPoint;
    const isDest = ctx.dests.has(moverPoint);

    const g = svg("g", {
      class: "point" + (isSelected ? " selected" : "") + (isDest ? " dest" : "") + (isSelectable ? " can-move" : ""),
      "data-point": whitePoint,
      "aria-label": describePoint(whitePoint, ctx.boards),
    }, parent);
    if (isSelectable || isDest) {
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
    }

    const top = row === "top";
    const y0 = top ? FIELD_Y0 : FIELD_Y1 - PH;
    // The whole column is the tap target: checkers are small on a phone.
    svg("rect", { class: "point-hit", x, y: y0, width: PW, height: PH }, g);
    const tipY = top ? FIELD_Y0 + PH - 18 : FIELD_Y1 - PH + 18;
    const baseY = top ? FIELD_Y0 : FIELD_Y1;
    const shade = (col + (top ? 0 : 1)) % 2 === 0 ? "point-dark" : "point-light";
    svg("polygon", {
      class: "point-tri " + shade,
      points: `${x + 2},${baseY} ${x + PW - 2},${baseY} ${x + PW / 2},${tipY}`,
    }, g);

    // Checkers (at most one side on a point).
    for (const side of SIDES) {
      const count = ctx.boards[side][fromWhite(side, whitePoint)];
      if (!count) continue;
      const shown = Math.min(count, MAX_STACK);
      for (let i = 0; i < shown; i += 1) {
        const { cx, cy } = checkerCentre(whitePoint, i);
        const topmost = i === shown - 1;
        let extra = "";
        if (topmost && isSelectable) extra = "selectable";
        if (topmost && isSelected) extra += " selected-checker";
        if (topmost && ctx.stagedTo.has(whitePoint) && side === ctx.mover) extra += " staged";
        drawChecker(g, side, cx, cy, extra.trim());
      }
      if (count > MAX_STACK) {
        const { cx, cy } = checkerCentre(whitePoint, MAX_STACK - 1);
        const t = svg("text", { class: "checker-count checker-count-" + side, x: cx, y: cy }, g);
        t.textContent = String(count);
      }
    }

    if (isDest) {
      const moverCount = ctx.boards[ctx.mover][moverPoint];
      const { cx, cy } = checkerCentre(whitePoint, moverCount);
      svg("circle", { class: "dest-ghost", cx, cy, r: CD / 2 - 4 }, g);
    }

    const labelY = top ? LABEL / 2 : VIEW_H - LABEL / 2;
    const isLast = ctx.lastPoints.has(whitePoint);
    if (isLast) {
      // The opponent's last play moved from or to here.
      svg("rect", { class: "last-mark", x: x + 6, y: labelY - 14, width: PW - 12, height: 28, rx: 8 }, parent);
    }
    const label = svg("text", {
      class: "point-label" + (isLast ? " last" : ""),
      x: x + PW / 2,
      y: labelY,
    }, parent);
    label.textContent = String(pointLabel(whitePoint));
  }

  function drawTray(parent, side, ctx) {
    // Each side bears off beside its home: white bottom right, black top left (R1).
    const x = side === "white" ? TRAY_R_X0 : 0;
    const y = side === "white" ? FIELD_Y1 - PH : FIELD_Y0;
    const isDest = ctx.mover === side && ctx.dests.has(0);
    const count = ctx.off[side];
    const g = svg("g", {
      class: "tray tray-" + side + (isDest ? " dest" : ""),
      "data-tray": side,
      "aria-label": fmt(side === "white" ? gettext("White borne off: %(count)s") : gettext("Black borne off: %(count)s"), { count }),
    }, parent);
    if (isDest) {
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
    }
    svg("rect", { class: "tray-box", x, y, width: TRAY_W, height: PH, rx: 8 }, g);
    const slab = (PH - 12) / 15;
    for (let i = 0; i < count; i += 1) {
      const sy = side === "white" ? y + PH - 6 - (i + 1) * slab : y + 6 + i * slab;
      svg("rect", {
        class: "tray-checker checker-" + side,
        x: x + 6, y: sy + 1, width: TRAY_W - 12, height: slab - 2, rx: 3,
      }, g);
    }
    const ty = side === "white" ? y - 14 : y + PH + 20;
    const label = svg("text", { class: "tray-count", x: x + TRAY_W / 2, y: ty }, parent);
    label.textContent = String(count);
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

  function drawDice(parent) {
    const g = state.game;
    if (!g.dice || g.status !== "active") return;
    const { faces, used } = usedDice();
    const size = 68;
    const gap = 14;
    const total = faces.length * size + (faces.length - 1) * gap;
    // The dice lie in the half of the mover's home: white's right, black's left.
    const halfX = g.turn === "white" ? FIELD_X0 + 6 * PW + BAR : FIELD_X0;
    let x = halfX + (6 * PW - total) / 2;
    const group = svg("g", { class: "dice dice-" + g.turn }, parent);
    faces.forEach((value, i) => {
      drawDie(group, value, x, MID_Y - size / 2, size, used[i]);
      x += size + gap;
    });
  }

  function lastPlayPoints() {
    // Mark where the opponent's last play moved from and to, while it is our turn.
    const points = new Set();
    const last = state.game.last;
    if (!last || !last.play || !myTurn() || state.staged.length) return points;
    for (const step of last.play.split(" ")) {
      const { from, to } = parseStep(step);
      points.add(toWhite(last.side, from));
      if (to) points.add(toWhite(last.side, to));
    }
    return points;
  }

  function drawBoard() {
    const game = state.game;
    const { boards, off } = shownPosition();
    const steps = nextSteps();
    const dests = state.selected !== null && steps.has(state.selected) ? steps.get(state.selected) : new Map();
    const stagedTo = new Set();
    for (const { key } of state.staged) {
      const { to } = parseStep(key);
      if (to) stagedTo.add(toWhite(game.turn, to));
    }
    const ctx = {
      boards, off, steps, dests, stagedTo,
      mover: canStage() ? game.turn : null,
      lastPoints: lastPlayPoints(),
    };

    const focused = document.activeElement && boardEl.contains(document.activeElement)
      ? (document.activeElement.getAttribute("data-point") || "tray-" + document.activeElement.getAttribute("data-tray"))
      : null;

    boardEl.replaceChildren();
    boardEl.setAttribute("viewBox", `0 0 ${VIEW_W} ${VIEW_H}`);
    drawFrame(boardEl);
    for (let p = 1; p <= 24; p += 1) drawPoint(boardEl, p, ctx);
    for (const side of SIDES) drawTray(boardEl, side, ctx);
    drawDice(boardEl);
    boardEl.classList.toggle("is-staging", ctx.mover !== null);

    // The server's pip counts, or the staged position's while the player stages a move.
    const pips = state.staged.length || !game.pips
      ? { white: pipCount(boards.white), black: pipCount(boards.black) }
      : game.pips;
    let turnText = gettext("The game is over.");
    if (game.status === "active" && game.turn) {
      turnText = game.turn === "white" ? gettext("White to move.") : gettext("Black to move.");
    }
    boardEl.setAttribute("aria-label", fmt(
      gettext("Long nardy board. %(turn)s Pip counts: white %(white)s, black %(black)s. Borne off: white %(white_off)s, black %(black_off)s."),
      { turn: turnText, white: pips.white, black: pips.black, white_off: off.white, black_off: off.black },
    ));

    if (focused) {
      const again = focused.startsWith("tray-")
        ? boardEl.querySelector(`[data-tray="${focused.slice(5)}"][tabindex]`)
        : boardEl.querySelector(`[data-point="${focused}"][tabindex]`);
      if (again) again.focus();
    }
    return { pips, off };
  }

  function drawPlayers(pips, off) {
    const game = state.game;
    els.players.replaceChildren();
    for (const side of SIDES) {
      const player = (game.players && game.players[side]) || {};
      const row = document.createElement("div");
      row.className = "player player-" + side + (game.status === "active" && game.turn === side ? " is-turn" : "");
      const chip = document.createElement("span");
      chip.className = "player-chip chip-" + side;
      chip.setAttribute("aria-hidden", "true");
      const name = document.createElement("span");
      name.className = "player-name";
      name.textContent = game.you === side
        ? fmt(gettext("%(name)s (you)"), { name: player.name || sideName(side) })
        : (player.name || sideName(side));
      const nums = document.createElement("span");
      nums.className = "player-nums";
      const pipText = document.createElement("span");
      pipText.textContent = fmt(gettext("pips %(pips)s"), { pips: pips[side] });
      const offText = document.createElement("span");
      offText.textContent = fmt(gettext("off %(off)s"), { off: off[side] });
      nums.append(pipText, offText);
      row.append(chip, name, nums);
      row.setAttribute("aria-label", fmt(
        gettext("%(side)s: %(name)s, pip count %(pips)s, borne off %(off)s"),
        { side: sideName(side), name: player.name || sideName(side), pips: pips[side], off: off[side] },
      ));
      els.players.appendChild(row);
    }
  }

  function nameOf(side) {
    const player = state.game.players && state.game.players[side];
    return (player && player.name) || sideName(side);
  }

  function statusText() {
    const game = state.game;
    if (game.status !== "active") return gettext("The game is over.");
    const mover = game.turn;
    if (myTurn()) {
      if (game.phase === "roll") return gettext("Your turn: roll the dice.");
      if (game.legal && game.legal.pass) {
        return gettext("No legal move with these dice: your turn passes");
      }
      const node = currentNode();
      if (node && node.final && state.staged.length) {
        return fmt(gettext("You rolled %(dice)s. Your move is complete: confirm it or undo."), { dice: diceText(game.dice) });
      }
      if (state.selected !== null) {
        return fmt(gettext("You rolled %(dice)s. Tap a highlighted place to move the checker there."), { dice: diceText(game.dice) });
      }
      return fmt(gettext("You rolled %(dice)s. Tap a checker to move."), { dice: diceText(game.dice) });
    }
    if (game.phase === "play" && game.dice) {
      return fmt(gettext("%(name)s rolled %(dice)s and is moving…"), { name: nameOf(mover), dice: diceText(game.dice) });
    }
    return fmt(gettext("%(name)s (%(side)s) to roll…"), { name: nameOf(mover), side: sideName(mover) });
  }

  function lastPlayText() {
    const game = state.game;
    const last = game.last;
    if (!last) {
      const opening = game.opening;
      if (opening && opening.white && opening.black) {
        const text = opening.white > opening.black
          ? gettext("Opening roll: white %(white)s, black %(black)s. White starts.")
          : gettext("Opening roll: white %(white)s, black %(black)s. Black starts.");
        return fmt(text, { white: opening.white, black: opening.black });
      }
      return "";
    }
    const dice = diceText(last.dice || []);
    const mine = game.you && last.side === game.you;
    if (!last.play) {
      return mine
        ? fmt(gettext("You rolled %(dice)s and could not move."), { dice })
        : fmt(gettext("%(name)s rolled %(dice)s and could not move."), { name: nameOf(last.side), dice });
    }
    return mine
      ? fmt(gettext("You rolled %(dice)s and played %(play)s"), { dice, play: last.play })
      : fmt(gettext("%(name)s rolled %(dice)s and played %(play)s"), { name: nameOf(last.side), dice, play: last.play });
  }

  function drawResult() {
    const game = state.game;
    const result = game.status === "finished" ? game.result : null;
    els.result.hidden = !result;
    if (!result) return;
    const loser = other(result.winner);
    if (game.you === result.winner) els.resultTitle.textContent = gettext("You won!");
    else if (game.you === loser) els.resultTitle.textContent = gettext("You lost.");
    else els.resultTitle.textContent = fmt(gettext("%(name)s (%(side)s) won."), { name: nameOf(result.winner), side: sideName(result.winner) });

    const kinds = { oin: gettext("oin"), mars: gettext("mars"), koks: gettext("koks") };
    const kind = kinds[result.kind] || result.kind;
    els.resultScore.textContent = fmt(
      ngettext("%(kind)s — %(points)s point", "%(kind)s — %(points)s points", result.points),
      { kind, points: result.points },
    );
    const explain = {
      oin: gettext("The loser had borne off at least one checker."),
      mars: gettext("The loser had not borne off a single checker."),
      koks: gettext("The loser had borne off no checker and still had one in the winner's home or behind it."),
    };
    els.resultExplain.textContent = explain[result.kind] || "";
    let reason = "";
    if (result.reason === "bore_off") reason = fmt(gettext("%(name)s bore off all 15 checkers."), { name: nameOf(result.winner) });
    else if (result.reason === "resign") reason = fmt(gettext("%(name)s resigned."), { name: nameOf(loser) });
    els.resultReason.textContent = reason;
  }

  function drawControls() {
    const game = state.game;
    const mine = myTurn();
    const ready = state.connected && !state.pending;
    const forcedPass = mine && game.phase === "play" && game.legal && game.legal.pass;
    const staging = canStage();
    const node = currentNode();

    els.roll.hidden = !(mine && game.phase === "roll");
    els.roll.disabled = !ready;
    els.pass.hidden = !forcedPass;
    els.pass.disabled = !ready;
    els.undo.hidden = !staging;
    els.undo.disabled = !ready || state.staged.length === 0;
    els.confirm.hidden = !staging;
    els.confirm.disabled = !ready || !(node && node.final && state.staged.length > 0);
    els.resign.hidden = !(state.isPlayer && game.you && game.status === "active");
    els.resign.disabled = !ready;
  }

  function drawConnection() {
    if (state.closedForGood) {
      els.connection.hidden = false;
      els.connection.textContent = state.closedForGood === 4404
        ? gettext("This game does not exist.")
        : gettext("You cannot follow this game.");
    } else if (!state.connected && state.everConnected) {
      els.connection.hidden = false;
      els.connection.textContent = gettext("Connection lost: reconnecting…");
    } else if (!state.connected && state.slowStart) {
      els.connection.hidden = false;
      els.connection.textContent = gettext("Connecting…");
    } else {
      // Connected, or the first connection is still young: no banner (avoids a flash).
      els.connection.hidden = true;
      els.connection.textContent = "";
    }
  }

  function render() {
    const { pips, off } = drawBoard();
    drawPlayers(pips, off);
    els.status.textContent = statusText();
    els.lastPlay.textContent = lastPlayText();
    drawResult();
    drawControls();
    drawConnection();
    root.dataset.phase = state.game.phase || "";
    root.dataset.version = String(state.game.version);
    // Lets tests and styles know whether the page may act now (connected, no frame in flight).
    root.dataset.ready = String(state.connected && !state.pending);
    root.classList.toggle("my-turn", Boolean(myTurn()));
  }

  function showError(text) {
    els.message.textContent = text || "";
  }

  // ---- Interaction -----------------------------------------------------------------------

  function stage(entry) {
    state.staged.push(entry);
    state.selected = null;
    showError("");
    render();
  }

  function tapPoint(whitePoint) {
    if (!canStage() || state.pending) return;
    showError("");
    const mover = state.game.turn;
    const point = fromWhite(mover, whitePoint);
    const steps = nextSteps();
    if (state.selected !== null && steps.has(state.selected)) {
      const dest = steps.get(state.selected).get(point);
      if (dest) {
        stage(dest);
        return;
      }
    }
    if (steps.has(point)) {
      const dests = steps.get(point);
      if (dests.size === 1 && state.selected !== point) {
        // Only one place to go: one tap moves it.
        stage(dests.values().next().value);
        return;
      }
      state.selected = point;
    } else {
      state.selected = null;
    }
    render();
  }

  function tapTray(side) {
    if (!canStage() || state.pending || side !== state.game.turn || state.selected === null) return;
    const dests = nextSteps().get(state.selected);
    const dest = dests && dests.get(0);
    if (dest) stage(dest);
  }

  function activate(target) {
    const point = target.closest("[data-point]");
    if (point) {
      tapPoint(parseInt(point.getAttribute("data-point"), 10));
      return;
    }
    const tray = target.closest("[data-tray]");
    if (tray) tapTray(tray.getAttribute("data-tray"));
  }

  boardEl.addEventListener("click", (event) => activate(event.target));
  boardEl.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      activate(event.target);
    } else if (event.key === "Escape" && state.selected !== null) {
      state.selected = null;
      render();
    }
  });

  function send(frame) {
    if (!state.socket || state.socket.readyState !== WebSocket.OPEN) {
      showError(gettext("Not connected to the server yet: please wait a moment."));
      return false;
    }
    showError("");
    state.pending = true;
    state.socket.send(JSON.stringify(frame));
    render();
    return true;
  }

  els.roll.addEventListener("click", () => send({ type: "roll", version: state.game.version }));
  els.undo.addEventListener("click", () => {
    if (!state.staged.length) return;
    state.staged.pop();
    state.selected = null;
    showError("");
    render();
  });
  els.confirm.addEventListener("click", () => {
    const node = currentNode();
    if (!node || !node.final || !state.staged.length) return;
    send({ type: "play", version: state.game.version, play: state.staged.map((s) => s.key).join(" ") });
  });
  els.pass.addEventListener("click", () => send({ type: "play", version: state.game.version, play: "" }));
  els.resign.addEventListener("click", () => {
    if (window.confirm(gettext("Resign this game? It is scored on your position as it stands now."))) {
      send({ type: "resign", version: state.game.version });
    }
  });

  // ---- Connection ------------------------------------------------------------------------

  function onSnapshot(game) {
    const previous = state.game;
    if (previous && typeof game.version === "number" && game.version < previous.version) return;
    if (!previous || game.version !== previous.version) {
      state.staged = [];
      state.selected = null;
    }
    state.game = game;
    state.pending = false;
    render();
  }

  function onFrame(frame) {
    if (!frame || typeof frame !== "object") return;
    if (frame.type === "snapshot" && frame.game) {
      onSnapshot(frame.game);
    } else if (frame.type === "error") {
      state.pending = false;
      showError(frame.message || frame.code || gettext("The server refused this action."));
      render();
    }
  }

  function connect() {
    const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + window.location.host + state.wsPath);
    state.socket = socket;
    socket.addEventListener("open", () => {
      state.connected = true;
      state.everConnected = true;
      state.retries = 0;
      render();
    });
    socket.addEventListener("message", (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      onFrame(frame);
    });
    socket.addEventListener("close", (event) => {
      if (state.socket !== socket) return;
      state.connected = false;
      state.pending = false;
      if (event.code === 4403 || event.code === 4404) {
        // Not allowed, or no such game (docs/protocol.md): trying again would not help.
        state.closedForGood = event.code;
        render();
        return;
      }
      render();
      // Back off 0.5 s, 1 s, 2 s … up to 10 s, with jitter so many pages do not return at once.
      const delay = Math.min(10000, 500 * 2 ** state.retries) * (0.8 + Math.random() * 0.4);
      state.retries += 1;
      window.setTimeout(connect, delay);
    });
  }

  render();
  if (state.wsPath) {
    connect();
    window.setTimeout(() => {
      state.slowStart = true;
      if (!state.connected) render();
    }, 1000);
  }
})();
