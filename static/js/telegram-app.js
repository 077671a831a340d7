/*
 * The site inside Telegram (a page served with games/telegram/pages.py's `telegram_app`):
 * Telegram's colours (themeParams, light and dark) and viewport height, its BackButton for
 * going back, its MainButton for the page's main action of the moment, haptic feedback on
 * a roll and at a game's end, a closing confirmation while the player's game runs, and the
 * challenge's "Send to a Telegram chat". Outside Telegram (no initData) it does nothing.
 *
 * The main action is the first visible, present element marked `data-tg-main="<rank>"`
 * (lowest rank first): on the game page Confirm (1), Roll (2), Take (3), Pass (4), the
 * match's next game (5), play again (6); elsewhere the form's submit button (20). The
 * MainButton shows its text, is active when it is enabled, and clicks it.
 */
(function () {
  "use strict";
  const app = window.Telegram && window.Telegram.WebApp;
  if (!app || !app.initData) return;
  const root = document.documentElement;
  root.classList.add("tg-in");

  function supports(version) {
    return typeof app.isVersionAtLeast !== "function" || app.isVersionAtLeast(version);
  }

  // --- colours and size -------------------------------------------------------------------
  // Telegram's theme keys -> the site's colour variables (static/css/site.css)
  const THEME = {
    bg_color: ["--paper"],
    text_color: ["--ink"],
    hint_color: ["--muted"],
    secondary_bg_color: ["--card"],
    button_color: ["--accent", "--tg-button"],
    link_color: ["--accent-dark"],
    button_text_color: ["--tg-button-text"],
    section_separator_color: ["--line"],
  };

  const HEX = /^#[0-9a-fA-F]{6}$/;

  function rgb(hex) {
    return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  }

  function luminance(hex) {
    const [r, g, b] = rgb(hex).map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }

  function contrast(a, b) {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  }

  function mix(a, b, t) {
    const [x, y] = [rgb(a), rgb(b)];
    return "#" + x.map((v, i) => Math.round(v + (y[i] - v) * t).toString(16).padStart(2, "0")).join("");
  }

  /** `colour` moved toward `toward` until it reads against every one of `grounds` (WCAG AA). */
  function readable(colour, grounds, toward) {
    let out = colour;
    for (let step = 1; step <= 20 && grounds.some((g) => contrast(out, g) < 4.5); step += 1) {
      out = mix(colour, toward, step / 20);
    }
    return out;
  }

  /**
   * Telegram's colours as given, except that text colours (links, hints) and our buttons'
   * colour are darkened or lightened just enough to meet WCAG AA against the page and the
   * panels: some of Telegram's palettes are a little under it, and the page must stay
   * readable for everyone. (The MainButton is Telegram's own.)
   */
  function themeColours(params) {
    const out = {};
    for (const key of Object.keys(THEME)) {
      if (typeof params[key] === "string" && HEX.test(params[key])) out[key] = params[key].toLowerCase();
    }
    const { bg_color: bg, text_color: text } = out;
    if (bg && text) {
      const grounds = [bg, out.secondary_bg_color || bg];
      for (const key of ["link_color", "hint_color"]) {
        if (out[key]) out[key] = readable(out[key], grounds, text);
      }
      if (out.button_color && out.button_text_color) {
        const away = luminance(out.button_text_color) > 0.5 ? "#000000" : "#ffffff";
        out.button_color = readable(out.button_color, [out.button_text_color], away);
      }
    }
    return out;
  }

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
  app.ready();
  if (typeof app.expand === "function") app.expand();

  // --- back -------------------------------------------------------------------------------
  // The app's own trail of pages (sessionStorage), not the browser's history: that holds the
  // sign-in's /tg/ pages and pages that only make sense once (a challenge's, which redirects
  // to the game once accepted: marked `data-tg-transient`, it is dropped from the trail when
  // left). Back goes to the page before, else to the app's home; home has no Back.
  const home = root.dataset.tgHome || "/";
  const TRAIL = "nardy-tg-trail";
  const here = window.location.pathname + window.location.search;

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

  let trail;
  try {
    trail = JSON.parse(stored(TRAIL));
  } catch (err) {
    trail = null;
  }
  trail = Array.isArray(trail) ? trail.filter((entry) => entry && typeof entry.path === "string") : [];
  const top = () => trail[trail.length - 1];
  if (stored(TRAIL + "-back") !== null && top() && top().path !== here) trail.pop(); // the page left
  store(TRAIL + "-back", null);
  if (top() && top().transient && top().path !== here) trail.pop();
  const at = trail.findIndex((entry) => entry.path === here);
  if (at >= 0) trail = trail.slice(0, at + 1); // back at a page of the trail: what followed goes
  if (window.location.pathname === home) trail = [];
  if (!window.location.pathname.startsWith("/tg/") && !(top() && top().path === here)) {
    trail.push({ path: here, transient: document.querySelector("[data-tg-transient]") !== null });
  }
  store(TRAIL, JSON.stringify(trail.slice(-30)));

  const before = trail.length > 1 ? trail[trail.length - 2].path : null;
  const backTo = before || (window.location.pathname === home ? null : home);
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

  function mainAction() {
    const marked = Array.from(document.querySelectorAll("[data-tg-main]")).filter(shown);
    marked.sort((a, b) => Number(a.dataset.tgMain) - Number(b.dataset.tgMain));
    return marked[0] || null;
  }

  function drawMainButton() {
    const button = app.MainButton;
    if (!button) return;
    target = mainAction();
    if (!target) {
      button.hide();
      return;
    }
    const text = target.textContent.trim().replace(/\s+/g, " ");
    const active = !target.disabled && target.getAttribute("aria-disabled") !== "true";
    button.setParams({ text, is_active: active, is_visible: true });
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
})();
