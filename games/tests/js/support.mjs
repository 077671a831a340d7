/*
 * What the room's modules find in the browser before they run: Django's JavaScript catalogue
 * (gettext and friends, here answering in English) and window.NardyBoard from board.js, run
 * as the page runs it. Import this before any module of static/games/room/.
 */
import { readFileSync } from "node:fs";
import vm from "node:vm";

globalThis.gettext = (text) => text;
globalThis.ngettext = (one, many, count) => (count === 1 ? one : many);
globalThis.pgettext = (context, text) => text;
// Django's interpolate (django/views/i18n.py), named form included.
globalThis.interpolate = (text, values, named) => named
  ? text.replace(/%\(\s*([^)]+)\)s/g, (match) => String(values[match.slice(2, -2)]))
  : text.replace(/%s/g, () => String(values.shift()));
globalThis.window = globalThis;
vm.runInThisContext(readFileSync(new URL("../../../static/games/board.js", import.meta.url), "utf8"),
  { filename: "static/games/board.js" });
