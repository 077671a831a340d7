/*
 * replay-state.js: the replay page's state (the frame shown, the numbering, the best play
 * shown instead), each frame's words and board, the deep links and the pace of asking for an
 * analysis still being made.
 */
import "./support.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  afterStatus, analysisPending, analysisText, betterPlay, boardView, createReplayState, frameFromHash,
  frameText, goTo, numberingNote, shownFrame,
} from "../../../static/games/replay-state.js";

const AFTER = { turn: "black", white: { 24: 14, 18: 1 }, black: { 24: 15 } };
const BEST = { turn: "black", white: { 24: 13, 19: 1, 18: 1 }, black: { 24: 15 } };

/** A play frame (docs/record-format.md's replay frames): white plays 6-5 as 24/18 18/13. */
function play(overrides = {}) {
  return {
    index: 1, kind: "play", n: 1, side: "white", dice: [6, 5], play: "24/18 18/13", text: "server's words",
    position: AFTER, position_id: "pos1", cube: null, ...overrides,
  };
}

const NUMBER = new Intl.NumberFormat("en", { minimumFractionDigits: 3, maximumFractionDigits: 3 });

test("the frame shown stays within the frames; another frame shows the play made again", () => {
  const state = createReplayState(5, "black");
  assert.equal(state.viewer, "black");
  assert.equal(createReplayState(5, "anything").viewer, "white");
  assert.equal(goTo(state, 3), 3);
  state.showBest = true;
  assert.equal(goTo(state, 3), 3);
  assert.equal(state.showBest, true); // the same frame: still the best play
  assert.equal(goTo(state, 99), 4);
  assert.equal(state.showBest, false);
  assert.equal(goTo(state, -1), 0);
});

test("deep links: #step-N (the page's own) and #frame-N (the list's anchors)", () => {
  assert.equal(frameFromHash("#step-12"), 12);
  assert.equal(frameFromHash("#frame-3"), 3);
  assert.equal(frameFromHash("#other"), 0);
  assert.equal(frameFromHash(""), 0);
});

test("a play's words in the page's numbering; other frames keep the server's", () => {
  assert.equal(frameText(play(), "white"), "Turn 1: White plays 6\u20115: 24/18 18/13.");
  assert.equal(frameText(play(), "black"), "Turn 1: White plays 6\u20115: 12/6 6/1.");
  assert.equal(frameText(play({ play: "", dice: [6, 6] }), "white"), "Turn 1: White cannot move with 6\u20116 and passes.");
  assert.equal(frameText(play({ kind: "roll" }), "white"), "server's words");
  assert.match(numberingNote("white"), /white's side/);
  assert.match(numberingNote("black"), /black's side/);
});

test("the board's view of a frame: the play's points marked, the dice faded once played, doubles four", () => {
  const view = boardView(play(), "black");
  assert.deepEqual([...view.lastPoints].sort((a, b) => a - b), [13, 18, 24]);
  assert.deepEqual(view.dice, { side: "white", faces: [6, 5], used: null, faded: true });
  assert.equal(view.viewer, "black");
  assert.equal(view.off.white, 0);
  assert.deepEqual(boardView(play({ kind: "roll", play: null, dice: [3, 3] }), "white").dice.faces, [3, 3, 3, 3]);
  assert.equal(boardView(play({ kind: "roll", play: null }), "white").dice.faded, false);
  assert.equal(boardView(play({ dice: null, side: null, kind: "start" }), "white").dice, null);
  assert.deepEqual(boardView(play({ cube: { value: 2, owner: "black", offered_by: null } }), "white").cube,
    { value: 2, owner: "black" });
  const bearOff = boardView(play({ play: "3/off", position: { white: { 1: 1 }, black: {} } }), "white");
  assert.deepEqual([...bearOff.lastPoints], [3]);
});

test("an analysed play: its line, and the best play shown on the board when asked", () => {
  const row = { mark: "mistake", lost: 0.0834, best: "24/13", best_position: BEST };
  const frame = play({ analysis: row });
  assert.equal(analysisText(frame, "white", NUMBER), "Mistake: 0.083 points lost. Best: 24/13.");
  assert.equal(analysisText(play({ analysis: { ...row, mark: "blunder", best: "" } }), "black", NUMBER),
    "Blunder: 0.083 points lost. Best: pass.");
  assert.equal(analysisText(play({ analysis: { ...row, mark: "inaccuracy" } }), "black", NUMBER),
    "0.083 points lost. Best: 12/1.");
  assert.equal(analysisText(play({ analysis: { mark: "best" } }), "white", NUMBER), "The best play.");
  assert.equal(analysisText(play({ analysis: { mark: "forced" } }), "white", NUMBER), "Forced: this was the only legal play.");
  assert.equal(analysisText(play(), "white", NUMBER), "");
  assert.equal(betterPlay(frame), row);
  assert.equal(betterPlay(play({ analysis: { mark: "best", best_position: BEST } })), null);
  const state = createReplayState(3, "white");
  assert.equal(shownFrame(state, frame), frame);
  state.showBest = true;
  assert.deepEqual(shownFrame(state, frame).position, BEST);
  assert.equal(shownFrame(state, frame).play, "24/13");
  assert.equal(shownFrame(state, play()).position, AFTER); // nothing better to show
});

test("an analysis still being made is asked after now and then; once over, the page reloads", () => {
  assert.equal(analysisPending({ status: "pending" }), true);
  assert.equal(analysisPending({ status: "running" }), true);
  assert.equal(analysisPending({ status: "done" }), false);
  assert.equal(analysisPending(null), false);
  assert.deepEqual(afterStatus({ status: "done" }, 2000), { reload: true });
  assert.deepEqual(afterStatus({ status: "failed" }, 2000), { reload: true });
  assert.deepEqual(afterStatus({ status: "running" }, 2000), { again: 3000 });
  assert.deepEqual(afterStatus({ status: "running" }, 12000), { again: 15000 });
  assert.deepEqual(afterStatus(null, 2000), { again: 3000 });
  assert.deepEqual(afterStatus(null, 2000, true), { again: 4000 });
  assert.deepEqual(afterStatus(null, 20000, true), { again: 30000 });
});
