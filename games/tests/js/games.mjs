/*
 * Snapshot-shaped games for the tests (docs/protocol.md "snapshot"), built afresh on every call
 * so that no test sees another's changes.
 */

/** A graph for white's roll 5-3 from 24 (13 checkers), 13 and 6: every way of playing it. */
export function graph53() {
  return {
    nodes: [
      { steps: { "24/19": 1, "24/21": 2, "13/8": 3, "13/10": 4 }, final: false },
      { steps: { "19/16": 5, "24/21": 6, "13/10": 7 }, final: false },
      { steps: { "21/16": 5, "24/19": 6, "13/8": 8 }, final: false },
      { steps: { "8/5": 9, "24/21": 8 }, final: false },
      { steps: { "10/5": 9, "24/19": 7 }, final: false },
      { steps: {}, final: true }, // 24/16
      { steps: {}, final: true }, // 24/19 24/21
      { steps: {}, final: true }, // 24/19 13/10
      { steps: {}, final: true }, // 24/21 13/8
      { steps: {}, final: true }, // 13/5
    ],
  };
}

/**
 * White (the viewer, a guest) against the computer, version 7, white to play 5-3.
 * @param {Object} [overrides]  top-level fields to replace
 */
export function game(overrides = {}) {
  const id = "3f0c0000-0000-4000-8000-000000000001";
  const position = "AAAAAAAAAAAAAA";
  return Object.assign({
    id,
    preset: "sport",
    options: { preset: "sport", match_length: 1, koks: false, cube: false, bot_level: "medium", colour: "white" },
    rated: false,
    status: "active",
    version: 7,
    you: "white",
    players: {
      white: { name: "Guest", bot: null, rating: null, provisional: null, profile: null },
      black: { name: "Computer", bot: "medium", rating: null, provisional: null, profile: null },
    },
    position: { turn: "white", white: { "24": 13, "13": 1, "6": 1 }, black: { "24": 14, "1": 1 }, first_turn: false },
    position_id: position,
    turn: "white",
    phase: "play",
    awaiting: "white",
    actions: ["play", "resign"],
    dice: [5, 3],
    opening: { white: 6, black: 5, ties: [], starter: "white", roll_off: true },
    cube: null,
    match: null,
    pips: { white: 331, black: 337 },
    off: { white: 0, black: 0 },
    legal: {
      plays: [{ play: "24/16" }, { play: "24/19 24/21" }, { play: "24/19 13/10" }, { play: "24/21 13/8" }, { play: "13/5" }],
      graph: graph53(),
      pass: false,
      why_not: { "6": { reasons: [{ die: 5, code: "bear_off_not_home" }], message: "5: not all your checkers are home." } },
    },
    last: { side: "black", dice: [6, 5], play: "24/13", version: 6 },
    history: [
      { n: 1, side: "white", kind: "play", dice: [6, 5], play: "24/13", version: 2 },
      { n: 2, side: "black", kind: "play", dice: [6, 5], play: "24/13", version: 6 },
    ],
    fairness: { seed_hash: "9f86", seed: null, rolls: 4 },
    links: {
      game: `/en/game/${id}/`, replay: `/en/game/${id}/replay/`, record: `/en/game/${id}/record.txt`,
      share: `/en/position/${position}/`, image: `/position/${position}.svg`, png: `/position/${position}.png`,
    },
    result: null,
    clock: null,
    presence: { white: { here: true, away_since: null, loses_at: null, claim_from: null }, black: null },
  }, overrides);
}

/** `value` and everything in it frozen: a test that changes it throws (modules are strict). */
export function deepFreeze(value) {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
