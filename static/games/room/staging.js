/*
 * Staging a turn by walking the server's `legal.graph` (docs/protocol.md "snapshot"): which
 * checkers may move next and where, one die at a time or several dice at once through legal
 * intermediate points, and undoing one tap at a time. The graph alone says what is legal. No DOM.
 */
import { parseStep, positionBoards } from "../board.js";
import { can } from "./state.js";

/**
 * @param {Object} game
 * @returns {?{nodes: {steps: Object<string, number>, final: boolean}[]}} `legal.graph`, or null
 */
export function graph(game) {
  const legal = game.legal;
  return legal && legal.graph ? legal.graph : null;
}

/**
 * The viewer may stage steps now: it plays, has a graph, has a move, and no animation runs.
 * @param {RoomState} state
 * @returns {boolean}
 */
export function canStage(state) {
  const game = state.game;
  return Boolean(can(state, "play") && game.phase === "play" && graph(game) && !game.legal.pass && !state.anim);
}

/**
 * @param {{node: number}[]} staged
 * @returns {number} the graph node the staged steps reach (0: none staged)
 */
export function nodeIndex(staged) {
  return staged.length ? staged[staged.length - 1].node : 0;
}

/**
 * @param {RoomState} state
 * @returns {?{steps: Object<string, number>, final: boolean}} the node reached, or null
 */
export function currentNode(state) {
  const g = graph(state.game);
  return g ? g.nodes[nodeIndex(state.staged)] || null : null;
}

/**
 * @param {{key: string}[]} staged
 * @returns {string} the staged steps as a play ("24/18 18/13"; "" when none)
 */
export function stagedPlay(staged) {
  return staged.map((s) => s.key).join(" ");
}

/**
 * The places each movable checker may go next, in the mover's numbering:
 * Map(from -> Map(to -> {key, node, path: [{key, node}]})). Besides single steps, a checker may
 * go on with the next dice (through legal intermediate points of the graph): those farther
 * places carry a longer path. A place reached in more than one way keeps the shortest path
 * found first. Empty when the viewer may not stage.
 * @param {RoomState} state
 * @returns {Map<number, Map<number, {key: string, node: number, path: {key: string, node: number}[]}>>}
 */
export function nextSteps(state) {
  const result = new Map();
  if (!canStage(state)) return result;
  const g = graph(state.game);
  const first = g.nodes[nodeIndex(state.staged)];
  if (!first) return result;
  for (const [key, target] of Object.entries(first.steps)) {
    const { from, to } = parseStep(key);
    if (!result.has(from)) result.set(from, new Map());
    const dests = result.get(from);
    const queue = [{ point: to, path: [{ key, node: target }] }];
    while (queue.length) {
      const { point, path } = queue.shift();
      if (!dests.has(point)) dests.set(point, { key: path[0].key, node: path[path.length - 1].node, path });
      if (point === 0) continue;
      const node = g.nodes[path[path.length - 1].node];
      for (const [nextKey, nextTarget] of Object.entries(node.steps)) {
        const step = parseStep(nextKey);
        if (step.from === point && !dests.has(step.to)) {
          queue.push({ point: step.to, path: path.concat([{ key: nextKey, node: nextTarget }]) });
        }
      }
    }
  }
  return result;
}

/**
 * Stage the steps of one tap (a path of nextSteps) as one group.
 * @param {RoomState} state  changed: `staged`, `group`, `selected`
 * @param {{path: {key: string, node: number}[]}} dest
 */
export function stagePath(state, dest) {
  state.group += 1;
  for (const step of dest.path) state.staged.push({ key: step.key, node: step.node, group: state.group });
  state.selected = null;
}

/**
 * Take back the steps of the last tap.
 * @param {RoomState} state  changed: `staged`, `selected`
 */
export function unstageLast(state) {
  if (!state.staged.length) return;
  const group = state.staged[state.staged.length - 1].group;
  while (state.staged.length && state.staged[state.staged.length - 1].group === group) state.staged.pop();
  state.selected = null;
}

/**
 * The position shown: the game's, with the staged steps applied (just moving checkers).
 * @param {RoomState} state
 * @returns {{boards: {white: number[], black: number[]}, off: {white: number, black: number}}}
 *   per side 25 counts by point in its own numbering (index 0 unused), and the checkers off
 */
export function shownPosition(state) {
  const { boards, off } = positionBoards(state.game.position);
  const mover = state.game.turn;
  for (const { key } of state.staged) {
    const { from, to } = parseStep(key);
    boards[mover][from] -= 1;
    if (to === 0) off[mover] += 1;
    else boards[mover][to] += 1;
  }
  return { boards, off };
}

/**
 * Which dice the given steps have used, for dimming them. Display only: a step uses the die
 * equal to its length; a bear-off with no die of its length uses the smallest larger one
 * (RULES.md R8). The server judges the play.
 * @param {number[]} dice  the roll, e.g. [6, 5] or [3, 3]
 * @param {{from: number, to: number}[]} steps  to 0: off
 * @returns {{faces: number[], used: boolean[]}} a double has four faces
 */
export function usedDice(dice, steps) {
  const faces = dice.length === 2 && dice[0] === dice[1] ? [dice[0], dice[0], dice[0], dice[0]] : dice.slice();
  const used = faces.map(() => false);
  for (const { from, to } of steps) {
    const length = from - to;
    let pick = faces.findIndex((f, i) => !used[i] && f === length);
    if (pick < 0 && to === 0) {
      let best = -1;
      faces.forEach((f, i) => {
        if (!used[i] && f > length && (best < 0 || f < faces[best])) best = i;
      });
      pick = best;
    }
    if (pick >= 0) used[pick] = true;
  }
  return { faces, used };
}
