/*
 * The small page scripts: the new-game forms (new-game.js), the challenge page's asking
 * (challenge.js) and the phone menu (js/site-menu.js); their choices alone, and applied to
 * small fakes of the page.
 */
import "./support.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { clockNoteHidden, clocksChecked, forPresets, personUrl, start, update } from "../../../static/games/new-game.js";
import { MAX_WAIT_MS, POLL_MS, afterPoll } from "../../../static/games/challenge.js";
import { leavesMenu, watchMenu } from "../../../static/js/site-menu.js";

test("a block shows for the presets it names; the clock follows the preset until the player picks one", () => {
  assert.equal(forPresets("sport classic", "classic"), true);
  assert.equal(forPresets("sport classic", "match"), false);
  const radios = [{ presets: "sport classic", checked: false }, { presets: "match", checked: true }];
  assert.deepEqual(clocksChecked(radios, "sport", false), [true, false]);
  assert.deepEqual(clocksChecked(radios, "match", false), [false, true]);
  assert.deepEqual(clocksChecked(radios, "sport", true), [false, true]); // the player's choice stands
  assert.equal(clockNoteHidden("standard", "match"), true);
  assert.equal(clockNoteHidden("match", "match"), false);
  assert.equal(clockNoteHidden("match", null), false);
});

/** A new-game form as new-game.js sees it: the selectors it asks, answered from plain objects. */
function fakeForm(preset) {
  const input = (name, value, checked, dataset = {}) => ({ name, value, checked, dataset });
  const listeners = {};
  const form = {
    dataset: {},
    presets: ["sport", "classic", "match"].map((value) => input("preset", value, value === preset)),
    groups: [{ forPreset: "match", hidden: false, disabled: false }],
    blocks: [{ forPresets: "sport classic", hidden: false }, { forPresets: "match", hidden: false }],
    clocks: [
      input("clock", "standard", false, { presets: "sport classic" }),
      input("clock", "match", false, { presets: "match" }),
    ],
    notes: [{ dataset: { forClock: "standard" }, hidden: false }, { dataset: { forClock: "match" }, hidden: false }],
    lengths: ["1", "3", "5", "7"].map((value) => input("match_length", value, value === "3")),
    person: [{ href: "/en/lobby/?pool=casual", getAttribute() { return this.href; } }],
    querySelector(selector) {
      return this.querySelectorAll(selector.replace(":checked", "")).find((el) => el.checked) || null;
    },
    querySelectorAll(selector) {
      const map = {
        'input[name="preset"]': this.presets,
        "[data-for-preset]": this.groups.map((g) => ({ ...g, getAttribute: () => g.forPreset, set hidden(v) { g.hidden = v; }, set disabled(v) { g.disabled = v; } })),
        "[data-for-presets]": this.blocks.map((b) => ({ getAttribute: () => b.forPresets, set hidden(v) { b.hidden = v; } })),
        'input[name="clock"][data-presets]': this.clocks,
        "[data-for-clock]": this.notes,
        'input[name="match_length"]': this.lengths,
        "a[data-person-link]": this.person,
      };
      return map[selector];
    },
    addEventListener(type, listener) {
      listeners[type] = listener;
    },
    change(target) {
      listeners.change({ target });
    },
  };
  return form;
}

test("the 'play a person' link follows the chosen rules and looks for an opponent at once", () => {
  assert.equal(personUrl("/en/lobby/?pool=casual", "sport", "3"), "/en/lobby/?pool=casual&preset=sport&go=1");
  assert.equal(personUrl("/ru/lobby/", "match", "5"), "/ru/lobby/?pool=casual&preset=match&match_length=5&go=1");
  const form = fakeForm("match");
  form.lengths.forEach((radio) => {
    radio.checked = radio.value === "7";
  });
  update(form);
  assert.equal(form.person[0].href, "/en/lobby/?pool=casual&preset=match&match_length=7&go=1");
});

test("update: only the chosen preset's options, enabled; its own clock checked and described", () => {
  const form = fakeForm("sport");
  update(form);
  assert.deepEqual(form.groups[0], { forPreset: "match", hidden: true, disabled: true });
  assert.deepEqual(form.blocks.map((b) => b.hidden), [false, true]);
  assert.deepEqual(form.clocks.map((c) => c.checked), [true, false]);
  assert.deepEqual(form.notes.map((n) => n.hidden), [false, true]);
  form.presets.forEach((radio) => {
    radio.checked = radio.value === "match";
  });
  update(form);
  assert.deepEqual(form.groups[0], { forPreset: "match", hidden: false, disabled: false });
  assert.deepEqual(form.clocks.map((c) => c.checked), [false, true]);
  assert.deepEqual(form.notes.map((n) => n.hidden), [true, false]);
});

test("start: each form once; a clock the player picks (or the server sent back) stays", () => {
  const form = fakeForm("sport");
  const doc = { querySelectorAll: () => [form] };
  start(doc);
  start(doc); // the script on a page twice: the form is set up once
  assert.equal(form.dataset.ready, "true");
  assert.equal(form.dataset.clockChosen, undefined);
  form.clocks[0].checked = false;
  form.clocks[1].checked = true;
  form.change(form.clocks[1]);
  assert.equal(form.dataset.clockChosen, "true");
  form.presets.forEach((radio) => {
    radio.checked = radio.value === "classic";
  });
  form.change(form.presets[1]);
  assert.deepEqual(form.clocks.map((c) => c.checked), [false, true]);
  const sentBack = fakeForm("sport");
  sentBack.clocks[1].checked = true;
  start({ querySelectorAll: () => [sentBack] });
  assert.equal(sentBack.dataset.clockChosen, "true");
  assert.deepEqual(sentBack.clocks.map((c) => c.checked), [false, true]);
});

test("the challenge page asks every 1.5 s, slower after errors, and moves on when answered", () => {
  assert.deepEqual(afterPoll({ status: "open" }, POLL_MS), { wait: POLL_MS });
  assert.deepEqual(afterPoll({ status: "accepted", game: "/en/game/g/" }, POLL_MS), { go: "/en/game/g/" });
  assert.deepEqual(afterPoll({ status: "withdrawn" }, POLL_MS), { reload: true });
  assert.deepEqual(afterPoll(null, POLL_MS), { wait: 3000 });
  assert.deepEqual(afterPoll(null, 12000), { wait: MAX_WAIT_MS });
  assert.deepEqual(afterPoll({ status: "open" }, MAX_WAIT_MS), { wait: POLL_MS }); // an answer: back to 1.5 s
});

test("the phone menu closes when the focus leaves it open", () => {
  const inside = {};
  const menu = Object.assign(new EventTarget(), {
    open: true,
    closed: 0,
    contains: (el) => el === inside,
    matches(selector) {
      return selector === ":popover-open" && this.open;
    },
    hidePopover() {
      this.closed += 1;
    },
  });
  assert.equal(leavesMenu(menu, {}), true);
  assert.equal(leavesMenu(menu, inside), false);
  assert.equal(leavesMenu(menu, null), false); // out of the window: the menu stays
  watchMenu(menu);
  const focusOut = (to) => menu.dispatchEvent(Object.assign(new Event("focusout"), { relatedTarget: to }));
  focusOut(inside);
  focusOut({});
  assert.equal(menu.closed, 1);
  menu.open = false;
  focusOut({});
  assert.equal(menu.closed, 1);
});
