/*
 * The turn notice (static/games/room/turn-notice.js): the title and icon of a hidden page say
 * it is the player's turn, the chime sounds once when the turn comes (on by default against
 * people, off against the computer, else as the player set it), and all comes back when the
 * page is shown.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { createTurnNotice, mustAct, turnSoundOn, turnTitle } from "../../../static/games/room/turn-notice.js";

const person = { name: "Guest", bot: null };
const computer = { name: "Computer", bot: "easy" };

function game(fields = {}) {
  return { status: "active", you: "white", awaiting: "black", players: { white: person, black: person }, ...fields };
}

/** A document with a title, an icon link and a visibility the test sets. */
function fakeDoc(title = "Game · Long Nardy") {
  const doc = new EventTarget();
  doc.title = title;
  doc.visibilityState = "visible";
  const icon = {
    href: "/static/favicon.svg",
    getAttribute: () => icon.href,
    setAttribute: (name, value) => {
      icon.href = value;
    },
  };
  doc.querySelector = (selector) => (selector === 'link[rel="icon"]' ? icon : null);
  doc.icon = icon;
  return doc;
}

test("the player must act when awaited in a game under way, not as an onlooker", () => {
  assert.equal(mustAct(game({ awaiting: "white" }), true), true);
  assert.equal(mustAct(game({ awaiting: "white" }), false), false); // an onlooker's page
  assert.equal(mustAct(game({ awaiting: "black" }), true), false);
  assert.equal(mustAct(game({ awaiting: "white", status: "finished" }), true), false);
  assert.equal(mustAct(game({ awaiting: "white", you: null }), true), false);
});

test("the chime: on against people and off against the computer, until the player sets it", () => {
  assert.equal(turnSoundOn({ turnSound: null }, game()), true);
  assert.equal(turnSoundOn({ turnSound: null }, game({ players: { white: person, black: computer } })), false);
  assert.equal(turnSoundOn({ turnSound: false }, game()), false);
  assert.equal(turnSoundOn({ turnSound: true }, game({ players: { white: person, black: computer } })), true);
});

test("the title is marked only on a hidden page whose player must act", () => {
  assert.equal(turnTitle("Game", true, true, "Your turn"), "● Your turn · Game");
  assert.equal(turnTitle("Game", true, false, "Your turn"), "Game");
  assert.equal(turnTitle("Game", false, true, "Your turn"), "Game");
});

test("a hidden page: the turn comes, the title and icon say so, one chime; shown again, all back", () => {
  const doc = fakeDoc();
  const state = { game: game(), isPlayer: true, settings: { turnSound: null } };
  let chimes = 0;
  const notice = createTurnNotice({
    doc, state, turnIcon: "/static/favicon-turn.svg", yourTurn: "Ваш ход", chime: () => { chimes += 1; },
  });
  doc.visibilityState = "hidden";
  notice.update(); // the opponent still to act
  assert.equal(doc.title, "Game · Long Nardy");
  state.game = game({ awaiting: "white" }); // the opponent's play arrives: the player's turn
  notice.update();
  assert.equal(doc.title, "● Ваш ход · Game · Long Nardy");
  assert.equal(doc.icon.href, "/static/favicon-turn.svg");
  assert.equal(chimes, 1);
  notice.update(); // another render of the same turn: no second chime
  assert.equal(chimes, 1);
  doc.visibilityState = "visible";
  doc.dispatchEvent(new Event("visibilitychange"));
  assert.equal(doc.title, "Game · Long Nardy");
  assert.equal(doc.icon.href, "/static/favicon.svg");
});

test("a visible page never changes its title, and the computer's games stay silent by default", () => {
  const doc = fakeDoc();
  const state = { game: game({ players: { white: person, black: computer } }), isPlayer: true, settings: { turnSound: null } };
  let chimes = 0;
  const notice = createTurnNotice({ doc, state, turnIcon: "/t.svg", yourTurn: "Your turn", chime: () => { chimes += 1; } });
  state.game = { ...state.game, awaiting: "white" };
  notice.update(); // visible: nothing
  assert.equal(doc.title, "Game · Long Nardy");
  doc.visibilityState = "hidden";
  doc.dispatchEvent(new Event("visibilitychange")); // hidden on the player's turn: marked, no chime
  assert.equal(doc.title, "● Your turn · Game · Long Nardy");
  state.game = { ...state.game, awaiting: "black" };
  notice.update();
  state.game = { ...state.game, awaiting: "white" };
  notice.update(); // the turn comes again on the hidden page: the computer's game, no chime
  assert.equal(chimes, 0);
});
