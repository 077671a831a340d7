/*
 * The phone menu (base.html's #site-menu, an HTML popover that works without this script):
 * when the keyboard's focus leaves the open menu, the menu closes, so that the focus is never
 * on a link the menu covers.
 */
(() => {
  "use strict";
  const menu = document.getElementById("site-menu");
  if (!menu || !menu.hidePopover) return;
  menu.addEventListener("focusout", (event) => {
    const to = event.relatedTarget;
    if (!to || menu.contains(to) || !menu.matches(":popover-open")) return;
    menu.hidePopover();
  });
})();
