/*
 * The lobby of rated games (templates/games/lobby.html; docs/protocol.md "Lobby"). Opens the
 * lobby socket; "Find an opponent" sends {"type": "join", preset, match_length (match only),
 * clock}; a "queued" frame shows the wait: the time waited, the table, the player's rating and
 * the rating range of acceptable opponents, which widens with the waiting time as the server's
 * does (window_start + window_growth per second, up to window_max). "Cancel" sends "leave".
 * A "paired" frame opens the game. A socket that drops is opened again and, if the player was
 * waiting, joins again (closing the socket left the queue); 4401 means the session is no longer
 * signed in; 4429 that the visitor holds too many sockets open (tried again every 30 s).
 * While rated games are closed to the player (`data-playban-until`, ms since the epoch, by the
 * server's clock when the page was made; the notice `#playban` says why), "Find an opponent"
 * stays disabled; at that moment the notice goes and the button comes back.
 * Interface text comes from Django's JavaScript catalogue.
 */
(function () {
  "use strict";

  const root = document.getElementById("lobby");
  if (!root || !root.dataset.wsPath) return;
  const CLOSE_NOT_SIGNED_IN = 4401;
  const CLOSE_TOO_MANY_SOCKETS = 4429; // too many sockets open: retry rarely (docs/protocol.md)
  const TOO_MANY_RETRY_MS = 30000;
  const RETRY_MS = [500, 1000, 2000, 4000, 8000];

  const form = document.getElementById("lobby-form");
  const joinButton = document.getElementById("lobby-join");
  const wait = document.getElementById("lobby-wait");
  const waited = document.getElementById("lobby-waited");
  const table = document.getElementById("lobby-table");
  const ratingText = document.getElementById("lobby-rating");
  const windowText = document.getElementById("lobby-window");
  const title = document.getElementById("lobby-wait-title");
  const cancel = document.getElementById("lobby-cancel");
  const message = document.getElementById("lobby-message");

  const banned = document.getElementById("playban");
  const bannedUntil = Number(root.dataset.playbanUntil || 0) - Number(root.dataset.serverTime || 0) + Date.now();
  let socket = null;
  let retries = 0;
  let queued = null; // the last "queued" frame while waiting
  let offset = 0; // server time minus this browser's time (ms)
  let wanted = null; // the join frame to send again after a reconnect
  let paired = false;
  let ticker = null;

  function fmt(text, values) {
    return interpolate(text, values, true);
  }

  function showMessage(text) {
    message.textContent = text || "";
    message.hidden = !text;
  }

  function tableName(frame) {
    let rules;
    if (frame.preset === "sport") rules = gettext("Sport");
    else if (frame.preset === "classic") rules = gettext("Classic");
    else rules = fmt(ngettext("Match to %(points)s point", "Match to %(points)s points", frame.match_length),
      { points: frame.match_length });
    const clock = frame.clock === "match" ? gettext("Match clock") : gettext("Standard clock");
    return rules + " · " + clock;
  }

  function mmss(ms) {
    const seconds = Math.max(0, Math.floor(ms / 1000));
    return Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
  }

  function tick() {
    if (!queued) return;
    const spent = Date.now() + offset - queued.joined;
    const range = Math.min(queued.window_max, queued.window_start + queued.window_growth * Math.max(0, spent) / 1000);
    waited.textContent = mmss(spent);
    windowText.textContent = fmt(gettext("%(low)s to %(high)s"), {
      low: Math.max(0, Math.round(queued.rating - range)), high: Math.round(queued.rating + range),
    });
  }

  function showWaiting(frame) {
    queued = frame;
    offset = frame.server_time - Date.now();
    table.textContent = tableName(frame);
    ratingText.textContent = frame.provisional
      ? fmt(gettext("%(rating)s? (provisional)"), { rating: frame.rating }) : String(frame.rating);
    title.textContent = gettext("Looking for an opponent…");
    form.hidden = true;
    wait.hidden = false;
    cancel.disabled = false;
    showMessage("");
    tick();
    if (!ticker) ticker = window.setInterval(tick, 250);
  }

  function closedNow() {
    return Boolean(banned) && Date.now() < bannedUntil;
  }

  if (closedNow()) {
    window.setTimeout(() => {
      banned.hidden = true;
      if (form && !form.hidden && socket && socket.readyState === WebSocket.OPEN) joinButton.disabled = false;
    }, bannedUntil - Date.now());
  }

  function showForm() {
    queued = null;
    if (ticker) window.clearInterval(ticker);
    ticker = null;
    wait.hidden = true;
    form.hidden = false;
    joinButton.disabled = !socket || socket.readyState !== WebSocket.OPEN || closedNow();
  }

  function joinFrame() {
    const data = new FormData(form);
    const frame = { type: "join", preset: data.get("preset") || "sport" };
    if (frame.preset === "match") frame.match_length = Number(data.get("match_length") || 3);
    if (data.get("clock")) frame.clock = data.get("clock");
    return frame;
  }

  function send(frame) {
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify(frame));
      return true;
    }
    return false;
  }

  function onFrame(frame) {
    if (paired) return;
    if (frame.type === "queued") {
      showWaiting(frame);
    } else if (frame.type === "paired") {
      paired = true;
      wanted = null;
      title.textContent = gettext("Opponent found! Opening the game…");
      cancel.disabled = true;
      window.location.assign(frame.url);
    } else if (frame.type === "left") {
      wanted = null;
      showForm();
    } else if (frame.type === "error" && frame.code === "too_many_sockets") {
      showMessage(frame.message); // the close that follows retries; a wanted join is kept
    } else if (frame.type === "error") {
      wanted = null;
      showForm();
      showMessage(frame.message);
    }
  }

  function connect() {
    const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + window.location.host + root.dataset.wsPath);
    socket.addEventListener("open", () => {
      retries = 0;
      showMessage("");
      if (wanted) send(wanted); // the queue was left when the old socket closed
      else if (!queued) joinButton.disabled = closedNow();
    });
    socket.addEventListener("message", (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      onFrame(frame);
    });
    socket.addEventListener("close", (event) => {
      joinButton.disabled = true;
      if (paired) return;
      if (event.code === CLOSE_NOT_SIGNED_IN) {
        wanted = null;
        showForm();
        joinButton.disabled = true;
        showMessage(gettext("You are no longer signed in. Sign in again to play rated games."));
        return;
      }
      if (queued || wanted) {
        wanted = wanted || { type: "join", preset: queued.preset, match_length: queued.match_length, clock: queued.clock };
        title.textContent = gettext("Connection lost: reconnecting…");
      }
      if (event.code === CLOSE_TOO_MANY_SOCKETS) {
        // the message stays until a later socket opens; each try costs the server a socket
        window.setTimeout(connect, TOO_MANY_RETRY_MS * (0.9 + Math.random() * 0.2));
        return;
      }
      const delay = RETRY_MS[Math.min(retries, RETRY_MS.length - 1)];
      retries += 1;
      window.setTimeout(connect, delay);
    });
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    showMessage("");
    const frame = joinFrame();
    if (send(frame)) {
      wanted = frame;
      joinButton.disabled = true;
    } else {
      showMessage(gettext("Not connected to the server yet. Try again in a moment."));
    }
  });

  cancel.addEventListener("click", () => {
    wanted = null;
    cancel.disabled = true;
    if (!send({ type: "leave" })) showForm();
  });

  joinButton.disabled = true;
  connect();
})();
