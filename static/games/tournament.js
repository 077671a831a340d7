/*
 * Tournaments (templates/games/tournaments.html, tournament.html and a tournament game's
 * page; docs/protocol.md "Tournaments").
 *
 * Everywhere: <time data-local-time> shows its moment in the reader's own time.
 * On an event's page (#tournament) and on the page of one of its games (#tournament-follow),
 * the event's socket is opened (and opened again after a drop); a signed-in player's open
 * socket is what keeps them in the arena's pairing. A "paired" frame (a game of this player
 * has started) shows #t-next with a countdown to the game's clock and opens the game when
 * it reaches zero (or at once with the link). On the event's page every "tournament" frame
 * redraws the status, the player count, the standings or the bracket, the winners, the games
 * being played and the player's own line; the time left counts down by the server's clock.
 * Interface text comes from Django's JavaScript catalogue.
 */
(function () {
  "use strict";

  const RETRY_MS = [500, 1000, 2000, 4000, 8000];
  const CLOSE_NOT_FOUND = 4404;
  const CLOSE_TOO_MANY_SOCKETS = 4429;
  const TOO_MANY_RETRY_MS = 30000;
  const lang = document.documentElement.lang || undefined;

  function fmt(text, values) {
    return interpolate(text, values, true);
  }

  function localTimes() {
    const today = new Date().toDateString();
    for (const node of document.querySelectorAll("time[data-local-time]")) {
      const when = new Date(node.getAttribute("datetime"));
      if (Number.isNaN(when.getTime())) continue;
      const options = { hour: "numeric", minute: "2-digit" };
      if (when.toDateString() !== today) Object.assign(options, { day: "numeric", month: "long" });
      node.textContent = new Intl.DateTimeFormat(lang, options).format(when);
    }
  }

  function mmss(ms) {
    const seconds = Math.max(0, Math.ceil(ms / 1000));
    const hours = Math.floor(seconds / 3600);
    const rest = String(Math.floor((seconds % 3600) / 60)).padStart(hours ? 2 : 1, "0") + ":" + String(seconds % 60).padStart(2, "0");
    return hours ? hours + ":" + rest : rest;
  }

  localTimes();

  const page = document.getElementById("tournament");
  const follow = document.getElementById("tournament-follow");
  const root = page || follow;
  if (!root || !root.dataset.wsPath) return;

  let offset = 0; // server time minus this browser's time (ms)
  let state = null;
  let socket = null;
  let retries = 0;
  let opening = null; // the game being announced: {url, startsAt}

  const next = document.getElementById("t-next");
  const nextText = document.getElementById("t-next-text");
  const nextLink = document.getElementById("t-next-link");

  function now() {
    return Date.now() + offset;
  }

  function tick() {
    if (opening) {
      const left = opening.startsAt - now();
      if (left <= 0) {
        window.location.assign(opening.url);
        opening.startsAt = Infinity; // once
      } else {
        nextText.textContent = fmt(gettext("Your next game starts in %(time)s."), { time: mmss(left) });
      }
    }
    if (page) countdown();
  }

  function announce(frame) {
    if (frame.url === window.location.pathname) return; // this very game's page
    offset = frame.server_time - Date.now();
    opening = { url: frame.url, startsAt: frame.starts_at };
    nextLink.href = frame.url;
    next.hidden = false;
    tick();
  }

  // --- the event's page -------------------------------------------------------------------

  // Each countdown on its own line: the time to the start on "Start", the time left on "End".
  function countdown() {
    if (!state) return;
    const startsIn = document.getElementById("t-starts-in");
    const endsIn = document.getElementById("t-countdown");
    let toStart = "";
    let toEnd = "";
    if (state.status === "upcoming" && state.starts_at) {
      toStart = fmt(gettext("in %(time)s"), { time: mmss(state.starts_at - now()) });
    } else if (state.status === "running" && state.ends_at) {
      const left = state.ends_at - now();
      toEnd = left > 0 ? fmt(gettext("%(time)s left"), { time: mmss(left) })
        : gettext("time is up: the last games are being finished");
    }
    if (startsIn) startsIn.textContent = toStart ? "(" + toStart + ")" : "";
    if (endsIn) endsIn.textContent = toEnd ? "(" + toEnd + ")" : "";
  }

  function gameUrl(id) {
    return page.dataset.gameUrl.replace("00000000-0000-0000-0000-000000000000", id);
  }

  function playerLink(user, names) {
    const link = document.createElement("a");
    link.href = page.dataset.playerUrl.replace(/0\/$/, user + "/");
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

  const STATUS = {
    upcoming: () => pgettext("tournament", "Open for entries"),
    running: () => pgettext("tournament", "Under way"),
    finished: () => pgettext("tournament", "Finished"),
    cancelled: () => pgettext("tournament", "Called off"),
  };

  function drawStandings(names, me) {
    const body = document.getElementById("t-standings-body");
    if (!body) return;
    body.replaceChildren();
    if (!state.standings.length) {
      const row = body.insertRow();
      cell(row, gettext("Nobody has entered yet.")).colSpan = 7;
      return;
    }
    state.standings.forEach((entry, index) => {
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
      let now = "";
      if (entry.playing) {
        now = document.createElement("a");
        now.href = gameUrl(entry.playing);
        now.textContent = gettext("playing");
      } else if (!entry.active) now = gettext("left");
      else if (entry.away) now = gettext("away");
      cell(row, now);
    });
  }

  function roundName(number, rounds) {
    const left = rounds - number;
    if (left === 0) return gettext("Final");
    if (left === 1) return gettext("Semi-finals");
    if (left === 2) return gettext("Quarter-finals");
    return fmt(gettext("Round %(number)s"), { number: number });
  }

  function drawBracket(names) {
    const box = document.getElementById("t-bracket");
    if (!box || !state.bracket.length) return;
    box.replaceChildren();
    for (let number = 1; number <= state.rounds; number += 1) {
      const round = document.createElement("section");
      round.className = "t-round";
      round.setAttribute("aria-label", roundName(number, state.rounds));
      const title = document.createElement("h3");
      title.textContent = roundName(number, state.rounds);
      const list = document.createElement("ol");
      round.append(title, list);
      for (const slot of state.bracket.filter((s) => s.round === number)) {
        const item = document.createElement("li");
        item.className = "t-slot";
        item.dataset.status = slot.status;
        if (number === state.rounds && slot.slot === 1) {
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
        if (slot.score) score.textContent = slot.score[0] + "–" + slot.score[1];
        else if (slot.outcome === "bye") score.textContent = gettext("bye");
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
          watch.href = gameUrl(slot.game).replace(/game\/[^/]+\/$/, "match/" + slot.match + "/");
          watch.textContent = slot.status === "playing" ? gettext("watch") : gettext("games");
          item.append(watch);
        }
        list.append(item);
      }
      box.append(round);
    }
  }

  function drawGames(names) {
    const list = document.getElementById("t-games");
    list.replaceChildren();
    for (const game of state.games) {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = gameUrl(game.game);
      link.textContent = (names[game.white] || "") + " – " + (names[game.black] || "");
      item.append(link);
      list.append(item);
    }
    if (!state.games.length) {
      const item = document.createElement("li");
      item.className = "ng-note";
      item.textContent = gettext("None right now.");
      list.append(item);
    }
  }

  function drawYou(me) {
    const box = document.getElementById("t-you");
    const text = document.getElementById("t-you-text");
    const link = document.getElementById("t-your-game");
    const mine = state.standings.find((entry) => entry.user === me);
    box.hidden = !mine;
    if (!mine) return;
    link.hidden = !mine.playing;
    if (mine.playing) link.href = gameUrl(mine.playing);
    if (state.status === "finished") {
      text.textContent = mine.place ? fmt(gettext("Your place: %(place)s."), { place: mine.place }) : "";
    } else if (mine.withdrawn) {
      text.textContent = page.dataset.withdrawal; // the server's words, in the page's language
    } else if (!mine.active && mine.playing) {
      text.textContent = gettext("You have left this event: the game under way still counts, and you will not be paired again.");
    } else if (!mine.active) {
      text.textContent = gettext("You have left this event; your points stay in the standings.");
    } else if (mine.away) {
      text.textContent = gettext("You are marked away and are not being paired. Press “Play again” to come back.");
    } else if (mine.playing) {
      text.textContent = gettext("You are playing a game of this event.");
    } else if (state.status === "upcoming") {
      text.textContent = gettext("You are entered. Keep this page open: your games are announced here.");
    } else {
      text.textContent = gettext("You are in. Keep this page open: your next game is announced here.");
    }
  }

  // The forms that apply now (the server's rules, tournament_views.tournament_page).
  function drawActions(mine) {
    const joinForm = document.getElementById("t-join-form");
    const leaveForm = document.getElementById("t-leave-form");
    const signIn = document.getElementById("t-sign-in");
    const full = state.kind === "cup" && state.entrants >= state.size;
    const open = (state.status === "upcoming" && !full)
      || (state.status === "running" && state.kind === "arena" && now() < state.ends_at);
    if (signIn) signIn.hidden = !open;
    if (!joinForm) return;
    // an entrant the event withdrew (quick losses) may not come back: the server refuses it
    const comesBack = !mine || (!mine.active && !mine.withdrawn) || mine.away;
    joinForm.hidden = !(open && comesBack);
    document.getElementById("t-join").textContent = mine ? gettext("Play again") : gettext("Join");
    leaveForm.hidden = !(mine && (state.status === "upcoming"
      || (state.status === "running" && state.kind === "arena" && mine.active)));
    document.getElementById("t-leave").textContent = state.status === "upcoming"
      ? gettext("Withdraw") : gettext("Leave (keep my points)");
  }

  function draw() {
    const me = Number(page.dataset.user) || null;
    const names = {};
    for (const entry of state.standings) names[entry.user] = entry.name;
    const status = document.getElementById("t-status");
    if (status.dataset.status !== state.status) {
      status.dataset.status = state.status;
      status.textContent = (STATUS[state.status] || STATUS.running)();
    }
    drawActions(state.standings.find((entry) => entry.user === me));
    document.getElementById("t-full").hidden = !state.full;
    const undrawn = document.getElementById("t-undrawn");
    if (undrawn && state.bracket.length) undrawn.hidden = true;
    document.getElementById("t-count").textContent = state.size
      ? fmt(gettext("%(count)s of %(size)s"), { count: state.entrants, size: state.size })
      : String(state.entrants);
    drawStandings(names, me);
    const legend = document.getElementById("t-legend");
    if (legend) legend.hidden = state.status !== "running"; // "×2" marks only a running arena
    drawBracket(names);
    drawGames(names);
    drawYou(me);
    const podium = document.getElementById("t-podium");
    const podiumList = document.getElementById("t-podium-list");
    podiumList.replaceChildren(...state.podium.map((row) => {
      const item = document.createElement("li");
      item.append(playerLink(row.user, names));
      return item;
    }));
    podium.hidden = !state.podium.length;
    countdown();
  }

  // What the arena scored for a decided game (a standings row's `last`), as
  // games/tournaments/reading.py result_text says it: not the game's own points.
  function arenaResultText(result, names, me) {
    if (!result.winner) return "";
    if (!result.points) return gettext("This win scores no arena points: the game was too short to count.");
    const kinds = { oin: gettext("oin"), mars: gettext("mars"), koks: gettext("koks") };
    const values = { name: names[result.winner] || "", points: result.points, kind: kinds[result.kind] || "" };
    let text = result.winner === me
      ? fmt(ngettext("You score %(points)s arena point for this %(kind)s.",
        "You score %(points)s arena points for this %(kind)s.", result.points), values)
      : fmt(ngettext("%(name)s scores %(points)s arena point for this %(kind)s.",
        "%(name)s scores %(points)s arena points for this %(kind)s.", result.points), values);
    if (result.doubled) text += " " + gettext("Doubled by the win streak.");
    return text;
  }

  // On a tournament game's page: what the event made of this game, and whether its player is
  // still being paired (a no-show marks them away).
  function drawFollow(frame) {
    const note = document.getElementById("t-follow-note");
    const me = Number(follow.dataset.user) || null;
    const names = {};
    for (const entry of frame.standings) names[entry.user] = entry.name;
    const mine = frame.standings.find((entry) => entry.user === me);
    const slot = frame.bracket.find((row) => row.game === follow.dataset.game
      || (follow.dataset.match && row.match === follow.dataset.match));
    let text = "";
    if (slot && slot.outcome === "no_show" && slot.winner) {
      text = fmt(gettext("In the cup this counts as a no-show: %(name)s goes on."), { name: names[slot.winner] || "" });
    } else if (mine && mine.away && frame.status === "running") {
      text = gettext("You are marked away and are not being paired: open the tournament's page to come back.");
    }
    note.textContent = text;
    note.hidden = !text;
    const arena = document.getElementById("result-arena");
    const row = frame.standings.find((entry) => entry.last && entry.last.game === follow.dataset.game);
    if (arena && row) {
      arena.textContent = arenaResultText(row.last, names, me);
      arena.hidden = !arena.textContent;
    }
  }

  function onFrame(frame) {
    if (frame.type === "paired") {
      announce(frame);
    } else if (frame.type === "tournament" && page) {
      if (state && frame.version <= state.version) return;
      offset = frame.server_time - Date.now();
      state = frame;
      draw();
    } else if (frame.type === "tournament") {
      drawFollow(frame);
    }
  }

  function connect() {
    const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + window.location.host + root.dataset.wsPath);
    socket.addEventListener("open", () => { retries = 0; });
    socket.addEventListener("message", (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      onFrame(frame);
    });
    socket.addEventListener("close", (event) => {
      if (event.code === CLOSE_NOT_FOUND) return;
      const delay = event.code === CLOSE_TOO_MANY_SOCKETS
        ? TOO_MANY_RETRY_MS : RETRY_MS[Math.min(retries, RETRY_MS.length - 1)];
      retries += 1;
      window.setTimeout(connect, delay);
    });
  }

  if (page) {
    const initial = document.getElementById("tournament-state");
    if (initial) {
      state = JSON.parse(initial.textContent);
      offset = state.server_time - Date.now();
    }
  }
  window.setInterval(tick, 250);
  tick();
  connect();
})();
