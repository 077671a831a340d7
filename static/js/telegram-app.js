/*
 * The site inside Telegram (a page served with games/telegram/pages.py's `telegram_app`):
 * Telegram's colours (themeParams, light and dark) and viewport height, its BackButton for
 * going back, its MainButton for the page's main action of the moment, haptic feedback on
 * a roll and at a game's end, a closing confirmation while the player's game runs, the
 * challenge's "Send to a Telegram chat", and the live sockets of the page (the game, the
 * lobby, a tournament: ../games/live/socket.js) woken when Telegram brings the app back from
 * the background. Outside Telegram (no initData) it does nothing. The rules without the
 * page (colours, the trail, the main action) are telegram-state.js.
 *
 * The main action is the first visible, present element marked `data-tg-main="<rank>"`
 * (lowest rank first). The MainButton shows its text, is active when it is enabled, and
 * clicks it.
 */
import { wakeLiveSockets } from "../games/live/socket.js";
import { THEME, mainAction, mainButtonParams, themeColours, walkTrail } from "./telegram-state.js";

const app = globalThis.Telegram && globalThis.Telegram.WebApp;
if (app && app.initData) start(app);

function start(app) {
  const root = document.documentElement;
  root.classList.add("tg-in");

  function supports(version) {
    return typeof app.isVersionAtLeast !== "function" || app.isVersionAtLeast(version);
  }

  // --- colours and size -------------------------------------------------------------------
  function applyTheme() {
    const params = themeColours(app.themeParams || {});
    for (const [key, variables] of Object.entries(THEME)) {
      const value = params[key];
      const valid = typeof value === "string";
      for (const variable of variables) {
        if (valid) root.style.setProperty(variable, value);
        else root.style.removeProperty(variable);
      }
    }
    const dark = app.colorScheme === "dark";
    root.classList.toggle("tg-dark", dark);
    root.style.colorScheme = dark ? "dark" : "light";
  }

  function applyViewport() {
    const height = app.viewportStableHeight || app.viewportHeight;
    if (height) root.style.setProperty("--tg-viewport-height", `${Math.round(height)}px`);
  }

  applyTheme();
  applyViewport();
  app.onEvent("themeChanged", applyTheme);
  app.onEvent("viewportChanged", applyViewport);
  // Back from the background (Bot API 8.0): a socket may have been cut or missed frames.
  app.onEvent("activated", wakeLiveSockets);
  app.ready();
  if (typeof app.expand === "function") app.expand();

  // --- back -------------------------------------------------------------------------------
  const home = root.dataset.tgHome || "/";
  const TRAIL = "nardy-tg-trail";

  function stored(key) {
    try {
      return window.sessionStorage.getItem(key);
    } catch (err) {
      return null; // storage refused: Back goes home
    }
  }

  function store(key, value) {
    try {
      if (value === null) window.sessionStorage.removeItem(key);
      else window.sessionStorage.setItem(key, value);
    } catch (err) {
      // storage refused: the trail lasts for this page only
    }
  }

  const { trail, backTo } = walkTrail({
    saved: stored(TRAIL),
    back: stored(TRAIL + "-back") !== null,
    here: window.location.pathname + window.location.search,
    pathname: window.location.pathname,
    home,
    transient: document.querySelector("[data-tg-transient]") !== null,
  });
  store(TRAIL + "-back", null);
  store(TRAIL, JSON.stringify(trail));

  if (app.BackButton && supports("6.1")) {
    if (backTo === null) app.BackButton.hide();
    else app.BackButton.show();
    app.BackButton.onClick(() => {
      if (backTo === null) return;
      store(TRAIL + "-back", "1");
      window.location.assign(backTo);
    });
  }

  // --- the main action --------------------------------------------------------------------
  let target = null;

  function shown(el) {
    return !el.hidden && !el.closest("[hidden]") && el.getClientRects().length > 0;
  }

  function drawMainButton() {
    const button = app.MainButton;
    if (!button) return;
    target = mainAction(Array.from(document.querySelectorAll("[data-tg-main]")).filter(shown));
    if (!target) {
      button.hide();
      return;
    }
    button.setParams(mainButtonParams(target));
  }

  if (app.MainButton) {
    app.MainButton.onClick(() => {
      if (target && !target.disabled && document.contains(target)) target.click();
    });
    let queued = false;
    const redraw = () => {
      if (queued) return;
      queued = true;
      window.requestAnimationFrame(() => {
        queued = false;
        drawMainButton();
      });
    };
    new MutationObserver(redraw).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
      attributeFilter: ["hidden", "disabled", "aria-disabled", "class"],
    });
    drawMainButton();
  }

  // --- the game: haptics and the closing confirmation --------------------------------------
  const haptics = app.HapticFeedback && supports("6.1") ? app.HapticFeedback : null;
  let confirming = false;
  document.addEventListener("room:rolled", () => {
    if (haptics) haptics.impactOccurred("medium");
  });
  document.addEventListener("room:ended", (event) => {
    if (haptics && event.detail && event.detail.player) {
      haptics.notificationOccurred(event.detail.won ? "success" : "error");
    }
  });
  document.addEventListener("room:drawn", (event) => {
    const playing = Boolean(event.detail && event.detail.playing);
    if (playing === confirming || !supports("6.2")) return;
    confirming = playing;
    if (playing) app.enableClosingConfirmation();
    else app.disableClosingConfirmation();
  });

  // --- invitations ------------------------------------------------------------------------
  for (const link of document.querySelectorAll("a[data-tg-share]")) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      app.openTelegramLink(link.href);
    });
  }
}
