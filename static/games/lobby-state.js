/*
 * The lobby's state (docs/protocol.md "Lobby"; lobby.js draws it and holds the socket): the
 * form or the wait for an opponent as the server's frames and the socket make them, how many
 * wait in each pool, the join sent again after a reconnect (closing a socket leaves the
 * queue), the offer of a game against the computer to a player left alone, the words shown,
 * and whether rated games are closed to the player for now. No DOM: each change below mutates the
 * state, and the page draws it whole. Text comes from Django's JavaScript catalogue.
 */
import { clockOffset, waitedText } from "./live/time.js";

function fmt(text, values) {
  return interpolate(text, values, true);
}

/**
 * @typedef {Object} LobbyState
 * @property {boolean} connected  the socket is open
 * @property {"form"|"wait"} view  the form, or the wait for an opponent
 * @property {?Object} queued  the last `queued` frame while waiting
 * @property {number} offset  the server's clock minus this browser's (ms)
 * @property {?Object} wanted  the join frame sent and not yet answered, or to send again after
 *   a reconnect
 * @property {boolean} paired  a game was found: the page is leaving for it
 * @property {boolean} leaving  "Cancel" was pressed (until the next wait)
 * @property {?("looking"|"found"|"reconnecting")} title  the wait's title, once it changes
 * @property {string} message  the note under the form ("" none)
 * @property {number} bannedUntil  Date.now() until which rated games are closed (0: never)
 * @property {boolean} signedIn  the page was made for a signed-in player
 * @property {?Object} counts  the last `waiting` frame's counts: {pool: {total, <preset>: n}}
 */

/**
 * @param {{bannedUntil?: number}} [start]
 * @returns {LobbyState}
 */
export function createLobbyState({ bannedUntil = 0, signedIn = false } = {}) {
  return {
    signedIn,
    counts: null,
    connected: false,
    view: "form",
    queued: null,
    offset: 0,
    wanted: null,
    paired: false,
    leaving: false,
    title: null,
    message: "",
    bannedUntil,
  };
}

/**
 * When, by this browser's clock, a play ban given by the server's ends.
 * @param {string|number} until  the page's `data-playban-until` (ms, the server's clock)
 * @param {string|number} serverTime  the page's `data-server-time` (ms, when it was made)
 * @param {number} [now]  this browser's Date.now() then
 * @returns {number}
 */
export function banEnd(until, serverTime, now = Date.now()) {
  return Number(until || 0) - Number(serverTime || 0) + now;
}

/** Whether rated games are still closed to the player at `now`. */
export function banned(state, now = Date.now()) {
  return now < state.bannedUntil;
}

/**
 * Whether "Find an opponent" is off: no socket, a join in flight, or a ban from the rated pool.
 * @param {LobbyState} state
 * @param {string} pool  the pool chosen on the form
 */
export function joinDisabled(state, pool = "rated", now = Date.now()) {
  return !state.connected || Boolean(state.wanted) || (pool === "rated" && banned(state, now));
}

/**
 * How many wait, as the lobby shows it: "3 waiting now".
 * @param {number} n
 * @returns {string}
 */
export function countText(n) {
  return fmt(ngettext("%(n)s waiting now", "%(n)s waiting now", n), { n });
}

/**
 * How many wait in `pool` (all tables), or null before the server said.
 * @param {LobbyState} state
 * @param {string} pool
 * @returns {?number}
 */
export function waitingIn(state, pool) {
  return state.counts && state.counts[pool] ? state.counts[pool].total : null;
}

/**
 * Whether the wait has gone on long enough to offer a game against the computer
 * (`offer_computer_ms` of the `queued` frame, by the server's clock).
 * @param {LobbyState} state
 * @param {number} [now]  this browser's Date.now()
 */
export function offerComputer(state, now = Date.now()) {
  const queued = state.queued;
  if (!queued || state.paired || !queued.offer_computer_ms) return false;
  return now + state.offset - queued.joined >= queued.offer_computer_ms;
}

/**
 * The table waited for: "Sport · Standard clock", "Match to 3 points · Match clock".
 * @param {{preset: string, match_length?: number, clock: string}} frame
 * @returns {string}
 */
export function tableName(frame) {
  let rules;
  if (frame.preset === "sport") rules = gettext("Sport");
  else if (frame.preset === "classic") rules = gettext("Classic");
  else rules = fmt(ngettext("Match to %(points)s point", "Match to %(points)s points", frame.match_length),
    { points: frame.match_length });
  const clock = frame.clock === "match" ? gettext("Match clock") : gettext("Standard clock");
  return rules + " · " + clock;
}

/** The player's rating as the wait shows it: "1712", or "1500? (provisional)". */
export function ratingText(frame) {
  return frame.provisional ? fmt(gettext("%(rating)s? (provisional)"), { rating: frame.rating }) : String(frame.rating);
}

/**
 * The wait at `now`: the time waited and, in the rated pool, the ratings accepted, which widen
 * as the server's window does (window_start + window_growth per second, up to window_max).
 * @param {LobbyState} state
 * @param {number} [now]  this browser's Date.now()
 * @returns {?{waited: string, range: ?string}} null when not waiting; range null when casual
 */
export function waitView(state, now = Date.now()) {
  const queued = state.queued;
  if (!queued) return null;
  const spent = now + state.offset - queued.joined;
  if (queued.pool === "casual") return { waited: waitedText(spent), range: null };
  // whole points on both sides of the rating: rounding each end apart made a half point
  // (every 100 ms at 10 points a second) show 1400 to 1601 around 1500
  const range = Math.round(
    Math.min(queued.window_max, queued.window_start + queued.window_growth * Math.max(0, spent) / 1000),
  );
  const rating = Math.round(queued.rating);
  return {
    waited: waitedText(spent),
    range: fmt(gettext("%(low)s to %(high)s"), {
      low: Math.max(0, rating - range), high: rating + range,
    }),
  };
}

/** The wait's title, or null while the page's own stands. */
export function titleText(state) {
  if (state.title === "looking") return gettext("Looking for an opponent…");
  if (state.title === "found") return gettext("Opponent found! Opening the game…");
  if (state.title === "reconnecting") return gettext("Connection lost: reconnecting…");
  return null;
}

/**
 * The join frame of the form's values.
 * @param {{get: (name: string) => ?string}} values  the form's FormData
 * @returns {Object}
 */
export function joinFrame(values) {
  const frame = { type: "join", pool: values.get("pool") || "casual", preset: values.get("preset") || "sport" };
  if (frame.preset === "match") frame.match_length = Number(values.get("match_length") || 3);
  if (values.get("clock")) frame.clock = values.get("clock");
  return frame;
}

function toForm(state) {
  state.queued = null;
  state.view = "form";
}

/**
 * The socket opened (again).
 * @returns {?Object} the join to send again: the queue was left when the old socket closed
 */
export function connected(state) {
  state.connected = true;
  state.message = "";
  return state.wanted;
}

/**
 * A frame from the server.
 * @returns {?string} the address of the game found, for the page to open
 */
export function received(state, frame, now = Date.now()) {
  if (state.paired) return null;
  if (frame.type === "waiting") {
    state.counts = frame.counts;
    return null;
  }
  if (frame.type === "queued") {
    state.queued = frame;
    state.offset = clockOffset(frame.server_time, now);
    state.view = "wait";
    state.title = "looking";
    state.leaving = false;
    state.message = "";
  } else if (frame.type === "paired") {
    state.paired = true;
    state.wanted = null;
    state.title = "found";
    return frame.url;
  } else if (frame.type === "left") {
    state.wanted = null;
    toForm(state);
  } else if (frame.type === "error" && frame.code === "too_many_sockets") {
    state.message = frame.message; // the close that follows retries; a wanted join is kept
  } else if (frame.type === "error") {
    state.wanted = null;
    toForm(state);
    state.message = frame.message;
  }
  return null;
}

/** The socket closed and the page tries again: a player who was waiting joins again then. */
export function lost(state) {
  state.connected = false;
  if (state.queued || state.wanted) {
    const q = state.queued;
    state.wanted = state.wanted || {
      type: "join", pool: q.pool, preset: q.preset, match_length: q.match_length, clock: q.clock,
    };
    state.title = "reconnecting";
  }
}

/**
 * The socket closed for good: 4401, the session no longer holds the account (or, for a guest,
 * the guest id: a sign-in or sign-out in another tab changed it).
 */
export function ended(state, code) {
  state.connected = false;
  state.wanted = null;
  toForm(state);
  if (code !== 4401) return;
  state.message = state.signedIn
    ? gettext("You are no longer signed in. Sign in again to play rated games.")
    : gettext("You signed in or out in another tab. Reload the page to look for an opponent.");
}

/** "Find an opponent" pressed: `frame` was sent (`sent`) or the socket is not open. */
export function submitted(state, frame, sent) {
  state.message = sent ? "" : gettext("Not connected to the server yet. Try again in a moment.");
  if (sent) state.wanted = frame;
}

/** "Cancel" pressed: `sent` the leave frame, or not (then back to the form at once). */
export function cancelled(state, sent) {
  state.wanted = null;
  state.leaving = true;
  if (!sent) toForm(state);
}
