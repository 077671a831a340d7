"""Hints in the browser (issue #17): a guest turns hints on in a casual game against the
computer, asks for a hint, plays, and reads what the play lost, in Russian, Bulgarian and
English; the hint panel is not there for an onlooker."""

import time

import pytest

from games.room.tests.test_e2e_browser import (  # noqa: F401 - fixtures used by name
    ARTIFACTS,
    PHONE,
    browser,
    daphne_server,
    next_action,
    open_new_game,
    stage_whole_turn,
)

pytestmark = pytest.mark.e2e

#: per language: the home page's button, then the starts of a hint (a real choice or a forced
#: play) and of a judgement of the player's play
TEXTS = {
    "ru": (
        "Играть с компьютером",
        ("Лучший ход: ", "Возможен только один ход: "),
        "Ваш ход ",
        ("Этот ход потерял ", "Это был лучший ход.", "Этот ход уступил", "Ход был вынужденным"),
    ),
    "bg": (
        "Играйте срещу компютъра",
        ("Най-добрият ход: ", "Възможен е само един ход: "),
        "Вашият ход ",
        ("Този ход загуби ", "Това беше най-добрият ход.", "Ходът беше принуден"),
    ),
    "en": (
        "Play against the computer",
        ("The best play: ", "Only one play is possible: "),
        "Your play ",
        ("That play lost ", "That was the best play.", "That play was forced"),
    ),
}


def note(page):
    return page.locator("#coach-note").inner_text()


def test_a_guest_asks_for_hints_and_reads_what_each_play_lost_in_three_languages(
    daphne_server, browser
):
    for lang, (button, hint_starts, judged_start, verdicts) in TEXTS.items():
        page, game_id, errors = open_new_game(
            browser, daphne_server.base, lang, button, viewport=PHONE
        )
        coach = page.locator("#coach")
        coach.wait_for(state="visible")
        assert page.locator("#hint-btn").is_hidden()  # hints are off until the player asks
        page.check("#set-hints")
        deadline = time.monotonic() + 60
        real_choice = False
        while not real_choice:
            action = next_action(page, deadline)
            assert action != "result", "the game ended before a hint with a choice"
            if action == "roll":
                page.click("#roll-btn")
                continue
            if action == "pass":
                page.click("#pass-btn")
                continue
            if lang == "en":
                page.locator('#board [tabindex="0"]').focus()  # the board's tab stop
                page.keyboard.press("h")  # the keyboard's way
            else:
                page.click("#hint-btn")
            page.wait_for_function(
                "(starts) => starts.some((s) => document.getElementById('coach-note')"
                ".textContent.startsWith(s))",
                arg=list(hint_starts),
            )
            hint = note(page)
            real_choice = hint.startswith(hint_starts[0])
            assert page.locator("#hint-btn").is_disabled()  # one question per position
            stage_whole_turn(page)
            page.click("#confirm-btn")
            page.wait_for_function(
                "(start) => document.getElementById('coach-note').textContent.startsWith(start)",
                arg=judged_start,
            )
            judged = note(page)
            assert any(f": {verdict}" in judged for verdict in verdicts), judged
        if lang == "ru":
            page.screenshot(path=str(ARTIFACTS / "hints-ru-390.png"), full_page=True)
        # an onlooker of the same game has no hint panel
        onlooker = browser.new_page(viewport=PHONE)
        onlooker.goto(f"{daphne_server.base}/{lang}/game/{game_id}/")
        onlooker.wait_for_selector("#board [data-point]")
        assert onlooker.locator("#coach").count() == 0
        onlooker.close()
        page.close()
        assert not errors, errors
