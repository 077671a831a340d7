/*
 * The live game room: follows the snapshots of docs/protocol.md, draws them with NardyBoard
 * (board.js), lets the player stage a turn by walking the server's `legal.graph` (one die at a
 * time, or several dice at once by tapping a far destination), and sends the frames. No rule is
 * computed here: what may move and where comes only from the graph; the server judges.
 *
 * Plays are always shown in the viewer's own numbering (RULES.md Notation; white's for an
 * onlooker): the opponent's plays are converted point by point (board.js playForViewer).
 *
 * Clocks (docs/protocol.md "Clocks"): the snapshot's `clock` block is shown next to the players'
 * names and counted down here every CLOCK_TICK_MS against the server's time (the snapshot's
 * `server_time` gives the offset), so both browsers show the same; only the server decides
 * when time has run out. The `presence` block says when the opponent is away.
 *
 * Signed-in players (`players[side].profile` set) are named and linked to their page; in a
 * rated game (`rated`) their rating follows the name ("?" while provisional), since only there
 * does the result change it, and a rated result shows each side's rating change.
 * Onlookers see the same board and are told they are watching; they get no controls.
 *
 * Interface text goes through Django's JavaScript catalogue (gettext, ngettext, interpolate).
 */
(function () {
  "use strict";

  const NB = window.NardyBoard;
  const { fmt, other, sideName, toWhite, fromWhite, parseStep, playSteps, playForViewer, diceText } = NB;
  const SIDES = NB.SIDES;
  const STEP_MS = 320; // one checker's slide when the opponent's play is shown
  const NEXT_GAME_S = 6; // seconds before a match moves on to its next game
  const SETTINGS_KEY = "nardy.room.settings";
  const CLOCK_TICK_MS = 200;
  const SNAPSHOT_WAIT_MS = 15000; // a socket without its first snapshot by then is dropped (a loaded server may take seconds)
  const CLOCK_LOW_MS = 10000; // the last seconds before a side loses are marked
  const CLOSE_TOO_MANY_SOCKETS = 4429; // the visitor holds too many sockets open (docs/protocol.md)
  const TOO_MANY_RETRY_MS = 30000; // then try again this rarely: each try costs the server a socket

  const root = document.getElementById("game");
  if (!root) return;
  const $ = (id) => document.getElementById(id);
  const els = {
    board: $("board"),
    players: $("players"),
    match: $("match-score"),
    connection: $("connection"),
    presence: $("presence"),
    presenceText: $("presence-text"),
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
    lastPlay: $("last-play"),
    legend: $("numbering-legend"),
    history: $("history-list"),
    historyBox: $("history"),
    share: $("share-btn"),
    shareNote: $("share-note"),
    replay: $("replay-link"),
    record: $("record-link"),
    seedHash: $("seed-hash"),
    settings: {
      animate: $("set-animate"),
      sound: $("set-sound"),
      autoConfirm: $("set-auto-confirm"),
      autoPlay: $("set-auto-play"),
      reader: $("set-reader"),
    },
  };

  // ---- Settings (kept in this browser) ---------------------------------------------------

  function loadSettings() {
    const defaults = { animate: !NB.prefersReducedMotion(), sound: false, autoConfirm: false, autoPlay: false, reader: false };
    try {
      const saved = JSON.parse(window.localStorage.getItem(SETTINGS_KEY) || "{}");
      return Object.assign(defaults, saved && typeof saved === "object" ? saved : {});
    } catch (err) {
      return defaults;
    }
  }

  function saveSettings() {
    try {
      window.localStorage.setItem(SETTINGS_KEY, JSON.stringify(state.settings));
    } catch (err) {
      // Private mode or full storage: the settings last for this page only.
    }
  }

  // ---- State -----------------------------------------------------------------------------

  function initialGame() {
    const data = JSON.parse($("initial-snapshot").textContent);
    return data && data.type === "snapshot" && data.game ? data.game : data;
  }

  const state = {
    game: initialGame(),
    isPlayer: root.dataset.isPlayer === "true",
    wsPath: root.dataset.wsPath,
    staged: [], // [{key: "24/18", node: <graph node index reached>, group: n}]
    group: 0, // the steps staged by one tap share a group (undone together)
    selected: null, // a point in the mover's numbering, or null
    pending: false, // an action frame was sent and its answer has not come yet
    limitedUntil: 0, // Date.now() before which the server drops frames (rate_limited)
    connected: false,
    everConnected: false,
    slowStart: false,
    closedForGood: 0,
    tooManySockets: false, // closed with 4429 and waiting for a slow retry
    socket: null,
    retries: 0,
    anim: null, // {view} while the opponent's play is being shown
    animToken: 0,
    autoFor: null, // the version an automatic play was scheduled for
    typedFor: null, // the version a typed play was sent for, until it is accepted or refused
    nextTimer: 0,
    clockOffset: 0, // the server's clock minus this browser's (ms)
    lostAt: null, // when this page's socket closed (Date.now()), while it is down
    lowWarned: null, // the version whose "10 seconds left" was announced
    settings: loadSettings(),
  };

  const board = NB.create(els.board);

  function you() {
    return state.game.you || null;
  }

  /** The frame types this viewer may send now (the snapshot's `actions`). */
  function can(action) {
    const g = state.game;
    if (!state.isPlayer || !g.you || g.status !== "active") return false;
    if (Array.isArray(g.actions)) return g.actions.includes(action);
    // A snapshot without `actions` (first version of the protocol).
    if (action === "resign") return true;
    if (action === "roll") return g.turn === g.you && g.phase === "roll";
    if (action === "play") return g.turn === g.you && g.phase === "play";
    return false;
  }

  /** True when the viewer is the side to move (rolls or plays) and the game goes on. */
  function myTurn() {
    const g = state.game;
    return state.isPlayer && g.status === "active" && g.you && g.turn === g.you;
  }

  /** The double waiting for an answer (phase "cube"), or null. */
  function cubeOffer() {
    const g = state.game;
    return g.phase === "cube" && g.cube && g.cube.offered_by ? g.cube : null;
  }

  function graph() {
    const legal = state.game.legal;
    return legal && legal.graph ? legal.graph : null;
  }

  function canStage() {
    return can("play") && state.game.phase === "play" && graph() && !state.game.legal.pass && !state.anim;
  }

  function nodeIndex() {
    return state.staged.length ? state.staged[state.staged.length - 1].node : 0;
  }

  function currentNode() {
    const g = graph();
    return g ? g.nodes[nodeIndex()] || null : null;
  }

  function stagedPlay() {
    return state.staged.map((s) => s.key).join(" ");
  }

  /**
   * {from: Map(to: {key, node, path: [{key, node}]})} for the checkers that may move next, in
   * the mover's numbering. Besides single steps, a checker may go on with the next dice (through
   * legal intermediate points of the graph): those farther places carry a longer path. A place
   * reached in more than one way keeps the shortest path found first.
   */
  function nextSteps() {
    const result = new Map();
    if (!canStage()) return result;
    const g = graph();
    const first = g.nodes[nodeIndex()];
    if (!first) return result;
    for (const [key, target] of Object.entries(first.steps)) {
      const { from, to } = parseStep(key);
      if (!result.has(from)) result.set(from, new Map());
      const dests = result.get(from);
      const queue = [{ point: to, path: [{ key, node: target }] }];
      while (queue.length) {
        const { point, path } = queue.shift();
        if (!dests.has(point)) dests.set(point, { key: path[0].key, node: path[path.length - 1].node, path });
        if (point === 0) continue;
        const node = g.nodes[path[path.length - 1].node];
        for (const [nextKey, nextTarget] of Object.entries(node.steps)) {
          const step = parseStep(nextKey);
          if (step.from === point && !dests.has(step.to)) {
            queue.push({ point: step.to, path: path.concat([{ key: nextKey, node: nextTarget }]) });
          }
        }
      }
    }
    return result;
  }

  /** The position shown: the snapshot's, with the staged steps applied (just moving checkers). */
  function shownPosition() {
    const { boards, off } = NB.positionBoards(state.game.position);
    const mover = state.game.turn;
    for (const { key } of state.staged) {
      const { from, to } = parseStep(key);
      boards[mover][from] -= 1;
      if (to === 0) off[mover] += 1;
      else boards[mover][to] += 1;
    }
    return { boards, off };
  }

  /**
   * Which dice the given steps have used, for dimming them. Display only: a step uses the die
   * equal to its length; a bear-off with no die of its length uses the smallest larger one
   * (RULES.md R8). The server judges the play.
   */
  function usedDice(dice, steps) {
    const faces = dice.length === 2 && dice[0] === dice[1] ? [dice[0], dice[0], dice[0], dice[0]] : dice.slice();
    const used = faces.map(() => false);
    for (const { from, to } of steps) {
      const length = from - to;
      let pick = faces.findIndex((f, i) => !used[i] && f === length);
      if (pick < 0 && to === 0) {
        let best = -1;
        faces.forEach((f, i) => {
          if (!used[i] && f > length && (best < 0 || f < faces[best])) best = i;
        });
        pick = best;
      }
      if (pick >= 0) used[pick] = true;
    }
    return { faces, used };
  }

  // ---- Texts -----------------------------------------------------------------------------

  function isBot(side) {
    const player = state.game.players && state.game.players[side];
    return Boolean(player && player.bot);
  }

  /** True in a game between two people (both guests are "Guest": they are told apart by side). */
  function betweenPeople() {
    return Boolean(state.game.players) && !SIDES.some(isBot);
  }

  /** The side's player is signed in: a name, a page, and a rating shown in rated games. */
  function hasAccount(side) {
    const player = state.game.players && state.game.players[side];
    return Boolean(player && player.profile);
  }

  function nameOf(side) {
    if (hasAccount(side)) return state.game.players[side].name;
    if (betweenPeople()) {
      if (you() && side !== you()) return gettext("Your opponent");
      if (!you()) return side === "white" ? gettext("The white player") : gettext("The black player");
    }
    const player = state.game.players && state.game.players[side];
    return (player && player.name) || sideName(side);
  }

  /** The side as the subject at the start of a sentence: "The computer", or the player's name. */
  function subject(side) {
    return isBot(side) ? gettext("The computer") : nameOf(side);
  }

  /** The side inside a sentence: "the computer", "your opponent", or the player's name. */
  function object(side) {
    if (isBot(side)) return gettext("the computer");
    if (hasAccount(side)) return nameOf(side);
    if (betweenPeople() && you() && side !== you()) return gettext("your opponent");
    return nameOf(side);
  }

  /** "You" for the viewer's side, else a short name (history, score, the players' boxes). */
  function who(side) {
    if (side === you()) return gettext("You");
    if (hasAccount(side)) return nameOf(side);
    if (betweenPeople()) return you() ? gettext("Opponent") : sideName(side);
    return nameOf(side);
  }

  /** True until both sides have played once: the opening is still worth showing. */
  function earlyGame() {
    const g = state.game;
    if (!g.last) return true;
    if (!Array.isArray(g.history)) return false;
    return g.history.filter((entry) => entry.kind === "play").length <= 1;
  }

  function isOpening() {
    // Early in a game that began with an R3 roll-off.
    const o = state.game.opening;
    return Boolean(earlyGame() && o && o.white && o.black && o.roll_off !== false);
  }

  /** The dice of the roll-off are still the dice to play (R3, play_opening_dice). */
  function playsOpeningDice() {
    const g = state.game;
    return !g.last && isOpening() && g.preset !== "match";
  }

  function openingText() {
    const o = state.game.opening;
    const starter = o.starter || (o.white > o.black ? "white" : "black");
    const me = you();
    const parts = [];
    if (me) {
      parts.push(fmt(gettext("Opening roll: you %(mine)s, %(name)s %(theirs)s."), { mine: o[me], theirs: o[other(me)], name: object(other(me)) }));
    } else {
      parts.push(fmt(gettext("Opening roll: white %(white)s, black %(black)s."), { white: o.white, black: o.black }));
    }
    if (o.ties && o.ties.length) {
      const ties = o.ties.map((t) => diceText(t)).join(", ");
      parts.push(fmt(ngettext("(Rolled again after a tie: %(ties)s.)", "(Rolled again after ties: %(ties)s.)", o.ties.length), { ties }));
    }
    parts.push(starter === me ? gettext("You start.") : fmt(gettext("%(name)s starts."), { name: subject(starter) }));
    return parts.join(" ");
  }

  /** For a match game started by the previous game's winner (R11): who starts and why. */
  function matchStartText() {
    const g = state.game;
    if (!earlyGame() || !g.match || !g.opening || g.opening.roll_off !== false || !g.opening.starter) return "";
    const starter = g.opening.starter;
    return starter === you()
      ? gettext("You won the last game, so you start and roll both dice.")
      : fmt(gettext("%(name)s won the last game, so it starts and rolls both dice."), { name: subject(starter) });
  }

  function statusText() {
    const game = state.game;
    if (game.status === "aborted") return gettext("The game was aborted.");
    if (game.status !== "active") return gettext("The game is over.");
    const mover = game.turn;
    const offer = cubeOffer();
    if (offer) {
      const stake = offer.value * 2;
      if (offer.offered_by !== you() && can("take")) {
        return fmt(gettext("%(name)s doubles: play on for %(stake)s points (take), or give up the game now for %(value)s (drop)."),
          { name: subject(offer.offered_by), stake, value: offer.value });
      }
      return fmt(gettext("You offered to double to %(stake)s: waiting for %(name)s to answer…"), { stake, name: object(other(offer.offered_by)) });
    }
    if (myTurn()) {
      if (game.phase === "roll") {
        const ask = can("double") ? gettext("Your turn: roll the dice, or double first.") : gettext("Your turn: roll the dice.");
        // Say plainly that the opponent has just taken our double (else only the history shows it).
        const history = game.history || [];
        const latest = history[history.length - 1];
        if (latest && latest.kind === "take" && latest.side !== you() && game.cube) {
          return fmt(gettext("%(name)s took your double: the game is now played for %(value)s."),
            { name: subject(latest.side), value: game.cube.value }) + " " + ask;
        }
        return ask;
      }
      const dice = diceText(game.dice);
      if (game.legal && game.legal.pass) {
        return fmt(gettext("No legal move with %(dice)s: your turn passes."), { dice });
      }
      const diceSentence = playsOpeningDice()
        ? fmt(gettext("Play the opening dice %(dice)s."), { dice })
        : fmt(gettext("You rolled %(dice)s."), { dice });
      const node = currentNode();
      if (node && node.final && state.staged.length) {
        return diceSentence + " " + gettext("Your move is complete: confirm it or undo.");
      }
      if (state.selected !== null) {
        return diceSentence + " " + gettext("Tap a highlighted place to move the checker there.");
      }
      return diceSentence + " " + gettext("Tap a checker to move.");
    }
    if (game.phase === "play" && game.dice) {
      return fmt(gettext("%(name)s rolled %(dice)s and is moving…"), { name: subject(mover), dice: diceText(game.dice) });
    }
    return fmt(gettext("%(name)s to roll…"), { name: subject(mover) });
  }

  function playText(side, dice, play) {
    if (!play) {
      return side === you()
        ? fmt(gettext("You rolled %(dice)s and could not move."), { dice: diceText(dice) })
        : fmt(gettext("%(name)s rolled %(dice)s and could not move."), { name: subject(side), dice: diceText(dice) });
    }
    const shown = playForViewer(play, side, you());
    return side === you()
      ? fmt(gettext("You rolled %(dice)s and played %(play)s."), { dice: diceText(dice), play: shown })
      : fmt(gettext("%(name)s rolled %(dice)s and played %(play)s."), { name: subject(side), dice: diceText(dice), play: shown });
  }

  function lastPlayText() {
    const last = state.game.last;
    return last ? playText(last.side, last.dice || [], last.play) : "";
  }

  function kindName(kind) {
    return { oin: gettext("oin"), mars: gettext("mars"), koks: gettext("koks") }[kind] || kind;
  }

  function isAborted(result) {
    return result.reason === "aborted" || !result.winner;
  }

  function resultTitle(result) {
    if (isAborted(result)) return gettext("Game aborted: no result.");
    const values = { name: subject(result.winner), kind: kindName(result.kind), points: result.points };
    if (result.winner === you()) {
      return fmt(ngettext("You won: %(kind)s, %(points)s point.", "You won: %(kind)s, %(points)s points.", result.points), values);
    }
    return fmt(ngettext("%(name)s won: %(kind)s, %(points)s point.", "%(name)s won: %(kind)s, %(points)s points.", result.points), values);
  }

  function resultExplain(result) {
    if (isAborted(result)) return gettext("Nobody wins and no points are scored.");
    if (result.reason === "drop") {
      return gettext("A dropped double counts as oin at the stake before the double.");
    }
    let text = {
      oin: gettext("Oin: the loser had borne off at least one checker."),
      mars: gettext("Mars: the loser had not borne off a single checker."),
      koks: gettext("Koks: the loser had borne off no checker and still had one in the winner's home or behind it."),
    }[result.kind] || "";
    if (result.reason === "timeout" || result.reason === "abandon") {
      text = gettext("The game is scored on the loser's position at that moment.") + " " + text;
    }
    if (result.cube && result.cube > 1) {
      return text + " " + fmt(gettext("The cube stood at %(cube)s."), { cube: result.cube });
    }
    return text;
  }

  function resultReason(result) {
    if (isAborted(result)) {
      const absent = result.loser;
      if (!absent) return gettext("A first move was not made in time.");
      return absent === you()
        ? gettext("You did not make a first move in time.")
        : fmt(gettext("%(name)s did not make a first move in time."), { name: subject(absent) });
    }
    const loser = result.loser || other(result.winner);
    const mine = loser === you();
    const name = subject(loser);
    if (result.reason === "timeout") {
      if (result.match_lost) {
        return mine ? gettext("You ran out of time and so lose the match.")
          : fmt(gettext("%(name)s ran out of time and so loses the match."), { name });
      }
      return mine ? gettext("You ran out of time.") : fmt(gettext("%(name)s ran out of time."), { name });
    }
    if (result.reason === "abandon") {
      if (result.match_lost) {
        return mine ? gettext("You left the game and so lose the match.")
          : fmt(gettext("%(name)s left the game and so loses the match."), { name });
      }
      return mine ? gettext("You left the game.") : fmt(gettext("%(name)s left the game."), { name });
    }
    if (result.reason === "bore_off") {
      return result.winner === you()
        ? gettext("You bore off all 15 checkers.")
        : fmt(gettext("%(name)s bore off all 15 checkers."), { name: subject(result.winner) });
    }
    if (result.reason === "resign") {
      return loser === you() ? gettext("You resigned.") : fmt(gettext("%(name)s resigned."), { name: subject(loser) });
    }
    if (result.reason === "drop") {
      return loser === you() ? gettext("You dropped the double.") : fmt(gettext("%(name)s dropped the double."), { name: subject(loser) });
    }
    return "";
  }

  /** "Match to 3 · game 2 · You 1 : 0 Computer" (the viewer first), or "". */
  function matchText() {
    const m = state.game.match;
    if (!m) return "";
    const first = you() || "white";
    const second = other(first);
    return fmt(gettext("Match to %(length)s · game %(number)s · %(first)s %(a)s : %(b)s %(second)s"), {
      length: m.length, number: m.game_number,
      first: who(first), a: m.score[first], b: m.score[second], second: who(second),
    });
  }

  function matchResultText() {
    const m = state.game.match;
    if (!m) return "";
    if (m.status === "aborted") return gettext("The match is aborted: no result.");
    if (m.status === "finished" && m.winner) {
      return m.winner === you()
        ? fmt(gettext("You won the match %(a)s : %(b)s."), { a: m.score[m.winner], b: m.score[other(m.winner)] })
        : fmt(gettext("%(name)s won the match %(a)s : %(b)s."), { name: subject(m.winner), a: m.score[m.winner], b: m.score[other(m.winner)] });
    }
    return matchText();
  }

  function historyEntryText(entry) {
    const name = who(entry.side);
    switch (entry.kind) {
      case "play":
        return entry.play
          ? playForViewer(entry.play, entry.side, you())
          : gettext("no move (pass)");
      case "double":
        return fmt(gettext("double to %(cube)s"), { cube: entry.cube });
      case "take":
        return gettext("double taken");
      case "drop":
        return gettext("double dropped");
      case "resign":
        return gettext("resignation");
      case "timeout":
        return gettext("out of time");
      case "abandon":
        return gettext("left the game");
      case "abort":
        return gettext("no first move: game aborted");
      default:
        return name;
    }
  }

  // ---- Drawing ---------------------------------------------------------------------------

  function lastPlayPoints() {
    // Where the opponent's last play moved from and to (white's numbering), while the game goes on.
    const points = new Set();
    const last = state.game.last;
    if (!last || !last.play || state.game.status !== "active" || (you() && last.side === you())) return points;
    for (const { from, to } of playSteps(last.play)) {
      points.add(toWhite(last.side, from));
      if (to) points.add(toWhite(last.side, to));
    }
    return points;
  }

  function boardView() {
    const game = state.game;
    const { boards, off } = shownPosition();
    const steps = nextSteps();
    const dests = state.selected !== null && steps.has(state.selected) ? steps.get(state.selected) : new Map();
    const stagedTo = new Set();
    for (const { key } of state.staged) {
      const { to } = parseStep(key);
      if (to) stagedTo.add(toWhite(game.turn, to));
    }
    let dice = null;
    if (game.status === "active" && game.dice && game.phase === "play") {
      const { faces, used } = usedDice(game.dice, state.staged.map((s) => parseStep(s.key)));
      dice = { side: game.turn, faces, used };
    }
    const last = game.last;
    const cube = game.cube ? Object.assign({}, game.cube, { offered: Boolean(cubeOffer()) }) : null;
    return {
      boards, off, steps, dests, stagedTo, dice, cube,
      viewer: you(),
      mover: canStage() ? game.turn : null,
      interactive: canStage(),
      selected: state.selected,
      lastPoints: lastPlayPoints(),
      lastSide: last ? last.side : null,
      openingDice: isOpening() && !game.last && game.phase === "roll" ? game.opening : null,
    };
  }

  function drawBoard() {
    const game = state.game;
    const view = state.anim ? state.anim.view : boardView();
    if (!state.anim) board.draw(view);
    const pips = state.staged.length || state.anim || !game.pips
      ? { white: NB.pipCount(view.boards.white), black: NB.pipCount(view.boards.black) }
      : game.pips;
    let turnText = gettext("The game is over.");
    if (game.status === "active" && game.turn) {
      turnText = game.turn === "white" ? gettext("White to move.") : gettext("Black to move.");
    }
    els.board.setAttribute("aria-label", fmt(
      gettext("Long nardy board. %(turn)s Pip counts: white %(white)s, black %(black)s. Borne off: white %(white_off)s, black %(black_off)s."),
      { turn: turnText, white: pips.white, black: pips.black, white_off: view.off.white, black_off: view.off.black },
    ));
    return { pips, off: view.off };
  }

  function drawPlayers(pips, off) {
    const game = state.game;
    const cube = game.cube;
    const people = betweenPeople();
    const clocked = Boolean(game.clock);
    els.players.replaceChildren();
    for (const side of SIDES) {
      const player = (game.players && game.players[side]) || {};
      const row = document.createElement("div");
      const isTurn = game.status === "active" && (game.awaiting || game.turn) === side;
      row.className = "player player-" + side + (isTurn ? " is-turn" : "");
      row.dataset.side = side;
      const chip = document.createElement("span");
      chip.className = "player-chip chip-" + side;
      chip.setAttribute("aria-hidden", "true");
      const name = document.createElement("span");
      name.className = "player-name";
      const account = hasAccount(side);
      const rating = game.rated && account && typeof player.rating === "number";
      const shownName = account ? player.name : (people ? who(side) : (player.name || sideName(side)));
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
      const withClock = clocked && !isBot(side);
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
    drawClocks();
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

  function ratingLabel(rating, provisional) {
    return provisional
      ? fmt(gettext("rating %(rating)s, provisional"), { rating })
      : fmt(gettext("rating %(rating)s"), { rating });
  }

  /** "+12", "−8" (a true minus sign) or "0". */
  function signed(points) {
    if (points > 0) return "+" + points;
    if (points < 0) return "\u2212" + -points;
    return "0";
  }

  /** One line per side of a rated result's rating change, the viewer's first: [side, text]. */
  function ratingLines(result) {
    const rating = result && result.rating;
    if (!rating) return [];
    const sides = you() ? [you(), other(you())] : SIDES;
    return sides.filter((side) => rating[side]).map((side) => {
      const change = rating[side];
      const values = { name: nameOf(side), before: change.before, after: change.after, delta: signed(change.delta) };
      const text = side === you()
        ? fmt(gettext("Your rating: %(before)s → %(after)s (%(delta)s)"), values)
        : fmt(gettext("%(name)s's rating: %(before)s → %(after)s (%(delta)s)"), values);
      return [side, text, change];
    });
  }

  // ---- Clocks and presence (counted here, decided by the server) -------------------------

  /** The server's time now (ms since the epoch), from this browser's clock and the offset. */
  function serverNow() {
    return Date.now() + state.clockOffset;
  }

  function noteClockOffset(game) {
    if (game && game.clock && typeof game.clock.server_time === "number") {
      state.clockOffset = game.clock.server_time - Date.now();
    }
  }

  /** "1:05" for 65 000 ms; a started second counts as a whole one, so 0:00 means time is up. */
  function clockText(ms) {
    const seconds = Math.max(0, Math.ceil(ms / 1000));
    const minutes = Math.floor(seconds / 60);
    const rest = seconds % 60;
    return minutes + ":" + (rest < 10 ? "0" : "") + rest;
  }

  function periodLabel(clock) {
    // What the running free time is for (beside the clock: "to roll 0:12").
    if (clock.period === "roll") return pgettext("clock period", "to roll");
    if (clock.period === "answer") return pgettext("clock period", "to answer");
    return pgettext("clock period", "to move");
  }

  /**
   * What `side`'s clock shows at `now`: {ms, note, running, low}. The side that must act
   * counts down its free time (or, before its first move, the time to make one), then its
   * reserve; the other side shows its reserve. `low` marks the last CLOCK_LOW_MS before the
   * side would lose. Null without a clock or for the computer.
   */
  function clockFace(side, now) {
    const game = state.game;
    const clock = game.clock;
    if (!clock || isBot(side)) return null;
    const reserve = clock.reserve && typeof clock.reserve[side] === "number" ? clock.reserve[side] : 0;
    if (game.status !== "active" || clock.running !== side || typeof clock.period_started !== "number") {
      return { ms: reserve, note: gettext("reserve"), running: false, low: false };
    }
    const toDeadline = typeof clock.deadline === "number" ? clock.deadline - now : Infinity;
    const low = toDeadline <= CLOCK_LOW_MS;
    if (clock.first_move) {
      return { ms: toDeadline, note: gettext("first move"), running: true, low };
    }
    // The period may begin a little later (the next game of a match): it counts from then.
    const used = Math.max(0, now - clock.period_started);
    const free = Math.max(0, (clock.free_ms || 0) - used);
    if (free > 0) {
      return {
        ms: Math.min(free, toDeadline),
        note: fmt(gettext("%(period)s · reserve %(reserve)s"), { period: periodLabel(clock), reserve: clockText(reserve) }),
        running: true, low,
      };
    }
    const reserveLeft = Math.max(0, reserve - (used - (clock.free_ms || 0)));
    if (toDeadline < reserveLeft) {
      // The longest allowed turn (match clock) ends before the reserve would: count to it,
      // and say how much reserve is still there.
      return {
        ms: Math.max(0, toDeadline),
        note: fmt(gettext("turn limit · reserve %(reserve)s"), { reserve: clockText(reserveLeft) }),
        running: true, low, inReserve: true,
      };
    }
    return { ms: reserveLeft, note: gettext("reserve"), running: true, low, inReserve: true };
  }

  function drawClocks() {
    const now = serverNow();
    for (const side of SIDES) {
      const time = els.players.querySelector('[data-clock="' + side + '"]');
      const note = els.players.querySelector('[data-clock-note="' + side + '"]');
      const face = clockFace(side, now);
      if (!time || !face) continue;
      const text = clockText(face.ms);
      if (time.textContent !== text) time.textContent = text;
      if (note && note.textContent !== face.note) note.textContent = face.note;
      const row = time.closest(".player");
      row.classList.toggle("clock-running", face.running);
      row.classList.toggle("clock-reserve", Boolean(face.inReserve));
      row.classList.toggle("clock-low", face.low);
      if (face.low && face.running && side === you() && state.lowWarned !== state.game.version) {
        state.lowWarned = state.game.version;
        announce(gettext("10 seconds left."));
      }
    }
    drawPresence(now);
    if (!state.connected && state.everConnected && !state.closedForGood) drawConnection();
  }

  /** The banner about an opponent who has no open page: the time they have to come back, or
   * (standard clock) the time until the win may be claimed and then the button to claim it. */
  function drawPresence(now) {
    const game = state.game;
    if (!els.presence) return;
    let text = "";
    let claimable = false;
    if (game.status === "active" && game.presence) {
      for (const side of SIDES) {
        const away = game.presence[side];
        if (side === you() || !away || away.here) continue;
        const mine = Boolean(you());
        if (typeof away.loses_at === "number") {
          const time = clockText(away.loses_at - now);
          text = mine
            ? fmt(gettext("Opponent disconnected — reconnecting… %(time)s"), { time })
            : fmt(side === "white" ? gettext("White disconnected — reconnecting… %(time)s")
              : gettext("Black disconnected — reconnecting… %(time)s"), { time });
        } else if (typeof away.claim_from === "number" && mine) {
          if (now < away.claim_from) {
            text = fmt(gettext("Your opponent has left the game. If they are not back in %(time)s, you may claim the win."),
              { time: clockText(away.claim_from - now) });
          } else {
            text = gettext("Your opponent has not come back: you may claim the win, or wait for them.");
            claimable = state.isPlayer;
          }
        } else {
          text = mine ? gettext("Your opponent has left the game.")
            : (side === "white" ? gettext("White has left the game.") : gettext("Black has left the game."));
        }
      }
    }
    els.presence.hidden = !text;
    if (els.presenceText.textContent !== text) els.presenceText.textContent = text;
    if (els.claim) {
      els.claim.hidden = !claimable;
      els.claim.disabled = !state.connected || state.pending;
    }
  }

  function drawLegend() {
    if (!els.legend) return;
    els.legend.textContent = you()
      ? gettext("Point numbers are from your side: your head is 24.")
      : gettext("Point numbers are from white's side: white's head is 24.");
    els.board.parentElement.title = you()
      ? gettext("Points are numbered from your side: your head is 24, your home 1–6. The opponent's moves are shown in your numbering too.")
      : gettext("Points are numbered from white's side: white's head is 24, white's home 1–6.");
  }

  function drawHistory() {
    if (!els.history) return;
    const history = state.game.history || [];
    els.historyBox.hidden = history.length === 0;
    const items = history.map((entry) => {
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
      whoEl.textContent = who(entry.side);
      // a long name is cut on screen (board.css); its tooltip keeps it whole
      if (hasAccount(entry.side) && entry.side !== you()) whoEl.title = whoEl.textContent;
      li.append(n, chip, whoEl);
      if (entry.kind === "play") {
        const dice = document.createElement("span");
        dice.className = "history-dice";
        dice.textContent = diceText(entry.dice);
        li.appendChild(dice);
      }
      const what = document.createElement("span");
      what.className = "history-play";
      what.textContent = historyEntryText(entry);
      li.appendChild(what);
      return li;
    });
    const result = state.game.status !== "active" ? state.game.result : null;
    if (result) {
      const li = document.createElement("li");
      li.className = "history-item history-result";
      li.textContent = resultTitle(result);
      items.push(li);
    }
    const box = els.history;
    const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
    box.replaceChildren(...items);
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
    els.resultTitle.textContent = resultTitle(result);
    els.resultExplain.textContent = resultExplain(result);
    els.resultReason.textContent = resultReason(result);
    drawRatingChange(result);
    const m = game.match;
    if (els.resultMatch) {
      els.resultMatch.hidden = !m;
      els.resultMatch.textContent = m ? matchResultText() : "";
    }
    const next = m && m.next_game ? m.next_game : null;
    if (els.next) {
      els.next.hidden = !next;
      if (next && els.nextLink) els.nextLink.href = gameUrl(next);
    }
    // A match goes on with its next game; a single game (or a finished match) offers a new one.
    if (els.again) els.again.hidden = Boolean(m && m.status === "active");
  }

  function drawRatingChange(result) {
    if (!els.resultRating) return;
    const lines = ratingLines(result);
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

  function gameUrl(gameId) {
    const here = (state.game.links && state.game.links.game) || window.location.pathname;
    return here.replace(/[0-9a-f-]{36}\/?$/, gameId + "/");
  }

  function drawControls() {
    const game = state.game;
    const ready = state.connected && !state.pending && !state.anim;
    const offer = cubeOffer();
    const forcedPass = can("play") && game.phase === "play" && game.legal && game.legal.pass;
    const staging = canStage();
    const node = currentNode();

    els.roll.hidden = !can("roll");
    els.roll.disabled = !ready;
    els.double.hidden = !can("double");
    els.double.disabled = !ready;
    if (game.cube) els.double.textContent = fmt(gettext("Double to %(value)s"), { value: game.cube.value * 2 });
    els.take.hidden = !(offer && can("take"));
    els.take.disabled = !ready;
    if (offer) els.take.textContent = fmt(gettext("Take (play for %(stake)s)"), { stake: offer.value * 2 });
    els.drop.hidden = !(offer && can("drop"));
    els.drop.disabled = !ready;
    if (offer) els.drop.textContent = fmt(gettext("Drop (lose %(value)s)"), { value: offer.value });
    els.pass.hidden = !forcedPass;
    els.pass.disabled = !ready;
    els.undo.hidden = !staging;
    els.undo.disabled = !ready || state.staged.length === 0;
    els.confirm.hidden = !staging;
    els.confirm.disabled = !ready || !(node && node.final && state.staged.length > 0);
    els.resign.hidden = !can("resign");
    els.resign.disabled = !ready;
    const typing = can("play") && game.phase === "play" && !state.anim;
    els.moveForm.hidden = !(typing || (state.settings.reader && can("resign")));
    els.moveForm.querySelector("button").disabled = !ready || !typing;
    els.moveText.disabled = !typing;
    // An example of the real roll: the first legal play, already in the mover's (the viewer's) numbering.
    const example = typing && game.legal && !game.legal.pass && (game.legal.plays || []).find((p) => p.play);
    els.moveText.placeholder = example ? example.play : "";
  }

  function drawLinks() {
    const links = state.game.links || {};
    // The replay and the record open to onlookers only once the game is over.
    const closed = !state.isPlayer && state.game.status === "active";
    if (els.replay) {
      els.replay.hidden = !links.replay || closed;
      if (links.replay) els.replay.href = links.replay;
    }
    if (els.record) {
      els.record.hidden = !links.record || closed;
      if (links.record) els.record.href = links.record;
    }
    if (els.share) els.share.hidden = !links.share;
    const fairness = state.game.fairness;
    if (els.seedHash) {
      els.seedHash.textContent = fairness && fairness.seed_hash ? fairness.seed_hash : "";
      els.seedHash.closest("[data-fairness]").hidden = !(fairness && fairness.seed_hash);
    }
  }

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
      els.connection.textContent = lostText();
    } else if (!state.connected && state.slowStart) {
      els.connection.hidden = false;
      els.connection.textContent = gettext("Connecting…");
    } else {
      els.connection.hidden = true;
      els.connection.textContent = "";
    }
  }

  /** "Connection lost: reconnecting…", with what the viewer's clock does meanwhile. */
  function lostText() {
    const game = state.game;
    const text = gettext("Connection lost: reconnecting…");
    const clock = game.clock;
    if (!clock || !you() || game.status !== "active" || state.lostAt === null) return text;
    const back = clock.spec && clock.spec.reconnect_ms;
    if (typeof back === "number") {
      const left = clockText(back - (Date.now() - state.lostAt));
      return text + " " + (clock.spec.loses === "match"
        ? fmt(gettext("Come back within %(time)s or you lose the match."), { time: left })
        : fmt(gettext("Come back within %(time)s or you lose the game."), { time: left }));
    }
    return text + " " + gettext("Your clock keeps running.");
  }

  function render() {
    const { pips, off } = drawBoard();
    drawPlayers(pips, off);
    const match = matchText();
    els.match.hidden = !match;
    els.match.textContent = match;
    const opening = isOpening() ? openingText() : matchStartText();
    els.opening.hidden = !opening || state.game.status !== "active";
    els.opening.textContent = opening;
    els.status.textContent = statusText();
    els.lastPlay.textContent = lastPlayText();
    drawLegend();
    drawHistory();
    drawResult();
    drawControls();
    drawLinks();
    // Onlookers are told they are watching while the game goes on.
    if (els.watching) els.watching.hidden = state.isPlayer || state.game.status !== "active";
    drawConnection();
    root.dataset.phase = state.game.phase || "";
    root.dataset.version = String(state.game.version);
    root.dataset.gameId = String(state.game.id);
    // Lets tests and styles know whether the page may act now (connected, nothing in flight).
    root.dataset.ready = String(state.connected && !state.pending && !state.anim);
    root.classList.toggle("my-turn", Boolean(myTurn()));
  }

  /** An error (kind "error") or an explanation (kind "info") under the board. */
  function showMessage(text, kind) {
    els.message.textContent = text || "";
    els.message.classList.toggle("is-info", kind === "info");
  }

  function showError(text) {
    showMessage(text, "error");
  }

  /** Say `text` through the live region (screen readers). */
  function announce(text) {
    if (!els.announce || !text) return;
    els.announce.textContent = "";
    window.setTimeout(() => {
      els.announce.textContent = text;
    }, 60);
  }

  // ---- Sounds (optional, off by default; made with the Web Audio API, no files) ----------

  let audio = null;

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

  // ---- Interaction -----------------------------------------------------------------------

  function stagePath(dest) {
    state.group += 1;
    for (const step of dest.path) state.staged.push({ key: step.key, node: step.node, group: state.group });
    state.selected = null;
    showError("");
    tone("move");
    render();
    maybeAutoConfirm();
  }

  /**
   * Explain why the mover's checker on `point` cannot move: from the snapshot's `why_not`
   * before any step is staged, else by asking the server (`why` frame).
   */
  function explainImmovable(point) {
    const legal = state.game.legal;
    if (!state.staged.length && legal && legal.why_not && legal.why_not[String(point)]) {
      showMessage(legal.why_not[String(point)].message, "info");
      return;
    }
    if (state.socket && state.socket.readyState === WebSocket.OPEN && Array.isArray(state.game.actions)) {
      state.socket.send(JSON.stringify({ type: "why", point, staged: stagedPlay() }));
      return;
    }
    showMessage(state.staged.length
      ? gettext("This checker cannot move with the dice that are left.")
      : gettext("This checker cannot move with these dice."), "info");
  }

  function tapPoint(whitePoint) {
    if (!canStage() || state.pending) return;
    showError("");
    const mover = state.game.turn;
    const point = fromWhite(mover, whitePoint);
    const steps = nextSteps();
    if (state.selected !== null && steps.has(state.selected)) {
      const dest = steps.get(state.selected).get(point);
      if (dest) {
        stagePath(dest);
        return;
      }
    }
    if (steps.has(point)) {
      const dests = steps.get(point);
      if (dests.size === 1 && state.selected !== point) {
        stagePath(dests.values().next().value);
        return;
      }
      state.selected = point;
    } else {
      state.selected = null;
      const { boards } = shownPosition();
      if (boards[mover][point] > 0) explainImmovable(point);
    }
    render();
  }

  function tapTray(side) {
    if (!canStage() || state.pending || side !== state.game.turn || state.selected === null) return;
    const dests = nextSteps().get(state.selected);
    const dest = dests && dests.get(0);
    if (dest) stagePath(dest);
  }

  function activate(target) {
    const point = target.closest("[data-point]");
    if (point) {
      tapPoint(parseInt(point.getAttribute("data-point"), 10));
      return;
    }
    const tray = target.closest("[data-tray]");
    if (tray) tapTray(tray.getAttribute("data-tray"));
  }

  els.board.addEventListener("click", (event) => activate(event.target));
  els.board.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      activate(event.target);
    } else if (event.key === "Escape" && state.selected !== null) {
      state.selected = null;
      render();
    } else if ((event.key === "Backspace" || (event.key === "z" && (event.ctrlKey || event.metaKey))) && state.staged.length) {
      event.preventDefault();
      undo();
    }
  });

  function send(frame) {
    if (!state.socket || state.socket.readyState !== WebSocket.OPEN) {
      showError(gettext("Not connected to the server yet: please wait a moment."));
      return false;
    }
    // After a rate_limited answer the server drops frames unanswered until retry_after has
    // passed: hold them here, or the page would wait for an answer that never comes.
    const waitMs = state.limitedUntil - Date.now();
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      showError(fmt(ngettext("Too many actions in a short time: try again in %(seconds)s second.",
        "Too many actions in a short time: try again in %(seconds)s seconds.", seconds), { seconds }));
      render();
      return false;
    }
    showError("");
    state.pending = true;
    state.socket.send(JSON.stringify(frame));
    render();
    return true;
  }

  function sendAction(type, extra) {
    return send(Object.assign({ type, version: state.game.version }, extra || {}));
  }

  function confirmStaged() {
    const node = currentNode();
    if (!node || !node.final || !state.staged.length || state.pending) return;
    sendAction("play", { play: stagedPlay() });
  }

  function undo() {
    if (!state.staged.length) return;
    const group = state.staged[state.staged.length - 1].group;
    while (state.staged.length && state.staged[state.staged.length - 1].group === group) state.staged.pop();
    state.selected = null;
    showError("");
    render();
  }

  function maybeAutoConfirm() {
    const node = currentNode();
    if (state.settings.autoConfirm && node && node.final && state.staged.length) {
      const version = state.game.version;
      const staged = stagedPlay();
      window.setTimeout(() => {
        if (state.game.version === version && stagedPlay() === staged && !state.pending) confirmStaged();
      }, 250);
    }
  }

  /** With "play my move when only one is legal" on: the only legal play (or the pass) is sent. */
  function maybeAutoPlay() {
    const game = state.game;
    if (!state.settings.autoPlay || !can("play") || game.phase !== "play" || !game.legal || state.anim) return;
    if (state.autoFor === game.version || state.staged.length) return;
    const plays = game.legal.plays || [];
    if (plays.length !== 1) return;
    state.autoFor = game.version;
    const version = game.version;
    window.setTimeout(() => {
      if (state.game.version !== version || state.pending || !can("play") || state.staged.length) return;
      sendAction("play", { play: plays[0].play });
    }, game.legal.pass ? 1500 : 700);
  }

  els.roll.addEventListener("click", () => {
    tone("dice");
    sendAction("roll");
  });
  els.undo.addEventListener("click", undo);
  els.confirm.addEventListener("click", confirmStaged);
  els.pass.addEventListener("click", () => sendAction("play", { play: "" }));
  els.double.addEventListener("click", () => sendAction("double"));
  els.take.addEventListener("click", () => sendAction("take"));
  els.drop.addEventListener("click", () => sendAction("drop"));
  if (els.claim) els.claim.addEventListener("click", () => sendAction("claim"));
  els.resign.addEventListener("click", () => {
    if (window.confirm(gettext("Resign this game? It is scored on your position as it stands now."))) {
      sendAction("resign");
    }
  });
  els.moveForm.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!can("play") || state.game.phase !== "play") return;
    const text = els.moveText.value.trim().replace(/\s+/g, " ").toLowerCase();
    if (text && !/^\d{1,2}\/(\d{1,2}|off)( \d{1,2}\/(\d{1,2}|off))*$/.test(text)) {
      showError(gettext("Write the move as steps from/to separated by spaces, e.g. 24/18 18/13 (bear off: 3/off)."));
      return;
    }
    state.staged = [];
    state.selected = null;
    // The text stays until a snapshot shows the play went through (onSnapshot), so a refused
    // play can be corrected instead of retyped.
    if (sendAction("play", { play: text })) state.typedFor = state.game.version;
  });

  if (els.share) {
    els.share.addEventListener("click", async () => {
      const links = state.game.links || {};
      if (!links.share) return;
      const url = new URL(links.share, window.location.href).href;
      try {
        if (navigator.share && window.matchMedia("(pointer: coarse)").matches) {
          await navigator.share({ title: document.title, url });
          return;
        }
        await navigator.clipboard.writeText(url);
        els.shareNote.textContent = gettext("Link to this position copied.");
      } catch (err) {
        els.shareNote.textContent = "";
        const a = document.createElement("a");
        a.href = url;
        a.textContent = url;
        els.shareNote.append(gettext("Link to this position:") + " ", a);
      }
    });
  }

  for (const [name, input] of Object.entries(els.settings)) {
    if (!input) continue;
    input.checked = Boolean(state.settings[name]);
    input.addEventListener("change", () => {
      state.settings[name] = input.checked;
      saveSettings();
      if (name === "sound" && input.checked) tone("move");
      if (name === "animate" && !input.checked && state.anim) {
        state.animToken += 1;
        state.anim = null;
      }
      root.classList.toggle("reader-mode", Boolean(state.settings.reader));
      render();
      maybeAutoPlay();
    });
  }
  root.classList.toggle("reader-mode", Boolean(state.settings.reader));

  // ---- Snapshots and the opponent's move -------------------------------------------------

  /** The position before `last` was played, from the position after it (undoing its steps). */
  function beforePlay(position, last) {
    const { boards, off } = NB.positionBoards(position);
    const side = last.side;
    for (const { from, to } of playSteps(last.play).reverse()) {
      if (to === 0) off[side] -= 1;
      else boards[side][to] -= 1;
      boards[side][from] += 1;
    }
    for (const s of SIDES) {
      if (boards[s].some((n) => n < 0) || off[s] < 0) return null;
    }
    return { boards, off };
  }

  /** Slide the opponent's checkers along its last play, then show the snapshot as it is. */
  async function animateLast(game) {
    const last = game.last;
    const before = beforePlay(game.position, last);
    if (!before) {
      render();
      return;
    }
    const token = ++state.animToken;
    const view = {
      boards: before.boards, off: before.off, viewer: you(), mover: null,
      dice: { side: last.side, faces: [], used: [] }, lastPoints: new Set(), lastSide: last.side,
      cube: game.cube || null,
    };
    state.anim = { view };
    const played = [];
    const dice = last.dice || [];
    Object.assign(view.dice, usedDice(dice, played));
    render();
    for (const { from, to } of playSteps(last.play)) {
      if (token !== state.animToken) return;
      await board.animateStep(view, last.side, from, to, STEP_MS);
      if (token !== state.animToken) return;
      view.boards[last.side][from] -= 1;
      if (to === 0) view.off[last.side] += 1;
      else view.boards[last.side][to] += 1;
      played.push({ from, to });
      Object.assign(view.dice, usedDice(dice, played));
      view.lastPoints.add(toWhite(last.side, from));
      if (to) view.lastPoints.add(toWhite(last.side, to));
      tone("move");
      board.draw(view);
    }
    await new Promise((resolve) => window.setTimeout(resolve, 200));
    if (token !== state.animToken) return;
    state.anim = null;
    render();
    afterSnapshot();
  }

  function afterSnapshot() {
    maybeAutoPlay();
    const m = state.game.match;
    if (state.game.status === "finished" && m && m.next_game && !state.nextTimer) {
      // The match goes on in its next game: move there after a short look at the result.
      let left = NEXT_GAME_S;
      const tick = () => {
        if (els.nextNote) els.nextNote.textContent = fmt(gettext("The next game starts in %(s)s s."), { s: left });
        if (left <= 0) {
          window.location.assign(gameUrl(m.next_game));
          return;
        }
        left -= 1;
        state.nextTimer = window.setTimeout(tick, 1000);
      };
      tick();
    }
  }

  function onSnapshot(game) {
    const previous = state.game;
    const sameGame = previous && previous.id === game.id;
    // Old news: a client keeps the highest version it has seen (docs/protocol.md).
    if (sameGame && typeof game.version === "number" && game.version < previous.version) return;
    const newer = !sameGame || game.version !== previous.version;
    const last = game.last;
    const freshPlay = Boolean(sameGame && last && last.version > previous.version
      && (!previous.last || previous.last.version !== last.version));
    if (newer) {
      state.staged = [];
      state.selected = null;
      showError(""); // an error about an older version no longer applies
    }
    if (state.typedFor !== null && (!sameGame || game.version > state.typedFor)) {
      state.typedFor = null;
      els.moveText.value = ""; // the typed play was accepted (the game moved past its version)
    }
    state.game = game;
    noteClockOffset(game);
    state.pending = false;
    if (state.anim) {
      state.animToken += 1;
      state.anim = null;
    }
    const theirs = freshPlay && last.side !== you();
    const said = [];
    if (theirs) {
      said.push(playText(last.side, last.dice || [], last.play));
      if (state.settings.reader) said.push(NB.describePosition(NB.positionBoards(game.position).boards, you()));
    }
    if (newer && game.status !== "active" && game.result && previous && previous.status === "active") {
      tone("end");
      said.push(resultTitle(game.result), resultReason(game.result));
      ratingLines(game.result).forEach(([, text]) => said.push(text + "."));
    } else if (newer && (cubeOffer() || (can("play") && game.legal && game.legal.pass))) {
      said.push(statusText());
    }
    announce(said.join(" "));
    if (theirs && last.play && state.settings.animate && !NB.prefersReducedMotion()) {
      animateLast(game);
      return;
    }
    render();
    afterSnapshot();
  }

  function onWhy(frame) {
    // Only if it still answers the position on screen.
    if (frame.version !== state.game.version || (frame.staged || "") !== stagedPlay()) return;
    showMessage(frame.message || "", "info");
  }

  function onFrame(frame) {
    if (!frame || typeof frame !== "object") return;
    if (frame.type === "snapshot" && frame.game) {
      onSnapshot(frame.game);
    } else if (frame.type === "why") {
      onWhy(frame);
    } else if (frame.type === "error") {
      state.pending = false;
      if (frame.code === "too_many_sockets") return; // the close (4429) that follows says it
      if (frame.code === "rate_limited" && typeof frame.retry_after === "number") {
        state.limitedUntil = Date.now() + frame.retry_after * 1000;
      }
      if (typeof frame.version === "number" && frame.version < state.game.version) {
        render();
        return;
      }
      showError(frame.message || frame.code || gettext("The server refused this action."));
      render();
      if (state.typedFor !== null) {
        // The typed play was refused: keep it, selected, to be corrected.
        state.typedFor = null;
        if (!els.moveText.disabled) {
          els.moveText.focus();
          els.moveText.select();
        }
      }
    }
  }

  function connect() {
    const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + window.location.host + state.wsPath);
    state.socket = socket;
    let greeted = false;
    socket.addEventListener("open", () => {
      // The server's first frame is the snapshot. A socket that stays silent (a server whose
      // channel layer lost Redis may keep it open) is dropped, and the page connects again.
      window.setTimeout(() => {
        if (!greeted && state.socket === socket) socket.close(4000, "no snapshot");
      }, SNAPSHOT_WAIT_MS);
    });
    socket.addEventListener("message", (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      if (frame && frame.type === "snapshot" && !greeted) {
        // Connected only now: a server that accepts the socket and then fails (its Redis
        // down) must not reset the growing pause between attempts, nor hide the banner.
        greeted = true;
        state.connected = true;
        state.everConnected = true;
        state.tooManySockets = false;
        state.retries = 0;
        state.lostAt = null;
      }
      onFrame(frame);
    });
    socket.addEventListener("close", (event) => {
      if (state.socket !== socket) return;
      state.connected = false;
      state.pending = false;
      if (state.lostAt === null) state.lostAt = Date.now();
      if (event.code === 4403 || event.code === 4404) {
        state.closedForGood = event.code;
        render();
        return;
      }
      if (event.code === CLOSE_TOO_MANY_SOCKETS) {
        // Not a fault that passes in a second: the player has to close other tabs first.
        state.tooManySockets = true;
        render();
        window.setTimeout(connect, TOO_MANY_RETRY_MS * (0.9 + Math.random() * 0.2));
        return;
      }
      render();
      // Back off 0.5 s, 1 s, 2 s … up to 10 s, with jitter so many pages do not return at once.
      const delay = Math.min(10000, 500 * 2 ** state.retries) * (0.8 + Math.random() * 0.4);
      state.retries += 1;
      window.setTimeout(connect, delay);
    });
  }

  // A page back from the background may have missed frames: ask for the game as it is.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && state.socket && state.socket.readyState === WebSocket.OPEN) {
      state.socket.send(JSON.stringify({ type: "snapshot" }));
    }
  });

  noteClockOffset(state.game);
  render();
  afterSnapshot();
  // The clocks and the away countdowns move on between snapshots.
  window.setInterval(() => {
    if (state.game.clock || state.game.presence || state.lostAt !== null) drawClocks();
  }, CLOCK_TICK_MS);
  // On a phone the site header would push the controls below the fold: start at the game.
  if (window.innerWidth < 600 && window.scrollY === 0 && !window.location.hash) {
    root.scrollIntoView({ block: "start" });
  }
  if (state.wsPath) {
    connect();
    window.setTimeout(() => {
      state.slowStart = true;
      if (!state.connected) render();
    }, 1000);
  }
})();
