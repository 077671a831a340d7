/*
 * Everything around the board that only shows the game: the players' boxes (names linked to
 * their pages, ratings in rated games, pips, cube, the places of the clocks), the status lines,
 * the history, the result with the rating change and the next game of a match, the links, and
 * the connection banner. Onlookers are told they are watching.
 */
import { SIDES, diceText, fmt, sideName } from "../board.js";
import { you } from "./state.js";
import {
  betweenPeople, hasAccount, historyEntryText, isBot, lastPlayText, lostText,
  matchResultText, matchText, openingLine, ratingLabel, ratingLines,
  resultExplain, resultReason, resultTitle, statusText, who,
} from "./texts.js";

/**
 * The address of another game of the match, made from this game's.
 * @param {Object} game  `links.game`: this game's page
 * @param {string} gameId
 * @returns {string}
 */
export function gameUrl(game, gameId) {
  const here = (game.links && game.links.game) || window.location.pathname;
  return here.replace(/[0-9a-f-]{36}\/?$/, gameId + "/");
}

/**
 * A signed-in player's name linking to their page. `text` is the name as shown ("Anna" or
 * "Anna (you)"): a long name is cut on screen (board.css) but not the words around it, and
 * the tooltip keeps the name whole.
 */
function nameLink(player, text) {
  const link = document.createElement("a");
  link.href = player.profile;
  link.title = player.name;
  const at = text.indexOf(player.name);
  const parts = at < 0 ? [text]
    : [text.slice(0, at), player.name, text.slice(at + player.name.length)];
  parts.forEach((part, index) => {
    if (!part) return;
    const span = document.createElement("span");
    span.className = at < 0 || index === 1 ? "player-name__text" : "player-name__more";
    span.textContent = part;
    link.appendChild(span);
  });
  return link;
}

/** A rating beside a name: "1500" and, while provisional, a "?" mark that says why. */
function ratingBadge(rating, provisional) {
  const badge = document.createElement("span");
  badge.className = "player-rating";
  badge.textContent = String(rating);
  if (provisional) badge.appendChild(provisionalMark());
  badge.setAttribute("aria-hidden", "true"); // the row's label says it in words
  return badge;
}

function provisionalMark() {
  const mark = document.createElement("span");
  mark.className = "provisional-mark";
  mark.textContent = "?";
  mark.title = gettext("Provisional rating: it is still uncertain after few rated games.");
  return mark;
}

/**
 * @param {Object<string, HTMLElement>} els  the room's elements (main.js)
 * @param {RoomState} state
 * @returns {{drawPlayers: (pips: Object, off: Object) => void, drawPage: () => void,
 *   drawConnection: () => void}}
 */
export function createPanels(els, state) {
  /** The players' boxes; their clocks are filled in by clocks.js. */
  function drawPlayers(pips, off) {
    const game = state.game;
    const cube = game.cube;
    const people = betweenPeople(game);
    const clocked = Boolean(game.clock);
    els.players.replaceChildren();
    // while a play slides on the board its mover still has the turn, as the status says
    const mover = state.anim && game.last ? game.last.side : game.awaiting || game.turn;
    for (const side of SIDES) {
      const player = (game.players && game.players[side]) || {};
      const row = document.createElement("div");
      const isTurn = game.status === "active" && mover === side;
      row.className = "player player-" + side + (isTurn ? " is-turn" : "");
      row.dataset.side = side;
      const chip = document.createElement("span");
      chip.className = "player-chip chip-" + side;
      chip.setAttribute("aria-hidden", "true");
      const name = document.createElement("span");
      name.className = "player-name";
      const account = hasAccount(game, side);
      const rating = game.rated && account && typeof player.rating === "number";
      const shownName = account ? player.name : (people ? who(game, side) : (player.name || sideName(side)));
      const nameText = game.you === side && (account || !people)
        ? fmt(gettext("%(name)s (you)"), { name: shownName })
        : shownName;
      if (account) {
        // A signed-in player: the name links to their page; in a rated game the rating follows.
        name.appendChild(nameLink(player, nameText));
        if (rating) name.appendChild(ratingBadge(player.rating, player.provisional));
      } else {
        name.textContent = nameText;
      }
      row.append(chip, name);
      const withClock = clocked && !isBot(game, side);
      if (withClock) {
        const time = document.createElement("span");
        time.className = "player-clock";
        time.dataset.clock = side;
        row.appendChild(time);
      }
      const nums = document.createElement("span");
      nums.className = "player-nums";
      const pipText = document.createElement("span");
      pipText.textContent = fmt(gettext("pips %(pips)s"), { pips: pips[side] });
      const offText = document.createElement("span");
      offText.textContent = fmt(gettext("off %(off)s"), { off: off[side] });
      nums.append(pipText, offText);
      if (cube && cube.owner === side) {
        const cubeText = document.createElement("span");
        cubeText.className = "player-cube";
        cubeText.textContent = fmt(gettext("cube %(value)s"), { value: cube.value });
        nums.appendChild(cubeText);
      }
      row.appendChild(nums);
      let label = fmt(gettext("%(side)s: %(name)s, pip count %(pips)s, borne off %(off)s"),
        { side: sideName(side), name: shownName, pips: pips[side], off: off[side] });
      if (rating) label += ". " + ratingLabel(player.rating, player.provisional);
      if (cube && cube.owner === side) label += ". " + fmt(gettext("Owns the cube at %(value)s"), { value: cube.value });
      if (withClock) {
        const note = document.createElement("span");
        note.className = "player-turn player-clock-note";
        note.dataset.clockNote = side;
        row.appendChild(note);
      } else if (isTurn) {
        const turn = document.createElement("span");
        turn.className = "player-turn";
        turn.textContent = gettext("to move");
        row.appendChild(turn);
      }
      if (isTurn) label += ". " + gettext("to move");
      row.setAttribute("aria-label", label);
      els.players.appendChild(row);
    }
  }

  function drawLegend() {
    if (!els.legend) return;
    const mine = Boolean(you(state));
    els.legend.textContent = mine
      ? gettext("Point numbers are from your side: your head is 24.") + " "
        + gettext("A mark like ×2 on a point you may move to: the checker gets there with that many dice, one after the other.")
      : gettext("Point numbers are from white's side: white's head is 24.");
    els.board.parentElement.title = mine
      ? gettext("Points are numbered from your side: your head is 24, your home 1–6. The opponent's moves are shown in your numbering too.")
      : gettext("Points are numbered from white's side: white's head is 24, white's home 1–6.");
  }

  /** One line of the history. */
  function historyItem(game, entry) {
    const li = document.createElement("li");
    li.className = "history-item kind-" + entry.kind + " side-" + entry.side;
    const n = document.createElement("span");
    n.className = "history-n";
    n.textContent = String(entry.n);
    const chip = document.createElement("span");
    chip.className = "player-chip chip-" + entry.side;
    chip.setAttribute("aria-hidden", "true");
    const whoEl = document.createElement("span");
    whoEl.className = "history-who";
    whoEl.textContent = who(game, entry.side);
    // a long name is cut on screen (board.css); its tooltip keeps it whole
    if (hasAccount(game, entry.side) && entry.side !== you(state)) whoEl.title = whoEl.textContent;
    li.append(n, chip, whoEl);
    if (entry.kind === "play") {
      const dice = document.createElement("span");
      dice.className = "history-dice";
      dice.textContent = diceText(entry.dice);
      li.appendChild(dice);
    }
    const what = document.createElement("span");
    what.className = "history-play";
    what.textContent = historyEntryText(game, entry);
    li.appendChild(what);
    return li;
  }

  /**
   * The history: the lines it already shows stay; only new or changed ones are made. A line's
   * key is its entry and the name shown for its side (a name can change: a player signs in).
   */
  function drawHistory() {
    if (!els.history) return;
    const game = state.game;
    const history = game.history || [];
    els.historyBox.hidden = history.length === 0;
    const lines = history.map((entry) => ({
      key: JSON.stringify(entry) + "|" + who(game, entry.side) + "|" + hasAccount(game, entry.side),
      make: () => historyItem(game, entry),
    }));
    const result = game.status !== "active" ? game.result : null;
    if (result) {
      const title = resultTitle(game, result);
      lines.push({
        key: "result|" + title,
        make: () => {
          const li = document.createElement("li");
          li.className = "history-item history-result";
          li.textContent = title;
          return li;
        },
      });
    }
    const box = els.history;
    const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
    const shown = box.children;
    let same = 0;
    while (same < lines.length && same < shown.length && shown[same].dataset.key === lines[same].key) same += 1;
    while (shown.length > same) shown[shown.length - 1].remove();
    for (const line of lines.slice(same)) {
      const li = line.make();
      li.dataset.key = line.key;
      box.appendChild(li);
    }
    if (atEnd) box.scrollTop = box.scrollHeight;
  }

  function drawResult() {
    const game = state.game;
    const result = game.status !== "active" ? game.result : null;
    els.result.hidden = !result;
    if (!result) {
      window.clearTimeout(state.nextTimer);
      return;
    }
    els.resultTitle.textContent = resultTitle(game, result);
    els.resultExplain.textContent = resultExplain(result);
    els.resultReason.textContent = resultReason(game, result);
    drawRatingChange(result);
    const m = game.match;
    if (els.resultMatch) {
      els.resultMatch.hidden = !m;
      els.resultMatch.textContent = m ? matchResultText(game) : "";
    }
    const next = m && m.next_game ? m.next_game : null;
    if (els.next) {
      els.next.hidden = !next;
      if (next && els.nextLink) els.nextLink.href = gameUrl(game, next);
    }
    // A match goes on with its next game; a single game (or a finished match) offers a new one.
    if (els.again) els.again.hidden = Boolean(m && m.status === "active");
  }

  function drawRatingChange(result) {
    if (!els.resultRating) return;
    const lines = ratingLines(state.game, result);
    els.resultRating.hidden = !lines.length;
    els.resultRating.replaceChildren(...lines.map(([side, text, change]) => {
      const item = document.createElement("li");
      item.className = "result-rating-line" + (change.delta > 0 ? " is-up" : change.delta < 0 ? " is-down" : "");
      item.dataset.side = side;
      item.textContent = text;
      if (change.provisional) {
        item.appendChild(provisionalMark());
        const words = document.createElement("span");
        words.className = "visually-hidden";
        words.textContent = " " + gettext("(provisional)");
        item.appendChild(words);
      }
      return item;
    }));
  }

  function drawLinks() {
    const game = state.game;
    const links = game.links || {};
    // The replay and the record open to onlookers only once the game is over.
    const closed = !state.isPlayer && game.status === "active";
    if (els.replay) {
      els.replay.hidden = !links.replay || closed;
      if (links.replay) els.replay.href = links.replay;
    }
    if (els.record) {
      els.record.hidden = !links.record || closed;
      if (links.record) els.record.href = links.record;
    }
    if (els.share) els.share.hidden = !links.share;
    const fairness = game.fairness;
    if (els.seedHash) {
      els.seedHash.textContent = fairness && fairness.seed_hash ? fairness.seed_hash : "";
      els.seedHash.closest("[data-fairness]").hidden = !(fairness && fairness.seed_hash);
    }
  }

  /** The banner about this page's own connection. */
  function drawConnection() {
    if (state.closedForGood) {
      els.connection.hidden = false;
      els.connection.textContent = state.closedForGood === 4404
        ? gettext("This game does not exist.")
        : gettext("You cannot follow this game.");
    } else if (!state.connected && state.tooManySockets) {
      els.connection.hidden = false;
      els.connection.textContent = gettext("Too many pages of this site are open at once: please close some other tabs of the site. This page tries to connect again every 30 seconds.");
    } else if (!state.connected && state.everConnected) {
      els.connection.hidden = false;
      els.connection.textContent = lostText(state, Date.now());
    } else if (!state.connected && state.slowStart) {
      els.connection.hidden = false;
      els.connection.textContent = gettext("Connecting…");
    } else {
      els.connection.hidden = true;
      els.connection.textContent = "";
    }
  }

  /** Everything but the players' boxes, the clocks and the controls. */
  function drawPage() {
    const game = state.game;
    const match = matchText(game);
    els.match.hidden = !match;
    els.match.textContent = match;
    const opening = openingLine(game);
    els.opening.hidden = !opening || game.status !== "active";
    els.opening.textContent = opening;
    els.status.textContent = statusText(state);
    els.lastPlay.textContent = lastPlayText(game);
    drawLegend();
    drawHistory();
    drawResult();
    drawLinks();
    // Onlookers are told they are watching while the game goes on.
    if (els.watching) els.watching.hidden = state.isPlayer || game.status !== "active";
    drawConnection();
  }

  return { drawPlayers, drawPage, drawConnection };
}
