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
  KEEP, TEXT_MAX, addMessage, announcement, applyFrame, canReport, canSend, canSendText, chatState,
  cleanText, counterText, noteNow, senderLabel, takeSnapshot,
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

test("after the end: sending closes at `until` (a player) or at once (an onlooker)", () => {
  const player = chatState({ messages: [], muted: false, text: true, open: true, until: 5000 });
  assert.equal(canSend(player, 4999), true);
  assert.equal(canSendText(player, "gg", 4999), true);
  assert.equal(canSend(player, 5000), false);
  assert.equal(canSendText(player, "gg", 5000), false);
  const going = chatState({ messages: [], muted: false, text: true, open: true, until: null });
  assert.equal(canSend(going, Number.MAX_SAFE_INTEGER), true, "no end while the game goes on");
  const onlooker = chatState({ messages: [message()], muted: false, text: false, open: false, until: 1000 });
  assert.equal(canSend(onlooker, 0), false);
  assert.equal(onlooker.messages.length, 1, "the messages stay readable");
  assert.equal(canReport(player, message()), true, "a report still works");
  assert.deepEqual(applyFrame(going, { type: "error", code: "chat_over", message: "Closed." }, 0), { kind: "error" });
  assert.equal(canSend(going, 0), false);
  assert.equal(going.note, "Closed.");
  assert.equal(canSend(chatState(null), 0), false, "no chat, nothing to send");
});

test("`until` is by the server's clock: a browser's clock ahead or behind does not move it", () => {
  const player = chatState({ messages: [], muted: false, text: true, open: true, until: 5000 });
  assert.equal(canSendText(player, "gg", 9000, 4000), true, "this browser is 5 s ahead");
  assert.equal(canSendText(player, "gg", 1000, 6000), false, "this browser is 5 s behind");
});

test("a 'too many messages' note goes when its wait is over, or when one's own message gets through", () => {
  const chat = chatState({ messages: [], muted: false, text: true, presets: [] });
  applyFrame(chat, { type: "error", code: "too_many_messages", message: "Wait 9 s.", retry_after: 9 }, 1000);
  assert.equal(noteNow(chat, 9999), "Wait 9 s.");
  assert.equal(noteNow(chat, 10_000), "");
  applyFrame(chat, { type: "error", code: "too_many_messages", message: "Wait 5 s.", retry_after: 5 }, 20_000);
  applyFrame(chat, { type: "chat", message: { id: 9, from: "white", preset: "oops", text: "Oops!", mine: true } }, 20_500);
  assert.equal(noteNow(chat, 20_600), "");
  // other notes stay until replaced
  applyFrame(chat, { type: "chat_reported", id: 3 }, 30_000);
  assert.match(noteNow(chat, 99_000), /reported/);
});
