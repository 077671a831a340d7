/*
 * lobby-state.js: the lobby page's state as the server's frames and the socket change it (the
 * wait, the join sent again after a reconnect, the end of a signed-out session), its words,
 * and the join kept off while rated games are closed to the player.
 */
import "./support.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  banEnd, banned, cancelled, connected, countText, createLobbyState, ended, joinDisabled,
  joinFrame, lost, offerComputer, ratingText, received, submitted, tableName, titleText,
  waitView, waitingIn,
} from "../../../static/games/lobby-state.js";

const NOW = 1_700_000_000_000;

/** A `queued` frame (docs/protocol.md "Lobby"): joined 10 s before the server's `server_time`. */
function queued(overrides = {}) {
  return {
    type: "queued", pool: "rated", preset: "match", match_length: 5, clock: "match", rating: 1500, provisional: true,
    offer_computer_ms: 20000,
    joined: NOW - 10000, server_time: NOW, window: 200, window_start: 100, window_growth: 10, window_max: 800,
    ...overrides,
  };
}

/** FormData-like values. */
function values(fields) {
  return { get: (name) => (name in fields ? fields[name] : null) };
}

test("the table and the rating as the wait names them", () => {
  assert.equal(tableName({ preset: "sport", clock: "standard" }), "Sport · Standard clock");
  assert.equal(tableName({ preset: "classic", clock: "match" }), "Classic · Match clock");
  assert.equal(tableName({ preset: "match", match_length: 1, clock: "match" }), "Match to 1 point · Match clock");
  assert.equal(tableName({ preset: "match", match_length: 7, clock: "standard" }), "Match to 7 points · Standard clock");
  assert.equal(ratingText({ rating: 1500, provisional: true }), "1500? (provisional)");
  assert.equal(ratingText({ rating: 1712, provisional: false }), "1712");
});

test("the join frame of the form: casual sport by default, a match's length (3 by default), the clock if chosen", () => {
  assert.deepEqual(joinFrame(values({})), { type: "join", pool: "casual", preset: "sport" });
  assert.deepEqual(joinFrame(values({ pool: "rated", preset: "match" })),
    { type: "join", pool: "rated", preset: "match", match_length: 3 });
  assert.deepEqual(joinFrame(values({ preset: "match", match_length: "7", clock: "match" })),
    { type: "join", pool: "casual", preset: "match", match_length: 7, clock: "match" });
  assert.deepEqual(joinFrame(values({ preset: "classic", match_length: "7" })),
    { type: "join", pool: "casual", preset: "classic" });
});

test("the counts of waiting players: none until the server says, then per pool, in words", () => {
  const state = createLobbyState();
  assert.equal(waitingIn(state, "casual"), null);
  assert.equal(received(state, { type: "waiting", counts: { casual: { total: 3, sport: 3 }, rated: { total: 1 } } }), null);
  assert.equal(waitingIn(state, "casual"), 3);
  assert.equal(waitingIn(state, "rated"), 1);
  assert.equal(state.view, "form"); // counts never change the view
  assert.equal(countText(1), "1 waiting now");
  assert.equal(countText(0), "0 waiting now");
});

test("a casual wait shows no rating range, and the computer is offered after offer_computer_ms", () => {
  const state = createLobbyState();
  received(state, queued({ pool: "casual", rating: undefined, window: undefined }), NOW);
  assert.deepEqual(waitView(state, NOW), { waited: "0:10", range: null });
  assert.equal(offerComputer(state, NOW + 9999), false);
  assert.equal(offerComputer(state, NOW + 10000), true); // 20 s since joining
  received(state, { type: "paired", game: "g", url: "/en/game/g/" }, NOW);
  assert.equal(offerComputer(state, NOW + 10000), false); // leaving for the game
});

test("a ban from rated games leaves the casual pool open", () => {
  const state = createLobbyState({ bannedUntil: NOW + 60000 });
  connected(state);
  assert.equal(joinDisabled(state, "rated", NOW), true);
  assert.equal(joinDisabled(state, "casual", NOW), false);
});

test("a guest's socket closed with 4401 (a sign-in elsewhere) says to reload, not to sign in", () => {
  const guest = createLobbyState();
  ended(guest, 4401);
  assert.match(guest.message, /Reload the page/);
  const player = createLobbyState({ signedIn: true });
  ended(player, 4401);
  assert.match(player.message, /no longer signed in/);
});

test("the wait counts by the server's clock, and the range widens as the server's window does", () => {
  const state = createLobbyState();
  assert.equal(waitView(state, NOW), null);
  // this browser's clock is 5 s behind the server's
  received(state, queued(), NOW - 5000);
  assert.equal(state.offset, 5000);
  assert.deepEqual(waitView(state, NOW - 5000), { waited: "0:10", range: "1300 to 1700" });
  assert.deepEqual(waitView(state, NOW + 25000), { waited: "0:40", range: "1000 to 2000" });
  assert.deepEqual(waitView(state, NOW + 3600000), { waited: "60:15", range: "700 to 2300" }); // window_max
  received(state, queued({ rating: 150 }), NOW);
  assert.deepEqual(waitView(state, NOW), { waited: "0:10", range: "0 to 350" }); // never below 0
  // a half point of window (here 10 points a second, 50 ms on): both ends the same way, as
  // whole points around the rating, never 1400 to 1601 around 1500
  received(state, queued({ rating: 1500, window_start: 100, window_growth: 10 }), NOW);
  const { range } = waitView(state, NOW - 5000 + 10050);
  const [low, high] = range.split(" to ").map(Number);
  assert.equal(low + high, 3000, range);
});

test("a join: sent, queued, the socket lost and back, the join sent again, paired", () => {
  const state = createLobbyState();
  assert.equal(joinDisabled(state, "rated", NOW), true); // not connected yet
  assert.equal(connected(state), null);
  assert.equal(joinDisabled(state, "rated", NOW), false);
  const join = { type: "join", preset: "match", match_length: 5, clock: "match" };
  submitted(state, join, true);
  assert.equal(state.wanted, join);
  assert.equal(joinDisabled(state, "rated", NOW), true);
  assert.equal(received(state, queued(), NOW), null);
  assert.equal(state.view, "wait");
  assert.equal(titleText(state), "Looking for an opponent…");
  lost(state);
  assert.equal(titleText(state), "Connection lost: reconnecting…");
  assert.equal(state.view, "wait"); // the wait stays, its time runs on
  assert.deepEqual(connected(state), join); // closing the socket left the queue: join again
  received(state, queued(), NOW);
  assert.equal(titleText(state), "Looking for an opponent…");
  assert.equal(received(state, { type: "paired", game: "g", url: "/en/game/g/" }), "/en/game/g/");
  assert.equal(titleText(state), "Opponent found! Opening the game…");
  assert.equal(state.wanted, null);
  assert.equal(received(state, { type: "left" }), null); // the page is leaving: nothing more
  assert.equal(state.view, "wait");
});

test("a wait seen from another tab is joined again from its queued frame after a reconnect", () => {
  const state = createLobbyState();
  connected(state);
  received(state, queued({ preset: "sport", match_length: 1, clock: "standard" }), NOW);
  lost(state);
  assert.deepEqual(connected(state),
    { type: "join", pool: "rated", preset: "sport", match_length: 1, clock: "standard" });
});

test("a socket lost while nobody waits joins nothing again", () => {
  const state = createLobbyState();
  connected(state);
  lost(state);
  assert.equal(state.title, null);
  assert.equal(connected(state), null);
});

test("left and errors go back to the form; too_many_sockets only says so, and keeps the join", () => {
  const state = createLobbyState();
  connected(state);
  const join = { type: "join", preset: "sport" };
  submitted(state, join, true);
  received(state, { type: "error", code: "too_many_sockets", message: "Too many pages." });
  assert.equal(state.message, "Too many pages.");
  assert.equal(state.wanted, join);
  lost(state);
  assert.equal(state.message, "Too many pages."); // until a socket opens again
  assert.equal(connected(state), join);
  assert.equal(state.message, "");
  received(state, queued(), NOW);
  received(state, { type: "left" });
  assert.equal(state.view, "form");
  assert.equal(state.queued, null);
  assert.equal(joinDisabled(state, "rated", NOW), false);
  submitted(state, join, true);
  received(state, { type: "error", code: "site_full", message: "The site is full." });
  assert.equal(state.view, "form");
  assert.equal(state.message, "The site is full.");
  assert.equal(state.wanted, null);
});

test("cancel: the leave sent waits for its answer; not sent, back to the form at once", () => {
  const state = createLobbyState();
  connected(state);
  received(state, queued(), NOW);
  cancelled(state, true);
  assert.equal(state.leaving, true);
  assert.equal(state.view, "wait");
  received(state, { type: "left" });
  assert.equal(state.view, "form");
  received(state, queued(), NOW);
  assert.equal(state.leaving, false);
  cancelled(state, false);
  assert.equal(state.view, "form");
});

test("not connected: the join is not sent and the player is told; signed out: the form, off", () => {
  const state = createLobbyState({ signedIn: true });
  submitted(state, { type: "join", preset: "sport" }, false);
  assert.equal(state.message, "Not connected to the server yet. Try again in a moment.");
  assert.equal(state.wanted, null);
  connected(state);
  received(state, queued(), NOW);
  ended(state, 4401);
  assert.equal(state.view, "form");
  assert.equal(state.message, "You are no longer signed in. Sign in again to play rated games.");
  assert.equal(joinDisabled(state, "rated", NOW), true);
});

test("a play ban keeps the join off until its end, by the server's clock", () => {
  // the server says: banned until 60 s after it made the page; this browser is 2 min ahead
  const until = banEnd(NOW + 60000, NOW, NOW + 120000);
  assert.equal(until, NOW + 180000);
  const state = createLobbyState({ bannedUntil: until });
  connected(state);
  assert.equal(banned(state, NOW + 179999), true);
  assert.equal(joinDisabled(state, "rated", NOW + 179999), true);
  assert.equal(banned(state, until), false);
  assert.equal(joinDisabled(state, "rated", until), false);
  assert.equal(banned(createLobbyState(), NOW), false);
});
