/*
 * Times as the live pages show them (the room's clocks, the lobby's wait, the tournaments'
 * countdowns), and the server's clock as this browser knows it: each live frame carries the
 * server's time (`server_time`, ms since the epoch), and a page counts by that, so two
 * browsers show the same whatever their own clocks say. No DOM.
 */

/** "m:ss" (or "h:mm:ss" with `hours`) of a whole number of seconds. */
function timeText(seconds, hours) {
  const h = hours ? Math.floor(seconds / 3600) : 0;
  const minutes = Math.floor((seconds - h * 3600) / 60);
  const rest = String(minutes).padStart(h ? 2 : 1, "0") + ":" + String(seconds % 60).padStart(2, "0");
  return h ? h + ":" + rest : rest;
}

/**
 * A game clock's time, counting down: "m:ss", rounded up (it shows 0:00 only once the time is
 * out), minutes past the hour kept as minutes ("75:00"); never below 0:00.
 * @param {number} ms
 * @returns {string}
 */
export function clockText(ms) {
  return timeText(Math.max(0, Math.ceil(ms / 1000)), false);
}

/**
 * A countdown to a moment (a tournament's start or end, a game about to start): "m:ss", or
 * "h:mm:ss" from an hour on, rounded up; never below 0:00.
 * @param {number} ms
 * @returns {string}
 */
export function countdownText(ms) {
  return timeText(Math.max(0, Math.ceil(ms / 1000)), true);
}

/**
 * Time spent so far (the lobby's wait): "m:ss", rounded down, counting up; never below 0:00.
 * @param {number} ms
 * @returns {string}
 */
export function waitedText(ms) {
  return timeText(Math.max(0, Math.floor(ms / 1000)), false);
}

/**
 * The server's clock minus this browser's (ms), from a frame's `server_time`; add it to
 * Date.now() for the server's time now.
 * @param {number} serverTime  ms since the epoch, when the server made the frame
 * @param {number} [now]  this browser's Date.now() when the frame came
 * @returns {number}
 */
export function clockOffset(serverTime, now = Date.now()) {
  return serverTime - now;
}
