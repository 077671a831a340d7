/*
 * The game frames of docs/protocol.md as data: an `event` applied to the game held, and when a
 * snapshot or a `touch` says that the page is ahead of it or behind. Pure functions, no DOM, so
 * that the unit tests (games/tests/js/) run them under Node.
 */

/** applyEvent's answer to an event that does not follow the version held: ask for a snapshot. */
export const NEED_SNAPSHOT = Symbol("need snapshot");

/** applyEvent's answer to an event about a version already held or passed: ignore it. */
export const OLD_NEWS = Symbol("old news");

/** The links that carry the position ID (docs/protocol.md "Events"). */
const POSITION_LINKS = ["share", "image", "png"];

/** The object fields (fixed keys each) an event gives as their changed keys, to merge. */
const MERGED_FIELDS = ["position", "pips", "off", "cube", "clock", "presence", "fairness"];

/**
 * The game after an `event` frame (docs/protocol.md "Events"): `changes` replace the game's
 * top-level fields they name (the objects of MERGED_FIELDS held as objects take the changed
 * keys they are given, merged), `history` entries are appended (the last play among them is
 * the new `last`), `actions` and `legal` (unpacked to the snapshot's form) replace the game's,
 * and a new `position_id` takes the old one's place in `links`. An event whose `version`
 * equals its `from` (a player came or went) applies the same way. Neither argument is changed.
 *
 * @param {Object} game  the game held: a snapshot's `game` ({version, history, position_id,
 *   links, ...}), with every event applied since
 * @param {{version: number, from: number, events?: Object[], history?: Object[],
 *   changes?: Object, actions?: string[], legal?: ?Object}} frame
 * @returns {Object|symbol} the new game, or NEED_SNAPSHOT (a gap: `from` is not the version
 *   held and `version` is above it), or OLD_NEWS (`from` is not the version held and `version`
 *   is not above it; also an event whose `version` is below its `from`)
 */
export function applyEvent(game, frame) {
  if (frame.from !== game.version) {
    return frame.version > game.version ? NEED_SNAPSHOT : OLD_NEWS;
  }
  if (!(frame.version >= frame.from)) return OLD_NEWS;
  const changes = Object.assign({}, frame.changes || {});
  for (const field of MERGED_FIELDS) {
    if (isObject(game[field]) && isObject(changes[field])) {
      changes[field] = Object.assign({}, game[field], changes[field]);
    }
  }
  const next = Object.assign({}, game, changes, { version: frame.version });
  if (Array.isArray(frame.history) && frame.history.length) {
    next.history = (game.history || []).concat(frame.history);
    const last = lastPlay(frame.history);
    if (last) next.last = last;
  }
  // Absent (not null): left as they are, like a field `changes` does not name.
  if ("actions" in frame) next.actions = frame.actions;
  if ("legal" in frame) next.legal = unpackLegal(frame.legal);
  if ("position_id" in changes && changes.position_id !== game.position_id && game.links) {
    next.links = withPositionId(game.links, game.position_id, changes.position_id);
  }
  return next;
}

/**
 * The snapshot's `last` from the last play entry of `history` entries, or null if none is a play.
 * @param {Object[]} entries
 * @returns {?{side: string, dice: number[], play: string, version: number}}
 */
export function lastPlay(entries) {
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const entry = entries[i];
    if (entry && entry.kind === "play") {
      return { side: entry.side, dice: entry.dice, play: entry.play, version: entry.version };
    }
  }
  return null;
}

/**
 * True if `history` holds a play of `side` made after `version`: a frame may bring several
 * changes at once (a snapshot that caught up, an event from further back), so the player's own
 * play need not be the last one.
 * @param {Object[]} history  the game's history entries, oldest first
 * @param {?string} side  "white", "black" or null (an onlooker: never)
 * @param {number} version  the version the page held before
 * @returns {boolean}
 */
export function playedSince(history, side, version) {
  if (!side || !Array.isArray(history)) return false;
  for (let i = history.length - 1; i >= 0 && history[i].version > version; i -= 1) {
    if (history[i].kind === "play" && history[i].side === side) return true;
  }
  return false;
}

/**
 * An event's `legal` in the snapshot's form: `plays` as `[{play}]` and the packed graph (one
 * list per node, `[final, label, node, label, node, ...]`) as `{nodes: [{steps, final}]}`.
 * A `legal` already in that form, and null, come back as they are.
 * @param {?{plays: string[], graph: Array[], pass: boolean}} legal
 * @returns {?{plays: {play: string}[], graph: {nodes: Object[]}, pass: boolean}}
 */
export function unpackLegal(legal) {
  if (!legal || !Array.isArray(legal.graph)) return legal;
  const nodes = legal.graph.map((row) => {
    const steps = {};
    for (let i = 1; i + 1 < row.length; i += 2) steps[row[i]] = row[i + 1];
    return { steps, final: row[0] === 1 };
  });
  return {
    plays: (legal.plays || []).map((play) => (typeof play === "string" ? { play } : play)),
    graph: { nodes },
    pass: Boolean(legal.pass),
  };
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * `links` with `newId` in place of `oldId` in the links that show the position.
 * @param {Object<string, string>} links
 * @param {string} oldId
 * @param {string} newId
 * @returns {Object<string, string>} a new object
 */
function withPositionId(links, oldId, newId) {
  const next = Object.assign({}, links);
  if (!oldId || typeof newId !== "string") return next;
  for (const name of POSITION_LINKS) {
    if (typeof next[name] === "string") next[name] = next[name].split(oldId).join(newId);
  }
  return next;
}

/**
 * A snapshot of the game held whose version is lower than the one held is old news. One of
 * the same version is not: a player coming or going sends it (docs/protocol.md "Presence").
 * @param {?Object} held  the game held
 * @param {Object} game  the snapshot's `game`
 * @returns {boolean}
 */
export function isOldSnapshot(held, game) {
  return Boolean(held && held.id === game.id && typeof game.version === "number" && game.version < held.version);
}

/**
 * A `touch` frame ({"type": "touch", "version": V}) with a version above the one held: the
 * page missed a change and asks for a snapshot.
 * @param {Object} game  the game held
 * @param {{version: number}} frame
 * @returns {boolean}
 */
export function touchNeedsSnapshot(game, frame) {
  return typeof frame.version === "number" && frame.version > game.version;
}
