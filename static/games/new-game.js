/*
 * The new-game and challenge forms (templates/games/new_game_form.html, challenge_new.html,
 * the lobby's): shows and enables only the options of the chosen preset, so the server never
 * gets an option the preset does not have (docs/protocol.md: that would be refused with 400),
 * and shows only the chosen preset's clock (blocks marked data-for-presets="sport classic").
 * Where the clock is a choice (templates/games/_clock_choice.html: radios with data-presets),
 * the chosen preset's own clock is checked until the player picks one, and only the checked
 * clock is described. A "Play a person" link in the form (`data-person-link`, the lobby's
 * address) follows the chosen rules, so the lobby opens on them and looks for an opponent at
 * once. The choices are the small functions below (no DOM); `update` applies them.
 */

/**
 * The lobby's address that looks for a casual opponent with `preset` at once.
 * @param {string} lobby  the lobby's address, as the page gives it ("/en/lobby/")
 * @param {string} preset
 * @param {?string} matchLength  for "match"
 * @returns {string}
 */
export function personUrl(lobby, preset, matchLength) {
  const query = new URLSearchParams({ pool: "casual", preset });
  if (preset === "match" && matchLength) query.set("match_length", matchLength);
  query.set("go", "1");
  return `${lobby.split("?")[0]}?${query}`;
}

/**
 * Whether a block for `presets` ("sport classic", space-separated) shows with `preset` chosen.
 * @param {string} presets
 * @param {string} preset
 * @returns {boolean}
 */
export function forPresets(presets, preset) {
  return presets.split(" ").includes(preset);
}

/**
 * Which clock radios are checked: the player's own choice stands; otherwise the radios whose
 * presets include the chosen one.
 * @param {{presets: string, checked: boolean}[]} radios
 * @param {string} preset
 * @param {boolean} chosen  the player has picked a clock
 * @returns {boolean[]}
 */
export function clocksChecked(radios, preset, chosen) {
  return radios.map((radio) => (chosen ? radio.checked : forPresets(radio.presets, preset)));
}

/**
 * Whether the description of `clock` is hidden: only the checked clock's shows (all of them
 * while none is checked).
 * @param {string} clock
 * @param {?string} checked  the checked clock's value, or null
 * @returns {boolean}
 */
export function clockNoteHidden(clock, checked) {
  return Boolean(checked) && clock !== checked;
}

/** Show and enable what the form's chosen preset and clock have, hide the rest. */
export function update(form) {
  const chosen = form.querySelector('input[name="preset"]:checked');
  const preset = chosen ? chosen.value : "sport";
  for (const group of form.querySelectorAll("[data-for-preset]")) {
    const on = group.getAttribute("data-for-preset") === preset;
    group.disabled = !on;
    group.hidden = !on;
  }
  for (const block of form.querySelectorAll("[data-for-presets]")) {
    block.hidden = !forPresets(block.getAttribute("data-for-presets"), preset);
  }
  const length = form.querySelector('input[name="match_length"]:checked');
  for (const link of form.querySelectorAll("a[data-person-link]")) {
    link.href = personUrl(link.getAttribute("href"), preset, length ? length.value : null);
  }
  const radios = Array.from(form.querySelectorAll('input[name="clock"][data-presets]'));
  if (!radios.length) return;
  const checks = clocksChecked(
    radios.map((radio) => ({ presets: radio.dataset.presets, checked: radio.checked })),
    preset,
    form.dataset.clockChosen === "true",
  );
  radios.forEach((radio, i) => {
    radio.checked = checks[i];
  });
  const checked = radios.find((radio) => radio.checked);
  for (const block of form.querySelectorAll("[data-for-clock]")) {
    block.hidden = clockNoteHidden(block.dataset.forClock, checked ? checked.value : null);
  }
}

/** Every new-game form of the page, once. */
export function start(doc) {
  for (const form of doc.querySelectorAll("form[data-new-game]")) {
    if (form.dataset.ready) continue;
    form.dataset.ready = "true";
    // a clock already checked (the form sent back with an error) is the player's choice
    if (form.querySelector('input[name="clock"][data-presets]:checked')) form.dataset.clockChosen = "true";
    form.addEventListener("change", (event) => {
      if (event.target.name === "clock" && event.target.dataset.presets) form.dataset.clockChosen = "true";
      if (["preset", "clock", "match_length"].includes(event.target.name)) update(form);
    });
    update(form);
  }
}

if (globalThis.document) start(document);
