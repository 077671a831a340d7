/*
 * live/socket.js, the one live socket of every page, against a fake WebSocket and a fake
 * clock: the address, the greeting (the open, or a frame), the growing pause and its jitter,
 * 1012, 4013, 4429, the final codes and 4001, silence, stopping, and the page's sleep and wake
 * (visibilitychange, pageshow from the back-forward cache, online, and wakeLiveSockets).
 */
import "./support.mjs";
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import {
  CLOSE_DROPPED, CLOSE_NOT_FOUND, CLOSE_NOT_SIGNED_IN, CLOSE_SERVICE_RESTART, CLOSE_SESSION_CHANGED,
  CLOSE_TOO_MANY_SOCKETS, CLOSE_TRY_AGAIN_LATER, FINAL_CLOSES, RETRY_MAX_MS, TOO_MANY_RETRY_MS,
  createLiveSocket, dropLiveSockets, retryDelay, socketUrl, tooManyDelay, wakeLiveSockets, watchSleep,
} from "../../../static/games/live/socket.js";
import { FakeSocket, useFakeClock } from "./fakes.mjs";

const fake = useFakeClock();
const advance = (ms) => fake.now().advance(ms);
const made = [];

afterEach(() => {
  for (const page of made.splice(0)) page.live.stop(); // no socket of one test wakes in the next
});

/** A live socket over fake sockets; `seen` collects its calls. */
function page(options = {}) {
  const sockets = [];
  const seen = { frames: [], connected: 0, lost: [], ended: [], sessionChanged: 0, woken: 0 };
  class Socket extends FakeSocket {
    constructor(url) {
      super(url);
      sockets.push(this);
    }
  }
  const live = createLiveSocket({
    url: "ws://test/ws/lobby/",
    WebSocketImpl: Socket,
    onFrame: (frame) => seen.frames.push(frame),
    onConnected: () => {
      seen.connected += 1;
    },
    onLost: (code) => seen.lost.push(code),
    onEnd: (code) => seen.ended.push(code),
    onSessionChanged: () => {
      seen.sessionChanged += 1;
    },
    onWake: () => {
      seen.woken += 1;
    },
    ...options,
  });
  const made_ = { live, sockets, seen, latest: () => sockets[sockets.length - 1] };
  made.push(made_);
  return made_;
}

/** The pauses (ms, to 100 ms) between the attempts after `closes` lost connections. */
function pauses(p, closes, code = 1006) {
  const at = [];
  for (let n = 0; n < closes; n += 1) {
    const before = p.sockets.length;
    p.latest().end(code);
    let waited = 0;
    while (p.sockets.length === before) {
      advance(100);
      waited += 100;
    }
    at.push(waited);
  }
  return at;
}

test("the socket's address is the page's own host, wss: under https", () => {
  assert.equal(socketUrl("/ws/lobby/?lang=ru", { protocol: "https:", host: "nardy.example" }),
    "wss://nardy.example/ws/lobby/?lang=ru");
  assert.equal(socketUrl("/ws/game/x/", { protocol: "http:", host: "127.0.0.1:8000" }),
    "ws://127.0.0.1:8000/ws/game/x/");
});

test("the pause grows from 0.5 s to 10 s, each within ±20 %; 4429's is 30 s ±10 %", () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 9].map((n) => retryDelay(n, 0.5)), [500, 1000, 2000, 4000, 8000, 10000, 10000]);
  assert.equal(retryDelay(0, 0), 400);
  assert.equal(retryDelay(0, 0.999999) < 600, true);
  assert.equal(retryDelay(20, 0), 0.8 * RETRY_MAX_MS);
  assert.equal(tooManyDelay(0), 27000);
  assert.equal(tooManyDelay(0.5), TOO_MANY_RETRY_MS);
  assert.equal(tooManyDelay(0.999999) < 33000, true);
});

test("by default the open greets: connected, frames handed on, the pause starts again", () => {
  const p = page();
  p.live.connect();
  assert.equal(p.latest().url, "ws://test/ws/lobby/");
  assert.equal(p.live.isOpen(), false);
  assert.equal(p.live.send({ type: "leave" }), false);
  p.latest().open();
  assert.equal(p.seen.connected, 1);
  assert.equal(p.live.isConnected(), true);
  assert.equal(p.live.send({ type: "leave" }), true);
  assert.deepEqual(p.latest().sent, [{ type: "leave" }]);
  p.latest().receive({ type: "queued", rating: 1500 });
  p.latest().receive("not json");
  p.latest().receive("null");
  assert.deepEqual(p.seen.frames, [{ type: "queued", rating: 1500 }]);
  assert.deepEqual(pauses(p, 3), [500, 1000, 2000]);
  p.latest().open(); // greeted again: back to 0.5 s
  assert.deepEqual(pauses(p, 2), [500, 1000]);
  assert.deepEqual(p.seen.lost, [1006, 1006, 1006, 1006, 1006]);
});

test("a greeting frame: frames before it are handed on, the pause is not reset by an open alone", () => {
  const p = page({ greets: (frame) => frame.type === "tournament" });
  p.live.connect();
  p.latest().open();
  assert.equal(p.seen.connected, 0);
  p.latest().receive({ type: "error", code: "rate_limited" });
  assert.deepEqual(p.seen.frames.map((f) => f.type), ["error"]);
  assert.deepEqual(pauses(p, 1), [500]);
  p.latest().open(); // a server that accepts and then fails keeps the pause growing
  assert.deepEqual(pauses(p, 1), [1000]);
  p.latest().open();
  p.latest().receive({ type: "tournament", version: 3 });
  assert.equal(p.seen.connected, 1);
  assert.deepEqual(p.seen.frames.map((f) => f.type), ["error", "tournament"]);
  assert.deepEqual(pauses(p, 1), [500]);
});

test("a socket not greeted in time is dropped (4000) and replaced", () => {
  const p = page({ greets: (frame) => frame.type === "snapshot", greetWithinMs: 15000 });
  p.live.connect();
  const first = p.latest();
  first.open();
  advance(14999);
  assert.equal(first.closedWith, null);
  advance(1);
  assert.deepEqual(first.closedWith, { code: CLOSE_DROPPED, reason: "no greeting" });
  assert.deepEqual(p.seen.lost, [CLOSE_DROPPED]);
  advance(500);
  assert.equal(p.sockets.length, 2);
  first.end(CLOSE_DROPPED); // its own close, late: nothing more
  first.receive({ type: "snapshot" });
  assert.deepEqual(p.seen.lost, [CLOSE_DROPPED]);
  assert.deepEqual(p.seen.frames, []);
});

test("1012, a server restarting, is left at once whatever the pause had grown to", () => {
  const p = page();
  p.live.connect();
  assert.deepEqual(pauses(p, 4), [500, 1000, 2000, 4000]);
  assert.deepEqual(pauses(p, 1, CLOSE_SERVICE_RESTART), [500]);
});

test("4013, too many sockets opened lately, is a lost connection: the pause keeps growing", () => {
  const p = page();
  p.live.connect();
  assert.deepEqual(pauses(p, 3, CLOSE_TRY_AGAIN_LATER), [500, 1000, 2000]);
  assert.deepEqual(p.seen.lost, [4013, 4013, 4013]);
});

test("4429: tried again only after 30 s, and the pause after it is unchanged", () => {
  const p = page();
  p.live.connect();
  p.latest().open();
  p.latest().end(CLOSE_TOO_MANY_SOCKETS);
  assert.deepEqual(p.seen.lost, [CLOSE_TOO_MANY_SOCKETS]);
  advance(TOO_MANY_RETRY_MS - 1);
  assert.equal(p.sockets.length, 1);
  advance(1);
  assert.equal(p.sockets.length, 2);
});

test("4401, 4403 and 4404 end the attempts; 4001 asks the page to load again", () => {
  assert.deepEqual([...FINAL_CLOSES], [4401, 4403, 4404]);
  for (const code of FINAL_CLOSES) {
    const p = page();
    p.live.connect();
    p.latest().open();
    p.latest().end(code);
    assert.deepEqual(p.seen.ended, [code]);
    assert.deepEqual(p.seen.lost, []);
    advance(10 * 60000);
    p.live.wake();
    assert.equal(p.sockets.length, 1);
  }
  const p = page();
  p.live.connect();
  p.latest().open();
  p.latest().end(CLOSE_SESSION_CHANGED);
  assert.equal(p.seen.sessionChanged, 1);
  assert.deepEqual(p.seen.ended, []);
  advance(10 * 60000);
  assert.equal(p.sockets.length, 1);
});

test("silence is watched only while the page says so, restarted by every frame", () => {
  let watched = false;
  const p = page({ silence: { ms: 45000, watched: () => watched } });
  p.live.connect();
  p.latest().open();
  advance(100000);
  assert.equal(p.latest().closedWith, null);
  watched = true;
  p.latest().receive({ type: "touch" });
  advance(44999);
  p.latest().receive({ type: "touch" });
  advance(44999);
  assert.equal(p.latest().closedWith, null);
  advance(1);
  assert.deepEqual(p.latest().closedWith, { code: CLOSE_DROPPED, reason: "silent" });
  advance(500);
  p.latest().open(); // the next socket is watched from its open
  watched = false; // ... unless the page no longer cares when the time comes
  advance(45000);
  assert.equal(p.latest().closedWith, null);
});

test("stop: no more attempts and no more frames", () => {
  const p = page();
  p.live.connect();
  p.latest().open();
  p.live.stop();
  p.latest().receive({ type: "paired" });
  p.latest().end(1006);
  advance(60000);
  p.live.wake();
  assert.equal(p.sockets.length, 1);
  assert.deepEqual(p.seen.frames, []);
  assert.deepEqual(p.seen.lost, []);
});

test("a wake: connected, the page resyncs; waiting, it tries at once; connecting, nothing", () => {
  const p = page();
  p.live.connect();
  p.live.wake(); // connecting
  assert.equal(p.seen.woken, 0);
  assert.equal(p.sockets.length, 1);
  p.latest().open();
  p.live.wake();
  assert.equal(p.seen.woken, 1);
  pauses(p, 3); // the pause has grown to 4 s
  p.latest().end(1006);
  p.live.wake();
  assert.equal(p.sockets.length, 5);
  advance(60000); // the pending attempt was replaced, not added to
  assert.equal(p.sockets.length, 5);
  p.latest().end(1006); // and the pause starts again
  advance(499);
  assert.equal(p.sockets.length, 5);
  advance(1);
  assert.equal(p.sockets.length, 6);
});

test("the page's sleep and wake: visible again, back from the cache, online; every live socket", () => {
  const doc = Object.assign(new EventTarget(), { visibilityState: "hidden" });
  const win = new EventTarget();
  assert.equal(watchSleep(doc, win), true);
  assert.equal(watchSleep(doc, win), false); // once per page
  const a = page();
  const b = page();
  for (const p of [a, b]) {
    p.live.connect();
    p.latest().open();
  }
  doc.dispatchEvent(new Event("visibilitychange")); // hidden: nothing
  assert.deepEqual([a.seen.woken, b.seen.woken], [0, 0]);
  doc.visibilityState = "visible";
  doc.dispatchEvent(new Event("visibilitychange"));
  assert.deepEqual([a.seen.woken, b.seen.woken], [1, 1]);
  win.dispatchEvent(new Event("pageshow")); // a first load: not a wake
  win.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
  assert.deepEqual([a.seen.woken, b.seen.woken], [2, 2]);
  a.latest().end(1006);
  win.dispatchEvent(new Event("online"));
  assert.equal(a.sockets.length, 2);
  assert.equal(b.seen.woken, 3);
  wakeLiveSockets(); // Telegram's "activated" (js/telegram-app.js)
  assert.equal(b.seen.woken, 4);
  assert.equal(a.seen.connected, 1); // a's new socket is still connecting
  win.dispatchEvent(new Event("offline")); // the network gone: both dropped, both lost
  assert.deepEqual([a.seen.lost.at(-1), b.seen.lost.at(-1)], [4000, 4000]);
});

test("the network gone: every connected socket is dropped at once and the page says it is lost", () => {
  const a = page();
  const b = page();
  a.live.connect();
  a.latest().open();
  b.live.connect(); // still connecting: dropped too
  dropLiveSockets(); // the window's "offline" event (watchSleep)
  assert.deepEqual(a.latest().closedWith, { code: 4000, reason: "offline" });
  assert.deepEqual([a.seen.lost, b.seen.lost], [[4000], [4000]]);
  dropLiveSockets(); // nothing left to drop: no second "lost"
  assert.deepEqual(a.seen.lost, [4000]);
  advance(500); // the growing pause, then a new attempt (it fails while offline)
  assert.equal(a.sockets.length, 2);
});

test("the close codes are the server's (games/room/consumer.py)", () => {
  assert.equal(CLOSE_NOT_SIGNED_IN, 4401);
  assert.equal(CLOSE_NOT_FOUND, 4404);
  assert.equal(CLOSE_TOO_MANY_SOCKETS, 4429);
  assert.equal(CLOSE_TRY_AGAIN_LATER, 4013);
  assert.equal(CLOSE_SESSION_CHANGED, 4001);
});
