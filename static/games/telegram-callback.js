/* The page Telegram sends the browser back to (templates/telegram/callback.html): posts the
   signed answer from the URL fragment (#tgAuthResult=…) to the same URL, after taking it out of
   the address bar and the history. A file, not an inline script: the Content-Security-Policy
   allows scripts from this site only. */

/**
 * The fields of the answer in a URL fragment, in order.
 * @param {string} hash  "#tgAuthResult=…"
 * @returns {[string, string][]}
 */
export function answerFields(hash) {
  return Array.from(new URLSearchParams(hash.slice(1)));
}

/**
 * Take the answer out of the address and post it to the same URL (path and query).
 * @param {Window} win
 * @param {Document} doc
 * @returns {HTMLFormElement} the form posted
 */
export function postAnswer(win, doc) {
  const fields = answerFields(win.location.hash);
  const here = win.location.pathname + win.location.search;
  win.history.replaceState(null, "", here);
  const form = doc.createElement("form");
  form.method = "POST";
  form.action = here;
  for (const [name, value] of fields) {
    const field = doc.createElement("input");
    field.type = "hidden";
    field.name = name;
    field.value = value;
    form.appendChild(field);
  }
  doc.body.appendChild(form);
  form.submit();
  return form;
}

if (globalThis.document) postAnswer(window, document);
