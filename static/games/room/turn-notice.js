/*
 * A turn you never miss (issue #32): while the page is hidden (another tab, the phone's
 * screen off) and it becomes the player's turn, the tab's title and icon say so ("● Your
 * turn · …") and, if the player wants it, a short chime sounds; the title and icon come back
 * when the page is shown again. The chime is on by default in games between people and off
 * against the computer, until the player sets it (settings.turnSound: null means "the
 * default"). The decisions are pure functions; createTurnNotice does the little DOM there is.
 */

import { betweenPeople } from "./texts.js";

/** The mark before the title while it is the player's turn on a hidden page. */
export const TURN_MARK = "●";

/**
 * Whether this page's player must act now in `game` (a snapshot-shaped game): roll, play or
 * answer a double (the side `awaiting`, where state.myTurn asks for the mover).
 * @param {Object} game
 * @param {boolean} isPlayer
 */
export function mustAct(game, isPlayer) {
  return Boolean(isPlayer && game && game.you && game.status === "active" && game.awaiting === game.you);
}

/**
 * Whether the turn chime sounds: the player's own choice, else on against people only.
 * @param {{turnSound: ?boolean}} settings
 * @param {Object} game
 */
export function turnSoundOn(settings, game) {
  if (settings.turnSound === true || settings.turnSound === false) return settings.turnSound;
  return betweenPeople(game);
}

/**
 * The tab's title: `base` as the page has it, marked while it is the player's turn on a
 * hidden page.
 * @param {string} base
 * @param {boolean} myTurn
 * @param {boolean} hidden
 * @param {string} yourTurn  "Your turn" in the page's language
 */
export function turnTitle(base, myTurn, hidden, yourTurn) {
  return myTurn && hidden ? `${TURN_MARK} ${yourTurn} · ${base}` : base;
}

/**
 * The turn notice of one game page.
 * @param {{doc: Document, state: Object, turnIcon: string, yourTurn: string,
 *   chime: () => void}} options  `turnIcon`: the icon's URL while it is the player's turn
 * @returns {{update: () => void}}  call after every change of the game (render)
 */
export function createTurnNotice({ doc, state, turnIcon, yourTurn, chime }) {
  const base = doc.title;
  const icon = doc.querySelector('link[rel="icon"]');
  const baseIcon = icon ? icon.getAttribute("href") : null;
  let wasMine = mustAct(state.game, state.isPlayer);

  function show(mine) {
    const hidden = doc.visibilityState === "hidden";
    doc.title = turnTitle(base, mine, hidden, yourTurn);
    if (icon && baseIcon) icon.setAttribute("href", mine && hidden ? turnIcon : baseIcon);
  }

  function update() {
    const mine = mustAct(state.game, state.isPlayer);
    if (mine && !wasMine && doc.visibilityState === "hidden" && turnSoundOn(state.settings, state.game)) {
      chime();
    }
    wasMine = mine;
    show(mine);
  }

  doc.addEventListener("visibilitychange", () => show(mustAct(state.game, state.isPlayer)));
  return { update };
}
