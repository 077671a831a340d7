/* staging.js: staging a turn by walking legal.graph; board-view.js's position before a play. */
import "./support.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { createState } from "../../../static/games/room/state.js";
import {
  canStage, currentNode, graph, nextSteps, nodeIndex, shownPosition, stagedPlay, stagePath, unstageLast, usedDice,
} from "../../../static/games/room/staging.js";
import { beforePlay, lastPlayPoints } from "../../../static/games/room/board-view.js";
import { game } from "./games.mjs";

function room(overrides, isPlayer = true) {
  return createState({ game: game(overrides), isPlayer, wsPath: "", settings: {} });
}

/** nextSteps as plain data: {from: {to: "key key …"}} */
function places(state) {
  const out = {};
  for (const [from, dests] of nextSteps(state)) {
    out[from] = {};
    for (const [to, dest] of dests) out[from][to] = dest.path.map((step) => step.key).join(" ");
  }
  return out;
}

test("only the player to move, in phase play, with a move to make and no animation, stages", () => {
  assert.equal(canStage(room()), true);
  assert.equal(canStage(room({}, false)), false); // an onlooker
  assert.equal(canStage(room({ you: null })), false);
  assert.equal(canStage(room({ phase: "roll", legal: null, actions: ["roll", "resign"] })), false);
  assert.equal(canStage(room({ actions: ["resign"] })), false); // not this viewer's play
  assert.equal(canStage(room({ status: "finished" })), false);
  const pass = room();
  pass.game.legal = { plays: [{ play: "" }], graph: { nodes: [{ steps: {}, final: true }] }, pass: true };
  assert.equal(canStage(pass), false);
  const animating = room();
  animating.anim = { view: {} };
  assert.equal(canStage(animating), false);
});

test("graph and currentNode are null without legal moves", () => {
  const state = room({ legal: null });
  assert.equal(graph(state.game), null);
  assert.equal(currentNode(state), null);
  assert.deepEqual(places(state), {});
});

test("each movable checker may go one die or, through legal points, several dice away", () => {
  assert.deepEqual(places(room()), {
    24: { 19: "24/19", 21: "24/21", 16: "24/19 19/16" }, // 16 by the first way found
    13: { 8: "13/8", 10: "13/10", 5: "13/8 8/5" },
  });
});

test("one tap stages its whole path as one group, which one undo takes back", () => {
  const state = room();
  stagePath(state, nextSteps(state).get(24).get(16));
  assert.equal(stagedPlay(state.staged), "24/19 19/16");
  assert.deepEqual(state.staged.map((s) => s.group), [1, 1]);
  assert.equal(nodeIndex(state.staged), 5);
  assert.equal(currentNode(state).final, true);
  assert.deepEqual(places(state), {}); // the roll is used up
  unstageLast(state);
  assert.deepEqual(state.staged, []);
  assert.equal(nodeIndex(state.staged), 0);
  assert.equal(currentNode(state).final, false);
});

test("the next steps follow the node the staged steps reach; undo goes back one tap", () => {
  const state = room();
  state.selected = 24;
  stagePath(state, nextSteps(state).get(24).get(19));
  assert.equal(state.selected, null);
  assert.deepEqual(places(state), { 19: { 16: "19/16" }, 24: { 21: "24/21" }, 13: { 10: "13/10" } });
  stagePath(state, nextSteps(state).get(13).get(10));
  assert.equal(stagedPlay(state.staged), "24/19 13/10");
  assert.deepEqual(state.staged.map((s) => s.group), [1, 2]);
  assert.equal(currentNode(state).final, true);
  unstageLast(state);
  assert.equal(stagedPlay(state.staged), "24/19");
  assert.equal(nodeIndex(state.staged), 1);
  unstageLast(state);
  unstageLast(state); // nothing left: nothing happens
  assert.equal(stagedPlay(state.staged), "");
});

test("the position shown moves the staged checkers, bearing off included", () => {
  const state = room();
  stagePath(state, nextSteps(state).get(13).get(5));
  const { boards, off } = shownPosition(state);
  assert.equal(boards.white[13], 0);
  assert.equal(boards.white[8], 0);
  assert.equal(boards.white[5], 1);
  assert.equal(boards.black[24], 14); // the opponent's side untouched
  assert.deepEqual(off, { white: 0, black: 0 });
  assert.equal(state.game.position.white["13"], 1); // the game itself is not changed

  // the last white checker, on 3 (the other 14 are off)
  const home = room({ position: { turn: "white", white: { "3": 1 }, black: { "24": 15 } } });
  home.staged = [{ key: "3/off", node: 1, group: 1 }];
  assert.deepEqual(shownPosition(home).off, { white: 15, black: 0 });
});

test("usedDice dims the die of each step's length, a double has four, a bear-off may use a larger", () => {
  assert.deepEqual(usedDice([5, 3], []), { faces: [5, 3], used: [false, false] });
  assert.deepEqual(usedDice([5, 3], [{ from: 24, to: 21 }]), { faces: [5, 3], used: [false, true] });
  assert.deepEqual(usedDice([4, 4], [{ from: 24, to: 20 }, { from: 20, to: 16 }]),
    { faces: [4, 4, 4, 4], used: [true, true, false, false] });
  // 3/off with 6-5: no 3, so the smallest larger die, the 5
  assert.deepEqual(usedDice([6, 5], [{ from: 3, to: 0 }]), { faces: [6, 5], used: [false, true] });
  // 5/off with 6-5: the exact die first
  assert.deepEqual(usedDice([6, 5], [{ from: 5, to: 0 }]), { faces: [6, 5], used: [false, true] });
});

test("beforePlay undoes the last play; one that does not fit the position gives null", () => {
  const after = { turn: "white", white: { "24": 14, "13": 1 }, black: { "24": 14, "13": 1 } };
  const before = beforePlay(after, { side: "black", play: "24/18 18/13" });
  assert.equal(before.boards.black[24], 15);
  assert.equal(before.boards.black[13], 0);
  assert.equal(before.boards.white[24], 14);
  assert.equal(beforePlay(after, { side: "black", play: "20/13" }) !== null, true);
  assert.equal(beforePlay(after, { side: "black", play: "24/18 18/12" }), null); // nothing on 12
  const offAfter = { turn: "black", white: { "1": 15 }, black: { "24": 15 } };
  assert.equal(beforePlay(offAfter, { side: "white", play: "2/off" }), null); // none is off
});

test("the opponent's last play is marked on the board in white's numbering while the game goes on", () => {
  const g = game({ last: { side: "black", dice: [6, 5], play: "24/18 18/13", version: 6 } });
  assert.deepEqual([...lastPlayPoints(g)].sort((a, b) => a - b), [1, 6, 12]);
  assert.equal(lastPlayPoints(game({ last: { side: "white", dice: [6, 5], play: "24/13", version: 6 } })).size, 0);
  assert.equal(lastPlayPoints(Object.assign(g, { status: "finished" })).size, 0);
});
