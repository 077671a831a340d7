/*
 * The live game room (templates/games/game.html): follows the game of docs/protocol.md, draws
 * it with ../board.js, lets the player stage a turn by walking the server's `legal.graph` and
 * sends the frames. No rule is computed here: what may move and where comes only from the
 * graph; the server judges.
 *
 * This module wires the others: state.js (the one state), protocol.js (events and snapshots as
 * data), socket.js (the game frames on the page's live socket, ../live/socket.js), staging.js,
 * texts.js, board-view.js, panels.js, clocks.js, controls.js, coach.js (hints), rematch.js,
 * chat.js and announce.js. A snapshot and an applied event take the same path, onGame, so the page does
 * the same whichever way a change arrived. Interface text goes through Django's JavaScript
 * catalogue (gettext, ngettext, interpolate).
 */
import { describePosition, fmt, positionBoards, prefersReducedMotion } from "../board.js";
import { socketUrl } from "../live/socket.js";
import { createAnnouncer } from "./announce.js";
import { createBoardView } from "./board-view.js";
import { createChat } from "./chat.js";
import { CLOCK_TICK_MS, createClocks, noteClockOffset } from "./clocks.js";
import { createCoach } from "./coach.js";
import { createControls } from "./controls.js";
import { createPanels, gameUrl } from "./panels.js";
import { playedSince } from "./protocol.js";
import { createRematch } from "./rematch.js";
import { createConnection } from "./socket.js";
import { createState, loadSettings, myTurn, you } from "./state.js";
import { isBot, openingLine, playText, ratingLines, resultReason, resultTitle, statusText } from "./texts.js";
import { createTurnNotice } from "./turn-notice.js";

const NEXT_GAME_S = 6; // seconds before a match moves on to its next game

const root = document.getElementById("game");
if (root) start(root);

function elements() {
  const $ = (id) => document.getElementById(id);
  return {
    root: $("game"),
    board: $("board"),
    players: $("players"),
    match: $("match-score"),
    connection: $("connection"),
    presence: $("presence"),
    presenceText: $("presence-text"),
    outageNote: $("outage-note"),
    claim: $("claim-btn"),
    opening: $("opening"),
    status: $("status"),
    message: $("message"),
    announce: $("announce"),
    roll: $("roll-btn"),
    double: $("double-btn"),
    take: $("take-btn"),
    drop: $("drop-btn"),
    undo: $("undo-btn"),
    confirm: $("confirm-btn"),
    pass: $("pass-btn"),
    resign: $("resign-btn"),
    coach: $("coach"),
    hint: $("hint-btn"),
    coachNote: $("coach-note"),
    moveForm: $("move-form"),
    moveText: $("move-text"),
    result: $("result"),
    resultTitle: $("result-title"),
    resultExplain: $("result-explain"),
    resultReason: $("result-reason"),
    resultMatch: $("result-match"),
    resultRating: $("result-rating"),
    watching: $("watching"),
    next: $("next-game"),
    nextLink: $("next-game-link"),
    nextNote: $("next-game-note"),
    again: $("again-form"),
    rematch: $("rematch"),
    rematchNote: $("rematch-note"),
    rematchOffer: $("rematch-btn"),
    rematchDecline: $("rematch-decline-btn"),
    rematchLink: $("rematch-link"),
    againButton: $("again-btn"),
    lastPlay: $("last-play"),
    legend: $("numbering-legend"),
    history: $("history-list"),
    historyBox: $("history"),
    share: $("share-btn"),
    shareNote: $("share-note"),
    replay: $("replay-link"),
    record: $("record-link"),
    seedHash: $("seed-hash"),
    chat: $("chat"),
    chatLog: $("chat-log"),
    chatAnnounce: $("chat-announce"),
    chatPresets: $("chat-presets"),
    chatForm: $("chat-form"),
    chatText: $("chat-text"),
    chatCount: $("chat-count"),
    chatMute: $("chat-mute"),
    chatNote: $("chat-note"),
    settings: {
      animate: $("set-animate"),
      sound: $("set-sound"),
      autoConfirm: $("set-auto-confirm"),
      autoPlay: $("set-auto-play"),
      autoPass: $("set-auto-pass"),
      reader: $("set-reader"),
      hints: $("set-hints"),
      turnSound: $("set-turn-sound"),
      chat: $("set-chat"),
    },
  };
}

function browserStorage() {
  try {
    return window.localStorage;
  } catch (err) {
    return null; // refused (e.g. blocked cookies): the settings last for this page only
  }
}

function start(rootEl) {
  const els = elements();
  const storage = browserStorage();
  const data = JSON.parse(document.getElementById("initial-snapshot").textContent);
  const state = createState({
    game: data && data.type === "snapshot" && data.game ? data.game : data,
    isPlayer: rootEl.dataset.isPlayer === "true",
    wsPath: rootEl.dataset.wsPath,
    settings: loadSettings(storage, prefersReducedMotion()),
  });

  const say = createAnnouncer(els, state);
  const board = createBoardView(els, state, { render, tone: say.tone });
  const panels = createPanels(els, state);
  const clocks = createClocks(els, state, say.announce);
  const connection = createConnection({
    url: socketUrl(state.wsPath),
    state,
    onGame,
    onFrame,
    onChange: render,
    onSessionChanged: () => window.location.reload(),
  });
  const controls = createControls(els, state, {
    connection, say, render, stopAnimation: board.stopAnimation, storage, board,
  });
  const coach = createCoach(els, state, { connection });
  const chat = createChat(els, state, { connection });
  const rematch = createRematch(els, state, { connection, go: (url) => window.location.assign(url) });
  const turn = createTurnNotice({
    doc: document,
    state,
    turnIcon: rootEl.dataset.turnIcon,
    yourTurn: gettext("Your turn"),
    chime: say.chime,
  });

  function render() {
    const { pips, off } = board.draw();
    panels.drawPlayers(pips, off);
    clocks.draw();
    panels.drawPage();
    controls.draw();
    coach.draw();
    rematch.draw();
    chat.draw();
    turn.update();
    rootEl.dataset.phase = state.game.phase || "";
    rootEl.dataset.version = String(state.game.version);
    rootEl.dataset.gameId = String(state.game.id);
    // Lets tests and styles know whether the page may act now (connected, nothing in flight).
    rootEl.dataset.ready = String(state.connected && !state.pending && !state.anim);
    rootEl.classList.toggle("my-turn", myTurn(state));
    // For whatever wraps the page (static/js/telegram-app.js: the closing confirmation).
    tell("room:drawn", { playing: state.isPlayer && state.game.status === "active" });
  }

  /** A DOM event on the room's root: `name` with `detail`, for the page's wrappers. */
  function tell(name, detail) {
    rootEl.dispatchEvent(new CustomEvent(name, { bubbles: true, detail }));
  }

  /** After a change is shown: the automatic play, and a match's move to its next game. */
  function afterGame() {
    controls.guideFocus();
    controls.maybeAutoPlay();
    const m = state.game.match;
    if (state.game.status === "finished" && m && m.next_game && !state.nextTimer) {
      // The match goes on in its next game: move there after a short look at the result.
      let left = NEXT_GAME_S;
      const tick = () => {
        if (els.nextNote) els.nextNote.textContent = fmt(gettext("The next game starts in %(s)s s."), { s: left });
        if (left <= 0) {
          window.location.assign(gameUrl(state.game, m.next_game));
          return;
        }
        left -= 1;
        state.nextTimer = window.setTimeout(tick, 1000);
      };
      tick();
    }
  }

  /**
   * A newer (or same-version) game: a snapshot's, or the one an event made. Says the
   * opponent's play and the result, slides the checkers, then redraws.
   */
  function onGame(game) {
    const previous = state.game;
    const sameGame = previous && previous.id === game.id;
    const newer = !sameGame || game.version !== previous.version;
    const last = game.last;
    const freshPlay = Boolean(sameGame && last && last.version > previous.version
      && (!previous.last || previous.last.version !== last.version));
    if (newer) {
      state.staged = [];
      state.selected = null;
      say.showError(""); // an error about an older version no longer applies
    }
    controls.noteGame(game, sameGame);
    chat.onGame(game);
    state.game = game;
    // An event that leaves the clock alone keeps the old block: its server_time is old news.
    if (!sameGame || game.clock !== previous.clock) noteClockOffset(state, game);
    state.pending = false;
    if (state.anim) board.stopAnimation();
    const theirs = freshPlay && last.side !== you(state);
    const slides = theirs && last.play && state.settings.animate && !prefersReducedMotion();
    if (sameGame && playedSince(game.history, you(state), previous.version)) coach.ownPlay();
    const said = [];
    // what the viewer is to do next is said once the opponent's play has slid into place,
    // when the controls come on: a screen reader hears "your turn" with the button, not before
    const afterSlide = [];
    if (theirs) {
      said.push(playText(game, last.side, last.dice || [], last.play));
      if (state.settings.reader) said.push(describePosition(positionBoards(game.position).boards, you(state)));
    }
    if (sameGame && newer && state.isPlayer && previous.phase === "roll" && game.phase === "play"
      && game.turn === you(state)) {
      tell("room:rolled", { dice: game.dice || [] });
    }
    if (newer && game.status !== "active" && game.result && previous && previous.status === "active") {
      say.tone("end");
      tell("room:ended", { player: state.isPlayer, won: game.result.winner === you(state) });
      said.push(resultTitle(game, game.result), resultReason(game, game.result));
      ratingLines(game, game.result).forEach(([, text]) => said.push(text + "."));
    } else if (sameGame && (newer || !state.saidStatus)) {
      // What the viewer is to do, or waits for, when it changed: the own roll ("You rolled
      // 5-4..."), a forced pass, a double offered or taken, the opponent rolling. A wait for
      // the computer is not said: its move comes at once and is said itself. The first time
      // (the page has just connected) the opening roll is said before it.
      const status = statusText(state);
      const waitsForBot = game.turn && game.turn !== you(state) && isBot(game, game.turn);
      if (!state.saidStatus && game.status === "active") {
        const opening = openingLine(game);
        if (opening) said.push(opening);
      }
      if (status !== state.saidStatus && !waitsForBot) (slides ? afterSlide : said).push(status);
      state.saidStatus = status;
    }
    say.announce(said.join(" "));
    if (slides) {
      board.animateLast(game, () => {
        afterGame();
        say.announce(afterSlide.join(" "));
      });
      return;
    }
    render();
    afterGame();
  }

  function onFrame(frame) {
    if (coach.onFrame(frame)) return;
    if (rematch.onFrame(frame)) return;
    if (chat.onFrame(frame)) return;
    if (frame.type === "why") controls.onWhy(frame);
    else if (frame.type === "error") controls.onError(frame);
  }

  noteClockOffset(state, state.game);
  render();
  afterGame();
  // The clocks and the away countdowns move on between changes.
  window.setInterval(() => {
    if (state.game.clock || state.game.presence || state.lostAt !== null) {
      clocks.draw();
      if (!state.connected && state.everConnected && !state.closedForGood) panels.drawConnection();
    }
  }, CLOCK_TICK_MS);
  // On a phone the site header would push the controls below the fold: start at the game.
  if (window.innerWidth < 600 && window.scrollY === 0 && !window.location.hash) {
    rootEl.scrollIntoView({ block: "start" });
  }
  if (state.wsPath) {
    connection.connect();
    window.setTimeout(() => {
      state.slowStart = true;
      if (!state.connected) render();
    }, 1000);
  }
}
