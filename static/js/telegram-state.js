/*
 * The Mini App's rules without the page (js/telegram-app.js applies them): Telegram's colours
 * made readable, the app's own trail of pages for its Back button, and the page's main action
 * for Telegram's MainButton. No DOM.
 */

/** Telegram's theme keys -> the site's colour variables (static/css/site.css). */
export const THEME = {
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

/** WCAG's relative luminance of a "#rrggbb" colour. */
export function luminance(hex) {
  const [r, g, b] = rgb(hex).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG's contrast ratio of two "#rrggbb" colours (1 to 21). */
export function contrast(a, b) {
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
 * readable for everyone. (The MainButton is Telegram's own.) Keys that are not "#rrggbb"
 * are left out.
 * @param {Object<string, string>} params  Telegram's themeParams
 * @returns {Object<string, string>}
 */
export function themeColours(params) {
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

/** How many pages the trail keeps. */
export const TRAIL_MAX = 30;

/**
 * The app's own trail of pages, not the browser's history: that holds the sign-in's /tg/
 * pages and pages that only make sense once (a challenge's, which redirects to the game once
 * accepted: marked transient, it is dropped from the trail when left). Back goes to the page
 * before, else to the app's home; home has no Back.
 * @param {Object} at
 * @param {?string} at.saved  the trail as stored (JSON), or null
 * @param {boolean} at.back  the page before this one was left by the app's Back
 * @param {string} at.here  this page's path and query
 * @param {string} at.pathname  this page's path
 * @param {string} at.home  the app's home path
 * @param {boolean} at.transient  this page is to be dropped from the trail when left
 * @returns {{trail: {path: string, transient: boolean}[], backTo: ?string}} the trail to store
 *   (at most TRAIL_MAX), and where Back goes (null: nowhere)
 */
export function walkTrail({ saved, back, here, pathname, home, transient }) {
  let trail;
  try {
    trail = JSON.parse(saved);
  } catch (err) {
    trail = null;
  }
  trail = Array.isArray(trail) ? trail.filter((entry) => entry && typeof entry.path === "string") : [];
  const top = () => trail[trail.length - 1];
  if (back && top() && top().path !== here) trail.pop(); // the page left
  if (top() && top().transient && top().path !== here) trail.pop();
  const at = trail.findIndex((entry) => entry.path === here);
  if (at >= 0) trail = trail.slice(0, at + 1); // back at a page of the trail: what followed goes
  if (pathname === home) trail = [];
  if (!pathname.startsWith("/tg/") && !(top() && top().path === here)) {
    trail.push({ path: here, transient });
  }
  trail = trail.slice(-TRAIL_MAX);
  const before = trail.length > 1 ? trail[trail.length - 2].path : null;
  return { trail, backTo: before || (pathname === home ? null : home) };
}

/**
 * The main action among the page's shown elements marked `data-tg-main="<rank>"`: the lowest
 * rank (on the game page Confirm 1, Roll 2, Take 3, Pass 4, the match's next game 5, play
 * again 6; elsewhere the form's submit button 20).
 * @param {{dataset: {tgMain: string}}[]} marked
 * @returns {?Object}
 */
export function mainAction(marked) {
  return [...marked].sort((a, b) => Number(a.dataset.tgMain) - Number(b.dataset.tgMain))[0] || null;
}

/**
 * The MainButton for `target`: its text on one line, active when it is enabled.
 * @param {{textContent: string, disabled: boolean, getAttribute: Function}} target
 * @returns {{text: string, is_active: boolean, is_visible: true}}
 */
export function mainButtonParams(target) {
  const text = target.textContent.trim().replace(/\s+/g, " ");
  const active = !target.disabled && target.getAttribute("aria-disabled") !== "true";
  return { text, is_active: active, is_visible: true };
}
