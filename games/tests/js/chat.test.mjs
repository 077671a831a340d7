/*
 * The game's chat (static/games/room/chat.js): its state apart from the DOM. A snapshot's
 * chat replaces the messages held, a frame's message is added once, who a message is from,
 * what the live region says, the text box's limits and counter, the report offered only for
 * the opponent's messages to a signed-in player, the mute, and the chat's error frames (the
 * wait after too many messages).
 */
import "./support.mjs";

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  KEEP, TEXT_MAX, addMessage, announcement, applyFrame, canReport, canSendText, chatState,
  cleanText, counterText, senderLabel, takeSnapshot,
} from "../../../static/games/room/chat.js";

const message = (over = {}) => ({
  id: 1, from: "black", preset: "good_luck", text: "Good luck!", version: 3, at: 0, mine: false, ...over,
});
const game = {
  players: {
    white: { name: "Guest", profile: null },
    black: { name: "<b>Ann</b>", profile: "/en/players/7/" },
  },
};

test("a game without a chat holds none, a snapshot's chat is taken whole", () => {
  const none = chatState(null);
  assert.equal(none.on, false);
  assert.deepEqual(none.messages, []);
  const chat = chatState({ messages: [message()], muted: true, text: true, presets: [] });
  assert.equal(chat.on && chat.muted && chat.text, true);
  chat.reported.add(1);
  const next = takeSnapshot(chat, { messages: [message(), message({ id: 2 })], muted: false, text: true });
  assert.equal(next.messages.length, 2);
  assert.equal(next.muted, false);
  assert.equal(next.reported.has(1), true, "the reports made stay marked");
});

test("a message is added once, and the oldest leave past KEEP", () => {
  const chat = chatState({ messages: [], muted: false, text: false });
  assert.equal(addMessage(chat, message()), true);
  assert.equal(addMessage(chat, message()), false);
  for (let id = 2; id <= KEEP + 5; id += 1) addMessage(chat, message({ id }));
  assert.equal(chat.messages.length, KEEP);
  assert.equal(chat.messages[0].id, 6);
});

test("who a message is from: you, an account's name, a guest's colour, an onlooker", () => {
  assert.equal(senderLabel(message({ mine: true }), game), "You");
  assert.equal(senderLabel(message(), game), "<b>Ann</b>", "a name is text, shown as it is");
  assert.equal(senderLabel(message({ from: "white" }), game), "White");
  assert.equal(senderLabel(message({ from: "spectator" }), game), "Onlooker");
});

test("the live region says the others' messages, never one's own", () => {
  assert.equal(announcement(message(), game), "<b>Ann</b> says: Good luck!");
  assert.equal(announcement(message({ mine: true }), game), "");
});

test("one's own words: trimmed, at most 140 characters, counted", () => {
  const chat = chatState({ messages: [], muted: false, text: true });
  assert.equal(cleanText("  well \n played  "), "well played");
  assert.equal(canSendText(chat, "   ", 0), false);
  assert.equal(canSendText(chat, "x".repeat(TEXT_MAX), 0), true);
  assert.equal(canSendText(chat, "x".repeat(TEXT_MAX + 1), 0), false);
  assert.equal(canSendText(chatState({ messages: [], text: false }), "hi", 0), false, "a guest");
  assert.equal(counterText("hello"), "5 of 140 characters");
});

test("a report is offered for the opponent's messages to a signed-in player, once", () => {
  const chat = chatState({ messages: [], muted: false, text: true });
  assert.equal(canReport(chat, message()), true);
  assert.equal(canReport(chat, message({ mine: true })), false);
  assert.equal(canReport(chat, message({ from: "spectator" })), false);
  applyFrame(chat, { type: "chat_reported", id: 1 }, 0);
  assert.equal(canReport(chat, message()), false);
  assert.match(chat.note, /reported/);
  assert.equal(canReport(chatState({ messages: [], text: false }), message()), false);
});

test("the chat's frames: a message, the mute, the errors; other frames are not its", () => {
  const chat = chatState({ messages: [], muted: false, text: true });
  assert.deepEqual(applyFrame(chat, { type: "chat", message: message() }, 0), { kind: "message", message: message() });
  assert.deepEqual(applyFrame(chat, { type: "chat", message: message() }, 0), { kind: "old" });
  applyFrame(chat, { type: "chat_muted", muted: true }, 0);
  assert.equal(chat.muted, true);
  assert.deepEqual(applyFrame(chat, { type: "error", code: "too_many_messages", message: "Wait.", retry_after: 2.5 }, 1000), { kind: "error" });
  assert.equal(chat.quietUntil, 3500);
  assert.equal(chat.note, "Wait.");
  assert.equal(canSendText(chat, "hi", 3000), false);
  assert.equal(canSendText(chat, "hi", 3500), true);
  assert.equal(applyFrame(chat, { type: "error", code: "illegal_play" }, 0), null);
  assert.equal(applyFrame(chat, { type: "event" }, 0), null);
  applyFrame(chat, { type: "error", code: "no_chat", message: "No chat." }, 0);
  assert.equal(chat.on, false);
});
