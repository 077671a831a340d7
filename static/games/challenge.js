/*
 * A challenge link's page (templates/games/challenge.html): copies the link to share and, for
 * its creator while it is open, asks the server every 1.5 s whether a friend has accepted
 * (GET status_url: {"status", "game"}); then moves to the game. A withdrawn link reloads the
 * page, which says so. Network errors only slow the asking down.
 */
(function () {
  "use strict";

  const root = document.getElementById("challenge");
  if (!root) return;
  const POLL_MS = 1500;
  const MAX_WAIT_MS = 15000;

  const copyButton = document.getElementById("copy-link");
  const linkInput = document.getElementById("share-link");
  const copyNote = document.getElementById("copy-note");
  if (copyButton && linkInput) {
    copyButton.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(linkInput.value);
        copyNote.textContent = copyButton.dataset.copied;
      } catch (err) {
        // No clipboard access (an insecure page, an old browser): select it to copy by hand.
        linkInput.focus();
        linkInput.select();
      }
    });
    linkInput.addEventListener("focus", () => linkInput.select());
  }

  const statusUrl = root.dataset.statusUrl;
  if (!statusUrl) return;
  let wait = POLL_MS;

  async function poll() {
    try {
      const response = await fetch(statusUrl, { cache: "no-store", headers: { Accept: "application/json" } });
      if (!response.ok) throw new Error(String(response.status));
      const state = await response.json();
      wait = POLL_MS;
      if (state.status === "accepted" && state.game) {
        window.location.assign(state.game);
        return;
      }
      if (state.status !== "open") {
        window.location.reload();
        return;
      }
    } catch (err) {
      wait = Math.min(MAX_WAIT_MS, wait * 2);
    }
    window.setTimeout(poll, wait);
  }

  window.setTimeout(poll, POLL_MS);
})();
