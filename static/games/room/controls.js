/*
 * What the viewer does: the buttons (roll, double, take, drop, undo, confirm, pass, resign,
 * claim), tapping checkers and places on the board (staged by walking `legal.graph`, see
 * staging.js), the typed move, the share button and the settings; and the action frames sent,
 * held back while the server's rate limit runs. The server judges every action.
 */
import { fmt, focusInView, fromWhite } from "../board.js";
import { can, cubeOffer, saveSettings } from "./state.js";
import { canStage, currentNode, nextSteps, shownPosition, stagedPlay, stagePath, unstageLast } from "./staging.js";
import { resignQuestion, statusText } from "./texts.js";
import { turnSoundOn } from "./turn-notice.js";

/**
 * @param {Object<string, HTMLElement>} els  the room's elements (main.js)
 * @param {RoomState} state
 * @param {{connection: {isOpen: () => boolean, send: (frame: Object) => boolean},
 *   say: {showMessage: Function, showError: Function, tone: Function, announce: Function},
 *   render: () => void, stopAnimation: () => void, storage: ?Storage,
 *   board: {moveFocus: Function, focusBoard: () => boolean}}} page
 * @returns {{draw: () => void, maybeAutoPlay: () => void, noteGame: (game: Object, sameGame: boolean) => void,
 *   onWhy: (frame: Object) => void, onError: (frame: Object) => void, guideFocus: () => void}}
 */
export function createControls(els, state, { connection, say, render, stopAnimation, storage, board }) {
  /** Send an action frame; false (and says why) when it cannot go now. */
  function send(frame) {
    if (!connection.isOpen()) {
      say.showError(gettext("Not connected to the server yet: please wait a moment."));
      return false;
    }
    // After a rate_limited answer the server drops frames unanswered until retry_after has
    // passed: hold them here, or the page would wait for an answer that never comes.
    const waitMs = state.limitedUntil - Date.now();
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      say.showError(fmt(ngettext("Too many actions in a short time: try again in %(seconds)s second.",
        "Too many actions in a short time: try again in %(seconds)s seconds.", seconds), { seconds }));
      render();
      return false;
    }
    say.showError("");
    state.pending = true;
    connection.send(frame);
    render();
    return true;
  }

  function sendAction(type, extra) {
    return send(Object.assign({ type, version: state.game.version }, extra || {}));
  }

  function confirmStaged() {
    const node = currentNode(state);
    if (!node || !node.final || !state.staged.length || state.pending) return;
    sendAction("play", { play: stagedPlay(state.staged) });
  }

  function undo() {
    if (!state.staged.length) return;
    const fromButton = document.activeElement === els.confirm || document.activeElement === els.undo;
    unstageLast(state);
    say.showError("");
    render();
    // Confirm (or Undo, with nothing left to undo) is disabled now: back to the board.
    if (fromButton && (els.confirm.disabled || !state.staged.length)) board.focusBoard();
  }

  function maybeAutoConfirm() {
    const node = currentNode(state);
    if (state.settings.autoConfirm && node && node.final && state.staged.length) {
      const version = state.game.version;
      const staged = stagedPlay(state.staged);
      window.setTimeout(() => {
        if (state.game.version === version && stagedPlay(state.staged) === staged && !state.pending) confirmStaged();
      }, 250);
    }
  }

  /**
   * With "play my move when only one is legal" on: the only legal play (or the pass) is sent;
   * with "pass for me" on: the pass when no move is possible (the status line says so first).
   */
  function maybeAutoPlay() {
    const game = state.game;
    if (!can(state, "play") || game.phase !== "play" || !game.legal || state.anim) return;
    if (!state.settings.autoPlay && !(state.settings.autoPass && game.legal.pass)) return;
    if (state.autoFor === game.version || state.staged.length) return;
    const plays = game.legal.plays || [];
    if (plays.length !== 1) return;
    state.autoFor = game.version;
    const version = game.version;
    window.setTimeout(() => {
      if (state.game.version !== version || state.pending || !can(state, "play") || state.staged.length) return;
      sendAction("play", { play: plays[0].play });
    }, game.legal.pass ? 1500 : 700);
  }

  function stage(dest) {
    stagePath(state, dest);
    say.showError("");
    say.tone("move");
    render();
    const node = currentNode(state);
    if (node && node.final && !els.confirm.hidden && !els.confirm.disabled) {
      // The play is complete: the next action is to confirm it (or to undo).
      say.announce(statusText(state));
      if (focusIsFree()) focusInView(els.confirm);
    } else if (els.board.contains(document.activeElement)
      && !document.activeElement.matches(".can-move, .dest, .selected")) {
      // the checker landed where nothing more can be chosen: on to the next one that can move
      board.focusBoard();
    }
    maybeAutoConfirm();
  }

  /**
   * True when the page may move the focus to the next action: it is on nothing (the button
   * pressed was hidden), or on the board or a control of the room, never in a text field or
   * outside the room (the reader is elsewhere on purpose).
   */
  function focusIsFree() {
    const el = document.activeElement;
    if (!el || el === document.body) return true;
    if (!els.root.contains(el)) return false;
    if (el.matches("input, textarea, select")) return false;
    return el.hidden || el.disabled || el.closest("[hidden]") !== null
      || els.board.contains(el) || el.matches(".btn");
  }

  let endedHere = false; // the game ended while this page was open: its end is yet to be focused

  /**
   * After a change is shown: the focus goes where the next action is, if it is free to move
   * (focusIsFree): the board when the player is to move checkers, the Roll button when they
   * are to roll, Take when a double is offered to them, Pass when no move is possible, and
   * once the game has ended, "Play again" (or a match's next game), not the page's body.
   */
  function guideFocus() {
    if (state.anim) return;
    const ended = endedHere;
    endedHere = false;
    if (!focusIsFree()) return;
    const usable = (el) => el && !el.hidden && !el.disabled;
    if (ended) {
      const end = [els.nextLink, els.againButton].find((el) => usable(el) && !el.closest("[hidden]"));
      if (end) focusInView(end);
    } else if (canStage(state) && !state.staged.length) {
      const el = document.activeElement;
      if (els.board.contains(el) && el.matches(".can-move, .dest, .selected")) return;
      board.focusBoard();
    } else if (usable(els.take)) focusInView(els.take);
    else if (usable(els.pass)) focusInView(els.pass);
    else if (usable(els.roll)) focusInView(els.roll);
  }

  /**
   * The room's keyboard shortcuts (docs in the page's "Keyboard" note), when the focus is not in
   * a text field: Space or R rolls, Backspace undoes the last step, Enter confirms a complete
   * move, P passes when no move is possible, H asks for a hint (where hints are on).
   */
  function onShortcut(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const el = document.activeElement;
    // letters go to a text field; a checkbox or radio button leaves them to the room
    if (el && el.matches("input:not([type=checkbox]):not([type=radio]), textarea, select")) return;
    // on a control, Space and Enter are its own (a button, a link, a fold-out's summary...)
    const onControl = el && el !== document.body
      && el.matches("button, a, summary, label, input, [role=button], [role=checkbox], [role=link]");
    const usable = (b) => b && !b.hidden && !b.disabled;
    const key = event.key;
    let button = null;
    if ((key === " " && !onControl) || key === "r" || key === "R") button = els.roll;
    else if (key === "Backspace" && state.staged.length) button = els.undo;
    else if (key === "Enter" && !onControl) button = els.confirm;
    else if (key === "p" || key === "P") button = els.pass;
    else if (key === "h" || key === "H") button = els.hint;
    if (!usable(button)) return;
    event.preventDefault();
    button.click();
  }
  document.addEventListener("keydown", onShortcut);

  /**
   * Explain why the mover's checker on `point` cannot move: from the game's `why_not` before
   * any step is staged, else by asking the server (`why` frame).
   */
  function explainImmovable(point) {
    const legal = state.game.legal;
    if (!state.staged.length && legal && legal.why_not && legal.why_not[String(point)]) {
      say.showMessage(legal.why_not[String(point)].message, "info");
      return;
    }
    if (connection.isOpen() && Array.isArray(state.game.actions)) {
      connection.send({ type: "why", point, staged: stagedPlay(state.staged) });
      return;
    }
    say.showMessage(state.staged.length
      ? gettext("This checker cannot move with the dice that are left.")
      : gettext("This checker cannot move with these dice."), "info");
  }

  function tapPoint(whitePoint) {
    if (!canStage(state) || state.pending) return;
    say.showError("");
    const mover = state.game.turn;
    const point = fromWhite(mover, whitePoint);
    const steps = nextSteps(state);
    if (state.selected !== null && steps.has(state.selected)) {
      const dest = steps.get(state.selected).get(point);
      if (dest) {
        stage(dest);
        return;
      }
    }
    if (steps.has(point)) {
      const dests = steps.get(point);
      if (dests.size === 1 && state.selected !== point) {
        stage(dests.values().next().value);
        return;
      }
      state.selected = point;
    } else {
      state.selected = null;
      const { boards } = shownPosition(state);
      if (boards[mover][point] > 0) explainImmovable(point);
    }
    render();
  }

  function tapTray(side) {
    if (!canStage(state) || state.pending || side !== state.game.turn || state.selected === null) return;
    const dests = nextSteps(state).get(state.selected);
    const dest = dests && dests.get(0);
    if (dest) stage(dest);
  }

  function activate(target) {
    const point = target.closest("[data-point]");
    if (point) {
      tapPoint(parseInt(point.getAttribute("data-point"), 10));
      return;
    }
    const tray = target.closest("[data-tray]");
    if (tray) tapTray(tray.getAttribute("data-tray"));
  }

  els.board.addEventListener("click", (event) => activate(event.target));
  // Arrow keys move between the places that can be chosen as they lie on the screen (the
  // board is one tab stop).
  const ARROWS = { ArrowRight: "right", ArrowDown: "down", ArrowLeft: "left", ArrowUp: "up", Home: "first", End: "last" };
  els.board.addEventListener("keydown", (event) => {
    if (event.key in ARROWS) {
      event.preventDefault();
      board.moveFocus(ARROWS[event.key]);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      event.stopPropagation(); // not also the page's shortcut for the same key
      activate(event.target);
    } else if (event.key === "Escape" && state.selected !== null) {
      state.selected = null;
      render();
    } else if ((event.key === "Backspace" || (event.key === "z" && (event.ctrlKey || event.metaKey))) && state.staged.length) {
      event.preventDefault();
      event.stopPropagation();
      undo();
    }
  });

  els.roll.addEventListener("click", () => {
    say.tone("dice");
    sendAction("roll");
  });
  els.undo.addEventListener("click", undo);
  els.confirm.addEventListener("click", confirmStaged);
  els.pass.addEventListener("click", () => sendAction("play", { play: "" }));
  els.double.addEventListener("click", () => sendAction("double"));
  els.take.addEventListener("click", () => sendAction("take"));
  els.drop.addEventListener("click", () => sendAction("drop"));
  if (els.claim) els.claim.addEventListener("click", () => sendAction("claim"));
  els.resign.addEventListener("click", () => {
    if (window.confirm(resignQuestion(state.game))) {
      sendAction("resign");
    }
  });
  els.moveForm.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!can(state, "play") || state.game.phase !== "play") return;
    const text = els.moveText.value.trim().replace(/\s+/g, " ").toLowerCase();
    if (text && !/^\d{1,2}\/(\d{1,2}|off)( \d{1,2}\/(\d{1,2}|off))*$/.test(text)) {
      say.showError(gettext("Write the move as steps from/to separated by spaces, e.g. 24/18 18/13 (bear off: 3/off)."));
      return;
    }
    state.staged = [];
    state.selected = null;
    // The text stays until a newer game shows the play went through (noteGame), so a refused
    // play can be corrected instead of retyped.
    if (sendAction("play", { play: text })) state.typedFor = state.game.version;
  });

  if (els.share) {
    els.share.addEventListener("click", async () => {
      const links = state.game.links || {};
      if (!links.share) return;
      const url = new URL(links.share, window.location.href).href;
      try {
        if (navigator.share && window.matchMedia("(pointer: coarse)").matches) {
          await navigator.share({ title: document.title, url });
          return;
        }
        await navigator.clipboard.writeText(url);
        els.shareNote.textContent = gettext("Link to this position copied.");
      } catch (err) {
        els.shareNote.textContent = "";
        const a = document.createElement("a");
        a.href = url;
        a.textContent = url;
        els.shareNote.append(gettext("Link to this position:") + " ", a);
      }
    });
  }

  for (const [name, input] of Object.entries(els.settings)) {
    if (!input) continue;
    // the turn chime's default depends on the opponent until the player sets it
    input.checked = name === "turnSound" ? turnSoundOn(state.settings, state.game) : Boolean(state.settings[name]);
    input.addEventListener("change", () => {
      state.settings[name] = input.checked;
      saveSettings(storage, state.settings);
      if (name === "sound" && input.checked) say.tone("move");
      if (name === "turnSound" && input.checked) say.chime();
      if (name === "animate" && !input.checked && state.anim) stopAnimation();
      els.root.classList.toggle("reader-mode", Boolean(state.settings.reader));
      render();
      maybeAutoPlay();
    });
  }
  els.root.classList.toggle("reader-mode", Boolean(state.settings.reader));

  /** Show, hide and enable the controls for the room as it stands. */
  function draw() {
    const game = state.game;
    const ready = state.connected && !state.pending && !state.anim;
    const offer = cubeOffer(game);
    const forcedPass = can(state, "play") && game.phase === "play" && game.legal && game.legal.pass;
    const staging = canStage(state);
    const node = currentNode(state);

    els.roll.hidden = !can(state, "roll");
    els.roll.disabled = !ready;
    els.double.hidden = !can(state, "double");
    els.double.disabled = !ready;
    if (game.cube) els.double.textContent = fmt(gettext("Double to %(value)s"), { value: game.cube.value * 2 });
    els.take.hidden = !(offer && can(state, "take"));
    els.take.disabled = !ready;
    if (offer) els.take.textContent = fmt(gettext("Take (play for %(stake)s)"), { stake: offer.value * 2 });
    els.drop.hidden = !(offer && can(state, "drop"));
    els.drop.disabled = !ready;
    if (offer) els.drop.textContent = fmt(gettext("Drop (lose %(value)s)"), { value: offer.value });
    els.pass.hidden = !forcedPass;
    els.pass.disabled = !ready;
    els.undo.hidden = !staging;
    els.undo.disabled = !ready || state.staged.length === 0;
    els.confirm.hidden = !staging;
    els.confirm.disabled = !ready || !(node && node.final && state.staged.length > 0);
    els.resign.hidden = !can(state, "resign");
    els.resign.disabled = !ready;
    const typing = can(state, "play") && game.phase === "play" && !state.anim;
    els.moveForm.hidden = !(typing || (state.settings.reader && can(state, "resign")));
    els.moveForm.querySelector("button").disabled = !ready || !typing;
    els.moveText.disabled = !typing;
    // An example of the real roll: the first legal play, already in the mover's (the viewer's) numbering.
    const example = typing && game.legal && !game.legal.pass && (game.legal.plays || []).find((p) => p.play);
    els.moveText.placeholder = example ? example.play : "";
  }

  /** A newer game than the typed play's version: the play went through, the text goes. */
  function noteGame(game, sameGame) {
    if (sameGame && state.game.status === "active" && game.status !== "active") endedHere = true;
    if (state.typedFor !== null && (!sameGame || game.version > state.typedFor)) {
      state.typedFor = null;
      els.moveText.value = "";
    }
  }

  function onWhy(frame) {
    // Only if it still answers the position on screen.
    if (frame.version !== state.game.version || (frame.staged || "") !== stagedPlay(state.staged)) return;
    say.showMessage(frame.message || "", "info");
  }

  function onError(frame) {
    state.pending = false;
    if (frame.code === "too_many_sockets") return; // the close (4429) that follows says it
    if (frame.code === "rate_limited" && typeof frame.retry_after === "number") {
      state.limitedUntil = Date.now() + frame.retry_after * 1000;
    }
    if (typeof frame.version === "number" && frame.version < state.game.version) {
      render();
      return;
    }
    say.showError(frame.message || frame.code || gettext("The server refused this action."));
    render();
    if (state.typedFor !== null) {
      // The typed play was refused: keep it, selected, to be corrected.
      state.typedFor = null;
      if (!els.moveText.disabled) {
        els.moveText.focus();
        els.moveText.select();
      }
    }
  }

  return { draw, maybeAutoPlay, noteGame, onWhy, onError, guideFocus };
}
