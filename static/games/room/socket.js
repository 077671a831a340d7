/*
 * The room's socket (docs/protocol.md): the game frames on top of the page's live socket
 * (../live/socket.js, which connects, reconnects with a growing pause, reads the close codes
 * and wakes with the page). The room counts itself connected at its first snapshot, drops a
 * socket that sends none within SNAPSHOT_WAIT_MS or, while the game is on and the server has
 * touched the page, hears nothing for SILENCE_MS; a page that wakes asks for a snapshot. A
 * snapshot (unless old news) or an event applied to the game held goes to `onGame`, the one
 * path of every change; a gap in the events or a `touch` above the version held asks for a
 * snapshot. The connection's state is kept in the room's state for the page to show.
 */
import { CLOSE_TOO_MANY_SOCKETS, createLiveSocket } from "../live/socket.js";
import { NEED_SNAPSHOT, OLD_NEWS, applyEvent, isOldSnapshot, touchNeedsSnapshot } from "./protocol.js";

/** A socket without its first snapshot by then is dropped (a loaded server may take seconds). */
export const SNAPSHOT_WAIT_MS = 15000;
/** A socket that hears nothing for this long while the game is on is taken for dead. */
export const SILENCE_MS = 45000;

/**
 * @param {Object} options
 * @param {string} options.url  the game socket's address (ws:// or wss://)
 * @param {RoomState} options.state  `game` is read; `connected`, `everConnected`, `lostAt`,
 *   `tooManySockets`, `closedForGood` and `pending` are kept up to date
 * @param {(game: Object) => void} options.onGame  a snapshot's game, or the game after an event
 * @param {(frame: Object) => void} options.onFrame  any other frame (`why`, `error`)
 * @param {() => void} options.onChange  the connection changed: redraw
 * @param {() => void} options.onSessionChanged  closed with 4001 (the session signed out or
 *   in): the page loads again (main.js); no new socket is opened
 * @param {Function} [options.WebSocketImpl]  the WebSocket class (the tests give a fake one)
 * @returns {{connect: () => void, isOpen: () => boolean, send: (frame: Object) => boolean,
 *   requestSnapshot: () => void}}
 */
export function createConnection({
  url, state, onGame, onFrame, onChange, onSessionChanged, WebSocketImpl = globalThis.WebSocket,
}) {
  let snapshotAsked = false; // asked since the last snapshot: a gap does not ask again
  // The server touches every 15 s (docs/protocol.md "Events"), so silence means a dead socket;
  // a server that has never touched this page (before the event protocol) is quiet between changes.
  let touched = false;

  const live = createLiveSocket({
    url,
    WebSocketImpl,
    greets: (frame) => frame.type === "snapshot",
    greetWithinMs: SNAPSHOT_WAIT_MS,
    silence: { ms: SILENCE_MS, watched: () => touched && state.game.status === "active" },
    onConnected() {
      state.connected = true;
      state.everConnected = true;
      state.tooManySockets = false;
      state.lostAt = null;
    },
    onFrame: receive,
    onLost(code) {
      lost();
      if (code === CLOSE_TOO_MANY_SOCKETS) state.tooManySockets = true;
      onChange();
    },
    onEnd(code) {
      lost();
      state.closedForGood = code;
      onChange();
    },
    onSessionChanged() {
      lost();
      onSessionChanged();
    },
    onWake: requestSnapshot, // a page back from the background may have missed frames
  });

  /** The socket closed: nothing is in flight any more, and the time it went is kept. */
  function lost() {
    state.connected = false;
    state.pending = false;
    snapshotAsked = false;
    if (state.lostAt === null) state.lostAt = Date.now();
  }

  function requestSnapshot() {
    if (live.send({ type: "snapshot" })) snapshotAsked = true;
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
      touched = true;
      if (touchNeedsSnapshot(state.game, frame)) requestSnapshot();
    } else {
      onFrame(frame);
    }
  }

  return { connect: live.connect, isOpen: live.isOpen, send: live.send, requestSnapshot };
}
