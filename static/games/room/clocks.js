/*
 * Clocks and presence (docs/protocol.md "Clocks", "Presence"): the snapshot's `clock` block is
 * counted down here every CLOCK_TICK_MS against the server's time (its `server_time` gives the
 * offset), so both browsers show the same; only the server decides when time has run out.
 * The `presence` block says when the opponent is away, how long they have to come back, and
 * when the win may be claimed.
 */
import { SIDES, fmt } from "../board.js";
import { clockOffset, clockText } from "../live/time.js";
import { you } from "./state.js";
import { durationText, isBot, periodLabel } from "./texts.js";

/** How often the clocks and the away countdowns are redrawn (ms). */
export const CLOCK_TICK_MS = 200;
const CLOCK_LOW_MS = 10000; // the last seconds before a side loses are marked

/**
 * The server's time now (ms since the epoch), from this browser's clock and the offset.
 * @param {RoomState} state
 * @returns {number}
 */
function serverNow(state) {
  return Date.now() + state.clockOffset;
}

/**
 * Take the offset of the server's clock from a clock block just received.
 * @param {RoomState} state  changed: `clockOffset`
 * @param {Object} game  its `clock.server_time`, when there is a clock
 */
export function noteClockOffset(state, game) {
  if (game && game.clock && typeof game.clock.server_time === "number") {
    state.clockOffset = clockOffset(game.clock.server_time);
  }
}

/** The warnings said to the player whose clock runs: seconds before the deadline, largest first. */
export const CLOCK_WARNINGS_S = [30, 10];

/**
 * The warning due for `side` at `now` (docs: the live region says it once per turn): 30 or 10
 * when that many seconds or fewer are left before its deadline, else null. Null too when its
 * clock does not run, or when the turn began with less left than the warning (a reserve that
 * short is warned at the next mark only).
 * @param {Object} game
 * @param {string} side
 * @param {number} now  the server's time (ms)
 * @returns {?number}
 */
export function clockWarning(game, side, now) {
  const clock = game.clock;
  if (!clock || game.status !== "active" || clock.running !== side || typeof clock.deadline !== "number") return null;
  const left = clock.deadline - now;
  const due = CLOCK_WARNINGS_S.filter((s) => left <= s * 1000);
  return due.length ? due[due.length - 1] : null;
}

/**
 * What `side`'s clock shows at `now`. The side that must act counts down its free time (or,
 * before its first move, the time to make one), then its reserve; the other side shows its
 * reserve. `low` marks the last CLOCK_LOW_MS before the side would lose.
 * @param {Object} game
 * @param {string} side
 * @param {number} now  the server's time (ms)
 * @returns {?{ms: number, note: string, running: boolean, low: boolean, inReserve?: boolean}}
 *   null without a clock or for the computer
 */
export function clockFace(game, side, now) {
  const clock = game.clock;
  if (!clock || isBot(game, side)) return null;
  const reserve = clock.reserve && typeof clock.reserve[side] === "number" ? clock.reserve[side] : 0;
  if (game.status !== "active" || clock.running !== side || typeof clock.period_started !== "number") {
    return { ms: reserve, note: gettext("reserve"), running: false, low: false };
  }
  const toDeadline = typeof clock.deadline === "number" ? clock.deadline - now : Infinity;
  const low = toDeadline <= CLOCK_LOW_MS;
  if (clock.first_move) {
    return { ms: toDeadline, note: gettext("first move"), running: true, low };
  }
  // The period may begin a little later (the next game of a match): it counts from then.
  const used = Math.max(0, now - clock.period_started);
  const free = Math.max(0, (clock.free_ms || 0) - used);
  if (free > 0) {
    return {
      ms: Math.min(free, toDeadline),
      note: fmt(gettext("%(period)s · reserve %(reserve)s"), { period: periodLabel(clock), reserve: clockText(reserve) }),
      running: true, low,
    };
  }
  const reserveLeft = Math.max(0, reserve - (used - (clock.free_ms || 0)));
  if (toDeadline < reserveLeft) {
    // The longest allowed turn (match clock) ends before the reserve would: count to it,
    // and say how much reserve is still there.
    return {
      ms: Math.max(0, toDeadline),
      note: fmt(gettext("turn limit · reserve %(reserve)s"), { reserve: clockText(reserveLeft) }),
      running: true, low, inReserve: true,
    };
  }
  return { ms: reserveLeft, note: gettext("reserve"), running: true, low, inReserve: true };
}

/**
 * The banner about an opponent who has no open page: the time they have to come back, or
 * (standard clock) the time until the win may be claimed and then the claim.
 * @param {RoomState} state
 * @param {number} now  the server's time (ms)
 * @returns {{text: string, claimable: boolean}} text "" when everybody is here
 */
export function presenceNotice(state, now) {
  const game = state.game;
  const me = you(state);
  let text = "";
  let claimable = false;
  if (game.status === "active" && game.presence) {
    for (const side of SIDES) {
      const away = game.presence[side];
      if (side === me || !away || away.here) continue;
      if (typeof away.loses_at === "number") {
        const time = clockText(away.loses_at - now);
        text = me
          ? fmt(gettext("Opponent disconnected — reconnecting… %(time)s"), { time })
          : fmt(side === "white" ? gettext("White disconnected — reconnecting… %(time)s")
            : gettext("Black disconnected — reconnecting… %(time)s"), { time });
      } else if (typeof away.claim_from === "number" && me) {
        if (now < away.claim_from) {
          text = fmt(gettext("Your opponent has left the game. If they are not back in %(time)s, you may claim the win."),
            { time: clockText(away.claim_from - now) });
        } else {
          text = gettext("Your opponent has not come back: you may claim the win, or wait for them.");
          claimable = state.isPlayer;
        }
      } else {
        text = me ? gettext("Your opponent has left the game.")
          : (side === "white" ? gettext("White has left the game.") : gettext("Black has left the game."));
      }
    }
  }
  return { text, claimable };
}

/**
 * The note of an outage the clocks were paused for (`clock.paused_ms`, sent until the next
 * play; docs/protocol.md "Outages"), or "" when there is none or the game is over.
 * @param {Object} game
 * @returns {string}
 */
export function outageNote(game) {
  const paused = game.status === "active" && game.clock && game.clock.paused_ms;
  if (!paused) return "";
  return fmt(gettext("Our server was unavailable for %(time)s; the clocks stood still for that time."),
    { time: durationText(paused) });
}

/**
 * The clocks in the players' boxes (drawn by panels.js with `data-clock` places), the
 * presence banner and the outage note.
 * @param {Object<string, HTMLElement>} els  the room's elements (main.js)
 * @param {RoomState} state
 * @param {(text: string) => void} announce  says the viewer's last 30 and 10 seconds
 * @returns {{draw: () => void}}
 */
export function createClocks(els, state, announce) {
  function drawClocks(now) {
    for (const side of SIDES) {
      const time = els.players.querySelector('[data-clock="' + side + '"]');
      const note = els.players.querySelector('[data-clock-note="' + side + '"]');
      const face = clockFace(state.game, side, now);
      if (!time || !face) continue;
      const text = clockText(face.ms);
      if (time.textContent !== text) time.textContent = text;
      if (note && note.textContent !== face.note) note.textContent = face.note;
      const row = time.closest(".player");
      row.classList.toggle("clock-running", face.running);
      row.classList.toggle("clock-reserve", Boolean(face.inReserve));
      row.classList.toggle("clock-low", face.low);
      const warning = side === you(state) ? clockWarning(state.game, side, now) : null;
      const warned = state.lowWarned && state.lowWarned.version === state.game.version ? state.lowWarned.seconds : Infinity;
      if (warning !== null && warning < warned) {
        state.lowWarned = { version: state.game.version, seconds: warning };
        announce(warning === 10 ? gettext("10 seconds left.") : gettext("30 seconds left."));
      }
    }
  }

  function drawOutage() {
    if (!els.outageNote) return;
    const text = outageNote(state.game);
    els.outageNote.hidden = !text;
    if (els.outageNote.textContent !== text) els.outageNote.textContent = text;
  }

  function drawPresence(now) {
    if (!els.presence) return;
    const { text, claimable } = presenceNotice(state, now);
    els.presence.hidden = !text;
    if (els.presenceText.textContent !== text) els.presenceText.textContent = text;
    if (els.claim) {
      els.claim.hidden = !claimable;
      els.claim.disabled = !state.connected || state.pending;
    }
  }

  return {
    draw() {
      const now = serverNow(state);
      drawClocks(now);
      drawPresence(now);
      drawOutage();
    },
  };
}
