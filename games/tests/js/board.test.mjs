/*
 * board.js's helpers, the ones without a DOM (the drawing itself is tested in the browser):
 * the two numberings, plays and steps, dice, positions, pips and the description read to
 * screen readers.
 */
import "./support.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  SIDES, boardFromJson, describePosition, diceText, flip, fmt, formatStep, fromWhite, other, parseStep,
  pipCount, playForViewer, playSteps, positionBoards, prefersReducedMotion, sideName, toWhite,
} from "../../../static/games/board.js";

const START = { turn: "white", white: { 24: 15 }, black: { 24: 15 } };

test("the other side's numbering: p + 12 up to 12, p - 12 above; off stays off", () => {
  assert.deepEqual([1, 12, 13, 24, 0].map(flip), [13, 24, 1, 12, 0]);
  assert.equal(toWhite("white", 5), 5);
  assert.equal(toWhite("black", 5), 17);
  assert.equal(fromWhite("black", 17), 5);
  assert.equal(fromWhite("white", 17), 17);
  assert.deepEqual(SIDES, ["white", "black"]);
  assert.equal(other("white"), "black");
  assert.equal(other("black"), "white");
  assert.equal(sideName("black"), "Black");
});

test("steps and plays in the notation of RULES.md", () => {
  assert.deepEqual(parseStep("24/18"), { from: 24, to: 18 });
  assert.deepEqual(parseStep("3/off"), { from: 3, to: 0 });
  assert.equal(formatStep(3, 0), "3/off");
  assert.equal(formatStep(13, 8), "13/8");
  assert.deepEqual(playSteps(" 24/18  18/13 "), [{ from: 24, to: 18 }, { from: 18, to: 13 }]);
  assert.deepEqual(playSteps(""), []);
});

test("a play is shown in the viewer's numbering (white's for an onlooker)", () => {
  assert.equal(playForViewer("24/18 6/off", "black", "white"), "12/6 18/off");
  assert.equal(playForViewer("24/18 6/off", "black", null), "12/6 18/off");
  assert.equal(playForViewer("24/18", "black", "black"), "24/18");
  assert.equal(playForViewer("", "white", "black"), "");
});

test("dice and messages", () => {
  assert.equal(diceText([6, 5]), "6\u20115");
  assert.equal(diceText(null), "");
  assert.equal(fmt("%(a)s of %(b)s", { a: 1, b: 2 }), "1 of 2");
});

test("positions: boards of 25 counts, checkers off, pips", () => {
  const board = boardFromJson({ 24: 14, 1: 1 });
  assert.equal(board.length, 25);
  assert.equal(board[24], 14);
  assert.equal(board[1], 1);
  const { boards, off } = positionBoards({ turn: "white", white: { 24: 13, 6: 1 }, black: { 24: 15 } });
  assert.deepEqual(off, { white: 1, black: 0 });
  assert.equal(pipCount(boards.white), 13 * 24 + 6);
  assert.equal(pipCount(positionBoards(START).boards.black), 360);
  assert.deepEqual(positionBoards(null).off, { white: 15, black: 15 });
});

test("the position read to screen readers, in the viewer's numbering", () => {
  const { boards } = positionBoards({ turn: "white", white: { 24: 14, 13: 1 }, black: { 24: 15 } });
  assert.equal(describePosition(boards, "white"), "White: 14 on 24, 1 on 13. Black: 15 on 12.");
  assert.equal(describePosition(boards, "black"), "White: 14 on 12, 1 on 1. Black: 15 on 24.");
  assert.equal(describePosition(positionBoards({ white: {}, black: { 1: 1 } }).boards, null),
    "White: none on the board. Black: 1 on 13.");
});

test("reduced motion is off where the browser cannot say", () => {
  assert.equal(prefersReducedMotion(), false);
});
