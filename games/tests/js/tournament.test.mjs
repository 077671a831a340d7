/*
 * tournament-state.js: the tournament pages' state (the event's frames by version, the
 * server's clock, the next game announced and its countdown) and every sentence and rule the
 * pages show.
 */
import "./support.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  actions, announce, arenaResultText, countText, countdowns, createTournamentState, followView, gameUrl,
  localTimeText, matchUrl, namesOf, openingNow, playerUrl, roundName, serverNow, slotScore, standingNow,
  statusText, takeEvent, youText,
} from "../../../static/games/tournament-state.js";

const NOW = 1_700_000_000_000;
const MIN = 60000;

/** A standings row. */
function row(user, overrides = {}) {
  return {
    user, name: "P" + user, rating: 1500, score: 0, games: 0, wins: 0, streak: 0, fire: false,
    active: true, away: false, playing: null, seed: user, place: null, last: null, withdrawn: false,
    ...overrides,
  };
}

/** A `tournament` frame (docs/protocol.md "Tournaments"): a running arena by default. */
function event(overrides = {}) {
  return {
    type: "tournament", id: "t1", version: 4, kind: "arena", status: "running", preset: "sport",
    clock: "standard", match_length: 1, size: null, rounds: null, starts_at: NOW - 10 * MIN,
    ends_at: NOW + 50 * MIN, server_time: NOW, entrants: 2, standings: [row(1), row(2)], bracket: [],
    games: [], podium: [], full: false,
    ...overrides,
  };
}

test("the event's frames are taken by version, and set the server's clock", () => {
  const page = createTournamentState(event(), NOW - 3000); // this browser is 3 s behind
  assert.equal(page.offset, 3000);
  assert.equal(serverNow(page, NOW - 3000), NOW);
  assert.equal(takeEvent(page, event({ version: 4, server_time: NOW + 1000 }), NOW), false);
  assert.equal(page.offset, 3000);
  assert.equal(takeEvent(page, event({ version: 5, server_time: NOW + 1000 }), NOW), true);
  assert.equal(page.event.version, 5);
  assert.equal(page.offset, 1000);
  const empty = createTournamentState(null);
  assert.equal(empty.event, null);
  assert.equal(takeEvent(empty, event({ version: 1 }), NOW), true);
});

test("a game announced: counted down by the server's clock, opened once, not on its own page", () => {
  const page = createTournamentState(null);
  const frame = { type: "paired", game: "g1", url: "/en/game/g1/", starts_at: NOW + 65000, server_time: NOW };
  assert.equal(announce(page, frame, "/en/game/g1/", NOW), false);
  assert.equal(openingNow(page, NOW), null);
  assert.equal(announce(page, frame, "/en/tournaments/t1/", NOW - 2000), true);
  assert.deepEqual(openingNow(page, NOW - 2000), { text: "Your next game starts in 1:05." });
  assert.deepEqual(openingNow(page, NOW + 64001 - 2000), { text: "Your next game starts in 0:01." });
  assert.deepEqual(openingNow(page, NOW + 65000 - 2000), { go: "/en/game/g1/" });
  assert.equal(openingNow(page, NOW + 70000), null);
  announce(page, { ...frame, starts_at: NOW + 2 * 3600000 }, "/", NOW);
  assert.deepEqual(openingNow(page, NOW), { text: "Your next game starts in 2:00:00." });
});

test("a moment in the reader's own time: the day too when it is not today", () => {
  const today = new Date(2024, 0, 15, 9, 0);
  const sameDay = localTimeText(new Date(2024, 0, 15, 14, 5), "en", today);
  assert.match(sameDay, /2:05/);
  assert.doesNotMatch(sameDay, /January/);
  const otherDay = localTimeText(new Date(2024, 0, 16, 14, 5), "en", today);
  assert.match(otherDay, /January/);
  assert.match(otherDay, /16/);
  assert.equal(localTimeText(new Date("not a date"), "en", today), null);
});

test("the countdowns: to the start while open for entries, the time left while running", () => {
  assert.deepEqual(countdowns(event({ status: "upcoming", starts_at: NOW + 90 * MIN }), NOW),
    { start: "(in 1:30:00)", end: "" });
  assert.deepEqual(countdowns(event(), NOW), { start: "", end: "(50:00 left)" });
  assert.deepEqual(countdowns(event(), NOW + 50 * MIN),
    { start: "", end: "(time is up: the last games are being finished)" });
  assert.deepEqual(countdowns(event({ status: "finished" }), NOW), { start: "", end: "" });
  assert.deepEqual(countdowns(event({ ends_at: null }), NOW), { start: "", end: "" });
});

test("status, rounds, counts, scores and the standings' last column", () => {
  assert.equal(statusText("upcoming"), "Open for entries");
  assert.equal(statusText("cancelled"), "Called off");
  assert.equal(statusText("something new"), "Under way");
  assert.deepEqual([1, 2, 3, 4].map((n) => roundName(n, 4)), ["Round 1", "Quarter-finals", "Semi-finals", "Final"]);
  assert.equal(countText(event()), "2");
  assert.equal(countText(event({ kind: "cup", size: 8, entrants: 5 })), "5 of 8");
  assert.equal(slotScore({ score: [2, 1] }), "2–1");
  assert.equal(slotScore({ score: null, outcome: "bye" }), "bye");
  assert.equal(slotScore({ score: null, outcome: null }), "");
  assert.deepEqual(standingNow(row(1, { playing: "g1", active: false })), { text: "playing", game: "g1" });
  assert.deepEqual(standingNow(row(1, { active: false })), { text: "left", game: null });
  assert.deepEqual(standingNow(row(1, { away: true })), { text: "away", game: null });
  assert.deepEqual(standingNow(row(1)), { text: "", game: null });
  assert.deepEqual(namesOf([row(1), row(7)]), { 1: "P1", 7: "P7" });
});

test("the addresses made from the page's patterns", () => {
  const pattern = "/en/game/00000000-0000-0000-0000-000000000000/";
  assert.equal(gameUrl(pattern, "abc"), "/en/game/abc/");
  assert.equal(matchUrl(pattern, "abc", "m9"), "/en/match/m9/");
  assert.equal(playerUrl("/en/players/0/", 42), "/en/players/42/");
});

test("the player's own line", () => {
  const running = event();
  assert.equal(youText(event({ status: "finished" }), row(1, { place: 2 }), ""), "Your place: 2.");
  assert.equal(youText(event({ status: "finished" }), row(1), ""), "");
  assert.equal(youText(running, row(1, { withdrawn: true, active: false }), "Withdrawn: three quick losses."),
    "Withdrawn: three quick losses.");
  assert.match(youText(running, row(1, { active: false, playing: "g" }), ""), /game under way still counts/);
  assert.match(youText(running, row(1, { active: false }), ""), /your points stay/);
  assert.match(youText(running, row(1, { away: true }), ""), /marked away/);
  assert.equal(youText(running, row(1, { playing: "g" }), ""), "You are playing a game of this event.");
  assert.match(youText(event({ status: "upcoming" }), row(1), ""), /^You are entered\./);
  assert.match(youText(running, row(1), ""), /^You are in\./);
});

test("which forms apply: the server's rules", () => {
  // a running arena before its end: anyone may join, an active entrant may leave
  assert.deepEqual(actions(event(), null, NOW),
    { signIn: true, join: true, joinLabel: "Join", leave: false, leaveLabel: "Leave (keep my points)" });
  assert.deepEqual(actions(event(), row(1), NOW),
    { signIn: true, join: false, joinLabel: "Play again", leave: true, leaveLabel: "Leave (keep my points)" });
  assert.equal(actions(event(), row(1, { away: true }), NOW).join, true);
  assert.equal(actions(event(), row(1, { active: false }), NOW).join, true);
  assert.equal(actions(event(), row(1, { active: false, withdrawn: true }), NOW).join, false);
  // past its end, nothing opens
  assert.equal(actions(event(), null, NOW + 50 * MIN).signIn, false);
  // a full cup takes no entries; an entrant may withdraw before the start
  const cup = event({ kind: "cup", status: "upcoming", size: 2, entrants: 2 });
  assert.deepEqual(actions(cup, row(1), NOW),
    { signIn: false, join: false, joinLabel: "Play again", leave: true, leaveLabel: "Withdraw" });
  assert.equal(actions({ ...cup, entrants: 1 }, null, NOW).join, true);
  // a running cup: no entries, no leaving
  assert.deepEqual(actions(event({ kind: "cup", size: 4 }), row(1), NOW).leave, false);
});

test("what the arena scored for a decided game", () => {
  const names = { 1: "Ann", 2: "Bob" };
  assert.equal(arenaResultText({ winner: null }, names, 1), "");
  assert.equal(arenaResultText({ winner: 1, points: 0 }, names, 1),
    "This win scores no arena points: the game was too short to count.");
  assert.equal(arenaResultText({ winner: 1, points: 2, kind: "mars" }, names, 1),
    "You score 2 arena points for this mars.");
  assert.equal(arenaResultText({ winner: 2, points: 1, kind: "oin", doubled: true }, names, 1),
    "Bob scores 1 arena point for this oin. Doubled by the win streak.");
});

test("on a tournament game's page: a cup's no-show, an away player, the arena's score", () => {
  const seat = { user: 1, game: "g1", match: "m1" };
  const cup = event({
    kind: "cup",
    bracket: [{ round: 1, slot: 0, match: "m1", game: "g0", white: 1, black: 2, winner: 2, outcome: "no_show" }],
  });
  assert.deepEqual(followView(cup, seat), { note: "In the cup this counts as a no-show: P2 goes on.", arena: null });
  const away = event({ standings: [row(1, { away: true }), row(2)] });
  assert.match(followView(away, seat).note, /^You are marked away/);
  assert.equal(followView({ ...away, status: "finished" }, seat).note, "");
  const scored = event({
    standings: [row(1, { last: { game: "g1", winner: 1, points: 1, kind: "oin" } }), row(2)],
  });
  assert.deepEqual(followView(scored, seat), { note: "", arena: "You score 1 arena point for this oin." });
});
