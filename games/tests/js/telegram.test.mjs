/*
 * The Telegram pages: the Mini App's rules (telegram-state.js: readable colours, the app's
 * trail for Back, the main action), its entry page (telegram-entry.js) and the page Telegram's
 * sign-in comes back to (telegram-callback.js), the last two against small fakes of the page.
 */
import "./support.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  THEME, TRAIL_MAX, contrast, mainAction, mainButtonParams, themeColours, walkTrail,
} from "../../../static/js/telegram-state.js";
import { enter } from "../../../static/js/telegram-entry.js";
import { answerFields, postAnswer } from "../../../static/games/telegram-callback.js";

const LIGHT = {
  bg_color: "#ffffff", text_color: "#000000", hint_color: "#707579", link_color: "#2481cc",
  button_color: "#2481cc", button_text_color: "#ffffff", secondary_bg_color: "#f1f1f4",
};

test("Telegram's colours: kept when readable, moved just enough when not, others left out", () => {
  const out = themeColours({ ...LIGHT, bg_color: "#FFFFFF", header_bg_color: "#123456", text_color: "black" });
  assert.equal(out.bg_color, "#ffffff");
  assert.equal(out.text_color, undefined); // not #rrggbb: left to the site's own
  assert.equal(out.header_bg_color, undefined); // not a colour the site uses
  assert.deepEqual(Object.keys(themeColours(LIGHT)).sort(), Object.keys(LIGHT).sort());
  const pale = themeColours({ ...LIGHT, hint_color: "#c0c0c0", link_color: "#66aaff" });
  for (const key of ["hint_color", "link_color"]) {
    assert.notEqual(pale[key], { hint_color: "#c0c0c0", link_color: "#66aaff" }[key]);
    assert.equal(contrast(pale[key], "#ffffff") >= 4.5, true, key);
    assert.equal(contrast(pale[key], "#f1f1f4") >= 4.5, true, key);
  }
  const button = themeColours({ ...LIGHT, button_color: "#8ec5ff" });
  assert.equal(contrast(button.button_color, "#ffffff") >= 4.5, true);
  // Telegram's own light link (#2481cc) is a little under AA on its panels: moved; a darker one is kept
  assert.notEqual(themeColours(LIGHT).link_color, "#2481cc");
  assert.equal(contrast("#0b57d0", "#f1f1f4") >= 4.5, true);
  assert.equal(themeColours({ ...LIGHT, link_color: "#0b57d0" }).link_color, "#0b57d0");
  assert.deepEqual(THEME.button_color, ["--accent", "--tg-button"]);
});

const HOME = "/en/tg-home/";

function walk(saved, here, { back = false, transient = false } = {}) {
  const pathname = here.split("?")[0];
  return walkTrail({ saved: saved === null ? null : JSON.stringify(saved), back, here, pathname, home: HOME, transient });
}

test("the app's trail: Back goes to the page before, else home; home has none", () => {
  assert.deepEqual(walk(null, HOME), { trail: [{ path: HOME, transient: false }], backTo: null });
  let step = walk([{ path: HOME, transient: false }], "/en/lobby/");
  assert.equal(step.backTo, HOME);
  step = walk(step.trail, "/en/game/g1/");
  assert.equal(step.backTo, "/en/lobby/");
  // Back pressed on the game: the game leaves the trail, the lobby is the top again
  step = walk(step.trail, "/en/lobby/", { back: true });
  assert.deepEqual(step.trail.map((e) => e.path), [HOME, "/en/lobby/"]);
  assert.equal(step.backTo, HOME);
  // the sign-in's /tg/ pages never enter it; a page opened first goes back home
  assert.deepEqual(walk(null, "/tg/?next=x").trail, []);
  assert.equal(walk(null, "/en/rules/").backTo, HOME);
  // storage that holds nonsense is an empty trail
  assert.equal(walkTrail({ saved: "{oops", back: false, here: "/en/a/", pathname: "/en/a/", home: HOME, transient: false }).backTo, HOME);
});

test("a transient page (a challenge's) leaves the trail once left; a page seen again cuts what followed", () => {
  let step = walk([{ path: HOME, transient: false }], "/en/challenge/c1/", { transient: true });
  step = walk(step.trail, "/en/game/g1/");
  assert.deepEqual(step.trail.map((e) => e.path), [HOME, "/en/game/g1/"]);
  step = walk([HOME, "/a/", "/b/", "/c/"].map((path) => ({ path, transient: false })), "/a/");
  assert.deepEqual(step.trail.map((e) => e.path), [HOME, "/a/"]);
  // reloading a page adds nothing; the trail keeps its last pages only
  assert.deepEqual(walk(step.trail, "/a/").trail.map((e) => e.path), [HOME, "/a/"]);
  const long = Array.from({ length: 40 }, (_, i) => ({ path: `/p${i}/`, transient: false }));
  const kept = walk(long, "/new/").trail;
  assert.equal(kept.length, TRAIL_MAX);
  assert.equal(kept[kept.length - 1].path, "/new/");
  // home empties the trail
  assert.deepEqual(walk(long, HOME).trail, [{ path: HOME, transient: false }]);
});

test("the main action: the lowest rank shown; the MainButton says its words, active when enabled", () => {
  const el = (rank, text, disabled = false, aria = null) => ({
    dataset: { tgMain: String(rank) }, textContent: text, disabled, getAttribute: () => aria,
  });
  const roll = el(2, "  Roll\n  the dice ");
  const submit = el(20, "Find an opponent");
  assert.equal(mainAction([submit, roll]), roll);
  assert.equal(mainAction([]), null);
  assert.deepEqual(mainButtonParams(roll), { text: "Roll the dice", is_active: true, is_visible: true });
  assert.equal(mainButtonParams(el(1, "Confirm", true)).is_active, false);
  assert.equal(mainButtonParams(el(1, "Confirm", false, "true")).is_active, false);
});

/** A page of elements by id, each a plain object. */
function fakeDocument(ids) {
  const els = Object.fromEntries(ids.map((id) => [id, { id, hidden: false, value: "", submitted: 0, submit() { this.submitted += 1; } }]));
  return { els, getElementById: (id) => els[id] || null };
}

test("the Mini App's entry page: inside Telegram the sign-in is posted; outside, how to open it", () => {
  const ids = ["tg-sign-in", "tg-init-data", "tg-opening", "tg-outside"];
  const inside = fakeDocument(ids);
  assert.equal(enter(inside, { initData: "query_id=1&hash=abc" }), "signing-in");
  assert.equal(inside.els["tg-init-data"].value, "query_id=1&hash=abc");
  assert.equal(inside.els["tg-sign-in"].submitted, 1);
  const outside = fakeDocument(ids);
  outside.els["tg-outside"].hidden = true;
  assert.equal(enter(outside, { initData: "" }), "outside");
  assert.equal(enter(fakeDocument(ids), undefined), "outside");
  assert.equal(outside.els["tg-opening"].hidden, true);
  assert.equal(outside.els["tg-outside"].hidden, false);
  assert.equal(outside.els["tg-sign-in"].submitted, 0);
  assert.equal(enter(fakeDocument([]), { initData: "x" }), "none");
});

test("Telegram's way back: the answer leaves the address and is posted to the same URL", () => {
  assert.deepEqual(answerFields("#tgAuthResult=e30%3D&x=1"), [["tgAuthResult", "e30="], ["x", "1"]]);
  assert.deepEqual(answerFields(""), []);
  const calls = [];
  const win = {
    location: { hash: "#tgAuthResult=e30", pathname: "/accounts/telegram/login/callback/", search: "?state=x" },
    history: { replaceState: (...args) => calls.push(args) },
  };
  const made = [];
  const doc = {
    createElement: (tag) => {
      const node = { tag, children: [], appendChild(child) { this.children.push(child); }, submit() { this.sent = true; } };
      made.push(node);
      return node;
    },
    body: { children: [], appendChild(child) { this.children.push(child); } },
  };
  const form = postAnswer(win, doc);
  assert.deepEqual(calls, [[null, "", "/accounts/telegram/login/callback/?state=x"]]);
  assert.equal(form.method, "POST");
  assert.equal(form.action, "/accounts/telegram/login/callback/?state=x");
  assert.deepEqual(form.children.map((f) => [f.type, f.name, f.value]), [["hidden", "tgAuthResult", "e30"]]);
  assert.equal(doc.body.children[0], form);
  assert.equal(form.sent, true);
});

test("the Mini App's script does nothing outside Telegram", async () => {
  await import("../../../static/js/telegram-app.js");
  assert.equal(globalThis.Telegram, undefined);
});
