/*
 * The rematch on the result panel (static/games/room/rematch.js): what each state shows, a
 * match's "New match", the frames the buttons send, and when the page moves to the new game
 * (a live frame after its own offer or the opponent's, never a game opened from history).
 */
import "./support.mjs";

import assert from "node:assert/strict";
import { test } from "node:test";

import { createRematch, movesOn, rematchView } from "../../../static/games/room/rematch.js";

test("nothing shows where no rematch is possible", () => {
  assert.equal(rematchView(null, false).hidden, true);
  assert.equal(rematchView({ state: "bogus", game: null }, false).hidden, true);
});

test("each state shows its note and buttons", () => {
  assert.deepEqual(rematchView({ state: "open", game: null }, false), {
    hidden: false, note: "", offer: "Rematch", decline: null, link: null,
  });
  const offered = rematchView({ state: "offered", game: null }, false);
  assert.match(offered.note, /waiting for your opponent/);
  assert.equal(offered.offer, null);
  assert.equal(offered.decline, "Withdraw");
  const asked = rematchView({ state: "asked", game: null }, false);
  assert.equal(asked.note, "Your opponent wants a rematch");
  assert.equal(asked.offer, "Rematch");
  assert.equal(asked.decline, "Decline");
  const declined = rematchView({ state: "declined", game: null }, false);
  assert.equal(declined.note, "Your opponent declined.");
  assert.equal(declined.offer, null); // asking again someone who said no: not offered
  const started = rematchView({ state: "started", game: "/en/game/abc/" }, false);
  assert.equal(started.link, "/en/game/abc/");
  assert.equal(started.offer, null);
});

test("after a match the offer is a new match", () => {
  assert.equal(rematchView({ state: "open", game: null }, true).offer, "New match");
  assert.equal(rematchView({ state: "asked", game: null }, true).note, "Your opponent wants a new match");
});

test("a page moves on only after a live start it took part in", () => {
  const frame = { state: "started", game: "/en/game/abc/" };
  assert.equal(movesOn({ state: "offered" }, frame, true), true);
  assert.equal(movesOn({ state: "asked" }, frame, true), true);
  assert.equal(movesOn({ state: "started", game: "/en/game/abc/" }, frame, true), false);
  assert.equal(movesOn(null, frame, true), false);
  assert.equal(movesOn({ state: "asked" }, frame, false), false);
  assert.equal(movesOn({ state: "asked" }, { state: "declined", game: null }, true), false);
});

function fakeEl() {
  const el = new EventTarget();
  el.hidden = true;
  el.textContent = "";
  el.href = "";
  el.click = () => el.dispatchEvent(new Event("click"));
  return el;
}

test("the buttons send the frames, and a start moves both players' pages", () => {
  const els = {
    rematch: fakeEl(), rematchNote: fakeEl(), rematchOffer: fakeEl(), rematchDecline: fakeEl(), rematchLink: fakeEl(),
  };
  const sent = [];
  const went = [];
  const state = { isPlayer: true, game: { id: "g", status: "finished", match: null, rematch: { state: "open", game: null } } };
  const rematch = createRematch(els, state, { connection: { send: (f) => sent.push(f) }, go: (url) => went.push(url) });
  rematch.draw();
  assert.equal(els.rematch.hidden, false);
  assert.equal(els.rematchOffer.hidden, false);
  assert.equal(els.rematchDecline.hidden, true);
  els.rematchOffer.click();
  assert.deepEqual(sent, [{ type: "rematch" }]);
  assert.equal(rematch.onFrame({ type: "rematch", state: "offered", game: null }), true);
  assert.equal(els.rematchOffer.hidden, true);
  assert.equal(els.rematchDecline.textContent, "Withdraw");
  els.rematchDecline.click();
  assert.deepEqual(sent[1], { type: "rematch_decline" });
  rematch.onFrame({ type: "rematch", state: "offered", game: null });
  rematch.onFrame({ type: "rematch", state: "started", game: "/en/game/new/" });
  assert.deepEqual(went, ["/en/game/new/"]);
  assert.equal(els.rematchLink.href, "/en/game/new/");
  assert.equal(els.rematchLink.hidden, false);
  assert.equal(rematch.onFrame({ type: "error" }), false);
});

test("an active game shows no rematch", () => {
  const els = {
    rematch: fakeEl(), rematchNote: fakeEl(), rematchOffer: fakeEl(), rematchDecline: fakeEl(), rematchLink: fakeEl(),
  };
  els.rematch.hidden = false;
  const state = { isPlayer: true, game: { status: "active", rematch: { state: "open", game: null } } };
  createRematch(els, state, { connection: { send() {} }, go() {} }).draw();
  assert.equal(els.rematch.hidden, true);
});
