/*
 * The tournament pages' state and words (docs/protocol.md "Tournaments"; tournament.js draws
 * them and holds the socket): the event as its last frame gave it, the server's clock, the
 * game announced to this player and its countdown, and every sentence and rule the pages show
 * (the status, the countdowns, the rounds, the player's own line, which forms apply, what the
 * arena scored for a game). No DOM. Text comes from Django's JavaScript catalogue.
 */
import { clockOffset, countdownText } from "./live/time.js";

function fmt(text, values) {
  return interpolate(text, values, true);
}

/**
 * @typedef {Object} TournamentPage
 * @property {?Object} event  the last `tournament` frame (or the page's own state), on the
 *   event's page
 * @property {number} offset  the server's clock minus this browser's (ms)
 * @property {?{url: string, startsAt: number}} opening  the game announced to this player
 */

/**
 * @param {?Object} initial  the state the page was made with (`#tournament-state`), if any
 * @param {number} [now]  this browser's Date.now()
 * @returns {TournamentPage}
 */
export function createTournamentState(initial = null, now = Date.now()) {
  return { event: initial, offset: initial ? clockOffset(initial.server_time, now) : 0, opening: null };
}

/** The server's time now (ms). */
export function serverNow(page, now = Date.now()) {
  return now + page.offset;
}

/**
 * A `tournament` frame on the event's page: taken (true) unless older than the one held.
 * @param {TournamentPage} page
 * @param {Object} frame
 * @param {number} [now]
 * @returns {boolean} whether the page is to be drawn again
 */
export function takeEvent(page, frame, now = Date.now()) {
  if (page.event && frame.version <= page.event.version) return false;
  page.offset = clockOffset(frame.server_time, now);
  page.event = frame;
  return true;
}

/**
 * A `paired` frame: a game of this player has started (its clock runs from `starts_at`).
 * Not announced on that game's own page.
 * @param {TournamentPage} page
 * @param {{url: string, starts_at: number, server_time: number}} frame
 * @param {string} here  the page's own path
 * @param {number} [now]
 * @returns {boolean} whether it is announced
 */
export function announce(page, frame, here, now = Date.now()) {
  if (frame.url === here) return false;
  page.offset = clockOffset(frame.server_time, now);
  page.opening = { url: frame.url, startsAt: frame.starts_at };
  return true;
}

/**
 * The announced game at `now`: its countdown, or the moment to open it (once).
 * @param {TournamentPage} page
 * @param {number} [now]
 * @returns {?{go: string}|{text: string}} null when nothing is announced (or it was opened)
 */
export function openingNow(page, now = Date.now()) {
  const opening = page.opening;
  if (!opening || opening.startsAt === Infinity) return null;
  const left = opening.startsAt - serverNow(page, now);
  if (left <= 0) {
    opening.startsAt = Infinity; // once
    return { go: opening.url };
  }
  return { text: fmt(gettext("Your next game starts in %(time)s."), { time: countdownText(left) }) };
}

/**
 * A <time datetime> moment in the reader's own time: the hour, and the day when not today.
 * @param {Date} when
 * @param {string|undefined} lang  the page's language
 * @param {Date} [today]
 * @returns {?string} null for a moment that cannot be read
 */
export function localTimeText(when, lang, today = new Date()) {
  if (Number.isNaN(when.getTime())) return null;
  const options = { hour: "numeric", minute: "2-digit" };
  if (when.toDateString() !== today.toDateString()) Object.assign(options, { day: "numeric", month: "long" });
  return new Intl.DateTimeFormat(lang, options).format(when);
}

/**
 * The countdowns beside "Start" and "End": to the start of an event open for entries, or the
 * time left of a running one.
 * @param {Object} event
 * @param {number} now  the server's time (ms)
 * @returns {{start: string, end: string}} "" where there is none
 */
export function countdowns(event, now) {
  let toStart = "";
  let toEnd = "";
  if (event.status === "upcoming" && event.starts_at) {
    toStart = fmt(gettext("in %(time)s"), { time: countdownText(event.starts_at - now) });
  } else if (event.status === "running" && event.ends_at) {
    const left = event.ends_at - now;
    toEnd = left > 0 ? fmt(gettext("%(time)s left"), { time: countdownText(left) })
      : gettext("time is up: the last games are being finished");
  }
  return { start: toStart ? "(" + toStart + ")" : "", end: toEnd ? "(" + toEnd + ")" : "" };
}

const STATUS = {
  upcoming: () => pgettext("tournament", "Open for entries"),
  running: () => pgettext("tournament", "Under way"),
  finished: () => pgettext("tournament", "Finished"),
  cancelled: () => pgettext("tournament", "Called off"),
};

/** The event's status in words (an unknown one reads as running). */
export function statusText(status) {
  return (STATUS[status] || STATUS.running)();
}

/** A cup's round by its distance from the final. */
export function roundName(number, rounds) {
  const left = rounds - number;
  if (left === 0) return gettext("Final");
  if (left === 1) return gettext("Semi-finals");
  if (left === 2) return gettext("Quarter-finals");
  return fmt(gettext("Round %(number)s"), { number });
}

/** {user id: name} of the event's standings. */
export function namesOf(standings) {
  const names = {};
  for (const entry of standings) names[entry.user] = entry.name;
  return names;
}

/** A game's address from the page's pattern (`data-game-url`, with the nil uuid). */
export function gameUrl(pattern, id) {
  return pattern.replace("00000000-0000-0000-0000-000000000000", id);
}

/** A match's address, from the address of one of its games. */
export function matchUrl(pattern, gameId, matchId) {
  return gameUrl(pattern, gameId).replace(/game\/[^/]+\/$/, "match/" + matchId + "/");
}

/** A player's address from the page's pattern (`data-player-url`, ending in /0/). */
export function playerUrl(pattern, user) {
  return pattern.replace(/0\/$/, user + "/");
}

/**
 * A standings row's last column: "playing" (a link to the game), "left", "away" or "".
 * @returns {{text: string, game: ?string}}
 */
export function standingNow(entry) {
  if (entry.playing) return { text: gettext("playing"), game: entry.playing };
  if (!entry.active) return { text: gettext("left"), game: null };
  if (entry.away) return { text: gettext("away"), game: null };
  return { text: "", game: null };
}

/** A bracket slot's score: "2–1", "bye" or "". */
export function slotScore(slot) {
  if (slot.score) return slot.score[0] + "–" + slot.score[1];
  if (slot.outcome === "bye") return gettext("bye");
  return "";
}

/** The player count: "5 of 8" for a cup, "5" for an arena. */
export function countText(event) {
  return event.size ? fmt(gettext("%(count)s of %(size)s"), { count: event.entrants, size: event.size })
    : String(event.entrants);
}

/**
 * The player's own line on the event's page.
 * @param {Object} event
 * @param {?Object} mine  the player's standings row
 * @param {string} withdrawal  the server's words for an entrant it withdrew (`data-withdrawal`)
 * @returns {string}
 */
export function youText(event, mine, withdrawal) {
  if (event.status === "finished") {
    return mine.place ? fmt(gettext("Your place: %(place)s."), { place: mine.place }) : "";
  }
  if (mine.withdrawn) return withdrawal;
  if (!mine.active && mine.playing) {
    return gettext("You have left this event: the game under way still counts, and you will not be paired again.");
  }
  if (!mine.active) return gettext("You have left this event; your points stay in the standings.");
  if (mine.away) return gettext("You are marked away and are not being paired. Press “Play again” to come back.");
  if (mine.playing) return gettext("You are playing a game of this event.");
  if (event.status === "upcoming") return gettext("You are entered. Keep this page open: your games are announced here.");
  return gettext("You are in. Keep this page open: your next game is announced here.");
}

/**
 * The forms that apply now (the server's rules, tournament_views.tournament_page).
 * @param {Object} event
 * @param {?Object} mine  the player's standings row
 * @param {number} now  the server's time (ms)
 * @returns {{signIn: boolean, join: boolean, joinLabel: string, leave: boolean, leaveLabel: string}}
 */
export function actions(event, mine, now) {
  const full = event.kind === "cup" && event.entrants >= event.size;
  const open = (event.status === "upcoming" && !full)
    || (event.status === "running" && event.kind === "arena" && now < event.ends_at);
  // an entrant the event withdrew (quick losses) may not come back: the server refuses it
  const comesBack = !mine || (!mine.active && !mine.withdrawn) || mine.away;
  return {
    signIn: open,
    join: open && Boolean(comesBack),
    joinLabel: mine ? gettext("Play again") : gettext("Join"),
    leave: Boolean(mine && (event.status === "upcoming"
      || (event.status === "running" && event.kind === "arena" && mine.active))),
    leaveLabel: event.status === "upcoming" ? gettext("Withdraw") : gettext("Leave (keep my points)"),
  };
}

/**
 * What the arena scored for a decided game (a standings row's `last`), as
 * games/tournaments/reading.py result_text says it: not the game's own points.
 */
export function arenaResultText(result, names, me) {
  if (!result.winner) return "";
  if (!result.points) return gettext("This win scores no arena points: the game was too short to count.");
  const kinds = { oin: gettext("oin"), mars: gettext("mars"), koks: gettext("koks") };
  const values = { name: names[result.winner] || "", points: result.points, kind: kinds[result.kind] || "" };
  let text = result.winner === me
    ? fmt(ngettext("You score %(points)s arena point for this %(kind)s.",
      "You score %(points)s arena points for this %(kind)s.", result.points), values)
    : fmt(ngettext("%(name)s scores %(points)s arena point for this %(kind)s.",
      "%(name)s scores %(points)s arena points for this %(kind)s.", result.points), values);
  if (result.doubled) text += " " + gettext("Doubled by the win streak.");
  return text;
}

/**
 * On a tournament game's page: what the event made of this game, and whether its player is
 * still being paired (a no-show marks them away).
 * @param {Object} frame  a `tournament` frame
 * @param {{user: ?number, game: string, match: string}} seat  the page's player, game and match
 * @returns {{note: string, arena: ?string}} arena null when the event has no row for this game
 */
export function followView(frame, { user, game, match }) {
  const names = namesOf(frame.standings);
  const mine = frame.standings.find((entry) => entry.user === user);
  const slot = frame.bracket.find((row) => row.game === game || (match && row.match === match));
  let note = "";
  if (slot && slot.outcome === "no_show" && slot.winner) {
    note = fmt(gettext("In the cup this counts as a no-show: %(name)s goes on."), { name: names[slot.winner] || "" });
  } else if (mine && mine.away && frame.status === "running") {
    note = gettext("You are marked away and are not being paired: open the tournament's page to come back.");
  }
  const row = frame.standings.find((entry) => entry.last && entry.last.game === game);
  return { note, arena: row ? arenaResultText(row.last, names, user) : null };
}
