/*
 * What the page modules find in the browser before they run: Django's JavaScript catalogue
 * (gettext and friends, here answering in English) and `window`. Import this before any module
 * of static/.
 */
globalThis.gettext = (text) => text;
globalThis.ngettext = (one, many, count) => (count === 1 ? one : many);
globalThis.pgettext = (context, text) => text;
// Django's interpolate (django/views/i18n.py), named form included.
globalThis.interpolate = (text, values, named) => named
  ? text.replace(/%\(\s*([^)]+)\)s/g, (match) => String(values[match.slice(2, -2)]))
  : text.replace(/%s/g, () => String(values.shift()));
globalThis.window = globalThis;
