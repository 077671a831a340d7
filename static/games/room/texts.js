/*
 * The room's sentences: names, the status line, plays, results, the match score and the
 * history, built from the game (and the room state where staging matters). Text goes through
 * Django's JavaScript catalogue (the globals gettext, ngettext, pgettext, interpolate); no DOM.
 * Plays are shown in the viewer's own numbering (white's for an onlooker).
 */
import { SIDES, diceText, fmt, other, playForViewer, sideName } from "../board.js";
import { clockText } from "../live/time.js";
import { can, cubeOffer, myTurn } from "./state.js";
import { currentNode } from "./staging.js";

function viewer(game) {
  return game.you || null;
}

/**
 * @param {Object} game
 * @param {string} side  "white" or "black"
 * @returns {boolean} the computer plays that side
 */
export function isBot(game, side) {
  const player = game.players && game.players[side];
  return Boolean(player && player.bot);
}

/**
 * True in a game between two people (both guests are "Guest": they are told apart by side).
 * @param {Object} game
 * @returns {boolean}
 */
export function betweenPeople(game) {
  return Boolean(game.players) && !SIDES.some((side) => isBot(game, side));
}

/**
 * The side's player is signed in: a name, a page, and a rating shown in rated games.
 * @param {Object} game
 * @param {string} side
 * @returns {boolean}
 */
export function hasAccount(game, side) {
  const player = game.players && game.players[side];
  return Boolean(player && player.profile);
}

/**
 * The side's name: an account's, "Your opponent" or "The white player" between guests, else
 * the snapshot's name ("Computer", "Guest") or the colour.
 * @param {Object} game
 * @param {string} side
 * @returns {string}
 */
function nameOf(game, side) {
  const me = viewer(game);
  if (hasAccount(game, side)) return game.players[side].name;
  if (betweenPeople(game)) {
    if (me && side !== me) return gettext("Your opponent");
    if (!me) return side === "white" ? gettext("The white player") : gettext("The black player");
  }
  const player = game.players && game.players[side];
  return (player && player.name) || sideName(side);
}

/**
 * The side as the subject at the start of a sentence: "The computer", or the player's name.
 * @param {Object} game
 * @param {string} side
 * @returns {string}
 */
function subject(game, side) {
  return isBot(game, side) ? gettext("The computer") : nameOf(game, side);
}

/** The side inside a sentence: "the computer", "your opponent", or the player's name. */
function object(game, side) {
  if (isBot(game, side)) return gettext("the computer");
  if (hasAccount(game, side)) return nameOf(game, side);
  const me = viewer(game);
  if (betweenPeople(game) && me && side !== me) return gettext("your opponent");
  return nameOf(game, side);
}

/**
 * "You" for the viewer's side, else a short name (history, score, the players' boxes).
 * @param {Object} game
 * @param {string} side
 * @returns {string}
 */
export function who(game, side) {
  const me = viewer(game);
  if (side === me) return gettext("You");
  if (hasAccount(game, side)) return nameOf(game, side);
  if (betweenPeople(game)) return me ? gettext("Opponent") : sideName(side);
  return nameOf(game, side);
}

/** True until both sides have played once: the opening is still worth showing. */
function earlyGame(game) {
  if (!game.last) return true;
  if (!Array.isArray(game.history)) return false;
  return game.history.filter((entry) => entry.kind === "play").length <= 1;
}

/**
 * Early in a game that began with an R3 roll-off: the opening roll is shown.
 * @param {Object} game
 * @returns {boolean}
 */
export function isOpening(game) {
  const o = game.opening;
  return Boolean(earlyGame(game) && o && o.white && o.black && o.roll_off !== false);
}

/** The dice of the roll-off are still the dice to play (R3, play_opening_dice). */
function playsOpeningDice(game) {
  return !game.last && isOpening(game) && game.preset !== "match";
}

/**
 * "Opening roll: you 6, the computer 5. You start."
 * @param {Object} game  with `opening`
 * @returns {string}
 */
export function openingText(game) {
  const o = game.opening;
  const starter = o.starter || (o.white > o.black ? "white" : "black");
  const me = viewer(game);
  const parts = [];
  // in the order it happened: the ties first, then the roll that decided
  if (o.ties && o.ties.length) {
    const ties = o.ties.map((t) => diceText(t)).join(", ");
    parts.push(fmt(ngettext("The opening dice tied (%(ties)s) and were rolled again.", "The opening dice tied (%(ties)s) and were rolled again each time.", o.ties.length), { ties }));
  }
  if (me) {
    parts.push(fmt(gettext("Opening roll: you %(mine)s, %(name)s %(theirs)s."), { mine: o[me], theirs: o[other(me)], name: object(game, other(me)) }));
  } else {
    parts.push(fmt(gettext("Opening roll: white %(white)s, black %(black)s."), { white: o.white, black: o.black }));
  }
  parts.push(starter === me ? gettext("You start.") : fmt(gettext("%(name)s starts."), { name: subject(game, starter) }));
  return parts.join(" ");
}

/**
 * The line above the board about how the game began: the opening roll while it is news, or
 * in a match game the reason its starter starts; else "".
 * @param {Object} game
 * @returns {string}
 */
export function openingLine(game) {
  return isOpening(game) ? openingText(game) : matchStartText(game);
}

/**
 * For a match game started by the previous game's winner (R11): who starts and why; else "".
 * @param {Object} game
 * @returns {string}
 */
export function matchStartText(game) {
  if (!earlyGame(game) || !game.match || !game.opening || game.opening.roll_off !== false || !game.opening.starter) return "";
  const starter = game.opening.starter;
  return starter === viewer(game)
    ? gettext("You won the last game, so you start and roll both dice.")
    : fmt(gettext("%(name)s won the last game, so it starts and rolls both dice."), { name: subject(game, starter) });
}

/**
 * The line under the board: whose turn, what to do now, what is awaited.
 * @param {RoomState} state  the game, and the steps staged and the checker selected
 * @returns {string}
 */
export function statusText(state) {
  const game = state.game;
  if (game.status === "aborted") return gettext("The game was aborted.");
  if (game.status !== "active") return gettext("The game is over.");
  const me = viewer(game);
  const mover = game.turn;
  // While the opponent's play slides on the board the controls wait (state.anim): so does
  // the status, or it would ask for a roll the disabled button cannot make yet.
  const shown = state.anim && game.last;
  if (shown) {
    return fmt(gettext("%(name)s rolled %(dice)s and is moving…"), { name: subject(game, shown.side), dice: diceText(shown.dice || []) });
  }
  const offer = cubeOffer(game);
  if (offer) {
    const stake = offer.value * 2;
    if (offer.offered_by !== me && can(state, "take")) {
      return fmt(gettext("%(name)s doubles: play on for %(stake)s points (take), or give up the game now for %(value)s (drop)."),
        { name: subject(game, offer.offered_by), stake, value: offer.value });
    }
    return fmt(gettext("You offered to double to %(stake)s: waiting for %(name)s to answer…"), { stake, name: object(game, other(offer.offered_by)) });
  }
  if (myTurn(state)) {
    if (game.phase === "roll") {
      const ask = can(state, "double") ? gettext("Your turn: roll the dice, or double first.") : gettext("Your turn: roll the dice.");
      // Say plainly that the opponent has just taken our double (else only the history shows it).
      const history = game.history || [];
      const latest = history[history.length - 1];
      if (latest && latest.kind === "take" && latest.side !== me && game.cube) {
        return fmt(gettext("%(name)s took your double: the game is now played for %(value)s."),
          { name: subject(game, latest.side), value: game.cube.value }) + " " + ask;
      }
      return ask;
    }
    const dice = diceText(game.dice);
    if (game.legal && game.legal.pass) {
      return state.settings && (state.settings.autoPass || state.settings.autoPlay)
        ? fmt(gettext("No legal move with %(dice)s: the page passes for you in a moment (a setting of yours)."), { dice })
        : fmt(gettext("No legal move with %(dice)s: your turn passes."), { dice });
    }
    const diceSentence = playsOpeningDice(game)
      ? fmt(gettext("Play the opening dice %(dice)s."), { dice })
      : fmt(gettext("You rolled %(dice)s."), { dice });
    const node = currentNode(state);
    if (node && node.final && state.staged.length) {
      return diceSentence + " " + gettext("Your move is complete: confirm it or undo.");
    }
    if (state.selected !== null) {
      return diceSentence + " " + gettext("Choose a highlighted place to move the checker there.");
    }
    return diceSentence + " " + gettext("Choose a checker to move.");
  }
  if (game.phase === "play" && game.dice) {
    return fmt(gettext("%(name)s rolled %(dice)s and is moving…"), { name: subject(game, mover), dice: diceText(game.dice) });
  }
  return fmt(gettext("%(name)s to roll…"), { name: subject(game, mover) });
}

/**
 * "The computer rolled 6‑5 and played 24/18 18/13." in the viewer's numbering.
 * @param {Object} game
 * @param {string} side  the side that played
 * @param {number[]} dice
 * @param {string} play  in that side's numbering; "" for a pass
 * @returns {string}
 */
export function playText(game, side, dice, play) {
  const me = viewer(game);
  if (!play) {
    return side === me
      ? fmt(gettext("You rolled %(dice)s and could not move."), { dice: diceText(dice) })
      : fmt(gettext("%(name)s rolled %(dice)s and could not move."), { name: subject(game, side), dice: diceText(dice) });
  }
  const shown = playForViewer(play, side, me);
  return side === me
    ? fmt(gettext("You rolled %(dice)s and played %(play)s."), { dice: diceText(dice), play: shown })
    : fmt(gettext("%(name)s rolled %(dice)s and played %(play)s."), { name: subject(game, side), dice: diceText(dice), play: shown });
}

/**
 * @param {Object} game
 * @returns {string} playText of the game's `last` play, or ""
 */
export function lastPlayText(game) {
  const last = game.last;
  return last ? playText(game, last.side, last.dice || [], last.play) : "";
}

function kindName(kind) {
  return { oin: gettext("oin"), mars: gettext("mars"), koks: gettext("koks") }[kind] || kind;
}

function isAborted(result) {
  return result.reason === "aborted" || !result.winner;
}

/**
 * The question before a resignation: before the viewer's first play of a single game or of a
 * match's first game it aborts the game (docs/protocol.md "Aborts"), else it is scored.
 * @param {Object} game
 * @returns {string}
 */
export function resignQuestion(game) {
  const me = viewer(game);
  const played = (game.history || []).some((entry) => entry.kind === "play" && entry.side === me);
  if (!played && !(game.match && game.match.game_number > 1)) {
    return gettext("Leave this game? You have not made a play yet, so it is aborted: no result and no rating change. In a rated game leaving like this counts like leaving a lost game.");
  }
  return gettext("Resign this game? It is scored on your position as it stands now.");
}

/**
 * "You won: mars, 2 points." or "Game aborted: no result."
 * @param {Object} game
 * @param {Object} result  the snapshot's `result`
 * @returns {string}
 */
export function resultTitle(game, result) {
  if (isAborted(result)) return gettext("Game aborted: no result.");
  const values = { name: subject(game, result.winner), kind: kindName(result.kind), points: result.points };
  if (result.winner === viewer(game)) {
    return fmt(ngettext("You won: %(kind)s, %(points)s point.", "You won: %(kind)s, %(points)s points.", result.points), values);
  }
  return fmt(ngettext("%(name)s won: %(kind)s, %(points)s point.", "%(name)s won: %(kind)s, %(points)s points.", result.points), values);
}

/**
 * What the result's kind means, and the cube it was played for.
 * @param {Object} result
 * @returns {string}
 */
export function resultExplain(result) {
  if (isAborted(result)) return gettext("Nobody wins, no points are scored and no rating changes.");
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

/**
 * How the game ended: "You resigned.", "The computer bore off all 15 checkers.", …
 * @param {Object} game
 * @param {Object} result
 * @returns {string}
 */
export function resultReason(game, result) {
  const me = viewer(game);
  if (isAborted(result)) {
    const absent = result.loser;
    if (!absent) return gettext("A first move was not made in time.");
    const mine = absent === me;
    const name = subject(game, absent);
    switch (result.aborted_by) {
      case "resign":
        return mine ? gettext("You resigned before your first play.")
          : fmt(gettext("%(name)s resigned before their first play."), { name });
      case "drop":
        return mine ? gettext("You dropped the double before your first play.")
          : fmt(gettext("%(name)s dropped the double before their first play."), { name });
      case "abandon":
        return mine ? gettext("You left before your first play.")
          : fmt(gettext("%(name)s left before their first play."), { name });
      default:
        return mine ? gettext("You did not make a first move in time.")
          : fmt(gettext("%(name)s did not make a first move in time."), { name });
    }
  }
  const loser = result.loser || other(result.winner);
  const mine = loser === me;
  const name = subject(game, loser);
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
    return result.winner === me
      ? gettext("You bore off all 15 checkers.")
      : fmt(gettext("%(name)s bore off all 15 checkers."), { name: subject(game, result.winner) });
  }
  if (result.reason === "resign") {
    return mine ? gettext("You resigned.") : fmt(gettext("%(name)s resigned."), { name });
  }
  if (result.reason === "drop") {
    return mine ? gettext("You dropped the double.") : fmt(gettext("%(name)s dropped the double."), { name });
  }
  return "";
}

/**
 * "Match to 3 · game 2 · You 1 : 0 Computer" (the viewer first), or "" outside a match.
 * @param {Object} game
 * @returns {string}
 */
export function matchText(game) {
  const m = game.match;
  if (!m) return "";
  const first = viewer(game) || "white";
  const second = other(first);
  return fmt(gettext("Match to %(length)s · game %(number)s · %(first)s %(a)s : %(b)s %(second)s"), {
    length: m.length, number: m.game_number,
    first: who(game, first), a: m.score[first], b: m.score[second], second: who(game, second),
  });
}

/**
 * The match's outcome once decided, else its score (matchText); "" outside a match.
 * @param {Object} game
 * @returns {string}
 */
export function matchResultText(game) {
  const m = game.match;
  if (!m) return "";
  if (m.status === "aborted") return gettext("The match is aborted: no result.");
  if (m.status === "finished" && m.winner) {
    return m.winner === viewer(game)
      ? fmt(gettext("You won the match %(a)s : %(b)s."), { a: m.score[m.winner], b: m.score[other(m.winner)] })
      : fmt(gettext("%(name)s won the match %(a)s : %(b)s."), { name: subject(game, m.winner), a: m.score[m.winner], b: m.score[other(m.winner)] });
  }
  return matchText(game);
}

/**
 * What a history entry did: the play in the viewer's numbering, "double to 2", …
 * @param {Object} game
 * @param {{side: string, kind: string, play?: string, cube?: number}} entry
 * @returns {string}
 */
export function historyEntryText(game, entry) {
  switch (entry.kind) {
    case "play":
      return entry.play
        ? playForViewer(entry.play, entry.side, viewer(game))
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
      return gettext("left before a first play: game aborted");
    default:
      return who(game, entry.side);
  }
}

/**
 * "rating 1500" or "rating 1500, provisional" (for a screen reader's label).
 * @param {number} rating
 * @param {boolean} provisional
 * @returns {string}
 */
export function ratingLabel(rating, provisional) {
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

/**
 * One line per side of a rated result's rating change, the viewer's first.
 * @param {Object} game
 * @param {?Object} result  with `rating`: {side: {before, after, delta, provisional}} or null
 * @returns {Array<[string, string, {before: number, after: number, delta: number, provisional: boolean}]>}
 *   [side, text, change] each
 */
export function ratingLines(game, result) {
  const rating = result && result.rating;
  if (!rating) return [];
  const me = viewer(game);
  const sides = me ? [me, other(me)] : SIDES;
  return sides.filter((side) => rating[side]).map((side) => {
    const change = rating[side];
    const values = { name: nameOf(game, side), before: change.before, after: change.after, delta: signed(change.delta) };
    const text = side === me
      ? fmt(gettext("Your rating: %(before)s → %(after)s (%(delta)s)"), values)
      : fmt(gettext("%(name)s's rating: %(before)s → %(after)s (%(delta)s)"), values);
    return [side, text, change];
  });
}

/**
 * A length of time in words, kept on one line (no-break spaces): "1 min 15 s", "40 s", "3 min".
 * @param {number} ms
 * @returns {string}
 */
export function durationText(ms) {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  let text;
  if (!minutes) text = fmt(gettext("%(s)s s"), { s: rest });
  else if (!rest) text = fmt(gettext("%(min)s min"), { min: minutes });
  else text = fmt(gettext("%(min)s min %(s)s s"), { min: minutes, s: rest });
  return text.replace(/ /g, "\u00a0");
}

/**
 * What the running free time is for, beside the clock ("to roll 0:12").
 * @param {{period: ?string}} clock
 * @returns {string}
 */
export function periodLabel(clock) {
  if (clock.period === "roll") return pgettext("clock period", "to roll");
  if (clock.period === "answer") return pgettext("clock period", "to answer");
  return pgettext("clock period", "to move");
}

/**
 * "Connection lost: reconnecting…", with what the viewer's clock does meanwhile.
 * @param {RoomState} state  `lostAt`: when the socket closed
 * @param {number} now  Date.now()
 * @returns {string}
 */
export function lostText(state, now) {
  const game = state.game;
  const text = gettext("Connection lost: reconnecting…");
  const clock = game.clock;
  if (!clock || !viewer(game) || game.status !== "active" || state.lostAt === null) return text;
  const back = clock.spec && clock.spec.reconnect_ms;
  if (typeof back === "number") {
    const left = clockText(back - (now - state.lostAt));
    return text + " " + (clock.spec.loses === "match"
      ? fmt(gettext("Come back within %(time)s or you lose the match."), { time: left })
      : fmt(gettext("Come back within %(time)s or you lose the game."), { time: left }));
  }
  // only when it is the viewer's own time that runs
  return clock.running === viewer(game) ? text + " " + gettext("Your clock keeps running.") : text;
}
