"""End to end in headless Chromium: two guests play a friend's game (a challenge link made by
A, accepted by B in another session), the game ends (two turns and a resignation through the
service layer), both press "Rematch" and both pages land on the new game with the colours
swapped; the finished game links to it. Real Daphne, worker and the tests' Redis, as the other
e2e tests (the shared ``daphne_server`` and ``browser`` fixtures)."""

import re
import time

import pytest

from games.room.tests.test_e2e_browser import (  # noqa: F401 - fixtures used by name
    ARTIFACTS,
    DESKTOP,
    PHONE,
    browser,
    daphne_server,
    in_thread,
    viewer_side,
)

pytestmark = pytest.mark.e2e

GAME_URL = re.compile(r"/game/([0-9a-f-]{36})/$")


def test_two_guests_press_rematch_and_both_pages_land_on_the_new_game_colours_swapped(
    daphne_server, browser
):
    from games import services
    from games.room.models import Game
    from games.tests.factories import actor_of, play_turns

    errors = []
    context_a = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    context_b = browser.new_context(viewport=PHONE, reduced_motion="reduce")
    page_a, page_b = context_a.new_page(), context_b.new_page()
    for page in (page_a, page_b):
        page.on("pageerror", lambda error: errors.append(str(error)))

    page_a.goto(f"{daphne_server.base}/en/")
    page_a.get_by_role("link", name="Play a friend").click()
    page_a.locator('#challenge-form input[name="colour"][value="white"]').check()
    page_a.locator("#challenge-form .ng-submit").click()
    page_a.wait_for_selector("#share-link")
    page_b.goto(page_a.locator("#share-link").input_value())
    page_b.locator("#accept-challenge").click()
    page_b.wait_for_url(GAME_URL)
    game_id = GAME_URL.search(page_b.url).group(1)
    page_a.wait_for_url(re.compile(re.escape(game_id) + "/$"), timeout=10_000)
    for page in (page_a, page_b):
        page.wait_for_function("() => document.getElementById('game').dataset.ready === 'true'")
    assert (viewer_side(page_a), viewer_side(page_b)) == ("white", "black")

    def end_game():
        game = play_turns(game_id, 2)
        services.resign(game_id, actor_of(game, "white"), game.version)

    in_thread(end_game)
    for page in (page_a, page_b):
        page.wait_for_selector("#rematch-btn:visible", timeout=10_000)
    page_a.locator("#rematch-btn").click()
    page_b.wait_for_function(
        "() => document.getElementById('rematch-note').textContent"
        " === 'Your opponent wants a rematch'",
        timeout=5_000,
    )
    assert page_b.locator("#rematch-decline-btn").is_visible()
    assert "waiting for your opponent" in page_a.locator("#rematch-note").inner_text()
    page_b.screenshot(path=str(ARTIFACTS / "rematch-asked-360.png"), full_page=True)
    started = time.monotonic()
    page_b.locator("#rematch-btn").click()
    not_old = re.compile(r"/game/(?!" + re.escape(game_id) + r")[0-9a-f-]{36}/$")
    for page in (page_a, page_b):
        page.wait_for_url(not_old, timeout=5_000)
        page.wait_for_function("() => document.getElementById('game').dataset.ready === 'true'")
    elapsed = time.monotonic() - started
    new_id = GAME_URL.search(page_a.url).group(1)
    assert GAME_URL.search(page_b.url).group(1) == new_id
    assert (viewer_side(page_a), viewer_side(page_b)) == ("black", "white")
    old = in_thread(lambda: Game.objects.get(pk=game_id))
    assert str(old.rematch_id) == new_id
    print(f"rematch in the browser: second press to both pages ready, {elapsed * 1000:.0f} ms")
    assert errors == []
