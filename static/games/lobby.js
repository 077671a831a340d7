/*
 * The lobby of rated games (templates/games/lobby.html; docs/protocol.md "Lobby"). Opens the
 * lobby socket (live/socket.js: reconnects, close codes, waking); "Find an opponent" sends
 * {"type": "join", preset, match_length (match only), clock}; a "queued" frame shows the wait:
 * the time waited, the table, the player's rating and the rating range of acceptable
 * opponents, which widens with the waiting time as the server's does. "Cancel" sends "leave".
 * A "paired" frame opens the game. A socket that drops is opened again and, if the player was
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
  banEnd, banned, cancelled, connected, createLobbyState, ended, joinDisabled, joinFrame, lost,
  ratingText, received, submitted, tableName, titleText, waitView,
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
  };
  const state = createLobbyState({
    bannedUntil: els.banned ? banEnd(rootEl.dataset.playbanUntil, rootEl.dataset.serverTime) : 0,
  });
  let ticker = 0;

  const live = createLiveSocket({
    url: socketUrl(rootEl.dataset.wsPath),
    onConnected() {
      const again = connected(state);
      if (again) live.send(again);
      draw();
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
    setText(els.window, shown.range);
  }

  function draw() {
    const waiting = state.view === "wait";
    els.form.hidden = waiting;
    els.wait.hidden = !waiting;
    if (waiting && state.queued) {
      setText(els.table, tableName(state.queued));
      setText(els.rating, ratingText(state.queued));
    }
    const title = titleText(state);
    if (title !== null) setText(els.title, title);
    els.cancel.disabled = state.leaving || state.paired;
    els.join.disabled = joinDisabled(state);
    setText(els.message, state.message);
    els.message.hidden = !state.message;
    if (waiting) {
      tick();
      if (!ticker) ticker = window.setInterval(tick, TICK_MS);
    } else if (ticker) {
      window.clearInterval(ticker);
      ticker = 0;
    }
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
    const frame = joinFrame(new FormData(els.form));
    submitted(state, frame, live.send(frame));
    draw();
  });

  els.cancel.addEventListener("click", () => {
    cancelled(state, live.send({ type: "leave" }));
    draw();
  });

  draw();
  live.connect();
}
