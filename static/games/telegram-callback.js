/* The page Telegram sends the browser back to (templates/telegram/callback.html): posts the
   signed answer from the URL fragment (#tgAuthResult=…) to the same URL, after taking it out of
   the address bar and the history. A file, not an inline script: the Content-Security-Policy
   allows scripts from this site only. */
(function () {
  "use strict";
  var answer = new URLSearchParams(window.location.hash.slice(1));
  var here = window.location.pathname + window.location.search;
  window.history.replaceState(null, "", here);
  var form = document.createElement("form");
  form.method = "POST";
  form.action = here;
  answer.forEach(function (value, name) {
    var field = document.createElement("input");
    field.type = "hidden";
    field.name = name;
    field.value = value;
    form.appendChild(field);
  });
  document.body.appendChild(form);
  form.submit();
})();
