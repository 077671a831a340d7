/*
 * The notices of a signed-in player's pages (notices.js; docs/protocol.md "Notices") as data:
 * the friends' challenges waiting for an answer and the answers to the player's own, changed
 * by the notices socket's frames and by the player (a decline under way, a notice closed). The
 * server words every notice in the page's language; nothing here touches the DOM.
 */

/** The kinds of notice shown. */
export const CHALLENGE = "challenge";
export const ANSWER = "answer";

/** At most this many answers stay shown (the oldest go first). */
export const MAX_ANSWERS = 3;

/**
 * A new state: nothing to show.
 * @param {string[]} [later]  the challenges the player put off on this tab ("Later")
 */
export function createNoticesState(later = []) {
  return { challenges: [], answers: [], busy: new Set(), errors: new Map(), later: new Set(later) };
}

/**
 * The player pressed "Later" on a friend's challenge: it leaves this tab's pages (it can still
 * be answered from the friends page). @returns {boolean} whether it was shown
 */
export function putOff(state, id) {
  if (!state.challenges.some((item) => item.id === id) || state.later.has(id)) return false;
  state.later.add(id);
  return true;
}

/** A challenge object of a frame, if it has what a notice needs; else null. */
function challengeOf(item) {
  if (!item || typeof item !== "object") return null;
  const { id, text, table, accept, decline } = item;
  if (![id, text, accept, decline].every((value) => typeof value === "string" && value)) return null;
  return { id, text, table: typeof table === "string" ? table : "", accept, decline };
}

/**
 * Apply a server frame.
 * @param {ReturnType<typeof createNoticesState>} state
 * @param {Object} frame  hello | challenge | closed | answered
 * @returns {boolean} whether what is shown changed
 */
export function received(state, frame) {
  if (!frame || typeof frame !== "object") return false;
  if (frame.type === "hello") {
    // the whole list again (a socket that reconnects catches up): the answers stay
    const list = Array.isArray(frame.challenges) ? frame.challenges.map(challengeOf).filter(Boolean) : [];
    state.challenges = list;
    for (const id of [...state.busy]) if (!list.some((item) => item.id === id)) state.busy.delete(id);
    return true;
  }
  if (frame.type === "challenge") {
    const item = challengeOf(frame.challenge);
    if (!item) return false;
    state.challenges = state.challenges.filter((old) => old.id !== item.id).concat(item);
    return true;
  }
  if (frame.type === "closed") return forget(state, frame.challenge);
  if (frame.type === "answered") {
    if (typeof frame.challenge !== "string" || typeof frame.text !== "string") return false;
    const answer = {
      id: frame.challenge,
      text: frame.text,
      game: frame.status === "accepted" && typeof frame.game === "string" ? frame.game : null,
    };
    state.answers = state.answers.filter((old) => old.id !== answer.id).concat(answer).slice(-MAX_ANSWERS);
    return true;
  }
  return false;
}

/**
 * Take a challenge's notice away (it was answered here or elsewhere, or withdrawn).
 * @returns {boolean} whether it was shown
 */
export function forget(state, id) {
  const before = state.challenges.length;
  state.challenges = state.challenges.filter((item) => item.id !== id);
  state.busy.delete(id);
  state.errors.delete(id);
  return state.challenges.length !== before;
}

/** The player closed an answer's notice. @returns {boolean} whether it was shown */
export function dismissed(state, id) {
  const before = state.answers.length;
  state.answers = state.answers.filter((item) => item.id !== id);
  return state.answers.length !== before;
}

/**
 * The player pressed Decline: its buttons wait for the server.
 * @returns {?string} the URL to post to, or null when there is nothing to decline (or it is
 *   already under way)
 */
export function declining(state, id) {
  const item = state.challenges.find((challenge) => challenge.id === id);
  if (!item || state.busy.has(id)) return null;
  state.busy.add(id);
  state.errors.delete(id);
  return item.decline;
}

/**
 * The server answered the decline: ok takes the notice away; a refusal shows `message` on it
 * (a 409: it was answered or withdrawn meanwhile; the "closed" frame then takes it away).
 */
export function declineDone(state, id, ok, message = "") {
  if (ok) return forget(state, id);
  state.busy.delete(id);
  if (state.challenges.some((item) => item.id === id)) state.errors.set(id, message);
  return true;
}

/** The session is gone (signed out, or the socket refused for good): nothing to show. */
export function cleared(state) {
  state.challenges = [];
  state.answers = [];
  state.busy.clear();
  state.errors.clear();
}

/**
 * What to draw, the friends' challenges first (oldest first; not those put off), then the answers:
 * `{id, kind: CHALLENGE, text, table, accept, busy, error}` or `{id, kind: ANSWER, text, game}`.
 * Each notice has a key that changes with what it shows, so a page redraws only what changed.
 */
export function noticesView(state) {
  const challenges = state.challenges.filter((item) => !state.later.has(item.id)).map((item) => ({
    id: item.id,
    kind: CHALLENGE,
    text: item.text,
    table: item.table,
    accept: item.accept,
    busy: state.busy.has(item.id),
    error: state.errors.get(item.id) || "",
  }));
  const answers = state.answers.map((item) => ({ id: item.id, kind: ANSWER, text: item.text, game: item.game }));
  return [...challenges, ...answers].map((item) => ({ ...item, key: JSON.stringify(item) }));
}
