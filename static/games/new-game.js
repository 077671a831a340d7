/*
 * The new-game and challenge forms (templates/games/new_game_form.html, challenge_new.html):
 * shows and enables only the options of the chosen preset, so the server never gets an option
 * the preset does not have (docs/protocol.md: that would be refused with 400), and shows only
 * the chosen preset's clock (blocks marked data-for-presets="sport classic").
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
    for (const block of form.querySelectorAll("[data-for-presets]")) {
      block.hidden = !block.getAttribute("data-for-presets").split(" ").includes(preset);
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
