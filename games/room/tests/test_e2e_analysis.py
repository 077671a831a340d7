"""End to end in headless Chromium on a phone-sized screen (360 px): the replay page of a game
against the computer says its analysis is queued, picks it up by itself once it is done (the
page polls the status), and then shows the summary, the marks and the better play on the
board. Screenshots go to artifacts/e2e/analysis-*.png."""

import json

import pytest

from games.bots import judge
from games.room import analysis
from games.room.models import AnalysisStatus, GameAnalysis
from games.room.tests.test_analysis import finished_bot_game
from games.room.tests.test_e2e_browser import ARTIFACTS, browser, daphne_server, in_thread  # noqa: F401

pytestmark = pytest.mark.e2e

PHONE = {"width": 360, "height": 740}

OVERFLOW_JS = "() => document.scrollingElement.scrollWidth - window.innerWidth"


def test_the_analysis_on_a_phone(daphne_server, browser, monkeypatch):
    game = in_thread(lambda: finished_bot_game(monkeypatch, turns=6))
    # The end of the game asked for the analysis (no analysis worker runs here: it waits).
    assert in_thread(lambda: GameAnalysis.objects.get(game=game).status) == AnalysisStatus.PENDING

    page = browser.new_page(viewport=PHONE, reduced_motion="reduce")
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{daphne_server.base}/en/game/{game.id}/replay/")
    page.wait_for_selector("#replay-board [data-point]")
    assert "queued" in page.locator("#an-wait").inner_text()
    page.locator("#analysis").screenshot(path=str(ARTIFACTS / "analysis-queued-360.png"))

    in_thread(lambda: analysis.run_analysis(str(game.id)))
    page.wait_for_selector(".an-summary", timeout=30_000)  # the page reloaded by itself
    page.wait_for_selector("#replay-board [data-point]")
    assert page.evaluate(OVERFLOW_JS) <= 0, "the page is wider than the phone"
    page.locator("#analysis").screenshot(path=str(ARTIFACTS / "analysis-summary-360.png"))

    frames = json.loads(page.locator("#replay-frames").text_content())
    judged = [f for f in frames if f["kind"] == "play" and "analysis" in f]
    assert judged and all(f["analysis"]["mark"] in judge.MARKS for f in judged)
    worse = [f for f in judged if f["analysis"]["mark"] not in ("best", "forced")]
    assert worse, "six random plays of the human were all the best"
    frame = max(worse, key=lambda f: f["analysis"]["lost"])
    page.locator(f"#frame-{frame['index']} a").click()
    text = page.locator("#an-play-text").inner_text()
    assert "points lost" in text and "Best:" in text
    toggle = page.locator("#an-best-toggle")
    assert toggle.is_visible() and toggle.get_attribute("aria-pressed") == "false"
    played_board = page.locator("#replay-board").inner_html()

    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    assert toggle.inner_text() == "Show the play made"
    assert "an-showing-best" in page.locator("#replay-board").get_attribute("class")
    assert page.locator("#replay-board").inner_html() != played_board
    assert "position after the best play" in page.locator("#an-play-text").inner_text()
    assert page.evaluate(OVERFLOW_JS) <= 0
    page.locator(".replay-main").screenshot(path=str(ARTIFACTS / "analysis-best-play-360.png"))

    page.locator("#replay-forward").click()  # another step shows the game again
    assert "an-showing-best" not in page.locator("#replay-board").get_attribute("class")
    page.screenshot(path=str(ARTIFACTS / "analysis-page-360.png"), full_page=True)

    # In Russian (longer words) the summary and the line under the board still fit.
    page.goto(f"{daphne_server.base}/ru/game/{game.id}/replay/#step-{frame['index']}")
    page.wait_for_selector("#replay-board [data-point]")
    assert "Анализ" in page.locator("#analysis-title").inner_text()
    assert "Лучше:" in page.locator("#an-play-text").inner_text()
    page.locator("#an-best-toggle").click()
    assert page.evaluate(OVERFLOW_JS) <= 0, "the Russian page is wider than the phone"
    page.screenshot(path=str(ARTIFACTS / "analysis-page-ru-360.png"), full_page=True)
    assert not errors, errors
