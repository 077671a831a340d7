/*
 * The Mini App's entry page (templates/games/telegram_app.html): inside Telegram, post the
 * signed initData to the server, which signs the player in and sends them on; outside
 * Telegram (no initData), say how to open the app instead.
 */
(function () {
  "use strict";
  const form = document.getElementById("tg-sign-in");
  if (!form) return;
  const app = window.Telegram && window.Telegram.WebApp;
  if (!app || !app.initData) {
    document.getElementById("tg-opening").hidden = true;
    document.getElementById("tg-outside").hidden = false;
    return;
  }
  document.getElementById("tg-init-data").value = app.initData;
  form.submit();
})();
