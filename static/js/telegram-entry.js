/*
 * The Mini App's entry page (templates/games/telegram_app.html): inside Telegram, post the
 * signed initData to the server, which signs the player in and sends them on; outside
 * Telegram (no initData), say how to open the app instead.
 */

/**
 * @param {Document} doc
 * @param {?{initData: string}} app  Telegram.WebApp, if any
 * @returns {"none"|"outside"|"signing-in"} nothing to do (not the entry page), told how to
 *   open the app, or the sign-in posted
 */
export function enter(doc, app) {
  const form = doc.getElementById("tg-sign-in");
  if (!form) return "none";
  if (!app || !app.initData) {
    doc.getElementById("tg-opening").hidden = true;
    doc.getElementById("tg-outside").hidden = false;
    return "outside";
  }
  doc.getElementById("tg-init-data").value = app.initData;
  form.submit();
  return "signing-in";
}

if (globalThis.document) enter(document, window.Telegram && window.Telegram.WebApp);
