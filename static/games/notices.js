/*
 * The notices of a signed-in player, on every page (templates/games/_notices.html, drawn into
 * the header's account part; docs/protocol.md "Notices"). Opens the notices socket
 * (live/socket.js: reconnects, close codes, waking), which keeps the player online for their
 * friends and brings a friend's challenge, shown with Accept (the challenge's own accept form:
 * one click, the game opens) and Decline (posted in the background; the challenger is told),
 * and the answer to the player's own challenge, with a link to the game once accepted. The
 * notices sit in a polite live region near the top of the page's order (reached in two Tab
 * presses), shown over the page's foot on a phone and at its top right on a wide screen; no
 * focus is taken from what the player is doing. The state is notices-state.js.
 */
import { createLiveSocket, socketUrl } from "./live/socket.js";
import {
  ANSWER, cleared, createNoticesState, declineDone, declining, dismissed, noticesView, putOff,
  received,
} from "./notices-state.js";

// the challenges put off on this tab ("Later"), kept for its other pages
const LATER_KEY = "nardy-notices-later";

const config = globalThis.document && document.getElementById("site-notices-config");
if (config && config.dataset.wsPath) start(config.dataset);

/** An element with a class and, if given, its text. */
function make(tag, className, text) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

/** This page's CSRF token: the header's sign-out form carries one. */
function csrfToken() {
  const field = document.querySelector('input[name="csrfmiddlewaretoken"]');
  return field ? field.value : "";
}

/** The ids put off on this tab, as sessionStorage keeps them ([] when it cannot). */
function laterIds() {
  try {
    const kept = JSON.parse(window.sessionStorage.getItem(LATER_KEY) || "[]");
    return Array.isArray(kept) ? kept.filter((id) => typeof id === "string") : [];
  } catch (err) {
    return [];
  }
}

function keepLater(ids) {
  try {
    window.sessionStorage.setItem(LATER_KEY, JSON.stringify(ids.slice(-50)));
  } catch (err) {
    // a browser that keeps nothing: "Later" holds for this page only
  }
}

function start(words) {
  const state = createNoticesState(laterIds());
  const region = make("section", "site-notices");
  region.id = "site-notices";
  region.setAttribute("aria-label", words.region);
  const list = make("div", "site-notices__list");
  list.setAttribute("aria-live", "polite");
  region.append(list);
  // near the top of the tab order: right after the skip link
  const skip = document.querySelector(".skip-link");
  document.body.insertBefore(region, skip ? skip.nextSibling : document.body.firstChild);
  const shown = new Map(); // notice id -> {key, el}

  function challengeNotice(item) {
    const el = make("div", "site-notice");
    const textId = `site-notice-${item.id}`;
    el.setAttribute("role", "group");
    el.setAttribute("aria-labelledby", textId);
    const text = make("p", "site-notice__text", item.text);
    text.id = textId;
    el.append(text);
    if (item.table) el.append(make("p", "site-notice__table", item.table));
    const actions = make("div", "site-notice__actions");
    const form = make("form");
    form.method = "post";
    form.action = item.accept;
    const token = make("input");
    token.type = "hidden";
    token.name = "csrfmiddlewaretoken";
    token.value = csrfToken();
    const accept = make("button", "site-notice__button site-notice__accept", words.accept);
    accept.type = "submit";
    accept.disabled = item.busy;
    form.append(token, accept);
    const decline = make("button", "site-notice__button site-notice__decline", words.decline);
    decline.type = "button";
    decline.disabled = item.busy;
    decline.addEventListener("click", () => decide(item.id));
    // "Later": on a phone the notice covers the page's foot (a game's board too)
    const later = make("button", "site-notice__button site-notice__later", words.later);
    later.type = "button";
    later.addEventListener("click", () => {
      if (!putOff(state, item.id)) return;
      keepLater([...state.later]);
      draw();
    });
    actions.append(form, decline, later);
    el.append(actions);
    if (item.error) {
      const error = make("p", "site-notice__error", item.error);
      error.setAttribute("role", "alert");
      el.append(error);
    }
    return el;
  }

  function answerNotice(item) {
    const el = make("div", "site-notice site-notice--answer");
    el.setAttribute("role", "group");
    const textId = `site-notice-${item.id}`;
    el.setAttribute("aria-labelledby", textId);
    const text = make("p", "site-notice__text", item.text);
    text.id = textId;
    el.append(text);
    const actions = make("div", "site-notice__actions");
    if (item.game) {
      const link = make("a", "site-notice__button site-notice__accept", words.open);
      link.href = item.game;
      actions.append(link);
    }
    const close = make("button", "site-notice__button site-notice__close", words.close);
    close.type = "button";
    close.addEventListener("click", () => {
      if (dismissed(state, item.id)) draw();
    });
    actions.append(close);
    el.append(actions);
    return el;
  }

  /** Redraw only the notices that changed; a redrawn one keeps the focus on its button. */
  function draw() {
    const view = noticesView(state);
    const wanted = new Set(view.map((item) => item.id));
    for (const [id, entry] of shown) {
      if (!wanted.has(id)) {
        entry.el.remove();
        shown.delete(id);
      }
    }
    let before = null;
    for (const item of [...view].reverse()) {
      const old = shown.get(item.id);
      let el = old ? old.el : null;
      if (!old || old.key !== item.key) {
        const focused = old && old.el.contains(document.activeElement) ? document.activeElement.className : "";
        el = item.kind === ANSWER ? answerNotice(item) : challengeNotice(item);
        if (old) old.el.replaceWith(el);
        shown.set(item.id, { key: item.key, el });
        if (focused) {
          const again = el.querySelector(`[class="${focused}"]`);
          if (again) again.focus();
        }
      }
      if (el.nextSibling !== before || el.parentNode !== list) list.insertBefore(el, before);
      before = el;
    }
    region.classList.toggle("is-empty", view.length === 0);
  }

  async function decide(id) {
    const url = declining(state, id);
    if (!url) return;
    draw();
    let ok = false;
    let message = words.failed;
    try {
      const response = await fetch(url, {
        method: "POST",
        credentials: "same-origin",
        headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
      });
      const answer = await response.json().catch(() => ({}));
      ok = response.ok;
      if (!ok && typeof answer.error === "string") message = answer.error;
    } catch (err) {
      ok = false;
    }
    if (declineDone(state, id, ok, message)) draw();
  }

  const live = createLiveSocket({
    url: socketUrl(words.wsPath),
    onFrame(frame) {
      if (received(state, frame)) draw();
    },
    onEnd() {
      cleared(state);
      draw();
    },
    onSessionChanged() {
      // signed out elsewhere: these notices are no longer this page's to show
      live.stop();
      cleared(state);
      draw();
    },
  });
  draw();
  live.connect();
}
