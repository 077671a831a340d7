/*
 * notices-state.js: the notices of a signed-in player's pages as the notices socket's frames
 * (docs/protocol.md "Notices") and the player change them: a friend's challenge shown until it
 * is answered, declined or withdrawn, the greeting that lists them again after a reconnect,
 * a decline under way or refused, and the answers to the player's own challenges.
 */
import "./support.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ANSWER, CHALLENGE, MAX_ANSWERS, cleared, createNoticesState, declineDone, declining, dismissed,
  forget, noticesView, putOff, received,
} from "../../../static/games/notices-state.js";

/** A friend's challenge as the server sends it. */
function challenge(id, overrides = {}) {
  return {
    id,
    from: { id: 7, name: "Anna", profile: "/en/players/7/" },
    text: "Anna challenges you to a game.",
    table: "Sport · Standard clock · casual",
    accept: `/en/challenge/${id}/accept/`,
    decline: `/en/friends/challenge/${id}/decline/`,
    page: `/en/challenge/${id}/`,
    ...overrides,
  };
}

/** The view without its redraw keys. */
function shown(state) {
  return noticesView(state).map(({ key, ...item }) => item);
}

test("the greeting lists the waiting challenges, and again after a reconnect", () => {
  const state = createNoticesState();
  assert.deepEqual(noticesView(state), []);
  assert.equal(received(state, { type: "hello", challenges: [challenge("a"), challenge("b")] }), true);
  assert.deepEqual(shown(state).map((item) => [item.id, item.kind]), [["a", CHALLENGE], ["b", CHALLENGE]]);
  assert.deepEqual(shown(state)[0], {
    id: "a", kind: CHALLENGE, text: "Anna challenges you to a game.", table: "Sport · Standard clock · casual",
    accept: "/en/challenge/a/accept/", busy: false, error: "",
  });
  // "b" was answered while the socket was away: the next greeting no longer has it
  received(state, { type: "hello", challenges: [challenge("a")] });
  assert.deepEqual(shown(state).map((item) => item.id), ["a"]);
});

test("a new challenge is shown after the others; closed, it goes", () => {
  const state = createNoticesState();
  received(state, { type: "hello", challenges: [challenge("a")] });
  received(state, { type: "challenge", challenge: challenge("b") });
  assert.deepEqual(shown(state).map((item) => item.id), ["a", "b"]);
  // the same one again (a frame and a greeting crossing) is shown once
  received(state, { type: "challenge", challenge: challenge("a", { table: "Classic · Standard clock · rated" }) });
  assert.deepEqual(shown(state).map((item) => [item.id, item.table]), [["b", "Sport · Standard clock · casual"], ["a", "Classic · Standard clock · rated"]]);
  assert.equal(received(state, { type: "closed", challenge: "a" }), true);
  assert.equal(received(state, { type: "closed", challenge: "a" }), false);
  assert.deepEqual(shown(state).map((item) => item.id), ["b"]);
});

test("frames that are not notices, or lack what one needs, change nothing", () => {
  const state = createNoticesState();
  for (const frame of [null, "x", { type: "error", code: "rate_limited" }, { type: "challenge" },
    { type: "challenge", challenge: { id: "c", text: "no urls" } }, { type: "answered", challenge: 3 }]) {
    assert.equal(received(state, frame), false);
  }
  received(state, { type: "hello", challenges: [challenge("a"), { id: "bad" }, null] });
  assert.deepEqual(shown(state).map((item) => item.id), ["a"]);
});

test("a notices socket refused over the socket cap (its error, then 4429) changes nothing shown", () => {
  // notices.js passes no onLost: live/socket.js tries again in 30 s and the page says nothing
  const state = createNoticesState();
  received(state, { type: "hello", challenges: [challenge("a")] });
  received(state, { type: "answered", challenge: "b", status: "declined", text: "Boris declined your challenge." });
  const before = noticesView(state);
  const refusal = { type: "error", code: "too_many_sockets", message: "Too many pages of this site are open at once." };
  assert.equal(received(state, refusal), false);
  assert.deepEqual(noticesView(state), before);
});

test("decline: the buttons wait for the server, then the notice goes or says why", () => {
  const state = createNoticesState();
  received(state, { type: "hello", challenges: [challenge("a"), challenge("b")] });
  assert.equal(declining(state, "a"), "/en/friends/challenge/a/decline/");
  assert.equal(declining(state, "a"), null); // a second click while the first is under way
  assert.equal(declining(state, "zzz"), null);
  assert.equal(shown(state)[0].busy, true);
  const before = noticesView(state)[0].key;
  declineDone(state, "a", true);
  assert.deepEqual(shown(state).map((item) => item.id), ["b"]);
  // refused (answered elsewhere meanwhile): the reason shows and the buttons come back
  declining(state, "b");
  declineDone(state, "b", false, "This challenge is no longer open.");
  assert.deepEqual([shown(state)[0].busy, shown(state)[0].error], [false, "This challenge is no longer open."]);
  assert.notEqual(noticesView(state)[0].key, before);
  // the "closed" frame that follows takes it away for good
  received(state, { type: "closed", challenge: "b" });
  assert.deepEqual(noticesView(state), []);
});

test("the answers to one's own challenges: accepted with the game, declined without, closed by hand", () => {
  const state = createNoticesState();
  received(state, { type: "answered", challenge: "x", status: "declined", text: "Boris declined your challenge.", game: null });
  received(state, { type: "answered", challenge: "y", status: "accepted", text: "Boris accepted your challenge: the game has begun.", game: "/en/game/g/" });
  assert.deepEqual(shown(state), [
    { id: "x", kind: ANSWER, text: "Boris declined your challenge.", game: null },
    { id: "y", kind: ANSWER, text: "Boris accepted your challenge: the game has begun.", game: "/en/game/g/" },
  ]);
  // a friend's challenge comes before the answers
  received(state, { type: "challenge", challenge: challenge("a") });
  assert.deepEqual(shown(state).map((item) => item.kind), [CHALLENGE, ANSWER, ANSWER]);
  assert.equal(dismissed(state, "x"), true);
  assert.equal(dismissed(state, "x"), false);
  assert.deepEqual(shown(state).map((item) => item.id), ["a", "y"]);
  // a greeting after a reconnect keeps the answers
  received(state, { type: "hello", challenges: [] });
  assert.deepEqual(shown(state).map((item) => item.id), ["y"]);
});

test("only the latest answers stay, and a session that ends shows nothing", () => {
  const state = createNoticesState();
  for (let i = 0; i < MAX_ANSWERS + 2; i += 1) {
    received(state, { type: "answered", challenge: `c${i}`, status: "declined", text: `no ${i}` });
  }
  assert.deepEqual(shown(state).map((item) => item.id), ["c2", "c3", "c4"]);
  received(state, { type: "hello", challenges: [challenge("a")] });
  declining(state, "a");
  assert.equal(forget(state, "a"), true);
  cleared(state);
  assert.deepEqual(noticesView(state), []);
  assert.equal(state.busy.size, 0);
});

test("'Later' puts a challenge off on this tab: it stays answerable elsewhere and off here", () => {
  const state = createNoticesState(["kept-from-another-page"]);
  received(state, { type: "challenge", challenge: challenge("c1") });
  received(state, { type: "challenge", challenge: challenge("kept-from-another-page") });
  assert.deepEqual(noticesView(state).map((item) => item.id), ["c1"]);
  assert.equal(putOff(state, "c1"), true);
  assert.equal(putOff(state, "c1"), false); // already off
  assert.equal(putOff(state, "unknown"), false);
  assert.deepEqual(noticesView(state), []);
  assert.deepEqual([...state.later].sort(), ["c1", "kept-from-another-page"]);
  assert.equal(state.challenges.length, 2); // still open: the friends page answers them
});
