/*
 * Tournaments (templates/games/tournaments.html, tournament.html and a tournament game's
 * page; docs/protocol.md "Tournaments").
 *
 * Everywhere: <time data-local-time> shows its moment in the reader's own time.
 * On an event's page (#tournament) and on the page of one of its games (#tournament-follow),
 * the event's socket is opened (live/socket.js: opened again after a drop, not after 4404); a
 * signed-in player's open socket is what keeps them in the arena's pairing. A "paired" frame
 * (a game of this player has started) shows #t-next with a countdown to the game's clock and
 * opens the game when it reaches zero (or at once with the link). On the event's page every
 * "tournament" frame redraws the status, the player count, the standings or the bracket, the
 * winners, the games being played and the player's own line; the time left counts down by the
 * server's clock. The state and its words are tournament-state.js; this module draws them.
 * Interface text comes from Django's JavaScript catalogue.
 */
import { createLiveSocket, socketUrl } from "./live/socket.js";
import {
  actions, announce, countText, countdowns, createTournamentState, followView, gameUrl,
  localTimeText, matchUrl, namesOf, openingNow, playerUrl, roundName, serverNow, slotScore,
  standingNow, statusText, takeEvent, youText,
} from "./tournament-state.js";

const TICK_MS = 250; // the countdowns are redrawn this often

const $ = (id) => document.getElementById(id);

function localTimes() {
  const lang = document.documentElement.lang || undefined;
  const today = new Date();
  for (const node of document.querySelectorAll("time[data-local-time]")) {
    const text = localTimeText(new Date(node.getAttribute("datetime")), lang, today);
    if (text !== null) node.textContent = text;
  }
}

localTimes();
const pageEl = $("tournament");
const followEl = $("tournament-follow");
const rootEl = pageEl || followEl;
if (rootEl && rootEl.dataset.wsPath) start(rootEl);

function start(root) {
  const initial = pageEl ? $("tournament-state") : null;
  const page = createTournamentState(initial ? JSON.parse(initial.textContent) : null);
  const next = { box: $("t-next"), text: $("t-next-text"), link: $("t-next-link") };

  function tick() {
    const opening = openingNow(page);
    if (opening && opening.go) window.location.assign(opening.go);
    else if (opening) next.text.textContent = opening.text;
    if (pageEl) drawCountdowns();
  }

  function onFrame(frame) {
    if (frame.type === "paired") {
      if (announce(page, frame, window.location.pathname)) {
        next.link.href = frame.url;
        next.box.hidden = false;
        tick();
      }
    } else if (frame.type === "tournament" && pageEl) {
      if (takeEvent(page, frame)) draw();
    } else if (frame.type === "tournament") {
      drawFollow(frame);
    }
  }

  // --- the event's page -------------------------------------------------------------------

  function drawCountdowns() {
    if (!page.event) return;
    const { start: toStart, end: toEnd } = countdowns(page.event, serverNow(page));
    const startsIn = $("t-starts-in");
    const endsIn = $("t-countdown");
    if (startsIn) startsIn.textContent = toStart;
    if (endsIn) endsIn.textContent = toEnd;
  }

  function playerLink(user, names) {
    const link = document.createElement("a");
    link.href = playerUrl(pageEl.dataset.playerUrl, user);
    link.textContent = names[user] || "";
    return link;
  }

  function cell(row, content) {
    const td = document.createElement("td");
    if (content instanceof Node) td.append(content);
    else td.textContent = content;
    row.append(td);
    return td;
  }

  function drawStandings(event, names, me) {
    const body = $("t-standings-body");
    if (!body) return;
    body.replaceChildren();
    if (!event.standings.length) {
      const row = body.insertRow();
      cell(row, gettext("Nobody has entered yet.")).colSpan = 7;
      return;
    }
    event.standings.forEach((entry, index) => {
      const row = body.insertRow();
      if (entry.user === me) row.className = "is-you";
      cell(row, String(entry.place || index + 1));
      const name = cell(row, playerLink(entry.user, names));
      if (entry.fire) {
        const fire = document.createElement("span");
        fire.className = "t-fire";
        fire.title = gettext("Two wins in a row: the next win counts double");
        fire.textContent = "×2";
        name.append(" ", fire);
      }
      cell(row, String(entry.score));
      cell(row, String(entry.wins));
      cell(row, String(entry.games));
      cell(row, String(entry.rating));
      const now = standingNow(entry);
      let shown = now.text;
      if (now.game) {
        shown = document.createElement("a");
        shown.href = gameUrl(pageEl.dataset.gameUrl, now.game);
        shown.textContent = now.text;
      }
      cell(row, shown);
    });
  }

  function drawBracket(event, names) {
    const box = $("t-bracket");
    if (!box || !event.bracket.length) return;
    box.replaceChildren();
    for (let number = 1; number <= event.rounds; number += 1) {
      const round = document.createElement("section");
      round.className = "t-round";
      round.setAttribute("aria-label", roundName(number, event.rounds));
      const title = document.createElement("h3");
      title.textContent = roundName(number, event.rounds);
      const list = document.createElement("ol");
      round.append(title, list);
      for (const slot of event.bracket.filter((s) => s.round === number)) {
        const item = document.createElement("li");
        item.className = "t-slot";
        item.dataset.status = slot.status;
        if (number === event.rounds && slot.slot === 1) {
          const label = document.createElement("span");
          label.className = "t-slot__label";
          label.textContent = gettext("Third place");
          item.append(label);
        }
        const player = (user) => {
          const span = document.createElement("span");
          span.className = "t-slot__player" + (user && slot.winner === user ? " is-winner" : "");
          span.textContent = user ? names[user] || "" : "—";
          return span;
        };
        const score = document.createElement("span");
        score.className = "t-slot__score";
        score.textContent = slotScore(slot);
        item.append(player(slot.white), score, player(slot.black));
        if (slot.outcome === "no_show") {
          const note = document.createElement("span");
          note.className = "t-slot__note";
          note.textContent = gettext("no-show");
          item.append(note);
        }
        if (slot.game) {
          const watch = document.createElement("a");
          watch.className = "t-slot__watch";
          watch.href = matchUrl(pageEl.dataset.gameUrl, slot.game, slot.match);
          watch.textContent = slot.status === "playing" ? gettext("watch") : gettext("games");
          item.append(watch);
        }
        list.append(item);
      }
      box.append(round);
    }
  }

  function drawGames(event, names) {
    const list = $("t-games");
    list.replaceChildren();
    for (const game of event.games) {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = gameUrl(pageEl.dataset.gameUrl, game.game);
      link.textContent = (names[game.white] || "") + " – " + (names[game.black] || "");
      item.append(link);
      list.append(item);
    }
    if (!event.games.length) {
      const item = document.createElement("li");
      item.className = "ng-note";
      item.textContent = gettext("None right now.");
      list.append(item);
    }
  }

  function drawYou(event, mine) {
    const box = $("t-you");
    const link = $("t-your-game");
    box.hidden = !mine;
    if (!mine) return;
    link.hidden = !mine.playing;
    if (mine.playing) link.href = gameUrl(pageEl.dataset.gameUrl, mine.playing);
    $("t-you-text").textContent = youText(event, mine, pageEl.dataset.withdrawal);
  }

  function drawActions(event, mine) {
    const shown = actions(event, mine, serverNow(page));
    const joinForm = $("t-join-form");
    const signIn = $("t-sign-in");
    if (signIn) signIn.hidden = !shown.signIn;
    if (!joinForm) return;
    joinForm.hidden = !shown.join;
    $("t-join").textContent = shown.joinLabel;
    $("t-leave-form").hidden = !shown.leave;
    $("t-leave").textContent = shown.leaveLabel;
  }

  function draw() {
    const event = page.event;
    const me = Number(pageEl.dataset.user) || null;
    const names = namesOf(event.standings);
    const mine = event.standings.find((entry) => entry.user === me);
    const status = $("t-status");
    if (status.dataset.status !== event.status) {
      status.dataset.status = event.status;
      status.textContent = statusText(event.status);
    }
    drawActions(event, mine);
    $("t-full").hidden = !event.full;
    const undrawn = $("t-undrawn");
    if (undrawn && event.bracket.length) undrawn.hidden = true;
    $("t-count").textContent = countText(event);
    drawStandings(event, names, me);
    const legend = $("t-legend");
    if (legend) legend.hidden = event.status !== "running"; // "×2" marks only a running arena
    drawBracket(event, names);
    drawGames(event, names);
    drawYou(event, mine);
    $("t-podium-list").replaceChildren(...event.podium.map((row) => {
      const item = document.createElement("li");
      item.append(playerLink(row.user, names));
      return item;
    }));
    $("t-podium").hidden = !event.podium.length;
    drawCountdowns();
  }

  // --- a tournament game's page -----------------------------------------------------------

  function drawFollow(frame) {
    const { note, arena } = followView(frame, {
      user: Number(followEl.dataset.user) || null,
      game: followEl.dataset.game,
      match: followEl.dataset.match,
    });
    const noteEl = $("t-follow-note");
    noteEl.textContent = note;
    noteEl.hidden = !note;
    const arenaEl = $("result-arena");
    if (arenaEl && arena !== null) {
      arenaEl.textContent = arena;
      arenaEl.hidden = !arena;
    }
  }

  // the tournament page says when its standings may be behind (a game page has its own notice)
  const offlineEl = $("t-offline");
  function showOffline(lost) {
    if (!offlineEl) return;
    offlineEl.textContent = lost ? gettext("Connection lost: reconnecting…") : "";
    offlineEl.hidden = !lost;
  }

  const live = createLiveSocket({
    url: socketUrl(root.dataset.wsPath),
    onFrame,
    onConnected: () => showOffline(false),
    onLost: () => showOffline(true),
  });
  window.setInterval(tick, TICK_MS);
  tick();
  live.connect();
}
