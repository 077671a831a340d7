"""End to end in headless Chromium: "Play a person" for guests (issue #32, the whole loop).

The real stack: Daphne, a Celery worker and beat (the lobby's pairing and its counts), Redis,
the test database. Guests with no account press "Play a person" on the home page, in Russian,
Bulgarian and English at 360 and 1280 px: the first waits, a second sees how many wait on
the lobby page in their own language, presses too, and both pages open the same unrated
game. In the first game they chat (a ready phrase, read in the other's language), play a
turn, one resigns, and both press "Rematch": both pages land on the new game, colours
swapped. A guest left alone is offered the computer (the page's clock run forward past
``offer_computer_ms``), and taking the offer leaves the queue for a game against the
computer. axe finds nothing on the wait and the offer.
"""

import re
import statistics
import time

import pytest
from axe_playwright_python.sync_playwright import Axe

from games.lobby.tests.test_e2e_ranked import READY_JS
from games.room.tests.test_e2e_browser import (  # noqa: F401 - fixtures used by name
    ARTIFACTS,
    DESKTOP,
    PHONE,
    browser,
    daphne_server,
    in_thread,
    viewer_side,
)
from games.room.tests.test_e2e_clock import clock_beat, play_one_turn  # noqa: F401

pytestmark = pytest.mark.e2e

GAME_URL = re.compile(r"/(?:ru|bg|en)/game/([0-9a-f-]{36})/$")
#: (language, viewport) of the waiting guest and of the one who comes second, per run: each
#: language at each width once
RUNS = (
    (("ru", PHONE), ("bg", DESKTOP)),
    (("bg", PHONE), ("en", DESKTOP)),
    (("en", PHONE), ("ru", DESKTOP)),
)
WAITING = {"ru": "В ожидании: 1", "bg": "Чакащи: 1", "en": "1 waiting now"}
WAIT_TITLE = {"ru": "Ищем соперника", "bg": "Търсим противник", "en": "Looking for an opponent"}


def guest_page(browser, lang, viewport, errors):
    context = browser.new_context(viewport=viewport, reduced_motion="reduce", locale=lang)
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page


def press_play_a_person(page, base, lang):
    page.goto(f"{base}/{lang}/")
    page.locator("#home-person").click()
    page.wait_for_url(re.compile(rf"/{lang}/lobby/\?pool=casual&preset=sport$"))  # "go" dropped


def chat_play_and_rematch(first, second, lang_second, game_id):
    """The two guests of ``game_id`` chat, play a turn, one resigns, and both ask for a
    rematch: both pages land on the new game with the colours swapped."""
    from django.utils import translation

    from games.chat.reading import PRESETS

    first.locator('#chat-presets button[data-preset="good_luck"]').click()
    with translation.override(lang_second):
        said = str(PRESETS["good_luck"])
    second.locator("#chat-log .chat-text").filter(has_text=said).wait_for(timeout=5_000)
    moved = play_one_turn([first, second], time.monotonic() + 60)
    resigner = viewer_side(moved)
    in_thread(lambda: resign_as(game_id, resigner))
    sides = (viewer_side(first), viewer_side(second))
    for page in (first, second):
        page.wait_for_selector("#rematch-btn:visible", timeout=10_000)
        page.locator("#rematch-btn").click()
    not_old = re.compile(r"/game/(?!" + re.escape(game_id) + r")[0-9a-f-]{36}/$")
    for page in (first, second):
        page.wait_for_url(not_old, timeout=10_000)
        page.wait_for_function(READY_JS, timeout=10_000, polling=20)
    assert GAME_URL.search(first.url).group(1) == GAME_URL.search(second.url).group(1)
    assert (viewer_side(first), viewer_side(second)) == sides[::-1]


def resign_as(game_id, side):
    """``side`` of the game resigns (through the service, as its page's button does)."""
    from games import services
    from games.room.models import Game
    from games.tests.factories import actor_of

    game = Game.objects.get(pk=game_id)
    services.resign(game_id, actor_of(game, side), game.version)


def test_guests_press_play_a_person_and_meet_in_one_game_or_are_offered_the_computer(
    daphne_server, celery_worker_process, clock_beat, browser
):
    from games.lobby.models import QueueEntry
    from games.room.models import Game

    base = daphne_server.base
    errors, seconds, games = [], [], []
    for run, ((lang_a, view_a), (lang_b, view_b)) in enumerate(RUNS):
        first = guest_page(browser, lang_a, view_a, errors)
        press_play_a_person(first, base, lang_a)
        first.locator("#lobby-wait").wait_for(state="visible", timeout=10_000)
        assert WAIT_TITLE[lang_a] in first.locator("#lobby-wait-title").inner_text()
        assert first.locator("#lobby-rating").is_hidden()  # no rating range when casual
        second = guest_page(browser, lang_b, view_b, errors)
        if run == 0:
            # the count of who waits reaches an open lobby page (beat announces it)
            second.goto(f"{base}/{lang_b}/lobby/?pool=casual")
            counted = second.locator('[data-count-pool="casual"]')
            counted.filter(has_text=WAITING[lang_b]).wait_for(timeout=10_000)
            first.screenshot(path=str(ARTIFACTS / f"quick-wait-{lang_a}-360.png"), full_page=True)
            second.screenshot(
                path=str(ARTIFACTS / f"quick-lobby-{lang_b}-1280.png"), full_page=True
            )
        started = time.monotonic()
        press_play_a_person(second, base, lang_b)
        for page in (second, first):
            page.wait_for_url(GAME_URL, timeout=10_000)
            page.wait_for_function(READY_JS, timeout=10_000, polling=20)
        seconds.append(time.monotonic() - started)
        game_id = GAME_URL.search(first.url).group(1)
        assert GAME_URL.search(second.url).group(1) == game_id
        games.append(game_id)
        if run == 0:
            chat_play_and_rematch(first, second, lang_b, game_id)
        first.context.close()
        second.context.close()

    made = in_thread(lambda: list(Game.objects.filter(pk__in=games)))
    assert len(made) == len(RUNS)
    for game in made:
        assert not game.rated and game.white_guest and game.black_guest
        assert game.white_guest != game.black_guest and not game.bot_side
    print(f"\nquick pairing, second press to both pages ready: {[round(s, 2) for s in seconds]} s")
    assert statistics.median(seconds) < 5  # the goal (2 s) is measured quiet by scripts/load

    # Alone: after offer_computer_ms the computer is offered; taking it leaves the queue.
    context = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    context.clock.install()
    alone = context.new_page()
    alone.on("pageerror", lambda error: errors.append(str(error)))
    alone.goto(f"{base}/en/lobby/?pool=casual&preset=match&match_length=5")
    alone.wait_for_function("() => !document.getElementById('lobby-join').disabled")
    alone.locator("#lobby-join").focus()
    alone.keyboard.press("Enter")  # by keyboard: focus follows to the wait's title
    alone.locator("#lobby-wait").wait_for(state="visible", timeout=10_000)
    alone.wait_for_function("() => document.activeElement.id === 'lobby-wait-title'")
    assert alone.locator("#lobby-offer").is_hidden()
    alone.clock.fast_forward(21_000)
    alone.locator("#lobby-offer").wait_for(state="visible", timeout=5_000)
    # the offer is said by the polite live region (the wait's timer is not one)
    assert "keep waiting" in alone.locator("#lobby-announce").inner_text()
    assert alone.locator("#lobby-waited").get_attribute("aria-live") is None
    assert "keep waiting" in alone.locator("#lobby-offer").inner_text()
    assert alone.locator("#lobby-wait").is_visible()  # still waiting beside the offer
    found = Axe().run(alone).response["violations"]
    assert [v["id"] for v in found] == []
    alone.screenshot(path=str(ARTIFACTS / "quick-offer-en-1280.png"), full_page=True)
    alone.locator("#lobby-offer-play").click()
    alone.wait_for_url(GAME_URL, timeout=10_000)
    game_id = GAME_URL.search(alone.url).group(1)
    computer = in_thread(lambda: Game.objects.select_related("match").get(pk=game_id))
    assert computer.bot_side and computer.preset == "match" and computer.match.length == 5
    deadline = time.monotonic() + 10
    while in_thread(lambda: QueueEntry.objects.filter(status="waiting").count()):
        assert time.monotonic() < deadline, "the offer's game left the guest in the queue"
        time.sleep(0.1)
    context.close()
    assert errors == []
