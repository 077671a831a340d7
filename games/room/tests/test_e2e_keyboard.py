"""A whole game against the computer with the keyboard alone, in headless Chromium (issue #15):
the page moves the focus to where the next action is (the board after a roll, Confirm once a
move is complete, Pass when nothing can move, "Play again" at the end), the arrow keys walk the board's places, Enter
picks, Space rolls; and the live region says the player's own rolls, the computer's plays and
the result."""

import re
import time

import pytest

from games.room.tests.test_e2e_browser import (  # noqa: F401 - fixtures used by name
    GAME_TIME_LIMIT_S,
    browser,
    daphne_server,
    next_action,
    open_new_game,
    wait_for_new_version,
)

pytestmark = pytest.mark.e2e

# Every text the live region is given, in order (the announcer empties it first).
RECORD_ANNOUNCEMENTS_JS = """() => {
  window.__said = [];
  const region = document.getElementById("announce");
  new MutationObserver(() => {
    const text = region.textContent.trim();
    if (text) window.__said.push(text);
  }).observe(region, { childList: true, characterData: true, subtree: true });
}"""

# Where the focus is: "body", "board:<classes>", or the focused element's id.
FOCUS_JS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return "body";
  if (document.getElementById("board").contains(el)) {
    return "board:" + (el.getAttribute("class") || "");
  }
  return el.id || el.tagName;
}"""

#: key presses allowed for one move (a double has four steps, each a few arrow presses)
KEYS_PER_MOVE = 400


def focus(page):
    return page.evaluate(FOCUS_JS)


def wait_for_focus(page, predicate, what):
    """Wait (up to 5 s) until the focus satisfies ``predicate``; returns where it is."""
    deadline = time.monotonic() + 5
    while True:
        where = focus(page)
        if predicate(where):
            return where
        if time.monotonic() > deadline:
            pytest.fail(f"the focus did not move to {what}: it is on {where}")
        page.wait_for_timeout(50)


def play_move_by_keys(page, undo_first=False):
    """With the focus on the board after a roll: walk it with the arrow keys, pick a checker
    and a destination with Enter until the move is complete and the focus is on Confirm, then
    confirm with Enter. ``undo_first``: on reaching Confirm the first time, undo the last step
    with Backspace (the focus must go back to the board) and stage it again."""
    for _ in range(KEYS_PER_MOVE):
        where = focus(page)
        if where == "confirm-btn":
            if undo_first:
                undo_first = False
                page.keyboard.press("Backspace")
                wait_for_focus(page, lambda f: f.startswith("board:"), "the board after an undo")
                continue
            page.keyboard.press("Enter")
            return
        classes = where[len("board:") :].split() if where.startswith("board:") else []
        picked = page.locator("#board .selected").count() > 0
        if "dest" in classes or ("can-move" in classes and not picked):
            page.keyboard.press("Enter")
        elif where.startswith("board:"):
            page.keyboard.press("ArrowRight")
        else:
            pytest.fail(f"the focus left the board in the middle of a move: {where}")
    pytest.fail("no complete move within the key presses allowed")


def test_a_whole_game_against_the_computer_with_the_keyboard_alone(
    daphne_server, celery_worker_process, browser
):
    deadline = time.monotonic() + GAME_TIME_LIMIT_S
    page, _game_id, page_errors = open_new_game(browser, daphne_server.base)
    page.evaluate(RECORD_ANNOUNCEMENTS_JS)
    counts = {"roll": 0, "play": 0, "pass": 0}
    while True:
        action = next_action(page, deadline)
        if action == "result":
            break
        version = int(page.locator("#game").get_attribute("data-version"))
        if action == "roll":
            wait_for_focus(page, lambda f: f in ("roll-btn", "body"), "the Roll button")
            page.keyboard.press("Space")
        elif action == "pass":
            wait_for_focus(page, lambda f: f == "pass-btn", "the Pass button")
            page.keyboard.press("Enter")
        else:
            # after the roll the focus is on the board, on a checker that can move
            wait_for_focus(page, lambda f: f.startswith("board:"), "the board")
            play_move_by_keys(page, undo_first=counts["play"] == 0)
        counts[action] += 1
        wait_for_new_version(page, version, deadline)
        assert sum(counts.values()) < 600, counts
    # the result is said too (the live region is filled a moment after the panel shows), and
    # the focus goes to "Play again", not to the page's body (issue #30)
    page.wait_for_function("() => window.__said.some((text) => / won: /.test(text))", timeout=5000)
    wait_for_focus(page, lambda f: f == "again-btn", "Play again")
    said = page.evaluate("() => window.__said")
    page.close()

    assert not page_errors, page_errors
    assert counts["roll"] > 0 and counts["play"] > 0
    assert any(re.match(r"You rolled \d\u2011\d\.", text) for text in said), said[:10]
    assert any("The computer rolled" in text for text in said), said[:10]
    assert any(re.search(r"(You|The computer) won: ", text) for text in said), said[-3:]
