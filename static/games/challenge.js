/*
 * A challenge link's page (templates/games/challenge.html): copies the link to share and, for
 * its creator while it is open, asks the server every 1.5 s whether a friend has accepted
 * (GET status_url: {"status", "game"}); then moves to the game. A withdrawn link reloads the
 * page, which says so. Network errors only slow the asking down (afterPoll, no DOM).
 */

export const POLL_MS = 1500;
export const MAX_WAIT_MS = 15000;

/**
 * What follows one question to the server.
 * @param {?{status: string, game?: string}} answer  the server's answer; null when the
 *   request failed
 * @param {number} wait  the pause before this question (ms)
 * @returns {{go: string}|{reload: true}|{wait: number}} open the game, reload the page, or ask
 *   again after `wait` ms
 */
export function afterPoll(answer, wait) {
  if (!answer) return { wait: Math.min(MAX_WAIT_MS, wait * 2) };
  if (answer.status === "accepted" && answer.game) return { go: answer.game };
  if (answer.status !== "open") return { reload: true };
  return { wait: POLL_MS };
}

function start(root) {
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
    let answer = null;
    try {
      const response = await fetch(statusUrl, { cache: "no-store", headers: { Accept: "application/json" } });
      if (!response.ok) throw new Error(String(response.status));
      answer = await response.json();
    } catch (err) {
      answer = null;
    }
    const next = afterPoll(answer, wait);
    if (next.go) window.location.assign(next.go);
    else if (next.reload) window.location.reload();
    else {
      wait = next.wait;
      window.setTimeout(poll, wait);
    }
  }

  window.setTimeout(poll, POLL_MS);
}

const root = globalThis.document && document.getElementById("challenge");
if (root) start(root);
