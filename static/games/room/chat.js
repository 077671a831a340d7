/*
 * The game's chat (docs/protocol.md "Chat"): preset phrases for everyone, a signed-in
 * player's own words (at most TEXT_MAX characters), the player's mute of the opponent and a
 * report of the opponent's message. The server decides who reads what and sends each reader
 * the presets in their own language; this page only shows what it gets. The chat's state (the
 * messages, the mute, the wait after too many messages) is kept apart from the DOM in plain
 * functions; createChat does the DOM: every text is set with textContent, never as markup.
 * The "Chat" setting (state.js, `chat`) turns the panel off: nothing shown, nothing said.
 */

/** The most characters of a message of one's own (the server refuses more). */
export const TEXT_MAX = 140;
/** The most messages the panel keeps (the oldest leave first). */
export const KEEP = 100;
/** The error codes of the chat's frames: said in the panel, not under the board. */
export const CHAT_ERRORS = [
  "no_chat", "chat_not_allowed", "chat_too_long", "too_many_messages", "no_such_message", "chat_over",
];

/**
 * The chat as the page holds it.
 * @typedef {Object} ChatState
 * @property {boolean} on  the game has a chat (the snapshot's `chat` is not null)
 * @property {Object[]} messages  docs/protocol.md "Chat" messages, oldest first
 * @property {boolean} muted  this player muted the opponent
 * @property {boolean} text  this viewer may write their own words and report
 * @property {boolean} open  this viewer may send messages (the snapshot's `open`)
 * @property {?number} until  when sending closes for this viewer (ms; null: the game goes on)
 * @property {Set<number>} reported  the ids of messages this page reported
 * @property {number} quietUntil  Date.now() before which nothing is sent (too_many_messages)
 * @property {string} note  the panel's last note (an error, a report's thanks)
 */

/**
 * @param {?Object} chat  the snapshot's `chat`
 * @returns {ChatState}
 */
export function chatState(chat) {
  return {
    on: Boolean(chat),
    messages: chat ? [...(chat.messages || [])] : [],
    muted: Boolean(chat && chat.muted),
    text: Boolean(chat && chat.text),
    open: Boolean(chat && chat.open !== false),
    until: chat && typeof chat.until === "number" ? chat.until : null,
    reported: new Set(),
    quietUntil: 0,
    note: "",
    quietNote: false,
  };
}

/**
 * A snapshot's `chat` replaces what the page held (it holds every message this viewer reads);
 * the reports made stay marked.
 * @param {ChatState} chat
 * @param {?Object} snapshotChat
 * @returns {ChatState}
 */
export function takeSnapshot(chat, snapshotChat) {
  const next = chatState(snapshotChat);
  next.reported = chat.reported;
  next.quietUntil = chat.quietUntil;
  return next;
}

/**
 * A `chat` frame's message added (once: a message already held is left alone).
 * @param {ChatState} chat
 * @param {Object} message
 * @returns {boolean} whether it was new
 */
export function addMessage(chat, message) {
  if (!message || chat.messages.some((m) => m.id === message.id)) return false;
  chat.messages.push(message);
  if (chat.messages.length > KEEP) chat.messages.splice(0, chat.messages.length - KEEP);
  return true;
}

/**
 * Who a message is from, as the log shows it: "You", a player's name (their colour for a
 * guest, whose name says nothing), or "Onlooker".
 * @param {Object} message
 * @param {Object} game  the snapshot-shaped game (its `players`)
 * @returns {string}
 */
export function senderLabel(message, game) {
  if (message.mine) return gettext("You");
  if (message.from === "spectator") return gettext("Onlooker");
  const player = game && game.players ? game.players[message.from] : null;
  if (player && player.name && player.profile) return player.name;
  return message.from === "white" ? gettext("White") : gettext("Black");
}

/**
 * What the live region says of a new message: nothing for one's own.
 * @param {Object} message
 * @param {Object} game
 * @returns {string}
 */
export function announcement(message, game) {
  if (message.mine) return "";
  return interpolate(gettext("%(who)s says: %(text)s"), { who: senderLabel(message, game), text: message.text }, true);
}

/**
 * A text as the server keeps it: trimmed, each run of white space one space.
 * @param {string} text
 * @returns {string}
 */
export function cleanText(text) {
  return String(text || "").split(/\s+/).filter(Boolean).join(" ");
}

/**
 * The counter under the text box.
 * @param {string} text
 * @returns {string}
 */
export function counterText(text) {
  return interpolate(gettext("%(n)s of %(max)s characters"), { n: String(text || "").length, max: TEXT_MAX }, true);
}

/**
 * Whether this viewer may send a message now: the game has a chat that is still open to them
 * (after the end of the game: a player for 10 minutes, an onlooker not at all).
 * @param {ChatState} chat
 * @param {number} now  the server's time now (ms), as `until` is
 * @returns {boolean}
 */
export function canSend(chat, now) {
  return chat.on && chat.open && (chat.until === null || now < chat.until);
}

/**
 * Whether a message of one's own may be sent now.
 * @param {ChatState} chat
 * @param {string} text
 * @param {number} now  Date.now()
 * @param {number} [serverNow]  the server's time now (`until` is the server's), else `now`
 * @returns {boolean}
 */
export function canSendText(chat, text, now, serverNow = now) {
  const clean = cleanText(text);
  return canSend(chat, serverNow) && chat.text && now >= chat.quietUntil && clean.length > 0 && clean.length <= TEXT_MAX;
}

/**
 * Whether the page may offer to report this message: a signed-in player, the opponent's
 * words or phrase, not reported yet.
 * @param {ChatState} chat
 * @param {Object} message
 * @returns {boolean}
 */
export function canReport(chat, message) {
  return chat.text && !message.mine && message.from !== "spectator" && !chat.reported.has(message.id);
}

/**
 * A server frame of the chat applied to its state: `chat`, `chat_muted`, `chat_reported` and
 * the chat's `error` frames. Returns what happened (null: not a chat frame).
 * @param {ChatState} chat
 * @param {Object} frame
 * @param {number} now  Date.now()
 * @returns {?{kind: string, message?: Object}}
 */
export function applyFrame(chat, frame, now) {
  switch (frame.type) {
    case "chat":
      if (!addMessage(chat, frame.message)) return { kind: "old" };
      if (frame.message.mine) {
        chat.note = ""; // one's own message got through: an older refusal is stale
        chat.quietNote = false;
      }
      return { kind: "message", message: frame.message };
    case "chat_muted":
      chat.muted = Boolean(frame.muted);
      chat.note = chat.muted ? gettext("Your opponent's messages are hidden in this game.") : "";
      return { kind: "muted" };
    case "chat_reported":
      chat.reported.add(frame.id);
      chat.note = gettext("Thank you: the message was reported to the moderators.");
      return { kind: "reported" };
    case "error":
      if (!CHAT_ERRORS.includes(frame.code)) return null;
      chat.note = frame.message || "";
      chat.quietNote = frame.code === "too_many_messages" && Boolean(frame.retry_after);
      if (chat.quietNote) chat.quietUntil = now + frame.retry_after * 1000;
      if (frame.code === "no_chat") chat.on = false;
      if (frame.code === "chat_over") chat.open = false;
      return { kind: "error" };
    default:
      return null;
  }
}

/**
 * The panel's note at `now`: a "too many messages" note goes once its wait is over.
 * @param {ChatState} chat
 * @param {number} now  Date.now()
 * @returns {string}
 */
export function noteNow(chat, now) {
  if (chat.quietNote && now >= chat.quietUntil) {
    chat.note = "";
    chat.quietNote = false;
  }
  return chat.note;
}

/**
 * The chat panel: its log, preset buttons, text box with its counter, mute and report.
 * @param {Object} els  chat (the panel), chatLog, chatAnnounce, chatPresets, chatForm,
 *   chatText, chatCount, chatMute, chatNote, chatSetting (the settings' check box)
 * @param {Object} state  the room's state (state.game, state.settings.chat)
 * @param {{connection: {send: (frame: Object) => boolean}}} deps
 */
export function createChat(els, state, { connection }) {
  let chat = chatState(state.game.chat);
  let shownChat = state.game.chat;
  const shown = () => chat.on && state.settings.chat !== false;
  /** The server's time now: `until` is by its clock (state.clockOffset, clocks.js). */
  const serverNow = () => Date.now() + (state.clockOffset || 0);
  let closing = 0;

  function send(frame) {
    if (!shown() || Date.now() < chat.quietUntil) return;
    if (frame.type === "chat" && !canSend(chat, serverNow())) return;
    connection.send(frame);
  }

  if (els.chatPresets) {
    els.chatPresets.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-preset]");
      if (button) send({ type: "chat", preset: button.dataset.preset });
    });
  }
  if (els.chatForm) {
    els.chatForm.addEventListener("submit", (event) => {
      event.preventDefault();
      if (canSendText(chat, els.chatText.value, Date.now(), serverNow())) send({ type: "chat", text: cleanText(els.chatText.value) });
    });
    els.chatText.addEventListener("input", () => {
      els.chatCount.textContent = counterText(els.chatText.value);
    });
  }
  if (els.chatMute) {
    els.chatMute.addEventListener("change", () => send({ type: "chat_mute", muted: els.chatMute.checked }));
  }
  if (els.chatLog) {
    els.chatLog.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-report]");
      if (button) send({ type: "chat_report", id: Number(button.dataset.report) });
    });
  }

  function line(message) {
    const item = document.createElement("li");
    item.className = "chat-line" + (message.mine ? " is-mine" : "");
    const who = document.createElement("span");
    who.className = "chat-who";
    who.textContent = senderLabel(message, state.game) + ":";
    const text = document.createElement("span");
    text.className = "chat-text";
    text.textContent = " " + message.text;
    item.append(who, text);
    if (canReport(chat, message)) {
      const report = document.createElement("button");
      report.type = "button";
      report.className = "btn btn-quiet chat-report";
      report.dataset.report = String(message.id);
      report.textContent = gettext("Report");
      report.setAttribute("aria-label", interpolate(gettext("Report the message: %(text)s"), { text: message.text }, true));
      item.append(" ", report);
    }
    return item;
  }

  function draw() {
    if (!els.chat) return;
    const on = shown();
    els.chat.hidden = !on;
    if (!on) return;
    els.chatLog.replaceChildren(...chat.messages.map(line));
    els.chatLog.hidden = chat.messages.length === 0;
    els.chatLog.scrollTop = els.chatLog.scrollHeight;
    if (els.chatMute) els.chatMute.checked = chat.muted;
    const closed = !canSend(chat, serverNow());
    els.chatNote.textContent = noteNow(chat, Date.now()) || (closed ? gettext("The game is over: its chat is closed.") : "");
    const quiet = Date.now() < chat.quietUntil;
    for (const button of els.chatPresets.querySelectorAll("button")) button.disabled = quiet || closed;
    if (els.chatForm) {
      for (const field of els.chatForm.querySelectorAll("input, button")) field.disabled = closed;
    }
    if (els.chatCount) els.chatCount.textContent = counterText(els.chatText.value);
  }

  /** A snapshot (a new `chat` object): the page takes its messages. */
  function onGame(game) {
    if (game.chat === shownChat) return;
    shownChat = game.chat;
    chat = takeSnapshot(chat, game.chat);
    closeOnTime();
  }

  /** After the end of the game, the panel is drawn again when sending closes (`until`). */
  function closeOnTime() {
    window.clearTimeout(closing);
    const left = chat.until === null ? 0 : chat.until - serverNow();
    if (left > 0) {
      closing = window.setTimeout(draw, left + 50);
    }
  }

  /** A chat frame: kept, drawn and, from someone else, said. Returns whether it was the chat's. */
  function onFrame(frame) {
    const done = applyFrame(chat, frame, Date.now());
    if (!done) return false;
    if (done.kind === "message" && done.message.mine && !done.message.preset && els.chatText
      && cleanText(els.chatText.value) === done.message.text) {
      els.chatText.value = "";
    }
    if (done.kind === "error" && chat.quietUntil > Date.now()) {
      window.setTimeout(draw, chat.quietUntil - Date.now() + 50);
    }
    if (done.kind === "muted" && !chat.muted) {
      connection.send({ type: "snapshot" }); // what the opponent said while muted
    }
    if (shown()) {
      draw();
      if (done.kind === "message" && els.chatAnnounce) {
        const said = announcement(done.message, state.game);
        if (said) els.chatAnnounce.textContent = said;
      }
    }
    return true;
  }

  closeOnTime();
  return { draw, onGame, onFrame };
}
