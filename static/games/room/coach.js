/*
 * Hints (docs/protocol.md "Hints"): in a casual game against the computer, the player who turns
 * hints on gets a Hint button that asks the server for the best play of the roll, and after each
 * of their plays the page asks the server how much equity it lost against the best. The server
 * searches and words both answers in the page's language; the page only shows them.
 */
import { myTurn } from "./state.js";

const NB = globalThis.NardyBoard;

/**
 * @param {Object} els  the room's elements (coach, hint, coachNote)
 * @param {import("./state.js").RoomState} state
 * @param {{connection: {isOpen: () => boolean, send: (frame: Object) => void}}} page
 * @returns {{draw: () => void, ownPlay: () => void, onFrame: (frame: Object) => boolean}}
 */
export function createCoach(els, state, { connection }) {
  let askedFor = null; // the version a hint was asked for: one question per position

  /** Hints are offered to this viewer (the snapshot's `hints`) and turned on. */
  function on() {
    return Boolean(state.game.hints && state.isPlayer && state.settings.hints);
  }

  function ask(frame, waiting) {
    if (!connection.isOpen()) return;
    connection.send(frame);
    els.coachNote.textContent = waiting;
  }

  if (els.hint) {
    els.hint.addEventListener("click", () => {
      askedFor = state.game.version;
      ask({ type: "hint" }, gettext("Looking for the best play…"));
      draw();
    });
  }

  /** Show the hint panel in games that offer hints, and the button on the player's turn. */
  function draw() {
    if (!els.coach) return;
    const game = state.game;
    els.coach.hidden = !(game.hints && state.isPlayer);
    const canAsk = on() && myTurn(state) && game.phase === "play" && game.status === "active";
    els.hint.hidden = !canAsk;
    els.hint.disabled = !state.connected || askedFor === game.version;
    if (!on()) els.coachNote.textContent = "";
  }

  /** The player's own play has just arrived: ask what it lost. */
  function ownPlay() {
    if (on()) ask({ type: "judge" }, gettext("Weighing your play…"));
  }

  /** A `hint` or `judged` frame: shown if it still fits the game on screen. True if handled. */
  function onFrame(frame) {
    if (frame.type === "hint") {
      if (frame.version === state.game.version) els.coachNote.textContent = frame.message || "";
      return true;
    }
    if (frame.type === "judged") {
      els.coachNote.textContent = NB.fmt(gettext("Your play %(play)s: %(verdict)s"), {
        play: frame.played || "—",
        verdict: frame.message || "",
      });
      return true;
    }
    return false;
  }

  return { draw, ownPlay, onFrame };
}
