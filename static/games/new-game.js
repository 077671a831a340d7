/*
 * The new-game and challenge forms (templates/games/new_game_form.html, challenge_new.html):
 * shows and enables only the options of the chosen preset, so the server never gets an option
 * the preset does not have (docs/protocol.md: that would be refused with 400), and shows only
 * the chosen preset's clock (blocks marked data-for-presets="sport classic"). Where the clock is
 * a choice (templates/games/_clock_choice.html: radios with data-presets), the chosen preset's
 * own clock is checked until the player picks one, and only the checked clock is described.
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
    updateClock(form, preset);
  }

  function updateClock(form, preset) {
    const radios = form.querySelectorAll('input[name="clock"][data-presets]');
    if (!radios.length) return;
    if (form.dataset.clockChosen !== "true") {
      for (const radio of radios) radio.checked = radio.dataset.presets.split(" ").includes(preset);
    }
    const checked = form.querySelector('input[name="clock"][data-presets]:checked');
    for (const block of form.querySelectorAll("[data-for-clock]")) {
      block.hidden = Boolean(checked) && block.dataset.forClock !== checked.value;
    }
  }

  for (const form of document.querySelectorAll("form[data-new-game]")) {
    if (form.dataset.ready) continue;
    form.dataset.ready = "true";
    // a clock already checked (the form sent back with an error) is the player's choice
    if (form.querySelector('input[name="clock"][data-presets]:checked')) form.dataset.clockChosen = "true";
    form.addEventListener("change", (event) => {
      if (event.target.name === "clock" && event.target.dataset.presets) form.dataset.clockChosen = "true";
      if (event.target.name === "preset" || event.target.name === "clock") update(form);
    });
    update(form);
  }
})();
