/* live/time.js: the times the live pages show, and the server's clock. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { clockOffset, clockText, countdownText, waitedText } from "../../../static/games/live/time.js";

test("a game clock counts a started second whole, keeps minutes past the hour, stops at 0:00", () => {
  assert.equal(clockText(65000), "1:05");
  assert.equal(clockText(64001), "1:05");
  assert.equal(clockText(75 * 60000), "75:00");
  assert.equal(clockText(0), "0:00");
  assert.equal(clockText(-1), "0:00");
});

test("a countdown shows hours from an hour on", () => {
  assert.equal(countdownText(59 * 60000 + 59000), "59:59");
  assert.equal(countdownText(3600000), "1:00:00");
  assert.equal(countdownText(3600000 + 65000), "1:01:05");
  assert.equal(countdownText(26 * 3600000 + 1), "26:00:01");
  assert.equal(countdownText(1), "0:01");
  assert.equal(countdownText(-5000), "0:00");
});

test("time waited counts whole seconds only", () => {
  assert.equal(waitedText(0), "0:00");
  assert.equal(waitedText(999), "0:00");
  assert.equal(waitedText(61999), "1:01");
  assert.equal(waitedText(-300), "0:00");
});

test("the server's clock offset", () => {
  assert.equal(clockOffset(10500, 10000), 500);
  assert.equal(clockOffset(9000, 10000), -1000);
  const now = Date.now();
  assert.equal(Math.abs(clockOffset(now)) < 1000, true);
});
