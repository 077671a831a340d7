/*
 * The rematch after a finished game between people (docs/protocol.md "Rematch"): "Rematch"
 * (in a match that is over, "New match") offers; the opponent's page shows the offer with
 * Rematch and Decline; when both pressed, the server's `rematch` frame names the new game and
 * both players' pages go there. The snapshot's `rematch` brings the state back after a
 * reconnect. What to show is a pure function of the state (rematchView); createRematch does
 * the little DOM there is and the page's navigation.
 */

/** The states of docs/protocol.md "Rematch". */
export const OPEN = "open";
export const OFFERED = "offered";
export const ASKED = "asked";
export const DECLINED = "declined";
export const STARTED = "started";

/**
 * What the result panel shows of the rematch.
 * @param {?{state: string, game: ?string}} rematch  the snapshot's or the last frame's
 * @param {boolean} match  the finished game ended a match (a "new match" is offered)
 * @returns {{hidden: boolean, note: string, offer: ?string, decline: ?string, link: ?string}}
 *   `offer`/`decline`: the buttons' labels (null: hidden); `link`: the new game's page
 */
export function rematchView(rematch, match) {
  const view = { hidden: true, note: "", offer: null, decline: null, link: null };
  if (!rematch || !rematch.state) return view;
  view.hidden = false;
  const again = match ? gettext("New match") : gettext("Rematch");
  switch (rematch.state) {
    case OPEN:
      view.offer = again;
      break;
    case OFFERED:
      view.note = match
        ? gettext("New match offered: waiting for your opponent…")
        : gettext("Rematch offered: waiting for your opponent…");
      view.decline = pgettext("rematch: take back one's offer", "Withdraw");
      break;
    case ASKED:
      view.note = match ? gettext("Your opponent wants a new match") : gettext("Your opponent wants a rematch");
      view.offer = again;
      view.decline = gettext("Decline");
      break;
    case DECLINED: // no new offer: it would only ask again someone who said no
      view.note = gettext("Your opponent declined.");
      break;
    case STARTED:
      view.note = match ? gettext("The new match has started.") : gettext("The rematch has started.");
      view.link = rematch.game;
      break;
    default:
      view.hidden = true;
  }
  return view;
}

/**
 * Whether a live `rematch` frame moves this page to the new game: a player's page that took
 * part (its own offer, or the opponent's it answered) goes; a page opened later on a game
 * whose rematch started long ago (from the history) only shows the link.
 * @param {?{state: string}} before  the rematch state the page held
 * @param {{state: string, game: ?string}} frame
 * @param {boolean} isPlayer
 */
export function movesOn(before, frame, isPlayer) {
  return Boolean(isPlayer && frame.state === STARTED && frame.game
    && before && (before.state === OFFERED || before.state === ASKED));
}

/**
 * The rematch part of the result panel.
 * @param {Object} els  rematch (the box), rematchNote, rematchOffer, rematchDecline, rematchLink
 * @param {Object} state  the room's state (state.game.rematch, state.isPlayer)
 * @param {{send: (frame: Object) => boolean}} connection
 * @param {(url: string) => void} go  the page's navigation
 */
export function createRematch(els, state, { connection, go }) {
  if (els.rematchOffer) {
    els.rematchOffer.addEventListener("click", () => connection.send({ type: "rematch" }));
  }
  if (els.rematchDecline) {
    els.rematchDecline.addEventListener("click", () => connection.send({ type: "rematch_decline" }));
  }

  function draw() {
    if (!els.rematch) return;
    const game = state.game;
    const over = game.status !== "active";
    const match = Boolean(game.match);
    const view = rematchView(over ? game.rematch : null, match);
    els.rematch.hidden = view.hidden;
    if (view.hidden) return;
    els.rematchNote.textContent = view.note;
    els.rematchOffer.hidden = !view.offer;
    if (view.offer) els.rematchOffer.textContent = view.offer;
    els.rematchDecline.hidden = !view.decline;
    if (view.decline) els.rematchDecline.textContent = view.decline;
    els.rematchLink.hidden = !view.link;
    if (view.link) els.rematchLink.href = view.link;
  }

  /** A `rematch` frame: kept with the game, drawn, and followed when it starts the game. */
  function onFrame(frame) {
    if (frame.type !== "rematch") return false;
    const before = state.game.rematch || null;
    state.game = { ...state.game, rematch: { state: frame.state, game: frame.game || null } };
    draw();
    if (movesOn(before, frame, state.isPlayer)) go(frame.game);
    return true;
  }

  return { draw, onFrame };
}
