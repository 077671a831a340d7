/* board-view.js: how far the board lies under the clock bar stuck to the top of a phone's screen. */
import "./support.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { underBar } from "../../../static/games/room/board-view.js";

test("the board's top under the stuck bar is measured; a board clear of it, or mostly scrolled past, is left alone", () => {
  const bar = { top: 0, bottom: 140 };
  assert.equal(underBar(bar, { top: 78.4, bottom: 478.4 }), 62); // the page scrolled down to Roll
  assert.equal(underBar(bar, { top: 140, bottom: 540 }), 0); // just below the bar
  assert.equal(underBar({ top: 60, bottom: 200 }, { top: 240, bottom: 640 }), 0); // the bar in its place
  assert.equal(underBar(bar, { top: -16, bottom: 384 }), 156); // more than half of it still shows
  assert.equal(underBar(bar, { top: -150, bottom: 250 }), 0); // the reader is further down the page
  assert.equal(underBar(null, { top: 0, bottom: 400 }), 0); // no clock bar
});
