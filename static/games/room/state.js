/*
 * The room's one mutable state: the game as this page holds it (the last snapshot with every
 * event applied since), what the page does with it (staged steps, connection, timers) and the
 * viewer's settings, kept in this browser. Also the questions the other parts ask of it. No DOM.
 */

const SETTINGS_KEY = "nardy.room.settings";

/**
 * @typedef {Object} Settings
 * @property {boolean} animate  slide the opponent's checkers
 * @property {boolean} sound
 * @property {boolean} autoConfirm  send a complete staged move without the confirm button
 * @property {boolean} autoPlay  send the only legal play by itself
 * @property {boolean} autoPass  send the pass by itself when no move is possible
 * @property {boolean} reader  screen-reader mode (describe positions, keep the move form)
 * @property {boolean} hints  in casual games against the computer: the hint button, and what
 *   each own play lost (coach.js)
 * @property {?boolean} turnSound  a chime when the turn comes on a hidden page; null: the
 *   default (on against people, off against the computer: turn-notice.js)
 * @property {boolean} chat  the game's chat is shown (chat.js); off: nothing of it is shown
 *   or said
 */

/**
 * The settings saved in this browser over the defaults.
 * @param {Storage|null} storage  localStorage, or null where the browser refuses it
 * @param {boolean} reducedMotion  the viewer asked for less motion: no animation by default
 * @returns {Settings}
 */
export function loadSettings(storage, reducedMotion) {
  const defaults = { animate: !reducedMotion, sound: false, autoConfirm: false, autoPlay: false, autoPass: false, reader: false, hints: false, turnSound: null, chat: true };
  try {
    const saved = JSON.parse(storage.getItem(SETTINGS_KEY) || "{}");
    return Object.assign(defaults, saved && typeof saved === "object" ? saved : {});
  } catch (err) {
    return defaults;
  }
}

/**
 * @param {Storage|null} storage
 * @param {Settings} settings
 */
export function saveSettings(storage, settings) {
  try {
    storage.setItem(SETTINGS_KEY, JSON.stringify(settings));
  } catch (err) {
    // Private mode or full storage: the settings last for this page only.
  }
}

/**
 * @typedef {Object} RoomState
 * @property {Object} game  snapshot-shaped game (docs/protocol.md "snapshot")
 * @property {boolean} isPlayer  the page may act (the view's `is_player`)
 * @property {string} wsPath
 * @property {{key: string, node: number, group: number}[]} staged  steps staged, in order
 * @property {number} group  the steps staged by one tap share a group (undone together)
 * @property {?number} selected  a point in the mover's numbering
 * @property {boolean} pending  an action frame was sent and its answer has not come yet
 * @property {number} limitedUntil  Date.now() before which the server drops frames (rate_limited)
 * @property {?{view: Object}} anim  while the opponent's play is being shown
 * @property {number} clockOffset  the server's clock minus this browser's (ms)
 * @property {?number} lostAt  when this page's socket closed (Date.now()), while it is down
 * @property {string} saidStatus  the status line last said in the live region
 * @property {Settings} settings
 */

/**
 * @param {{game: Object, isPlayer: boolean, wsPath: string, settings: Settings}} start
 * @returns {RoomState}
 */
export function createState({ game, isPlayer, wsPath, settings }) {
  return {
    game,
    isPlayer,
    wsPath,
    staged: [],
    group: 0,
    selected: null,
    pending: false,
    limitedUntil: 0,
    connected: false,
    everConnected: false,
    slowStart: false,
    closedForGood: 0, // the close code (4403, 4404) after which the page stops trying
    tooManySockets: false, // closed with 4429 and waiting for a slow retry
    anim: null,
    animToken: 0,
    autoFor: null, // the version an automatic play was scheduled for
    typedFor: null, // the version a typed play was sent for, until it is accepted or refused
    nextTimer: 0,
    clockOffset: 0,
    lostAt: null,
    lowWarned: null, // {version, seconds}: the last clock warning said ("30 seconds left.")
    saidStatus: "", // the status line last said in the live region
    settings,
  };
}

/**
 * The viewer's side, or null for an onlooker.
 * @param {RoomState} state
 * @returns {?string}
 */
export function you(state) {
  return state.game.you || null;
}

/**
 * Whether the viewer may send a frame of this type now (the snapshot's `actions`).
 * @param {RoomState} state
 * @param {string} action  "roll", "double", "play", "take", "drop", "resign" or "claim"
 * @returns {boolean}
 */
export function can(state, action) {
  const g = state.game;
  if (!state.isPlayer || !g.you || g.status !== "active") return false;
  if (Array.isArray(g.actions)) return g.actions.includes(action);
  // A snapshot without `actions` (first version of the protocol).
  if (action === "resign") return true;
  if (action === "roll") return g.turn === g.you && g.phase === "roll";
  if (action === "play") return g.turn === g.you && g.phase === "play";
  return false;
}

/**
 * True when the viewer is the side to move (rolls or plays) and the game goes on.
 * @param {RoomState} state
 * @returns {boolean}
 */
export function myTurn(state) {
  const g = state.game;
  return Boolean(state.isPlayer && g.status === "active" && g.you && g.turn === g.you);
}

/**
 * The double waiting for an answer (phase "cube"), or null.
 * @param {Object} game
 * @returns {?{value: number, owner: ?string, offered_by: string}}
 */
export function cubeOffer(game) {
  return game.phase === "cube" && game.cube && game.cube.offered_by ? game.cube : null;
}
