/*
 * room/socket.js (on live/socket.js) against a fake WebSocket and a fake clock: the greeting,
 * the growing pause between attempts, 4429 and the codes that end it, the no-snapshot and
 * silence timeouts, the game frames (events applied, a gap asking for one snapshot, touches)
 * and the snapshot asked for when the page wakes.
 */
import "./support.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  CLOSE_SERVICE_RESTART, CLOSE_SESSION_CHANGED, CLOSE_TOO_MANY_SOCKETS, TOO_MANY_RETRY_MS, wakeLiveSockets,
} from "../../../static/games/live/socket.js";
import { SILENCE_MS, SNAPSHOT_WAIT_MS, createConnection } from "../../../static/games/room/socket.js";
import { createState } from "../../../static/games/room/state.js";
import { FakeSocket, useFakeClock } from "./fakes.mjs";
import { game } from "./games.mjs";

const fake = useFakeClock();
const clock = { advance: (ms) => fake.now().advance(ms) };

/** A connection over fake sockets; `games` and `frames` collect what it hands on. */
function room(held = game()) {
  const state = createState({ game: held, isPlayer: true, wsPath: "/ws/game/x/", settings: {} });
  const sockets = [];
  const seen = { games: [], frames: [], changes: 0, sessionChanged: 0 };
  class Socket extends FakeSocket {
    constructor(url) {
      super(url);
      sockets.push(this);
    }
  }
  const connection = createConnection({
    url: "ws://test/ws/game/x/", state, WebSocketImpl: Socket,
    onGame: (g) => {
      seen.games.push(g);
      state.game = g; // as main.js's onGame does
    },
    onFrame: (frame) => seen.frames.push(frame),
    onChange: () => {
      seen.changes += 1;
    },
    onSessionChanged: () => {
      seen.sessionChanged += 1;
    },
  });
  return { state, sockets, seen, connection, latest: () => sockets[sockets.length - 1] };
}

/** Connect and be greeted with the snapshot of `state.game`. */
function greeted(r) {
  r.connection.connect();
  r.latest().open();
  r.latest().receive({ type: "snapshot", game: r.state.game });
  r.seen.games.length = 0;
  return r.latest();
}

function event(from, version, changes = {}) {
  return { type: "event", from, version, events: [], history: [], changes, actions: ["resign"], legal: null };
}

test("the greeting snapshot connects the page and goes to onGame", () => {
  const r = room();
  r.connection.connect();
  assert.equal(r.latest().url, "ws://test/ws/game/x/");
  r.latest().open();
  assert.equal(r.state.connected, false); // open is not enough: the snapshot says the server is there
  r.latest().receive({ type: "snapshot", game: game({ version: 9 }) });
  assert.equal(r.state.connected, true);
  assert.equal(r.state.everConnected, true);
  assert.equal(r.state.lostAt, null);
  assert.deepEqual(r.seen.games.map((g) => g.version), [9]);
});

test("send and requestSnapshot only while the socket is open", () => {
  const r = room();
  assert.equal(r.connection.isOpen(), false);
  assert.equal(r.connection.send({ type: "roll", version: 7 }), false);
  r.connection.connect();
  assert.equal(r.connection.send({ type: "roll", version: 7 }), false);
  r.latest().open();
  assert.equal(r.connection.isOpen(), true);
  assert.equal(r.connection.send({ type: "roll", version: 7 }), true);
  r.connection.requestSnapshot();
  assert.deepEqual(r.latest().sent, [{ type: "roll", version: 7 }, { type: "snapshot" }]);
});

test("an event on the version held goes to onGame applied, the same way as a snapshot", () => {
  const r = room();
  greeted(r);
  r.latest().receive(event(7, 8, { phase: "roll", turn: "black" }));
  assert.equal(r.seen.games.length, 1);
  assert.equal(r.seen.games[0].version, 8);
  assert.equal(r.seen.games[0].turn, "black");
  assert.equal(r.state.game.version, 8);
  r.latest().receive(event(8, 8, { presence: { white: null, black: null } })); // presence
  assert.equal(r.seen.games.length, 2);
  assert.deepEqual(r.latest().sent, []);
});

test("a gap asks for a snapshot once, until a snapshot comes", () => {
  const r = room();
  const socket = greeted(r);
  socket.receive(event(8, 9));
  socket.receive(event(9, 10));
  socket.receive(event(10, 11));
  assert.deepEqual(socket.sent, [{ type: "snapshot" }]);
  assert.equal(r.seen.games.length, 0);
  socket.receive({ type: "snapshot", game: game({ version: 11 }) });
  assert.deepEqual(r.seen.games.map((g) => g.version), [11]);
  socket.receive(event(12, 13)); // another gap later: asked again
  assert.deepEqual(socket.sent, [{ type: "snapshot" }, { type: "snapshot" }]);
});

test("old news is dropped: events and snapshots below the version held", () => {
  const r = room();
  const socket = greeted(r);
  socket.receive(event(6, 7));
  socket.receive({ type: "snapshot", game: game({ version: 6 }) });
  assert.equal(r.seen.games.length, 0);
  assert.deepEqual(socket.sent, []);
  socket.receive({ type: "snapshot", game: game({ version: 7 }) }); // presence: same version
  assert.equal(r.seen.games.length, 1);
});

test("a touch above the version held asks for a snapshot, every time; otherwise nothing", () => {
  const r = room();
  const socket = greeted(r);
  socket.receive({ type: "touch", version: 7 });
  socket.receive({ type: "touch", version: 5 });
  assert.deepEqual(socket.sent, []);
  socket.receive({ type: "touch", version: 8 });
  socket.receive({ type: "touch", version: 8 }); // 15 s later, still behind: asks again
  assert.deepEqual(socket.sent, [{ type: "snapshot" }, { type: "snapshot" }]);
  assert.equal(r.seen.frames.length, 0); // touches are the socket's business
});

test("other frames go to onFrame; frames that are not JSON objects are dropped", () => {
  const r = room();
  const socket = greeted(r);
  socket.receive({ type: "why", point: 13, message: "…" });
  socket.receive({ type: "error", code: "stale_version", version: 8 });
  socket.receive("not json");
  socket.receive("3");
  assert.deepEqual(r.seen.frames.map((f) => f.type), ["why", "error"]);
});

test("a socket without its snapshot in time is dropped and the page connects again", () => {
  const r = room();
  r.connection.connect();
  const first = r.latest();
  first.open();
  clock.advance(SNAPSHOT_WAIT_MS - 1);
  assert.equal(first.closedWith, null);
  clock.advance(1);
  assert.equal(first.closedWith.code, 4000);
  assert.equal(r.state.connected, false);
  clock.advance(500);
  assert.equal(r.sockets.length, 2);
  first.end(4000); // its close comes late: nothing more happens
  first.receive({ type: "snapshot", game: game({ version: 9 }) }); // nor with its frames
  clock.advance(60000);
  assert.equal(r.seen.games.length, 0);
  assert.equal(r.sockets.length, 2);
});

test("the pause between attempts grows to 10 s and starts again after a greeting", () => {
  const r = room();
  r.connection.connect();
  const at = [];
  let elapsed = 0;
  while (r.sockets.length < 8) {
    const before = r.sockets.length;
    r.latest().end(1006);
    while (r.sockets.length === before) {
      clock.advance(100);
      elapsed += 100;
    }
    at.push(elapsed);
    elapsed = 0;
  }
  assert.deepEqual(at, [500, 1000, 2000, 4000, 8000, 10000, 10000]);
  assert.equal(r.state.lostAt !== null, true);
  greeted(r);
  r.latest().end(1006);
  clock.advance(499);
  assert.equal(r.sockets.length, 9);
  clock.advance(1);
  assert.equal(r.sockets.length, 10);
});

test("1012: a server stopping for a restart is left at once, whatever the pause had grown to", () => {
  const r = room();
  r.connection.connect();
  for (let n = 0; n < 5; n += 1) {
    const before = r.sockets.length;
    r.latest().end(1006);
    while (r.sockets.length === before) clock.advance(100);
  }
  r.latest().end(CLOSE_SERVICE_RESTART);
  const before = r.sockets.length;
  clock.advance(499);
  assert.equal(r.sockets.length, before);
  clock.advance(1);
  assert.equal(r.sockets.length, before + 1);
});

test("4429: the page waits 30 s before trying again and says so meanwhile", () => {
  const r = room();
  const socket = greeted(r);
  socket.end(CLOSE_TOO_MANY_SOCKETS);
  assert.equal(r.state.tooManySockets, true);
  assert.equal(r.state.connected, false);
  assert.equal(r.seen.changes, 1);
  clock.advance(TOO_MANY_RETRY_MS - 1);
  assert.equal(r.sockets.length, 1);
  clock.advance(1);
  assert.equal(r.sockets.length, 2);
  r.latest().open();
  r.latest().receive({ type: "snapshot", game: r.state.game });
  assert.equal(r.state.tooManySockets, false);
});

test("4403 and 4404 end the attempts for good", () => {
  for (const code of [4403, 4404]) {
    const r = room();
    const socket = greeted(r);
    r.state.pending = true;
    socket.end(code);
    assert.equal(r.state.closedForGood, code);
    assert.equal(r.state.pending, false);
    clock.advance(10 * 60000);
    assert.equal(r.sockets.length, 1);
  }
});

test("4001: a session that signed out or in loads the page again, and no socket is reopened", () => {
  const r = room();
  const socket = greeted(r);
  socket.end(CLOSE_SESSION_CHANGED);
  assert.equal(r.seen.sessionChanged, 1);
  assert.equal(r.state.connected, false);
  clock.advance(10 * 60000);
  assert.equal(r.sockets.length, 1);
});

test("after a touch, 45 s without any frame while the game is on drops the socket", () => {
  const r = room();
  const socket = greeted(r);
  socket.receive({ type: "touch", version: 7 });
  clock.advance(SILENCE_MS - 1000);
  socket.receive({ type: "touch", version: 7 }); // any frame restarts the wait
  clock.advance(SILENCE_MS - 1);
  assert.equal(socket.closedWith, null);
  clock.advance(1);
  assert.deepEqual(socket.closedWith, { code: 4000, reason: "silent" });
  assert.equal(r.state.connected, false);
  clock.advance(500);
  assert.equal(r.sockets.length, 2);
  // the next socket is watched from its opening, without waiting for a touch of its own
  r.latest().open();
  clock.advance(SNAPSHOT_WAIT_MS - 1);
  r.latest().receive({ type: "snapshot", game: r.state.game });
  clock.advance(SILENCE_MS);
  assert.equal(r.sockets[1].closedWith.reason, "silent");
});

test("silence is not watched before the server has touched, nor once the game is over", () => {
  const quiet = room();
  greeted(quiet);
  clock.advance(10 * SILENCE_MS);
  assert.equal(quiet.sockets[0].closedWith, null);

  const over = room(game({ status: "finished" }));
  const socket = greeted(over);
  socket.receive({ type: "touch", version: 7 });
  clock.advance(10 * SILENCE_MS);
  assert.equal(socket.closedWith, null);
});

test("a page that wakes asks for a snapshot while connected, and reconnects at once if waiting", () => {
  const r = room();
  const socket = greeted(r);
  wakeLiveSockets();
  assert.deepEqual(socket.sent, [{ type: "snapshot" }]);
  socket.receive({ type: "snapshot", game: r.state.game });
  // lost, and woken before the first pause is over: a new socket at once
  socket.end(1006);
  assert.equal(r.state.connected, false);
  wakeLiveSockets();
  assert.equal(r.sockets.length, 2);
  // connecting, not yet greeted: a wake changes nothing
  wakeLiveSockets();
  assert.equal(r.sockets.length, 2);
  assert.deepEqual(r.latest().sent, []);
  // after 4429 the page keeps its 30 s, woken or not
  r.latest().end(CLOSE_TOO_MANY_SOCKETS);
  wakeLiveSockets();
  assert.equal(r.sockets.length, 2);
  clock.advance(TOO_MANY_RETRY_MS);
  assert.equal(r.sockets.length, 3);
});
