/* protocol.js: events applied to the game held, and when the page asks for a snapshot. */
import "./support.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { NEED_SNAPSHOT, OLD_NEWS, applyEvent, isOldSnapshot, lastPlay, playedSince, touchNeedsSnapshot, unpackLegal } from "../../../static/games/room/protocol.js";
import { deepFreeze, game } from "./games.mjs";

const NEW_ID = "BBBBBBBBBBBBBB";

/** White's play 24/16 answered by nothing yet: version 7 -> 8, black to roll. */
function playEvent(overrides = {}) {
  return Object.assign({
    type: "event",
    version: 8,
    from: 7,
    events: [{ seq: 8, kind: "play", side: "white" }],
    history: [{ n: 3, side: "white", kind: "play", dice: [5, 3], play: "24/16", version: 8 }],
    changes: {
      phase: "roll", turn: "black", awaiting: "black", dice: null,
      position: { turn: "black", white: { "24": 12, "16": 1, "13": 1, "6": 1 }, black: { "24": 14, "1": 1 }, first_turn: false },
      position_id: NEW_ID,
      pips: { white: 323, black: 337 },
    },
    actions: ["resign"],
    legal: null,
  }, overrides);
}

test("an event on the version held gives the next game: its changes, history, actions and legal", () => {
  const held = game();
  const next = applyEvent(held, playEvent());
  assert.equal(next.version, 8);
  assert.equal(next.phase, "roll");
  assert.equal(next.turn, "black");
  assert.equal(next.awaiting, "black");
  assert.equal(next.dice, null);
  assert.deepEqual(next.pips, { white: 323, black: 337 });
  assert.deepEqual(next.last, { side: "white", dice: [5, 3], play: "24/16", version: 8 });
  assert.deepEqual(next.actions, ["resign"]);
  assert.equal(next.legal, null);
  assert.deepEqual(next.history.map((entry) => entry.version), [2, 6, 8]);
  // what no change names stays, the very same objects
  for (const field of ["id", "players", "options", "opening", "match", "result", "you", "fairness", "presence", "status"]) {
    assert.equal(next[field], held[field], field);
  }
});

test("object fields take the changed keys they are given, one level deep; others are replaced", () => {
  const held = game({ clock: { kind: "standard", running: "white", reserve: { white: 120000, black: 95000 }, deadline: 5 } });
  const next = applyEvent(held, playEvent({ changes: {
    clock: { running: "black", reserve: { white: 118000, black: 95000 } },
    dice: [6, 6],
  } }));
  // merged: kind and deadline are kept, running and reserve replaced (reserve whole)
  assert.deepEqual(next.clock, { kind: "standard", running: "black", reserve: { white: 118000, black: 95000 }, deadline: 5 });
  assert.deepEqual(next.dice, [6, 6]);
  assert.deepEqual(held.clock.reserve, { white: 120000, black: 95000 });
});

test("an object field held as null, or set to null, is taken whole", () => {
  const held = game({ cube: null, clock: { kind: "standard", running: "white" } });
  const next = applyEvent(held, playEvent({ changes: { cube: { value: 2, owner: "black" }, clock: null } }));
  assert.deepEqual(next.cube, { value: 2, owner: "black" });
  assert.equal(next.clock, null);
});

test("several events in a row each apply on the version the one before made", () => {
  let held = game();
  held = applyEvent(held, playEvent());
  held = applyEvent(held, {
    type: "event", version: 10, from: 8,
    events: [{ seq: 9, kind: "roll", side: "black" }, { seq: 10, kind: "play", side: "black" }],
    history: [{ n: 4, side: "black", kind: "play", dice: [2, 1], play: "24/21", version: 10 }],
    changes: { phase: "roll", turn: "white", awaiting: "white" },
    actions: ["roll", "resign"], legal: null,
  });
  assert.equal(held.version, 10);
  assert.equal(held.turn, "white");
  assert.deepEqual(held.actions, ["roll", "resign"]);
  assert.deepEqual(held.history.map((entry) => entry.n), [1, 2, 3, 4]);
});

test("a presence event (version equal to from) applies its changes and keeps the version", () => {
  const held = game({ actions: ["roll", "resign"], legal: null, phase: "roll" });
  const away = { here: false, away_since: 1000, loses_at: null, claim_from: 61000 };
  const next = applyEvent(held, {
    type: "event", version: 7, from: 7, events: [], history: [],
    changes: { presence: { white: held.presence.white, black: away } },
    actions: ["roll", "resign", "claim"], legal: null,
  });
  assert.notEqual(next, OLD_NEWS);
  assert.equal(next.version, 7);
  assert.deepEqual(next.presence.black, away);
  assert.deepEqual(next.actions, ["roll", "resign", "claim"]);
  assert.equal(next.history, held.history); // no entry: the same list
  assert.equal(next.position_id, held.position_id);
  assert.equal(next.links, held.links);
});

test("a gap (from is not the version held, version is above it) asks for a snapshot", () => {
  const held = game();
  assert.equal(applyEvent(held, playEvent({ from: 8, version: 9 })), NEED_SNAPSHOT);
  assert.equal(applyEvent(held, playEvent({ from: 6, version: 8 })), NEED_SNAPSHOT);
  assert.equal(applyEvent(held, playEvent({ from: 8, version: 8 })), NEED_SNAPSHOT);
});

test("an event about a version already held or passed is old news", () => {
  const held = game();
  assert.equal(applyEvent(held, playEvent({ from: 6, version: 7 })), OLD_NEWS);
  assert.equal(applyEvent(held, playEvent({ from: 5, version: 6 })), OLD_NEWS);
  assert.equal(applyEvent(held, playEvent({ from: 6, version: 6 })), OLD_NEWS); // an old presence event
  // and one that goes backwards from the version held makes no sense: ignored too
  assert.equal(applyEvent(held, playEvent({ from: 7, version: 6 })), OLD_NEWS);
});

test("a new position_id takes the old one's place in the share, image and png links only", () => {
  const held = game();
  const next = applyEvent(held, playEvent());
  assert.equal(next.position_id, NEW_ID);
  assert.deepEqual(next.links, {
    game: held.links.game, replay: held.links.replay, record: held.links.record,
    share: `/en/position/${NEW_ID}/`, image: `/position/${NEW_ID}.svg`, png: `/position/${NEW_ID}.png`,
  });
});

test("links stay as they are when position_id is not changed", () => {
  const held = game();
  const unnamed = playEvent();
  delete unnamed.changes.position_id;
  assert.equal(applyEvent(held, unnamed).links, held.links);
  const same = playEvent({ changes: { position_id: held.position_id } });
  assert.equal(applyEvent(held, same).links, held.links);
});

test("history entries are appended in order, to an empty history too", () => {
  const entries = [
    { n: 3, side: "white", kind: "double", cube: 2, version: 8 },
    { n: 3, side: "black", kind: "take", cube: 2, version: 9 },
  ];
  const next = applyEvent(game(), playEvent({ version: 9, history: entries }));
  assert.deepEqual(next.history.slice(-2), entries);
  assert.equal(next.history.length, 4);
  assert.deepEqual(applyEvent(game({ history: [] }), playEvent({ history: entries })).history, entries);
  assert.deepEqual(applyEvent(game({ history: undefined }), playEvent({ history: entries })).history, entries);
});

test("actions and legal are replaced as sent, and kept when the frame has none", () => {
  const held = game({ phase: "roll", actions: ["roll", "resign"], legal: null, dice: null });
  const legal = { plays: [{ play: "13/7" }], graph: { nodes: [{ steps: { "13/7": 1 }, final: false }, { steps: {}, final: true }] }, pass: false, why_not: {} };
  const rolled = applyEvent(held, { type: "event", version: 8, from: 7, events: [{ seq: 8, kind: "roll", side: "white" }],
    history: [], changes: { phase: "play", dice: [6, 6] }, actions: ["play", "resign"], legal });
  assert.deepEqual(rolled.actions, ["play", "resign"]);
  assert.equal(rolled.legal, legal);
  assert.equal(rolled.history, held.history);
  const bare = applyEvent(rolled, { type: "event", version: 8, from: 8, changes: { presence: {} } });
  assert.equal(bare.actions, rolled.actions);
  assert.equal(bare.legal, rolled.legal);
  const onlooker = applyEvent(rolled, { type: "event", version: 9, from: 8, changes: {}, actions: [], legal: null });
  assert.deepEqual(onlooker.actions, []);
  assert.equal(onlooker.legal, null);
});

test("neither the game held nor the frame is changed", () => {
  const held = deepFreeze(game());
  const frame = deepFreeze(playEvent());
  const heldCopy = structuredClone(held);
  const frameCopy = structuredClone(frame);
  const next = applyEvent(held, frame);
  assert.notEqual(next, held);
  assert.deepEqual(held, heldCopy);
  assert.deepEqual(frame, frameCopy);
  // the new game's own history and links are new objects, not the held ones grown
  assert.notEqual(next.history, held.history);
  assert.notEqual(next.links, held.links);
});

test("a snapshot is old news only when its version is below the one held, for this game", () => {
  const held = game();
  assert.equal(isOldSnapshot(held, game({ version: 6 })), true);
  assert.equal(isOldSnapshot(held, game({ version: 7 })), false); // presence: same version
  assert.equal(isOldSnapshot(held, game({ version: 9 })), false); // several changes at once
  assert.equal(isOldSnapshot(held, game({ id: "another", version: 1 })), false);
  assert.equal(isOldSnapshot(null, game()), false);
});

test("a touch above the version held asks for a snapshot; the same or below does not", () => {
  const held = game();
  assert.equal(touchNeedsSnapshot(held, { type: "touch", version: 8 }), true);
  assert.equal(touchNeedsSnapshot(held, { type: "touch", version: 7 }), false);
  assert.equal(touchNeedsSnapshot(held, { type: "touch", version: 3 }), false);
  assert.equal(touchNeedsSnapshot(held, { type: "touch" }), false);
});

test("the last play of an event's history becomes `last`; a history without a play leaves it", () => {
  const held = game({ last: { side: "black", dice: [2, 1], play: "24/22 22/21", version: 6 } });
  const next = applyEvent(held, playEvent());
  assert.deepEqual(next.last, { side: "white", dice: [5, 3], play: "24/16", version: 8 });
  const cube = applyEvent(held, playEvent({
    events: [{ seq: 8, kind: "double", side: "white" }],
    history: [{ n: 3, side: "white", kind: "double", cube: 2, version: 8 }],
  }));
  assert.equal(cube.last, held.last);
  assert.equal(lastPlay([]), null);
  assert.deepEqual(
    lastPlay([
      { kind: "play", side: "white", dice: [1, 1], play: "", version: 3, n: 2 },
      { kind: "resign", side: "black", version: 4, n: 3 },
    ]),
    { side: "white", dice: [1, 1], play: "", version: 3 },
  );
});

test("an event's packed legal is unpacked to the snapshot's form", () => {
  const packed = {
    plays: ["24/18 18/13", "24/13"],
    graph: [[0, "24/18", 1, "24/19", 2], [0, "18/13", 3], [0, "19/13", 3], [1]],
    pass: false,
  };
  const next = applyEvent(game(), playEvent({ legal: packed }));
  assert.deepEqual(next.legal, {
    plays: [{ play: "24/18 18/13" }, { play: "24/13" }],
    graph: { nodes: [
      { steps: { "24/18": 1, "24/19": 2 }, final: false },
      { steps: { "18/13": 3 }, final: false },
      { steps: { "19/13": 3 }, final: false },
      { steps: {}, final: true },
    ] },
    pass: false,
  });
  assert.deepEqual(unpackLegal({ plays: [""], graph: [[1]], pass: true }), {
    plays: [{ play: "" }], graph: { nodes: [{ steps: {}, final: true }] }, pass: true,
  });
  assert.equal(unpackLegal(null), null);
  const snapshotForm = { plays: [{ play: "24/13" }], graph: { nodes: [] }, pass: false };
  assert.equal(unpackLegal(snapshotForm), snapshotForm);
});

test("the player's own play is found among several changes that came at once", () => {
  const history = [
    { n: 1, side: "white", kind: "play", dice: [6, 5], play: "24/13", version: 3 },
    { n: 2, side: "black", kind: "play", dice: [3, 1], play: "24/20", version: 5 },
    { n: 3, side: "white", kind: "play", dice: [4, 2], play: "24/18", version: 7 },
    { n: 4, side: "black", kind: "play", dice: [5, 2], play: "24/17", version: 9 },
  ];
  // a snapshot that caught up from version 6: white's play, then the computer's answer
  assert.equal(playedSince(history, "white", 6), true);
  assert.equal(lastPlay(history).side, "black");
  // only the computer's play since version 7; nothing since 9; an onlooker never
  assert.equal(playedSince(history, "white", 7), false);
  assert.equal(playedSince(history, "black", 9), false);
  assert.equal(playedSince(history, null, 0), false);
  // a double is not a play
  assert.equal(playedSince([{ n: 5, side: "white", kind: "double", cube: 2, version: 10 }], "white", 9), false);
});
