/*
 * The phone menu (base.html's #site-menu, an HTML popover that works without this script):
 * when the keyboard's focus leaves the open menu, the menu closes, so that the focus is never
 * on a link the menu covers.
 */

/**
 * Whether the focus moving to `to` leaves the open menu (and so closes it).
 * @param {{contains: Function, matches: Function}} menu
 * @param {?Element} to  where the focus goes (null: out of the page)
 * @returns {boolean}
 */
export function leavesMenu(menu, to) {
  return Boolean(to) && !menu.contains(to) && menu.matches(":popover-open");
}

/** Close `menu` whenever the focus leaves it. */
export function watchMenu(menu) {
  menu.addEventListener("focusout", (event) => {
    if (leavesMenu(menu, event.relatedTarget)) menu.hidePopover();
  });
}

const menu = globalThis.document && document.getElementById("site-menu");
if (menu && menu.hidePopover) watchMenu(menu);
