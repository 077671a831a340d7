/*
 * The board as board.js draws it: the game's position with the staged steps, the
 * places the selected checker may go, the dice used so far, the opponent's last play marked,
 * and the slide of the opponent's checkers along that play when it arrives.
 */
import { SIDES, create as createBoard, fmt, parseStep, pipCount, playSteps, positionBoards, toWhite } from "../board.js";
import { cubeOffer, you } from "./state.js";
import { canStage, nextSteps, shownPosition, usedDice } from "./staging.js";
import { isOpening } from "./texts.js";

const STEP_MS = 320; // one checker's slide when the opponent's play is shown

/**
 * The position before `last` was played, from the position after it (its steps undone).
 * @param {Object} position  RULES.md JSON ({turn, white: {point: count}, black: {...}})
 * @param {{side: string, play: string}} last
 * @returns {?{boards: {white: number[], black: number[]}, off: {white: number, black: number}}}
 *   null when the play does not fit the position
 */
export function beforePlay(position, last) {
  const { boards, off } = positionBoards(position);
  const side = last.side;
  for (const { from, to } of playSteps(last.play).reverse()) {
    if (to === 0) off[side] -= 1;
    else boards[side][to] -= 1;
    boards[side][from] += 1;
  }
  for (const s of SIDES) {
    if (boards[s].some((n) => n < 0) || off[s] < 0) return null;
  }
  return { boards, off };
}

/**
 * Where the opponent's last play moved from and to (white's numbering), while the game goes on.
 * @param {Object} game
 * @returns {Set<number>}
 */
export function lastPlayPoints(game) {
  const points = new Set();
  const last = game.last;
  if (!last || !last.play || game.status !== "active" || (game.you && last.side === game.you)) return points;
  for (const { from, to } of playSteps(last.play)) {
    points.add(toWhite(last.side, from));
    if (to) points.add(toWhite(last.side, to));
  }
  return points;
}

/**
 * What board.js's draw() takes for the room as it stands.
 * @param {RoomState} state
 * @returns {Object} {boards, off, steps, dests, stagedTo, dice, cube, viewer, mover,
 *   interactive, selected, lastPoints, lastSide, openingDice}
 */
function boardView(state) {
  const game = state.game;
  const { boards, off } = shownPosition(state);
  const steps = nextSteps(state);
  const dests = state.selected !== null && steps.has(state.selected) ? steps.get(state.selected) : new Map();
  const stagedTo = new Set();
  for (const { key } of state.staged) {
    const { to } = parseStep(key);
    if (to) stagedTo.add(toWhite(game.turn, to));
  }
  let dice = null;
  if (game.status === "active" && game.dice && game.phase === "play") {
    const { faces, used } = usedDice(game.dice, state.staged.map((s) => parseStep(s.key)));
    dice = { side: game.turn, faces, used };
  }
  const last = game.last;
  const cube = game.cube ? Object.assign({}, game.cube, { offered: Boolean(cubeOffer(game)) }) : null;
  const staging = canStage(state);
  return {
    boards, off, steps, dests, stagedTo, dice, cube,
    viewer: you(state),
    mover: staging ? game.turn : null,
    interactive: staging,
    selected: state.selected,
    lastPoints: lastPlayPoints(game),
    lastSide: last ? last.side : null,
    openingDice: isOpening(game) && !game.last && game.phase === "roll" ? game.opening : null,
  };
}

/**
 * @param {{board: SVGElement}} els
 * @param {RoomState} state
 * @param {{render: () => void, tone: (kind: string) => void}} page
 * @returns {{draw: () => {pips: Object, off: Object}, animateLast: (game: Object, then: () => void) => void,
 *   stopAnimation: () => void, moveFocus: (step: string) => ?Element, focusBoard: () => boolean}}
 */
export function createBoardView(els, state, { render, tone }) {
  const board = createBoard(els.board);

  /** Draw the board (unless an animation holds it) and label it; the pips and checkers off shown. */
  function draw() {
    const game = state.game;
    const view = state.anim ? state.anim.view : boardView(state);
    if (!state.anim) board.draw(view);
    const pips = state.staged.length || state.anim || !game.pips
      ? { white: pipCount(view.boards.white), black: pipCount(view.boards.black) }
      : game.pips;
    let turnText = gettext("The game is over.");
    if (game.status === "active" && game.turn) {
      turnText = game.turn === "white" ? gettext("White to move.") : gettext("Black to move.");
    }
    els.board.setAttribute("aria-label", fmt(
      gettext("Long nardy board. %(turn)s Pip counts: white %(white)s, black %(black)s. Borne off: white %(white_off)s, black %(black_off)s."),
      { turn: turnText, white: pips.white, black: pips.black, white_off: view.off.white, black_off: view.off.black },
    ));
    return { pips, off: view.off };
  }

  function stopAnimation() {
    state.animToken += 1;
    state.anim = null;
  }

  /**
   * Slide the opponent's checkers along the game's last play, then show the game as it is and
   * call `then`; a newer game arriving meanwhile ends the slide (and does its own `then`).
   */
  async function animateLast(game, then) {
    const last = game.last;
    const before = beforePlay(game.position, last);
    if (!before) {
      render();
      then();
      return;
    }
    const token = ++state.animToken;
    const view = {
      boards: before.boards, off: before.off, viewer: you(state), mover: null,
      dice: { side: last.side, faces: [], used: [] }, lastPoints: new Set(), lastSide: last.side,
      cube: game.cube || null,
    };
    state.anim = { view };
    const played = [];
    const dice = last.dice || [];
    Object.assign(view.dice, usedDice(dice, played));
    render();
    for (const { from, to } of playSteps(last.play)) {
      if (token !== state.animToken) return;
      await board.animateStep(view, last.side, from, to, STEP_MS);
      if (token !== state.animToken) return;
      view.boards[last.side][from] -= 1;
      if (to === 0) view.off[last.side] += 1;
      else view.boards[last.side][to] += 1;
      played.push({ from, to });
      Object.assign(view.dice, usedDice(dice, played));
      view.lastPoints.add(toWhite(last.side, from));
      if (to) view.lastPoints.add(toWhite(last.side, to));
      tone("move");
      board.draw(view);
    }
    await new Promise((resolve) => window.setTimeout(resolve, 200));
    if (token !== state.animToken) return;
    state.anim = null;
    render();
    then();
  }

  return { draw, animateLast, stopAnimation, moveFocus: board.moveFocus, focusBoard: board.focusBoard };
}
