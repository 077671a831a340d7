/* texts.js and clocks.js: the sentences the room shows and says, and the clocks' faces. */
import "./support.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { createState } from "../../../static/games/room/state.js";
import { nextSteps, stagePath } from "../../../static/games/room/staging.js";
import { clockText } from "../../../static/games/live/time.js";
import {
  historyEntryText, lostText, matchText, openingText, playText, resignQuestion, resultExplain,
  resultReason, resultTitle, statusText, who,
} from "../../../static/games/room/texts.js";
import { clockFace, clockWarning, outageNote, presenceNotice } from "../../../static/games/room/clocks.js";
import { game } from "./games.mjs";

const ROLL = { phase: "roll", dice: null, legal: null, actions: ["roll", "resign"] };

function room(overrides, isPlayer = true) {
  return createState({ game: game(overrides), isPlayer, wsPath: "", settings: {} });
}

/** Two guests: white is the viewer, black the other person. */
function people(overrides) {
  return Object.assign({
    players: {
      white: { name: "Guest", bot: null, rating: null, provisional: null, profile: null },
      black: { name: "Guest", bot: null, rating: null, provisional: null, profile: null },
    },
  }, overrides);
}

test("the opponent's play is said in the viewer's numbering; a pass says so", () => {
  const g = game();
  assert.equal(playText(g, "black", [6, 5], "24/18 18/13"), "The computer rolled 6\u20115 and played 12/6 6/1.");
  assert.equal(playText(g, "white", [6, 5], "24/18 18/13"), "You rolled 6\u20115 and played 24/18 18/13.");
  assert.equal(playText(g, "black", [6, 6], ""), "The computer rolled 6\u20116 and could not move.");
  // an onlooker reads white's numbering
  assert.equal(playText(game({ you: null }), "black", [6, 5], "24/13"), "The computer rolled 6\u20115 and played 12/1.");
});

test("the status line follows the staging of the player's own move", () => {
  const state = room();
  assert.equal(statusText(state), "You rolled 5\u20113. Choose a checker to move.");
  state.selected = 24;
  assert.equal(statusText(state), "You rolled 5\u20113. Choose a highlighted place to move the checker there.");
  stagePath(state, nextSteps(state).get(24).get(16));
  assert.equal(statusText(state), "You rolled 5\u20113. Your move is complete: confirm it or undo.");
});

test("the status line for rolling, doubling, a pass, the opponent and the end", () => {
  assert.equal(statusText(room(ROLL)), "Your turn: roll the dice.");
  assert.equal(statusText(room(Object.assign({}, ROLL, { actions: ["roll", "double", "resign"] }))),
    "Your turn: roll the dice, or double first.");
  const pass = room({ dice: [6, 6], legal: { plays: [{ play: "" }], graph: null, pass: true, why_not: {} } });
  assert.equal(statusText(pass), "No legal move with 6\u20116: your turn passes.");
  pass.settings.autoPass = true; // the page will pass by itself: the line says so
  assert.equal(statusText(pass), "No legal move with 6\u20116: the page passes for you in a moment (a setting of yours).");
  assert.equal(statusText(room({ turn: "black", awaiting: "black", phase: "play", dice: [2, 1], actions: ["resign"], legal: null })),
    "The computer rolled 2\u20111 and is moving…");
  assert.equal(statusText(room(people({ turn: "black", awaiting: "black", phase: "roll", actions: ["resign"], legal: null }))),
    "Your opponent to roll…");
  const offer = { phase: "cube", turn: "black", awaiting: "white", actions: ["take", "drop", "resign"], legal: null,
    cube: { value: 2, owner: null, offered_by: "black", turned: false } };
  assert.equal(statusText(room(people(offer))),
    "Your opponent doubles: play on for 4 points (take), or give up the game now for 2 (drop).");
  assert.equal(statusText(room({ status: "finished" })), "The game is over.");
  assert.equal(statusText(room({ status: "aborted" })), "The game was aborted.");
});

test("while the computer's play is shown the status waits with the Roll button, then asks for the roll", () => {
  const state = room(Object.assign({}, ROLL, { last: { side: "black", dice: [5, 2], play: "24/19 19/17", version: 6 } }));
  state.anim = { view: {} }; // board-view.js slides the play; the controls are disabled meanwhile
  assert.equal(statusText(state), "The computer rolled 5\u20112 and is moving…");
  state.anim = null; // the slide is over: the Roll button is enabled on the same redraw
  assert.equal(statusText(state), "Your turn: roll the dice.");
});

test("names: the computer, your opponent, the colour for onlookers of two guests", () => {
  assert.equal(who(game(), "white"), "You");
  assert.equal(who(game(), "black"), "Computer");
  assert.equal(who(game(people()), "black"), "Opponent");
  assert.equal(who(game(people({ you: null })), "black"), "Black");
  const anna = { name: "Anna", bot: null, rating: 1500, provisional: false, profile: "/en/players/7/" };
  assert.equal(who(game(people({ players: { white: people().players.white, black: anna } })), "black"), "Anna");
});

test("the opening roll, with its ties", () => {
  assert.equal(openingText(game({ opening: { white: 6, black: 5, ties: [[3, 3]], starter: "white", roll_off: true } })),
    "The opening dice tied (3\u20113) and were rolled again. Opening roll: you 6, the computer 5. You start.");
  assert.equal(openingText(game({ opening: { white: 1, black: 4, ties: [[3, 3], [2, 2]], starter: "black", roll_off: true } })),
    "The opening dice tied (3\u20113, 2\u20112) and were rolled again each time. Opening roll: you 1, the computer 4. The computer starts.");
  assert.equal(openingText(game({ you: null, opening: { white: 2, black: 5, ties: [], starter: "black", roll_off: true } })),
    "Opening roll: white 2, black 5. The computer starts.");
});

test("results: title, meaning and reason, for each way a game ends", () => {
  const g = game({ status: "finished" });
  const resign = { winner: "black", kind: "mars", points: 2, reason: "resign", cube: 1, loser: "white", match_lost: false };
  assert.equal(resultTitle(g, resign), "The computer won: mars, 2 points.");
  assert.equal(resultReason(g, resign), "You resigned.");
  assert.equal(resultExplain(resign), "Mars: the loser had not borne off a single checker.");
  const bore = { winner: "white", kind: "oin", points: 1, reason: "bore_off", cube: 2, loser: "black", match_lost: false };
  assert.equal(resultTitle(g, bore), "You won: oin, 1 point.");
  assert.equal(resultReason(g, bore), "You bore off all 15 checkers.");
  assert.equal(resultExplain(bore), "Oin: the loser had borne off at least one checker. The cube stood at 2.");
  const timeout = { winner: "white", kind: "oin", points: 1, reason: "timeout", cube: 1, loser: "black", match_lost: true };
  assert.equal(resultReason(game(people({ status: "finished" })), timeout), "Your opponent ran out of time and so loses the match.");
  const aborted = { winner: null, kind: null, points: 0, reason: "aborted", cube: 1, loser: "white", match_lost: false };
  assert.equal(resultTitle(g, aborted), "Game aborted: no result.");
  assert.equal(resultReason(g, aborted), "You did not make a first move in time.");
  assert.equal(resultExplain(aborted), "Nobody wins, no points are scored and no rating changes.");
  const resigned = { ...aborted, loser: "black", aborted_by: "resign" };
  assert.match(resultReason(g, resigned), /resigned before their first play\.$/);
  assert.equal(resultReason(g, { ...aborted, aborted_by: "resign" }), "You resigned before your first play.");
  assert.equal(resultReason(g, { ...aborted, aborted_by: "drop" }), "You dropped the double before your first play.");
  assert.equal(resultReason(g, { ...aborted, aborted_by: "abandon" }), "You left before your first play.");
});

test("the match score puts the viewer first, white for onlookers", () => {
  const match = { id: "m", length: 3, score: { white: 0, black: 2 }, game_number: 3, games: [], status: "active", winner: null, next_game: null, url: "/" };
  const black = { name: "Guest", bot: null, rating: null, provisional: null, profile: null };
  const white = { name: "Computer", bot: "easy", rating: null, provisional: null, profile: null };
  assert.equal(matchText(game({ match, you: "black", players: { white, black } })), "Match to 3 · game 3 · You 2 : 0 Computer");
  assert.equal(matchText(game({ match, you: null })), "Match to 3 · game 3 · Guest 0 : 2 Computer");
  assert.equal(matchText(game()), "");
});

test("history entries", () => {
  const g = game();
  assert.equal(historyEntryText(g, { n: 2, side: "black", kind: "play", dice: [6, 5], play: "24/13" }), "12/1");
  assert.equal(historyEntryText(g, { n: 2, side: "black", kind: "play", dice: [6, 6], play: "" }), "no move (pass)");
  assert.equal(historyEntryText(g, { n: 3, side: "white", kind: "double", cube: 2 }), "double to 2");
  assert.equal(historyEntryText(g, { n: 9, side: "black", kind: "timeout" }), "out of time");
});

test("clock text rounds a started second up and never goes below 0:00", () => {
  assert.equal(clockText(65000), "1:05");
  assert.equal(clockText(64001), "1:05");
  assert.equal(clockText(1), "0:01");
  assert.equal(clockText(0), "0:00");
  assert.equal(clockText(-5000), "0:00");
});

test("a lost connection says how long the viewer has to come back", () => {
  const state = room({ clock: { spec: { reconnect_ms: 60000, loses: "match" } } });
  state.lostAt = 1000;
  assert.equal(lostText(state, 11000), "Connection lost: reconnecting… Come back within 0:50 or you lose the match.");
  const standard = room({ clock: { running: "white", spec: { reconnect_ms: null, loses: "game" } } });
  standard.lostAt = 1000;
  assert.equal(lostText(standard, 11000), "Connection lost: reconnecting… Your clock keeps running.");
  const theirs = room({ clock: { running: "black", spec: { reconnect_ms: null, loses: "game" } } });
  theirs.lostAt = 1000;
  assert.equal(lostText(theirs, 11000), "Connection lost: reconnecting…"); // not the viewer's time
});

/** A standard clock running for white since t = 100 000 (ms), 45 s free. */
function clocked(overrides = {}) {
  return game(people({
    clock: Object.assign({
      kind: "standard", server_time: 100000, running: "white", period: "move", period_started: 100000,
      turn_started: 100000, first_move: false, free_ms: 45000, deadline: 100000 + 45000 + 120000,
      reserve: { white: 120000, black: 95000 },
    }, overrides),
  }));
}

test("the clock of the side to act counts its free time, then its reserve; the other shows its reserve", () => {
  const g = clocked();
  assert.deepEqual(clockFace(g, "white", 110000), { ms: 35000, note: "to move · reserve 2:00", running: true, low: false });
  assert.deepEqual(clockFace(g, "black", 110000), { ms: 95000, note: "reserve", running: false, low: false });
  assert.deepEqual(clockFace(g, "white", 155000), { ms: 110000, note: "reserve", running: true, low: false, inReserve: true });
  assert.equal(clockFace(g, "white", 258000).low, true);
  assert.equal(clockFace(game(), "black", 0), null); // no clock
});

test("the first move counts to its deadline; the match clock's turn limit comes before the reserve", () => {
  const first = clocked({ first_move: true, deadline: 160000 });
  assert.deepEqual(clockFace(first, "white", 110000), { ms: 50000, note: "first move", running: true, low: false });
  const capped = clocked({ kind: "match", free_ms: 12000, deadline: 160000 });
  assert.deepEqual(clockFace(capped, "white", 150000),
    { ms: 10000, note: "turn limit · reserve 1:22", running: true, low: true, inReserve: true });
});

test("an absent opponent: the countdown to the loss, or to the claim and then the claim", () => {
  const away = (black) => createState({ game: game(people({ presence: { white: { here: true }, black } })), isPlayer: true, wsPath: "", settings: {} });
  assert.deepEqual(presenceNotice(away({ here: false, away_since: 0, loses_at: 60000, claim_from: null }), 15000),
    { text: "Opponent disconnected — reconnecting… 0:45", claimable: false });
  const claim = away({ here: false, away_since: 0, loses_at: null, claim_from: 60000 });
  assert.deepEqual(presenceNotice(claim, 30000),
    { text: "Your opponent has left the game. If they are not back in 0:30, you may claim the win.", claimable: false });
  assert.deepEqual(presenceNotice(claim, 60000),
    { text: "Your opponent has not come back: you may claim the win, or wait for them.", claimable: true });
  assert.deepEqual(presenceNotice(away({ here: true, away_since: null, loses_at: null, claim_from: null }), 0),
    { text: "", claimable: false });
});

test("after an outage everyone reads how long the clocks stood still, until the next play", () => {
  const note = (ms, status = "active") => outageNote(game({ status, clock: { kind: "match", paused_ms: ms } }));
  const nb = (text) => text.replace(/ /g, "\u00a0");
  assert.equal(note(75000), "Our server was unavailable for " + nb("1 min 15 s") + "; the clocks stood still for that time.");
  assert.equal(note(40000), "Our server was unavailable for " + nb("40 s") + "; the clocks stood still for that time.");
  assert.equal(note(120000), "Our server was unavailable for " + nb("2 min") + "; the clocks stood still for that time.");
  assert.equal(note(null), "");
  assert.equal(note(75000, "finished"), "");
  assert.equal(outageNote(game({ clock: null })), "");
});

test("the clock warns the running side at 30 and then 10 seconds before its deadline", () => {
  const g = game({ clock: { kind: "standard", running: "white", period_started: 0, deadline: 100000, free_ms: 45000, reserve: { white: 60000, black: 60000 } } });
  assert.equal(clockWarning(g, "white", 60000), null);
  assert.equal(clockWarning(g, "white", 70000), 30);
  assert.equal(clockWarning(g, "white", 89999), 30);
  assert.equal(clockWarning(g, "white", 90000), 10);
  assert.equal(clockWarning(g, "black", 95000), null); // its clock does not run
  assert.equal(clockWarning(game({ clock: null }), "white", 95000), null);
  assert.equal(clockWarning(Object.assign({}, g, { status: "finished" }), "white", 95000), null);
});

test("resigning before one's first play is asked as leaving an aborted game; after it, as a scored loss", () => {
  const fresh = game({ history: [{ n: 1, side: "black", kind: "play", dice: [6, 5], play: "24/18 18/13", version: 2 }] });
  assert.match(resignQuestion(fresh), /^Leave this game\? You have not made a play yet, so it is aborted/);
  const played = game({ history: [{ n: 1, side: "white", kind: "play", dice: [6, 5], play: "24/18 18/13", version: 2 }] });
  assert.equal(resignQuestion(played), "Resign this game? It is scored on your position as it stands now.");
  const laterGame = game({ history: [], match: { game_number: 2 } });
  assert.equal(resignQuestion(laterGame), "Resign this game? It is scored on your position as it stands now.");
});
