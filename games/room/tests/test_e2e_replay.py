"""End to end in headless Chromium: the replay page opens at the top and its list of steps
keeps the current step in view by scrolling the list only, never the page.

The same real stack as test_e2e_browser.py (Daphne in a subprocess, the tests' database); the
replay is of a record imported through the import page.
"""

import random

import pytest

from games.engine import Position, get_ruleset, legal_plays
from games.engine import record as rec
from games.room.tests.test_e2e_browser import browser, daphne_server  # noqa: F401 - fixtures used by name

pytestmark = pytest.mark.e2e


def long_record(turns=40, seed=7):
    """A legal record of ``turns`` turns (a long list of steps), played with the engine."""
    ruleset = get_ruleset("sport")
    position = Position.initial("white")
    dice_of = random.Random(seed)
    lines = ['[Event "Long nardy game"]', '[Preset "sport"]', '[Opening "6-5"]', ""]
    dice = (6, 5)
    for n in range(1, turns + 1):
        if n > 1:
            dice = (dice_of.randint(1, 6), dice_of.randint(1, 6))
        play = dice_of.choice(legal_plays(position, dice, ruleset))
        lines.append(f"{n} {position.turn} {dice[0]}-{dice[1]} {play.notation or 'pass'}")
        position = play.result
        if position.winner:
            break
    text = "\n".join(lines) + "\n"
    rec.replay(rec.parse(text))
    return text


VIEW_JS = """() => {
  const box = document.getElementById("replay-list");
  const item = box.querySelector("li.current");
  const b = box.getBoundingClientRect(), i = item.getBoundingClientRect();
  return {scrollY: window.scrollY, listTop: box.scrollTop, hash: window.location.hash,
          index: Number(item.dataset.index), inView: i.top >= b.top - 1 && i.bottom <= b.bottom + 1};
}"""


def test_replay_opens_at_the_top_and_the_list_follows_the_step(daphne_server, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 600})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{daphne_server.base}/en/records/import/")
    page.fill("#id_text", long_record())
    page.locator(".record-import__form button[type=submit]").click()
    page.wait_for_selector("#replay-board [data-point]")
    replay_url = page.url.split("#")[0]

    view = page.evaluate(VIEW_JS)
    assert view["scrollY"] == 0 and view["hash"] == "" and view["index"] == 0

    page.keyboard.press("End")
    view = page.evaluate(VIEW_JS)
    assert view["scrollY"] == 0, "stepping scrolled the page"
    assert view["listTop"] > 0 and view["inView"]
    last = view["index"]
    for _ in range(5):
        page.keyboard.press("ArrowLeft")
    view = page.evaluate(VIEW_JS)
    assert view["index"] == last - 5 and view["inView"] and view["scrollY"] == 0
    page.locator("#replay-first").click()
    view = page.evaluate(VIEW_JS)
    assert (
        view["index"] == 0 and view["inView"] and view["listTop"] == 0 and view["hash"] == "#step-0"
    )

    # The address this page wrote opens at the top again (its hash names no element).
    page.goto("about:blank")
    page.goto(replay_url + "#step-0")
    page.wait_for_selector("#replay-board [data-point]")
    assert page.evaluate(VIEW_JS)["scrollY"] == 0

    # Deep links to a step still work, in both spellings.
    for fragment in ("#step-12", "#frame-12"):
        page.goto("about:blank")
        page.goto(replay_url + fragment)
        page.wait_for_selector("#replay-board [data-point]")
        view = page.evaluate(VIEW_JS)
        assert view["index"] == 12 and view["inView"]
    assert not errors, errors
