/*
 * What the room says besides drawing: the message line under the board (errors and
 * explanations), the live region read by screen readers, and the optional tones (Web Audio
 * API, no files; off by default).
 */

/**
 * @param {{message: HTMLElement, announce: ?HTMLElement}} els
 * @param {{settings: {sound: boolean}}} state
 * @returns {{announce: (text: string) => void, showMessage: (text: string, kind: string) => void,
 *   showError: (text: string) => void, tone: (kind: string) => void, chime: () => void}}
 */
export function createAnnouncer(els, state) {
  let audio = null;

  /** An error (kind "error") or an explanation (kind "info") under the board. */
  function showMessage(text, kind) {
    els.message.textContent = text || "";
    els.message.classList.toggle("is-info", kind === "info");
  }

  function showError(text) {
    showMessage(text, "error");
  }

  /** Say `text` through the live region (emptied first, so that a repeated text is said again). */
  function announce(text) {
    if (!els.announce || !text) return;
    els.announce.textContent = "";
    window.setTimeout(() => {
      els.announce.textContent = text;
    }, 60);
  }

  /** A short sound: "move" (a checker), "dice" (a roll) or "end" (the result). */
  function tone(kind) {
    if (!state.settings.sound) return;
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    try {
      if (!audio) audio = new Ctx();
      const now = audio.currentTime;
      const bursts = kind === "dice" ? [0, 0.06, 0.13] : kind === "end" ? [0, 0.16] : [0];
      for (const at of bursts) {
        const osc = audio.createOscillator();
        const gain = audio.createGain();
        const long = kind === "end";
        osc.type = kind === "dice" ? "square" : "triangle";
        osc.frequency.value = kind === "dice" ? 180 + Math.random() * 120 : long ? 440 + at * 800 : 330;
        gain.gain.setValueAtTime(0.0001, now + at);
        gain.gain.exponentialRampToValueAtTime(0.15, now + at + 0.01);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + at + (long ? 0.35 : 0.08));
        osc.connect(gain).connect(audio.destination);
        osc.start(now + at);
        osc.stop(now + at + (long ? 0.4 : 0.1));
      }
    } catch (err) {
      // No sound is no harm.
    }
  }

  /**
   * The turn chime (turn-notice.js): two rising notes, played whatever the "Sounds" setting
   * says, since the player chose it apart; a browser that allows no sound yet stays silent.
   */
  function chime() {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    try {
      if (!audio) audio = new Ctx();
      const now = audio.currentTime;
      for (const [at, freq] of [[0, 660], [0.14, 880]]) {
        const osc = audio.createOscillator();
        const gain = audio.createGain();
        osc.type = "sine";
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.0001, now + at);
        gain.gain.exponentialRampToValueAtTime(0.18, now + at + 0.01);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + at + 0.3);
        osc.connect(gain).connect(audio.destination);
        osc.start(now + at);
        osc.stop(now + at + 0.32);
      }
    } catch (err) {
      // No sound is no harm.
    }
  }

  return { announce, showMessage, showError, tone, chime };
}
