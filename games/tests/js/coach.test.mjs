/* coach.js: the hints panel (docs/protocol.md "Hints"): when it shows, what it asks, what it says. */
import "./support.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { createCoach } from "../../../static/games/room/coach.js";
import { createState } from "../../../static/games/room/state.js";
import { game } from "./games.mjs";

/** An element as coach.js uses one: hidden, disabled, text and click listeners. */
function element() {
  const listeners = [];
  return {
    hidden: false,
    disabled: false,
    textContent: "",
    addEventListener: (type, listener) => listeners.push(listener),
    click: () => listeners.forEach((listener) => listener()),
  };
}

/** The coach on white's turn to play 5-3 (version 7) against the computer, hints on or off. */
function room({ hints = true, offered = true, open = true } = {}) {
  const els = { coach: element(), hint: Object.assign(element(), { textContent: "Hint" }), coachNote: element() };
  const state = createState({
    game: game({ hints: offered }),
    isPlayer: true,
    wsPath: "/ws/game/x/",
    settings: { hints },
  });
  state.connected = true;
  const sent = [];
  const connection = { isOpen: () => open, send: (frame) => sent.push(frame) };
  const coach = createCoach(els, state, { connection });
  return { els, state, sent, coach };
}

test("the panel shows only where hints are offered, the button only on the player's turn to play", () => {
  const off = room({ offered: false });
  off.coach.draw();
  assert.equal(off.els.coach.hidden, true);
  const unticked = room({ hints: false });
  unticked.coach.draw();
  assert.deepEqual([unticked.els.coach.hidden, unticked.els.hint.hidden], [false, true]);
  const on = room();
  on.coach.draw();
  assert.deepEqual([on.els.coach.hidden, on.els.hint.hidden, on.els.hint.disabled], [false, false, false]);
  on.state.game = game({ hints: true, phase: "roll", dice: null });
  on.coach.draw();
  assert.equal(on.els.hint.hidden, true); // roll first
});

test("a hint is asked once per position and shown only while it fits the game on screen", () => {
  const { els, state, sent, coach } = room();
  coach.draw();
  els.hint.click();
  assert.deepEqual(sent, [{ type: "hint" }]);
  assert.equal(els.coachNote.textContent, "Looking for the best play…");
  assert.equal(els.hint.disabled, true); // asked for this version already
  assert.equal(coach.onFrame({ type: "hint", version: 6, message: "old" }), true);
  assert.equal(els.coachNote.textContent, "Looking for the best play…"); // an older position
  coach.onFrame({ type: "hint", version: state.game.version, message: "The best play: 13/8 24/21." });
  assert.equal(els.coachNote.textContent, "The best play: 13/8 24/21.");
});

test("after the player's play the judgement is asked for and shown with the play", () => {
  const { els, sent, coach } = room();
  coach.ownPlay();
  assert.deepEqual(sent, [{ type: "judge" }]);
  coach.onFrame({ type: "judged", played: "13/8 24/21", message: "That was the best play." });
  assert.equal(els.coachNote.textContent, "Your play 13/8 24/21: That was the best play.");
  const off = room({ hints: false });
  off.coach.ownPlay();
  assert.deepEqual(off.sent, []); // hints off: nothing asked
});

test("an error while a question waits ends the wait and is left to the room; other frames pass", () => {
  const { els, coach } = room();
  coach.ownPlay();
  assert.equal(coach.onFrame({ type: "error", code: "game_over", message: "The game is over." }), false);
  assert.equal(els.coachNote.textContent, "");
  assert.equal(coach.onFrame({ type: "why", message: "…" }), false);
  assert.equal(coach.onFrame({ type: "error", code: "stale_version" }), false);
});

test("without a connection nothing is sent", () => {
  const { els, sent, coach } = room({ open: false });
  coach.draw();
  els.hint.click();
  assert.deepEqual(sent, []);
});

test("over the hint limit the note says how long to wait and the Hint button counts it down, then asks again", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: 1_000_000 });
  const { els, sent, coach } = room();
  coach.draw();
  els.hint.click();
  const refusal = "Too many hints in a short time. Please wait 3 seconds and ask again.";
  assert.equal(coach.onFrame({ type: "error", code: "too_many_hints", message: refusal, retry_after: 2.4, version: 7 }), true);
  // in the note, not left empty, counting down with the button (the tryout saw them disagree)
  assert.equal(els.coachNote.textContent, "Too many hints in a short time: ask again in 3 s.");
  assert.deepEqual([els.hint.hidden, els.hint.disabled, els.hint.textContent], [false, true, "Hint (3 s)"]);
  t.mock.timers.tick(400);
  assert.deepEqual([els.hint.disabled, els.hint.textContent], [true, "Hint (2 s)"]);
  assert.equal(els.coachNote.textContent, "Too many hints in a short time: ask again in 2 s.");
  t.mock.timers.tick(1000);
  assert.deepEqual([els.hint.disabled, els.hint.textContent], [true, "Hint (1 s)"]);
  t.mock.timers.tick(1000);
  assert.deepEqual([els.hint.disabled, els.hint.textContent, els.coachNote.textContent], [false, "Hint", ""]);
  els.hint.click(); // the same position, asked again once the wait is over
  assert.deepEqual(sent, [{ type: "hint" }, { type: "hint" }]);
});

test("a refused judgement says so in the note and leaves the Hint button alone", () => {
  const { els, coach } = room();
  coach.ownPlay();
  const refusal = "Too many hints in a short time. Please wait 9 seconds and ask again.";
  assert.equal(coach.onFrame({ type: "error", code: "too_many_hints", message: refusal, retry_after: 8.2 }), true);
  assert.equal(els.coachNote.textContent, refusal);
  coach.draw();
  assert.deepEqual([els.hint.disabled, els.hint.textContent], [false, "Hint"]);
});
