/*
 * The new-game options form (templates/games/new_game_form.html): shows and enables only the
 * options of the chosen preset, so the server never gets an option the preset does not have
 * (docs/protocol.md: that would be refused with 400).
 */
(function () {
  "use strict";

  function update(form) {
    const chosen = form.querySelector('input[name="preset"]:checked');
    const preset = chosen ? chosen.value : "sport";
    for (const group of form.querySelectorAll("[data-for-preset]")) {
      const on = group.getAttribute("data-for-preset") === preset;
      group.disabled = !on;
      group.hidden = !on;
    }
  }

  for (const form of document.querySelectorAll("form[data-new-game]")) {
    if (form.dataset.ready) continue;
    form.dataset.ready = "true";
    form.addEventListener("change", (event) => {
      if (event.target.name === "preset") update(form);
    });
    update(form);
  }
})();
