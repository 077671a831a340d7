/*
 * The replay page (templates/games/replay.html): steps forwards and backwards through the
 * frames the server made from the record (every roll, play and cube action), drawing each
 * position with NardyBoard (board.js). Buttons, a slider, the list of steps and the keys
 * ← → Home End. Plays are shown in the numbering chosen on the page (white's side by default,
 * the player's own side for a player); the server-rendered list (no JavaScript) keeps each
 * mover's own numbering.
 *
 * With a post-game analysis (games/analysis.py; JSON "replay-analysis", and each analysed play
 * frame's row as `frame.analysis`): under the board, the current play's mark, the equity lost
 * and the best play, with a button that draws the position after the best play instead; while
 * the analysis is queued or running, its status URL is polled and the page reloaded once done.
 */
(function () {
  "use strict";

  const NB = window.NardyBoard;
  const { fmt, playForViewer, playSteps, toWhite, diceText, sideName } = NB;
  const root = document.getElementById("replay");
  if (!root) return;
  const $ = (id) => document.getElementById(id);
  const frames = JSON.parse($("replay-frames").textContent) || [];
  if (!frames.length) return;

  const svgEl = $("replay-board");
  const board = NB.create(svgEl);
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
  const state = { index: 0, viewer: root.dataset.viewer === "black" ? "black" : "white", showBest: false };
  const analysisEl = $("replay-analysis");
  const analysis = analysisEl ? JSON.parse(analysisEl.textContent) : null;
  const an = {
    box: $("an-play"),
    text: $("an-play-text"),
    toggle: $("an-best-toggle"),
  };
  const number = new Intl.NumberFormat(document.documentElement.lang || undefined,
    { minimumFractionDigits: 3, maximumFractionDigits: 3 });

  function name(side) {
    return sideName(side);
  }

  /** A frame's one-line text in the page's numbering (the server's text says the same in the mover's). */
  function frameText(frame) {
    const values = { n: frame.n, side: name(frame.side), dice: diceText(frame.dice), play: playForViewer(frame.play, frame.side, state.viewer) };
    switch (frame.kind) {
      case "play":
        return frame.play
          ? fmt(gettext("Turn %(n)s: %(side)s plays %(dice)s: %(play)s."), values)
          : fmt(gettext("Turn %(n)s: %(side)s cannot move with %(dice)s and passes."), values);
      default:
        return frame.text;
    }
  }

  function view(frame) {
    const { boards, off } = NB.positionBoards(frame.position);
    const lastPoints = new Set();
    if (frame.kind === "play" && frame.play) {
      for (const { from, to } of playSteps(frame.play)) {
        lastPoints.add(toWhite(frame.side, from));
        if (to) lastPoints.add(toWhite(frame.side, to));
      }
    }
    const dice = frame.dice && frame.side
      ? { side: frame.side, faces: frame.dice[0] === frame.dice[1] ? [frame.dice[0], frame.dice[0], frame.dice[0], frame.dice[0]] : frame.dice.slice(), used: null, faded: frame.kind === "play" }
      : null;
    return {
      boards, off, dice, lastPoints, lastSide: frame.side,
      viewer: state.viewer, mover: null,
      cube: frame.cube ? { value: frame.cube.value, owner: frame.cube.owner } : null,
    };
  }

  /** The analysed row of `frame` if it is a play whose better play can be shown, else null. */
  function betterPlay(frame) {
    const row = frame.kind === "play" ? frame.analysis : null;
    return row && row.best_position && row.mark !== "best" ? row : null;
  }

  /** The analysis line under the board for `frame` ("" when it has none). */
  function analysisText(frame) {
    const row = frame.kind === "play" ? frame.analysis : null;
    if (!row) return "";
    if (row.mark === "forced") return gettext("Forced: this was the only legal play.");
    if (row.mark === "best") return gettext("The best play.");
    const values = {
      lost: number.format(row.lost),
      best: playForViewer(row.best, frame.side, state.viewer) || gettext("pass"),
    };
    if (row.mark === "blunder") return fmt(gettext("Blunder: %(lost)s points lost. Best: %(best)s."), values);
    if (row.mark === "mistake") return fmt(gettext("Mistake: %(lost)s points lost. Best: %(best)s."), values);
    return fmt(gettext("%(lost)s points lost. Best: %(best)s."), values);
  }

  function showAnalysis(frame) {
    if (!an.box) return;
    const text = analysisText(frame);
    an.box.hidden = !text;
    an.box.className = "an-play" + (frame.analysis ? " an-" + frame.analysis.mark : "");
    an.text.textContent = state.showBest
      ? text + " " + gettext("The board shows the position after the best play.")
      : text;
    const better = betterPlay(frame);
    an.toggle.hidden = !better;
    an.toggle.setAttribute("aria-pressed", state.showBest ? "true" : "false");
    an.toggle.textContent = state.showBest ? gettext("Show the play made") : gettext("Show the best play");
    svgEl.classList.toggle("an-showing-best", state.showBest);
  }

  /** Shows frame `index`; `remember` (default true) writes it into the address for reloads and links. */
  function show(index, focusList, remember = true) {
    const next = Math.max(0, Math.min(frames.length - 1, index));
    if (next !== state.index) state.showBest = false;
    state.index = next;
    const frame = frames[state.index];
    const better = state.showBest ? betterPlay(frame) : null;
    board.draw(view(better ? Object.assign({}, frame, { position: better.best_position, play: better.best }) : frame));
    showAnalysis(frame);
    els.now.textContent = frameText(frame);
    els.count.textContent = fmt(gettext("%(now)s / %(total)s"), { now: state.index, total: frames.length - 1 });
    els.slider.value = String(state.index);
    els.first.disabled = els.back.disabled = state.index === 0;
    els.last.disabled = els.forward.disabled = state.index === frames.length - 1;
    svgEl.setAttribute("aria-label", frameText(frame) + " " + NB.describePosition(NB.positionBoards(frame.position).boards, state.viewer));
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
    if (els.share && root.dataset.sharePage) {
      els.share.href = root.dataset.sharePage.replace(/[^/]+\/$/, frame.position_id + "/");
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
      if (frame) item.querySelector("a").textContent = frameText(frame);
    }
    els.note.textContent = state.viewer === "white"
      ? gettext("Plays are written with the point numbers of white's side.")
      : gettext("Plays are written with the point numbers of black's side.");
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
      fetch(analysis.status_url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then((response) => (response.ok ? response.json() : null))
        .then((data) => {
          if (data && (data.status === "done" || data.status === "failed")) {
            window.location.reload();
          } else {
            pollAnalysis(Math.min(delay * 1.5, 15000));
          }
        })
        .catch(() => pollAnalysis(Math.min(delay * 2, 30000)));
    }, delay);
  }
  if (analysis && (analysis.status === "pending" || analysis.status === "running")) pollAnalysis(2000);

  root.dataset.ready = "true"; // the board and the controls show (board.css)
  relabel();
  // Deep links: "#step-N" (written by this page) and "#frame-N" (the no-JavaScript list's anchors).
  const fromHash = /^#(?:step|frame)-(\d+)$/.exec(window.location.hash);
  show(fromHash ? Number(fromHash[1]) : 0, false, false);
})();
