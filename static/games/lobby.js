/*
 * The lobby of games between people (templates/games/lobby.html; docs/protocol.md "Lobby").
 * Opens the lobby socket (live/socket.js: reconnects, close codes, waking); "waiting" frames
 * show how many wait in each pool; "Find an opponent" sends {"type": "join", pool, preset,
 * match_length (match only), clock} (at once when the page was opened with `data-go`, the home
 * page's "Play a person"); a "queued" frame shows the wait: the time waited, the table and, in
 * the rated pool, the player's rating and the rating range of acceptable opponents, which
 * widens with the waiting time as the server's does. After `offer_computer_ms` alone the page
 * offers a game against the computer with the same rules (a form posted to the new-game page).
 * "Cancel" sends "leave". A "paired" frame opens the game. A socket that drops is opened again and, if the player was
 * waiting, joins again (closing the socket left the queue); 4401 means the session is no
 * longer signed in; 4429 that the visitor holds too many sockets open (tried again every 30 s).
 * While rated games are closed to the player (`data-playban-until`, ms since the epoch, by the
 * server's clock when the page was made; the notice `#playban` says why), "Find an opponent"
 * stays disabled; at that moment the notice goes and the button comes back.
 * The state and its words are lobby-state.js; this module draws them. Interface text comes from
 * Django's JavaScript catalogue.
 */
import { createLiveSocket, socketUrl } from "./live/socket.js";
import {
  banEnd, banned, cancelled, connected, countText, createLobbyState, ended, joinDisabled,
  joinFrame, lost, offerComputer, ratingText, received, submitted, tableName, titleText,
  waitView, waitingIn,
} from "./lobby-state.js";

const TICK_MS = 250; // the time waited and the range are redrawn this often

const root = document.getElementById("lobby");
if (root && root.dataset.wsPath) start(root);

/** Set a text only when it changes (the wait is a live region). */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function start(rootEl) {
  const $ = (id) => document.getElementById(id);
  const els = {
    form: $("lobby-form"),
    join: $("lobby-join"),
    wait: $("lobby-wait"),
    waited: $("lobby-waited"),
    table: $("lobby-table"),
    rating: $("lobby-rating"),
    window: $("lobby-window"),
    title: $("lobby-wait-title"),
    cancel: $("lobby-cancel"),
    message: $("lobby-message"),
    banned: $("playban"),
    offer: $("lobby-offer"),
    offerPreset: $("lobby-offer-preset"),
    offerLength: $("lobby-offer-length"),
    counts: Array.from(rootEl.querySelectorAll("[data-count-pool]")),
    presetCounts: Array.from(rootEl.querySelectorAll("[data-count-preset]")),
    announce: $("lobby-announce"),
    offerText: $("lobby-offer-text"),
    ratedOnly: Array.from(rootEl.querySelectorAll("[data-rated-only]")),
  };
  const state = createLobbyState({
    bannedUntil: els.banned ? banEnd(rootEl.dataset.playbanUntil, rootEl.dataset.serverTime) : 0,
    signedIn: "signedIn" in rootEl.dataset,
  });
  let ticker = 0;
  let go = "go" in rootEl.dataset;
  if (go) {
    // once: coming back to this page (Back from the game) must not join again
    const url = new URL(window.location.href);
    url.searchParams.delete("go");
    window.history.replaceState(window.history.state, "", url);
  }

  function chosenPool() {
    return new FormData(els.form).get("pool") || "casual";
  }

  function join() {
    const frame = joinFrame(new FormData(els.form));
    submitted(state, frame, live.send(frame));
    draw();
  }

  const live = createLiveSocket({
    url: socketUrl(rootEl.dataset.wsPath),
    onConnected() {
      const again = connected(state);
      if (again) live.send(again);
      draw();
      if (go && !again) {
        go = false;
        if (!els.join.disabled) join();
      }
    },
    onFrame(frame) {
      const game = received(state, frame);
      draw();
      if (game) {
        live.stop();
        window.location.assign(game);
      }
    },
    onLost() {
      lost(state);
      draw();
    },
    onEnd(code) {
      ended(state, code);
      draw();
    },
  });

  function tick() {
    const shown = waitView(state);
    if (!shown) return;
    setText(els.waited, shown.waited);
    if (shown.range !== null) setText(els.window, shown.range);
    const offered = offerComputer(state);
    if (offered && els.offer.hidden) {
      els.offerPreset.value = state.queued.preset;
      els.offerLength.value = String(state.queued.match_length);
      els.offerLength.disabled = state.queued.preset !== "match";
    }
    if (offered && els.offer.hidden) setText(els.announce, els.offerText.textContent.trim());
    els.offer.hidden = !offered;
  }

  function drawCounts() {
    for (const el of els.counts) {
      const n = waitingIn(state, el.dataset.countPool);
      if (n !== null) setText(el, countText(n));
    }
    const pool = state.counts && state.counts[chosenPool()];
    for (const el of els.presetCounts) {
      if (pool) setText(el, countText(pool[el.dataset.countPreset] || 0));
    }
  }

  /** Keyboard focus follows the view when it was on what the change hid (or nowhere). */
  function moveFocus(wasWaiting, waiting) {
    if (wasWaiting === waiting) return;
    const from = wasWaiting ? els.wait : els.form;
    const active = document.activeElement;
    if (active && active !== document.body && !from.contains(active)) return;
    if (waiting) els.title.focus();
    else els.join.focus();
  }

  let shownWaiting = false;

  function draw() {
    const waiting = state.view === "wait";
    els.form.hidden = waiting;
    els.wait.hidden = !waiting;
    if (waiting && state.queued) {
      const rated = state.queued.pool === "rated";
      setText(els.table, tableName(state.queued));
      if (rated) setText(els.rating, ratingText(state.queued));
      for (const el of els.ratedOnly) el.hidden = !rated;
    }
    if (!waiting) els.offer.hidden = true;
    drawCounts();
    const title = titleText(state);
    if (title !== null) setText(els.title, title);
    els.cancel.disabled = state.leaving || state.paired;
    els.join.disabled = joinDisabled(state, chosenPool());
    setText(els.message, state.message);
    els.message.hidden = !state.message;
    if (waiting) {
      tick();
      if (!ticker) ticker = window.setInterval(tick, TICK_MS);
    } else if (ticker) {
      window.clearInterval(ticker);
      ticker = 0;
    }
    moveFocus(shownWaiting, waiting);
    shownWaiting = waiting;
  }

  if (banned(state)) {
    window.setTimeout(() => {
      state.bannedUntil = 0; // over, whatever the timer's rounding
      els.banned.hidden = true;
      draw();
    }, state.bannedUntil - Date.now());
  }

  els.form.addEventListener("submit", (event) => {
    event.preventDefault();
    join();
  });
  els.form.addEventListener("change", draw); // the pool chosen decides whether a ban holds the button

  els.offer.addEventListener("submit", () => {
    live.stop(); // the new game's page takes over; closing the socket leaves the queue
  });

  els.cancel.addEventListener("click", () => {
    cancelled(state, live.send({ type: "leave" }));
    draw();
  });

  draw();
  live.connect();
}
