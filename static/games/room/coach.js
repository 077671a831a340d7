/*
 * Hints (docs/protocol.md "Hints"): in a casual game against the computer, the player who turns
 * hints on gets a Hint button that asks the server for the best play of the roll, and after each
 * of their plays the page asks the server how much equity it lost against the best. The server
 * searches and words both answers in the page's language; the page only shows them. Over the
 * hint limit (`too_many_hints`) the button counts the server's `retry_after` down, disabled.
 */
import { fmt } from "../board.js";
import { myTurn } from "./state.js";

const ANSWER_WAIT_MS = 20000; // a worker answers within a second or two; past this, ask again

/**
 * @param {Object} els  the room's elements (coach, hint, coachNote)
 * @param {import("./state.js").RoomState} state
 * @param {{connection: {isOpen: () => boolean, send: (frame: Object) => void}}} page
 * @returns {{draw: () => void, ownPlay: () => void, onFrame: (frame: Object) => boolean}}
 */
export function createCoach(els, state, { connection }) {
  let askedFor = null; // the version a hint was asked for: one question per position
  let waiting = null; // the timer of a question not answered yet
  let lastAsked = null; // "hint" or "judge": what a refusal answers
  let heldUntil = 0; // Date.now() until which the server refuses hints
  let holdTimer = null;
  let refusal = ""; // the note that says how long to wait, cleared when the wait is over
  let counting = false; // the note counts the wait down with the button (a refused hint)
  const hintLabel = els.hint ? els.hint.textContent : "";

  /** Hints are offered to this viewer (the snapshot's `hints`) and turned on. */
  function on() {
    return Boolean(state.game.hints && state.isPlayer && state.settings.hints);
  }

  function ask(frame, waitingText) {
    if (!connection.isOpen()) return;
    lastAsked = frame.type;
    connection.send(frame);
    els.coachNote.textContent = waitingText;
    window.clearTimeout(waiting);
    waiting = window.setTimeout(() => {
      waiting = null;
      askedFor = null;
      els.coachNote.textContent = gettext("No answer came from the server: please ask again.");
      draw();
    }, ANSWER_WAIT_MS);
  }

  function answered() {
    window.clearTimeout(waiting);
    waiting = null;
  }

  /** Whole seconds left before hints may be asked again (0: now). */
  function heldFor() {
    return Math.max(0, Math.ceil((heldUntil - Date.now()) / 1000));
  }

  /** The server refused hints for `seconds`: the button counts them down, then asks again. */
  function hold(seconds) {
    heldUntil = Date.now() + Math.max(0, Number(seconds) || 0) * 1000;
    askedFor = null; // once the wait is over the same position may be asked again
    tick();
  }

  function tick() {
    window.clearTimeout(holdTimer);
    holdTimer = null;
    const leftMs = heldUntil - Date.now();
    if (leftMs > 0) {
      holdTimer = window.setTimeout(tick, leftMs % 1000 || 1000);
      // the note says the same seconds as the button, unless an answer has replaced it
      if (counting && els.coachNote.textContent === refusal) {
        refusal = fmt(gettext("Too many hints in a short time: ask again in %(seconds)s s."), { seconds: heldFor() });
        els.coachNote.textContent = refusal;
      }
    } else if (refusal && els.coachNote.textContent === refusal) els.coachNote.textContent = "";
    if (leftMs <= 0) {
      refusal = "";
      counting = false;
    }
    draw();
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
    const held = heldFor();
    els.hint.disabled = !state.connected || askedFor === game.version || held > 0;
    els.hint.textContent = held > 0 ? fmt(gettext("Hint (%(seconds)s s)"), { seconds: held }) : hintLabel;
    if (!on()) els.coachNote.textContent = "";
  }

  /** The player's own play has just arrived: ask what it lost. */
  function ownPlay() {
    if (on()) ask({ type: "judge" }, gettext("Weighing your play…"));
  }

  /**
   * A `hint` or `judged` frame: shown if it still fits the game on screen. True if handled.
   * An error while a question waits ends the wait (the room shows the error itself).
   */
  function onFrame(frame) {
    if (frame.type === "error" && frame.code === "too_many_hints") {
      // Said here, where the answer was awaited, and not again as the room's error.
      answered();
      refusal = frame.message || "";
      els.coachNote.textContent = refusal;
      counting = lastAsked === "hint";
      if (counting) hold(frame.retry_after);
      return true;
    }
    if (frame.type === "error" && waiting !== null) {
      answered();
      els.coachNote.textContent = "";
      return false;
    }
    if (frame.type === "hint") {
      answered();
      if (frame.version === state.game.version) els.coachNote.textContent = frame.message || "";
      return true;
    }
    if (frame.type === "judged") {
      answered();
      els.coachNote.textContent = fmt(gettext("Your play %(play)s: %(verdict)s"), {
        play: frame.played || "—",
        verdict: frame.message || "",
      });
      return true;
    }
    return false;
  }

  return { draw, ownPlay, onFrame };
}
