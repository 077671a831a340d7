/*
 * The replay page (templates/games/replay.html): steps forwards and backwards through the
 * frames the server made from the record (every roll, play and cube action), drawing each
 * position with board.js. Buttons, a slider, the list of steps and the keys ← → Home End.
 * Plays are shown in the numbering chosen on the page (white's side by default, the player's
 * own side for a player); the server-rendered list (no JavaScript) keeps each mover's own
 * numbering. A finished game's record does not change: the page has no live socket.
 *
 * With a post-game analysis (games/room/analysis.py; JSON "replay-analysis", and each analysed play
 * frame's row as `frame.analysis`): under the board, the current play's mark, the equity lost
 * and the best play, with a button that draws the position after the best play instead; while
 * the analysis is queued or running, its status URL is polled and the page reloaded once done.
 * The state and its words are replay-state.js; this module draws them.
 */
import { create as createBoard, describePosition, fmt, positionBoards } from "./board.js";
import {
  afterStatus, analysisPending, analysisText, betterPlay, boardView, createReplayState, frameFromHash,
  frameText, goTo, numberingNote, shownFrame,
} from "./replay-state.js";

const $ = (id) => document.getElementById(id);
const root = $("replay");
const frames = root ? JSON.parse($("replay-frames").textContent) || [] : [];
if (root && frames.length) start(root);

function start(rootEl) {
  const svgEl = $("replay-board");
  const board = createBoard(svgEl);
  const els = {
    now: $("replay-now"),
    count: $("replay-count"),
    first: $("replay-first"),
    back: $("replay-back"),
    forward: $("replay-forward"),
    last: $("replay-last"),
    slider: $("replay-slider"),
    list: $("replay-list"),
    note: $("steps-note"),
    share: $("share-link"),
  };
  const state = createReplayState(frames.length, rootEl.dataset.viewer);
  const analysisEl = $("replay-analysis");
  const analysis = analysisEl ? JSON.parse(analysisEl.textContent) : null;
  const an = {
    box: $("an-play"),
    text: $("an-play-text"),
    toggle: $("an-best-toggle"),
  };
  const number = new Intl.NumberFormat(document.documentElement.lang || undefined,
    { minimumFractionDigits: 3, maximumFractionDigits: 3 });

  function showAnalysis(frame) {
    if (!an.box) return;
    const text = analysisText(frame, state.viewer, number);
    an.box.hidden = !text;
    an.box.className = "an-play" + (frame.analysis ? " an-" + frame.analysis.mark : "");
    an.text.textContent = state.showBest
      ? text + " " + gettext("The board shows the position after the best play.")
      : text;
    an.toggle.hidden = !betterPlay(frame);
    an.toggle.setAttribute("aria-pressed", state.showBest ? "true" : "false");
    an.toggle.textContent = state.showBest ? gettext("Show the play made") : gettext("Show the best play");
    svgEl.classList.toggle("an-showing-best", state.showBest);
  }

  /** Shows frame `index`; `remember` (default true) writes it into the address for reloads and links. */
  function show(index, focusList, remember = true) {
    goTo(state, index);
    const frame = frames[state.index];
    board.draw(boardView(shownFrame(state, frame), state.viewer));
    showAnalysis(frame);
    const text = frameText(frame, state.viewer);
    els.now.textContent = text;
    els.count.textContent = fmt(gettext("%(now)s / %(total)s"), { now: state.index, total: frames.length - 1 });
    els.slider.value = String(state.index);
    els.first.disabled = els.back.disabled = state.index === 0;
    els.last.disabled = els.forward.disabled = state.index === frames.length - 1;
    svgEl.setAttribute("aria-label", text + " " + describePosition(positionBoards(frame.position).boards, state.viewer));
    for (const item of els.list.children) {
      const current = Number(item.dataset.index) === state.index;
      item.classList.toggle("current", current);
      if (current) {
        item.setAttribute("aria-current", "step");
        keepInList(item);
        if (focusList) item.querySelector("a").focus({ preventScroll: true });
      } else {
        item.removeAttribute("aria-current");
      }
    }
    if (els.share && rootEl.dataset.sharePage) {
      els.share.href = rootEl.dataset.sharePage.replace(/[^/]+\/$/, frame.position_id + "/");
    }
    // "#step-N" matches no element id, so a reload opens the page at the top (not at the list item).
    if (remember && window.history.replaceState) window.history.replaceState(null, "", "#step-" + state.index);
  }

  /** Scrolls the list box (never the page) so that `item` is visible; measured from the box. */
  function keepInList(item) {
    const box = els.list;
    const top = item.getBoundingClientRect().top - box.getBoundingClientRect().top - box.clientTop + box.scrollTop;
    const bottom = top + item.offsetHeight;
    if (top < box.scrollTop || bottom > box.scrollTop + box.clientHeight) {
      box.scrollTop = Math.max(0, top - (box.clientHeight - item.offsetHeight) / 2);
    }
  }

  function relabel() {
    for (const item of els.list.children) {
      const frame = frames[Number(item.dataset.index)];
      if (frame) item.querySelector("a").textContent = frameText(frame, state.viewer);
    }
    els.note.textContent = numberingNote(state.viewer);
  }

  els.first.addEventListener("click", () => show(0));
  els.back.addEventListener("click", () => show(state.index - 1));
  els.forward.addEventListener("click", () => show(state.index + 1));
  els.last.addEventListener("click", () => show(frames.length - 1));
  els.slider.addEventListener("input", () => show(Number(els.slider.value)));
  els.list.addEventListener("click", (event) => {
    const item = event.target.closest("[data-index]");
    if (!item) return;
    event.preventDefault();
    show(Number(item.dataset.index));
  });
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const tag = event.target.tagName;
    if (tag === "INPUT" && event.target.type !== "radio" && event.target.type !== "range") return;
    if (tag === "TEXTAREA") return;
    const moves = { ArrowLeft: -1, ArrowRight: 1 };
    if (event.key in moves && event.target.type !== "range") {
      event.preventDefault();
      show(state.index + moves[event.key], els.list.contains(event.target));
    } else if (event.key === "Home" && event.target.type !== "range") {
      event.preventDefault();
      show(0);
    } else if (event.key === "End" && event.target.type !== "range") {
      event.preventDefault();
      show(frames.length - 1);
    }
  });

  for (const radio of document.querySelectorAll('#replay-numbering input[name="numbering"]')) {
    radio.checked = radio.value === state.viewer;
    radio.addEventListener("change", () => {
      state.viewer = radio.value;
      relabel();
      show(state.index, false, window.location.hash !== "");
    });
  }

  if (an.toggle) {
    an.toggle.addEventListener("click", () => {
      state.showBest = !state.showBest;
      show(state.index, false, false);
    });
  }

  /** While the analysis is queued or running, ask its status now and then; reload once it is over. */
  function pollAnalysis(delay) {
    window.setTimeout(() => {
      const next = (answer, failed) => {
        const step = afterStatus(answer, delay, failed);
        if (step.reload) window.location.reload();
        else pollAnalysis(step.again);
      };
      fetch(analysis.status_url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then((response) => (response.ok ? response.json() : null))
        .then((data) => next(data, false))
        .catch(() => next(null, true));
    }, delay);
  }
  if (analysisPending(analysis)) pollAnalysis(2000);

  rootEl.dataset.ready = "true"; // the board and the controls show (board.css)
  relabel();
  show(frameFromHash(window.location.hash), false, false);
}
