/*
 * The room's WebSocket (docs/protocol.md): connecting and reconnecting with a growing pause, the
 * long wait after a 4429, dropping a socket that sends no snapshot or, while the game is on,
 * nothing at all for SILENCE_MS; and the game frames: a snapshot (unless old news) or an event
 * applied to the game held goes to `onGame`, the one path of every change; a gap in the events
 * or a `touch` above the version held asks for a snapshot.
 */
import { NEED_SNAPSHOT, OLD_NEWS, applyEvent, isOldSnapshot, touchNeedsSnapshot } from "./protocol.js";

/** A socket without its first snapshot by then is dropped (a loaded server may take seconds). */
export const SNAPSHOT_WAIT_MS = 15000;
/** A socket that hears nothing for this long while the game is on is taken for dead. */
export const SILENCE_MS = 45000;
/** The server's close code for a visitor holding too many sockets open. */
export const CLOSE_TOO_MANY_SOCKETS = 4429;
/** Then the page tries again this rarely: each try costs the server a socket. */
export const TOO_MANY_RETRY_MS = 30000;
/** The server's close code when it stops for a restart: reconnect at once, from the start. */
export const CLOSE_SERVICE_RESTART = 1012;
/**
 * The server's close code when the page's session signed out or in (another tab): the page
 * comes back whole with the cookies it has now (header, seat, controls), not just the socket.
 */
export const CLOSE_SESSION_CHANGED = 4001;
/** The close code of a socket this page drops itself (no snapshot, silence). */
const CLOSE_DROPPED = 4000;

/**
 * @param {Object} options
 * @param {string} options.url  the game socket's address (ws:// or wss://)
 * @param {RoomState} options.state  `game` is read; `connected`, `everConnected`, `lostAt`,
 *   `tooManySockets`, `closedForGood` and `pending` are kept up to date
 * @param {(game: Object) => void} options.onGame  a snapshot's game, or the game after an event
 * @param {(frame: Object) => void} options.onFrame  any other frame (`why`, `error`)
 * @param {() => void} options.onChange  the connection changed: redraw
 * @param {() => void} options.onSessionChanged  closed with CLOSE_SESSION_CHANGED: the page
 *   loads again (main.js); no new socket is opened here
 * @param {Function} [options.WebSocketImpl]  the WebSocket class (the tests give a fake one)
 * @returns {{connect: () => void, isOpen: () => boolean, send: (frame: Object) => boolean,
 *   requestSnapshot: () => void}}
 */
export function createConnection({
  url, state, onGame, onFrame, onChange, onSessionChanged, WebSocketImpl = globalThis.WebSocket,
}) {
  let socket = null;
  let retries = 0;
  let snapshotAsked = false; // asked since the last snapshot: a gap does not ask again
  // The server touches every 15 s (docs/protocol.md "Events"), so silence means a dead socket;
  // a server that has never touched this page (before the event protocol) is quiet between changes.
  let touched = false;
  let silenceTimer = 0;

  function isOpen() {
    return Boolean(socket) && socket.readyState === WebSocketImpl.OPEN;
  }

  /** Send a frame if the socket is open; false otherwise. */
  function send(frame) {
    if (!isOpen()) return false;
    socket.send(JSON.stringify(frame));
    return true;
  }

  function requestSnapshot() {
    if (send({ type: "snapshot" })) snapshotAsked = true;
  }

  function watchSilence(current) {
    clearTimeout(silenceTimer);
    if (!touched) return;
    silenceTimer = setTimeout(() => {
      if (socket === current && state.game.status === "active") drop(current, "silent");
    }, SILENCE_MS);
  }

  /** Close a socket that no longer answers and go on at once as if it had closed. */
  function drop(current, reason) {
    current.close(CLOSE_DROPPED, reason);
    closed(current, CLOSE_DROPPED);
  }

  function closed(current, code) {
    if (socket !== current) return;
    socket = null;
    clearTimeout(silenceTimer);
    state.connected = false;
    state.pending = false;
    if (state.lostAt === null) state.lostAt = Date.now();
    if (code === CLOSE_SESSION_CHANGED) {
      onSessionChanged();
      return;
    }
    if (code === 4403 || code === 4404) {
      state.closedForGood = code;
      onChange();
      return;
    }
    if (code === CLOSE_TOO_MANY_SOCKETS) {
      // Not a fault that passes in a second: the player has to close other tabs first.
      state.tooManySockets = true;
      onChange();
      setTimeout(connect, TOO_MANY_RETRY_MS * (0.9 + Math.random() * 0.2));
      return;
    }
    onChange();
    // A server stopping for a deploy: another one (or the restarted one) takes the page at once.
    if (code === CLOSE_SERVICE_RESTART) retries = 0;
    // Back off 0.5 s, 1 s, 2 s … up to 10 s, with jitter so many pages do not return at once.
    const delay = Math.min(10000, 500 * 2 ** retries) * (0.8 + Math.random() * 0.4);
    retries += 1;
    setTimeout(connect, delay);
  }

  function receive(frame) {
    if (frame.type === "snapshot" && frame.game) {
      snapshotAsked = false;
      if (!isOldSnapshot(state.game, frame.game)) onGame(frame.game);
    } else if (frame.type === "event") {
      const next = applyEvent(state.game, frame);
      if (next === NEED_SNAPSHOT) {
        if (!snapshotAsked) requestSnapshot();
      } else if (next !== OLD_NEWS) {
        onGame(next);
      }
    } else if (frame.type === "touch") {
      if (touchNeedsSnapshot(state.game, frame)) requestSnapshot();
    } else {
      onFrame(frame);
    }
  }

  function connect() {
    const current = new WebSocketImpl(url);
    socket = current;
    snapshotAsked = false;
    let greeted = false;
    current.addEventListener("open", () => {
      // The server's first frame is the snapshot. A socket that stays silent (a server whose
      // channel layer lost Redis may keep it open) is dropped, and the page connects again.
      setTimeout(() => {
        if (!greeted && socket === current) drop(current, "no snapshot");
      }, SNAPSHOT_WAIT_MS);
      watchSilence(current);
    });
    current.addEventListener("message", (event) => {
      if (socket !== current) return;
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      if (!frame || typeof frame !== "object") return;
      if (frame.type === "touch") touched = true;
      watchSilence(current);
      if (frame.type === "snapshot" && !greeted) {
        // Connected only now: a server that accepts the socket and then fails (its Redis
        // down) must not reset the growing pause between attempts, nor hide the banner.
        greeted = true;
        state.connected = true;
        state.everConnected = true;
        state.tooManySockets = false;
        state.lostAt = null;
        retries = 0;
      }
      receive(frame);
    });
    current.addEventListener("close", (event) => closed(current, event.code));
  }

  return { connect, isOpen, send, requestSnapshot };
}
