/*
 * The replay page's state and words (replay.js draws them): which of the server's frames is
 * shown and in whose numbering, whether the board shows the best play instead of the one
 * made, each frame's sentence and analysis line, the board's view of a frame, the deep links
 * (#step-N, #frame-N) and the pace of asking for an analysis still being made. No DOM. Text
 * comes from Django's JavaScript catalogue.
 */
import { diceText, fmt, playForViewer, playSteps, positionBoards, sideName, toWhite } from "./board.js";

/**
 * @typedef {Object} ReplayState
 * @property {number} index  the frame shown
 * @property {number} count  how many frames there are
 * @property {"white"|"black"} viewer  whose numbering the plays are written in
 * @property {boolean} showBest  the board shows the position after the best play
 */

/**
 * @param {number} count  the frames' number (at least 1)
 * @param {?string} viewer  the page's `data-viewer`
 * @returns {ReplayState}
 */
export function createReplayState(count, viewer) {
  return { index: 0, count, viewer: viewer === "black" ? "black" : "white", showBest: false };
}

/**
 * Go to frame `index` (kept within the frames); a move to another frame shows the play made.
 * @returns {number} the frame now shown
 */
export function goTo(state, index) {
  const next = Math.max(0, Math.min(state.count - 1, index));
  if (next !== state.index) state.showBest = false;
  state.index = next;
  return next;
}

/** The frame a deep link opens ("#step-N" written by the page, "#frame-N" the list's anchors). */
export function frameFromHash(hash) {
  const found = /^#(?:step|frame)-(\d+)$/.exec(hash || "");
  return found ? Number(found[1]) : 0;
}

/** A frame's one-line text in the page's numbering (the server's text says the same in the mover's). */
export function frameText(frame, viewer) {
  const values = {
    n: frame.n, side: sideName(frame.side), dice: diceText(frame.dice),
    play: playForViewer(frame.play, frame.side, viewer),
  };
  if (frame.kind !== "play") return frame.text;
  return frame.play
    ? fmt(gettext("Turn %(n)s: %(side)s plays %(dice)s: %(play)s."), values)
    : fmt(gettext("Turn %(n)s: %(side)s cannot move with %(dice)s and passes."), values);
}

/** The note under the list: whose point numbers the plays are written with. */
export function numberingNote(viewer) {
  return viewer === "white"
    ? gettext("Plays are written with the point numbers of white's side.")
    : gettext("Plays are written with the point numbers of black's side.");
}

/**
 * What the board draws for `frame` (board.js's view): its position, the dice rolled (faded
 * once played), the points of the play marked, the cube.
 */
export function boardView(frame, viewer) {
  const { boards, off } = positionBoards(frame.position);
  const lastPoints = new Set();
  if (frame.kind === "play" && frame.play) {
    for (const { from, to } of playSteps(frame.play)) {
      lastPoints.add(toWhite(frame.side, from));
      if (to) lastPoints.add(toWhite(frame.side, to));
    }
  }
  const double = frame.dice && frame.dice[0] === frame.dice[1];
  const dice = frame.dice && frame.side
    ? {
      side: frame.side,
      faces: double ? [frame.dice[0], frame.dice[0], frame.dice[0], frame.dice[0]] : frame.dice.slice(),
      used: null,
      faded: frame.kind === "play",
    }
    : null;
  return {
    boards, off, dice, lastPoints, lastSide: frame.side,
    viewer, mover: null,
    cube: frame.cube ? { value: frame.cube.value, owner: frame.cube.owner } : null,
  };
}

/** The analysed row of `frame` if it is a play whose better play can be shown, else null. */
export function betterPlay(frame) {
  const row = frame.kind === "play" ? frame.analysis : null;
  return row && row.best_position && row.mark !== "best" ? row : null;
}

/** The frame the board shows: `frame`, or the position after its best play while asked. */
export function shownFrame(state, frame) {
  const better = state.showBest ? betterPlay(frame) : null;
  return better ? Object.assign({}, frame, { position: better.best_position, play: better.best }) : frame;
}

/**
 * The analysis line under the board for `frame` ("" when it has none).
 * @param {Object} frame
 * @param {string} viewer
 * @param {{format: (n: number) => string}} number  the page's number format (three decimals)
 * @returns {string}
 */
export function analysisText(frame, viewer, number) {
  const row = frame.kind === "play" ? frame.analysis : null;
  if (!row) return "";
  if (row.mark === "forced") return gettext("Forced: this was the only legal play.");
  if (row.mark === "best") return gettext("The best play.");
  const values = {
    lost: number.format(row.lost),
    best: playForViewer(row.best, frame.side, viewer) || gettext("pass"),
  };
  if (row.mark === "blunder") return fmt(gettext("Blunder: %(lost)s points lost. Best: %(best)s."), values);
  if (row.mark === "mistake") return fmt(gettext("Mistake: %(lost)s points lost. Best: %(best)s."), values);
  return fmt(gettext("%(lost)s points lost. Best: %(best)s."), values);
}

/** Whether the analysis is still to come (queued or running): its status is asked now and then. */
export function analysisPending(analysis) {
  return Boolean(analysis) && (analysis.status === "pending" || analysis.status === "running");
}

/**
 * After asking the analysis's status: reload the page once it is over, else ask again later
 * (a little later each time; a failed request waits longer).
 * @param {?{status: string}} answer  the status answer (null: none readable)
 * @param {number} delay  the pause before this request (ms)
 * @param {boolean} [failed]  the request itself failed (no network)
 * @returns {{reload: true}|{again: number}}
 */
export function afterStatus(answer, delay, failed = false) {
  if (answer && (answer.status === "done" || answer.status === "failed")) return { reload: true };
  return { again: failed ? Math.min(delay * 2, 30000) : Math.min(delay * 1.5, 15000) };
}
