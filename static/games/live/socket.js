/*
 * The one live socket of every page that follows something as it happens (docs/protocol.md):
 * the game room (room/socket.js puts the game's frames on top of it), the lobby (lobby.js) and
 * the tournament pages (tournament.js); inside Telegram the Mini App shows these same pages,
 * and js/telegram-app.js wakes their sockets when Telegram brings the app back. This module
 * alone knows how a page stays connected:
 *
 * - the address: the page's own host, wss: under https (socketUrl);
 * - when the page counts as connected: when the server has greeted it, by default the open
 *   itself; the room waits for its first snapshot and drops a socket that sends none in time
 *   (a server whose channel layer lost Redis may keep a socket open and silent);
 * - a socket that goes silent where the page expects to hear from the server (the room, once
 *   the server has touched it) is dropped;
 * - the pause between attempts: 0.5 s, 1 s, 2 s … up to 10 s, each ±20 % so that many pages do
 *   not come back at once; it starts again from 0.5 s after a greeting, and at once after a
 *   1012 (a server stopping for a restart: another one takes the page);
 * - the server's close codes (games/room/consumer.py): 4001 the session signed out or in (the page
 *   loads again with the cookies it has now: no new socket); 4401 not signed in, 4403 refused,
 *   4404 not found (the end: no new socket); 4429 too many sockets open (tried again only every
 *   30 s, ±10 %: each try costs the server a socket); 4013 too many sockets opened lately, and
 *   any other close, a lost connection (the growing pause);
 * - the page going to sleep and waking: when the tab shows again (visibilitychange), comes back
 *   from the back-forward cache (pageshow), the network returns (online) or Telegram brings the
 *   app back (wakeLiveSockets), a page waiting to reconnect tries at once, and a connected page
 *   asks for what it may have missed (onWake: the room asks for a snapshot). A page told to
 *   wait after 4429 keeps its 30 s. When the browser says the network is gone (offline), every
 *   socket is dropped at once, so the page says so instead of waiting for a silence it may not
 *   be watching yet.
 *
 * Resyncing after a reconnect is the server's part and the page's: the server sends its state
 * on every connect (the room's snapshot, the tournament, the lobby's wait), and onConnected lets
 * the page send what the server must hear again (the lobby's join). No DOM but the page's own
 * sleep and wake events.
 */

/** Closed by this page itself: no greeting in time, or silence. */
export const CLOSE_DROPPED = 4000;
/** The page's session signed out or in (another tab): the page loads again. */
export const CLOSE_SESSION_CHANGED = 4001;
/** Too many sockets opened lately ("try again later"; Daphne cannot send the registry's 1013). */
export const CLOSE_TRY_AGAIN_LATER = 4013;
/** The lobby without a signed-in account. */
export const CLOSE_NOT_SIGNED_IN = 4401;
/** The page may not follow this. */
export const CLOSE_FORBIDDEN = 4403;
/** No such game or tournament. */
export const CLOSE_NOT_FOUND = 4404;
/** The visitor holds too many sockets open: close other tabs. */
export const CLOSE_TOO_MANY_SOCKETS = 4429;
/** The server stops for a restart: reconnect at once, from the start of the pause. */
export const CLOSE_SERVICE_RESTART = 1012;
/** After these the page tries no more. */
export const FINAL_CLOSES = Object.freeze([CLOSE_NOT_SIGNED_IN, CLOSE_FORBIDDEN, CLOSE_NOT_FOUND]);

/** The first pause after a lost connection, doubled at each failed attempt up to RETRY_MAX_MS. */
export const RETRY_FIRST_MS = 500;
export const RETRY_MAX_MS = 10000;
/** The pause after 4429. */
export const TOO_MANY_RETRY_MS = 30000;

/**
 * The pause before attempt `retries` + 1 after a lost connection.
 * @param {number} retries  attempts since the last greeting
 * @param {number} [random]  0 ≤ random < 1 (Math.random())
 * @returns {number} ms
 */
export function retryDelay(retries, random = Math.random()) {
  return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** retries) * (0.8 + random * 0.4);
}

/**
 * The pause after 4429.
 * @param {number} [random]  0 ≤ random < 1 (Math.random())
 * @returns {number} ms
 */
export function tooManyDelay(random = Math.random()) {
  return TOO_MANY_RETRY_MS * (0.9 + random * 0.2);
}

/**
 * The socket address of `path` on the page's own host.
 * @param {string} path  e.g. the view's ws_path, "/ws/lobby/?lang=en"
 * @param {{protocol: string, host: string}} [location]
 * @returns {string}
 */
export function socketUrl(path, location = globalThis.location) {
  return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
}

/** The live sockets of this page, woken together. */
const sockets = new Set();
let watching = null;

/** Wake every live socket of the page (see above); the page's own events call it too. */
export function wakeLiveSockets() {
  for (const live of [...sockets]) live.wake();
}

/** The browser lost the network: drop every live socket of the page (each says it is lost). */
export function dropLiveSockets() {
  for (const live of [...sockets]) live.offline();
}

/**
 * Listen to the page's sleep and wake: a tab shown again, a page back from the back-forward
 * cache, the network back. Done once per page, when its first live socket is made.
 * @param {EventTarget & {visibilityState: string}} doc
 * @param {EventTarget} win
 * @returns {boolean} false when already listening (or nothing to listen to)
 */
export function watchSleep(doc, win) {
  if (watching || !doc || !win) return false;
  watching = { doc, win };
  doc.addEventListener("visibilitychange", () => {
    if (doc.visibilityState === "visible") wakeLiveSockets();
  });
  win.addEventListener("pageshow", (event) => {
    if (event.persisted) wakeLiveSockets();
  });
  win.addEventListener("online", wakeLiveSockets);
  win.addEventListener("offline", dropLiveSockets);
  return true;
}

/**
 * A live socket, not yet connected (`connect()`).
 * @param {Object} options
 * @param {string} options.url  ws:// or wss:// (socketUrl)
 * @param {?(frame: Object) => boolean} [options.greets]  whether `frame` is the server's
 *   greeting; null: the open is the greeting
 * @param {number} [options.greetWithinMs]  a socket not greeted this long after its open is
 *   dropped (0: never)
 * @param {?{ms: number, watched: () => boolean}} [options.silence]  while `watched()`, a socket
 *   that hears nothing for `ms` is dropped
 * @param {(frame: Object) => void} [options.onFrame]  every frame (a JSON object), the greeting
 *   included (after onConnected)
 * @param {() => void} [options.onConnected]  greeted: the page is connected (again)
 * @param {(code: number) => void} [options.onLost]  closed; the page tries again (after 4429,
 *   only in TOO_MANY_RETRY_MS)
 * @param {(code: number) => void} [options.onEnd]  closed with one of FINAL_CLOSES: no more tries
 * @param {() => void} [options.onSessionChanged]  closed with 4001; by default the page loads
 *   again
 * @param {() => void} [options.onWake]  the page woke while connected: ask for what it missed
 * @param {Function} [options.WebSocketImpl]  the WebSocket class (the tests give a fake one)
 * @returns {{connect: () => void, send: (frame: Object) => boolean, isOpen: () => boolean,
 *   isConnected: () => boolean, wake: () => void, stop: () => void}}
 */
export function createLiveSocket({
  url,
  greets = null,
  greetWithinMs = 0,
  silence = null,
  onFrame = () => {},
  onConnected = () => {},
  onLost = () => {},
  onEnd = () => {},
  onSessionChanged = () => globalThis.location.reload(),
  onWake = () => {},
  WebSocketImpl = globalThis.WebSocket,
}) {
  let socket = null;
  let greeted = false;
  let retries = 0;
  let retryTimer = 0;
  let waitingTooMany = false; // after 4429: the slow retry is not hurried by a wake
  let silenceTimer = 0;
  let over = false; // ended (a final close, 4001) or stopped: no more sockets

  function isOpen() {
    return Boolean(socket) && socket.readyState === WebSocketImpl.OPEN;
  }

  /** Send a frame if the socket is open; false otherwise. */
  function send(frame) {
    if (!isOpen()) return false;
    socket.send(JSON.stringify(frame));
    return true;
  }

  function watchSilence(current) {
    clearTimeout(silenceTimer);
    if (!silence || !silence.watched()) return;
    silenceTimer = setTimeout(() => {
      if (socket === current && silence.watched()) drop(current, "silent");
    }, silence.ms);
  }

  /** Close a socket that no longer answers and go on at once as if it had closed. */
  function drop(current, reason) {
    current.close(CLOSE_DROPPED, reason);
    closed(current, CLOSE_DROPPED);
  }

  function greet() {
    greeted = true;
    // Connected only now: a server that accepts the socket and then fails (its Redis down)
    // must not reset the growing pause between attempts.
    retries = 0;
    onConnected();
  }

  function retryIn(ms) {
    retryTimer = setTimeout(connect, ms);
  }

  function end() {
    over = true;
    sockets.delete(live);
  }

  function closed(current, code) {
    if (socket !== current) return;
    socket = null;
    greeted = false;
    clearTimeout(silenceTimer);
    if (over) return;
    if (code === CLOSE_SESSION_CHANGED) {
      end();
      onSessionChanged();
      return;
    }
    if (FINAL_CLOSES.includes(code)) {
      end();
      onEnd(code);
      return;
    }
    if (code === CLOSE_TOO_MANY_SOCKETS) {
      // Not a fault that passes in a second: the player has to close other tabs first.
      waitingTooMany = true;
      onLost(code);
      retryIn(tooManyDelay());
      return;
    }
    onLost(code);
    if (code === CLOSE_SERVICE_RESTART) retries = 0;
    const delay = retryDelay(retries);
    retries += 1;
    retryIn(delay);
  }

  function connect() {
    clearTimeout(retryTimer);
    retryTimer = 0;
    waitingTooMany = false;
    if (over) return;
    const current = new WebSocketImpl(url);
    socket = current;
    greeted = false;
    current.addEventListener("open", () => {
      if (socket !== current) return;
      if (greetWithinMs) {
        setTimeout(() => {
          if (!greeted && socket === current) drop(current, "no greeting");
        }, greetWithinMs);
      }
      if (!greets) greet();
      watchSilence(current);
    });
    current.addEventListener("message", (event) => {
      if (socket !== current || over) return;
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      if (!frame || typeof frame !== "object") return;
      if (greets && !greeted && greets(frame)) greet();
      onFrame(frame);
      if (socket === current) watchSilence(current);
    });
    current.addEventListener("close", (event) => closed(current, event.code));
  }

  /** The page woke: reconnect now if waiting to, or ask for what was missed if connected. */
  function wake() {
    if (over) return;
    if (socket) {
      if (greeted && isOpen()) onWake();
      return;
    }
    if (retryTimer && !waitingTooMany) {
      retries = 0;
      connect();
    }
  }

  /** The network is gone: drop the socket, if any, as a lost connection (see dropLiveSockets). */
  function offline() {
    if (!over && socket) drop(socket, "offline");
  }

  /**
   * No more attempts and no more frames (the page is leaving, e.g. for a game just paired);
   * the socket itself is left open until the page goes.
   */
  function stop() {
    clearTimeout(retryTimer);
    retryTimer = 0;
    end();
  }

  const live = {
    connect,
    send,
    isOpen,
    isConnected: () => greeted && isOpen(),
    wake,
    offline,
    stop,
  };
  sockets.add(live);
  watchSleep(globalThis.document, globalThis.window);
  return live;
}
