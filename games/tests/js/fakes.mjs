/*
 * Fakes for the live pages' tests: a clock that moves only when told (setTimeout and
 * clearTimeout, installed over the globals for each test with Math.random fixed at 0.5, so
 * the pauses between attempts are exact) and a WebSocket the test plays the server of.
 */
import { afterEach, beforeEach } from "node:test";

/** setTimeout and clearTimeout on a clock that moves only when told. */
export function fakeClock() {
  const timers = new Map();
  let now = 0;
  let last = 0;
  return {
    setTimeout(fn, ms) {
      last += 1;
      timers.set(last, { at: now + (ms || 0), fn });
      return last;
    },
    clearTimeout(id) {
      timers.delete(id);
    },
    /** Move on `ms`, running each timer that falls due on the way, in order. */
    advance(ms) {
      const end = now + ms;
      for (;;) {
        let due = null;
        for (const [id, timer] of timers) {
          if (timer.at <= end && (!due || timer.at < due.at)) due = { id, ...timer };
        }
        if (!due) break;
        timers.delete(due.id);
        now = due.at;
        due.fn();
      }
      now = end;
    },
  };
}

export class FakeSocket {
  static OPEN = 1;

  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    this.closedWith = null;
    this.listeners = {};
  }

  addEventListener(type, listener) {
    (this.listeners[type] ||= []).push(listener);
  }

  emit(type, event = {}) {
    for (const listener of this.listeners[type] || []) listener(event);
  }

  send(text) {
    this.sent.push(JSON.parse(text));
  }

  close(code, reason) {
    this.readyState = 3;
    this.closedWith = { code, reason };
  }

  // What the server does:
  open() {
    this.readyState = FakeSocket.OPEN;
    this.emit("open");
  }

  receive(frame) {
    this.emit("message", { data: typeof frame === "string" ? frame : JSON.stringify(frame) });
  }

  end(code) {
    this.readyState = 3;
    this.emit("close", { code });
  }
}

/**
 * Run each test of the file on a fake clock, with no jitter (Math.random() is 0.5).
 * @returns {{now: () => Object}} `now()`: the running test's clock
 */
export function useFakeClock() {
  let clock;
  const saved = {};
  beforeEach(() => {
    clock = fakeClock();
    Object.assign(saved, { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout, random: Math.random });
    globalThis.setTimeout = clock.setTimeout;
    globalThis.clearTimeout = clock.clearTimeout;
    Math.random = () => 0.5; // no jitter: the pauses are exact
  });
  afterEach(() => {
    globalThis.setTimeout = saved.setTimeout;
    globalThis.clearTimeout = saved.clearTimeout;
    Math.random = saved.random;
  });
  return { now: () => clock };
}
