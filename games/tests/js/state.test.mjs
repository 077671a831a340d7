/* state.js: the settings kept in the browser, and what the viewer may do. */
import "./support.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { can, createState, cubeOffer, loadSettings, myTurn, saveSettings } from "../../../static/games/room/state.js";
import { game } from "./games.mjs";

function memoryStorage(text) {
  const items = new Map(text === undefined ? [] : [["nardy.room.settings", text]]);
  return { getItem: (key) => (items.has(key) ? items.get(key) : null), setItem: (key, value) => items.set(key, value), items };
}

test("settings: the defaults, what was saved over them, and nothing broken by bad storage", () => {
  const defaults = { animate: true, sound: false, autoConfirm: false, autoPlay: false, autoPass: false, reader: false, hints: false, turnSound: null, chat: true };
  assert.deepEqual(loadSettings(memoryStorage(), false), defaults);
  assert.equal(loadSettings(memoryStorage(), true).animate, false); // reduced motion
  assert.deepEqual(loadSettings(memoryStorage('{"sound": true, "reader": true}'), false),
    Object.assign({}, defaults, { sound: true, reader: true }));
  assert.deepEqual(loadSettings(memoryStorage("{not json"), false), defaults);
  assert.deepEqual(loadSettings(memoryStorage("7"), false), defaults);
  assert.deepEqual(loadSettings(null, false), defaults);
});

test("settings are saved as JSON; a storage that refuses is no error", () => {
  const storage = memoryStorage();
  saveSettings(storage, { sound: true });
  assert.equal(storage.items.get("nardy.room.settings"), '{"sound":true}');
  saveSettings({ setItem() { throw new Error("quota"); } }, { sound: true });
  saveSettings(null, { sound: true });
});

test("the viewer may do what the game's actions list, as a player of a game going on", () => {
  const room = (overrides, isPlayer = true) => createState({ game: game(overrides), isPlayer, wsPath: "", settings: {} });
  assert.equal(can(room(), "play"), true);
  assert.equal(can(room(), "roll"), false);
  assert.equal(can(room({}, false), "play"), false);
  assert.equal(can(room({ you: null }), "resign"), false);
  assert.equal(can(room({ status: "finished" }), "resign"), false);
  // a game without `actions` (the first protocol): the turn and phase say it
  assert.equal(can(room({ actions: undefined, phase: "roll" }), "roll"), true);
  assert.equal(can(room({ actions: undefined }), "double"), false);
  assert.equal(myTurn(room()), true);
  assert.equal(myTurn(room({ turn: "black" })), false);
});

test("the cube offer waits in phase cube only", () => {
  const cube = { value: 2, owner: null, offered_by: "black", turned: false };
  assert.equal(cubeOffer(game({ phase: "cube", cube })), cube);
  assert.equal(cubeOffer(game({ phase: "roll", cube })), null);
  assert.equal(cubeOffer(game({ phase: "cube", cube: null })), null);
});
