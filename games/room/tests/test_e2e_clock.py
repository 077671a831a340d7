"""End to end in headless Chromium: a game between two people with the real `match` clock
(issue 5).

The real stack runs: Daphne in a subprocess, a real Celery worker and Celery beat
(the clock sweep) on the run's private queue, the tests' Redis and the test database. Guest A
makes a challenge link for a match to 3, guest B (another browser context: another session)
opens it and accepts; A's page moves to the game by itself. Both see their clocks run, make
their first moves by clicking, then B closes its page: A sees "Opponent disconnected —
reconnecting…" counting down from 60 s and then wins the game and with it the whole match.

Screenshots go to ``artifacts/e2e/`` (git-ignored): the challenge link and the invitation, the
running clocks at 1280 and 360 px, the countdown, and the result.
"""

import dataclasses
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
    next_action,
    take_turn,
    wait_for_new_version,
)
from games.tests.fixtures import start_beat, stop_beat

pytestmark = pytest.mark.e2e

GAME_URL = re.compile(r"/game/([0-9a-f-]{36})/$")
#: of B's 60 s away, this much is made to have passed already (in the database), so the test
#: does not wait them out; the server still ends the game by its own sweep
AGED_MS = 54_000
COUNTDOWN = re.compile(r"^Opponent disconnected — reconnecting… (\d+):(\d\d)$")
TEST_LIMIT_S = 240

# How much of the board's top is under the clock bar stuck to the top of a phone's screen
# (0 when the board is below it).
BOARD_UNDER_BAR_JS = """() => {
  const bar = document.querySelector(".game-sticky").getBoundingClientRect();
  const board = document.getElementById("board").getBoundingClientRect();
  return board.bottom <= bar.bottom ? 0 : Math.max(0, bar.bottom - board.top);
}"""

# Scroll a phone's page down until the board's top is 30 px under the stuck clock bar, as a
# player scrolls to reach the buttons below the board.
SCROLL_BOARD_UNDER_BAR_JS = """() => {
  const bar = document.querySelector(".game-sticky").getBoundingClientRect();
  const board = document.getElementById("board").getBoundingClientRect();
  window.scrollBy(0, board.top - (bar.bottom - bar.top) + 30);
}"""

MY_TURN_JS = """() => {
  const game = document.getElementById("game");
  return game.classList.contains("my-turn") && game.dataset.ready === "true";
}"""


@pytest.fixture
def clock_beat(celery_worker_process, tmp_path):
    """Celery beat sending the clock sweep every second to the worker's queue."""
    beat = start_beat(
        celery_worker_process.env, celery_worker_process.queue, tmp_path / "beat.log", interval=1.0
    )
    try:
        yield beat
    finally:
        stop_beat(beat)


def seconds(text):
    minutes, secs = text.split(":")
    return int(minutes) * 60 + int(secs)


def running_clock(page):
    """The text of the clock that runs on ``page`` ("0:11"), or None."""
    locator = page.locator(".player.clock-running .player-clock")
    return locator.inner_text() if locator.count() else None


def whose_turn(pages, deadline):
    """The page whose player must act now (it shows "my-turn" and may act)."""
    while time.monotonic() < deadline:
        for page in pages:
            if page.evaluate(MY_TURN_JS):
                return page
        time.sleep(0.05)
    pytest.fail("neither player got the turn")


def play_one_turn(pages, deadline):
    """The player to move rolls if need be (the match clock rolls for them) and plays a whole
    move by clicking; waits until both pages show the next version. Returns the page that
    moved."""
    page = whose_turn(pages, deadline)
    action = next_action(page, deadline)
    if action == "roll":
        version = int(page.locator("#game").get_attribute("data-version"))
        take_turn(page, action)
        wait_for_new_version(page, version, deadline)
        action = next_action(page, deadline)
    assert action in ("play", "pass"), action
    version = int(page.locator("#game").get_attribute("data-version"))
    take_turn(page, action)
    for each in pages:
        wait_for_new_version(each, version, deadline)
    return page


def test_two_guests_play_with_the_match_clock_and_a_player_who_leaves_loses_the_match(
    daphne_server, celery_worker_process, clock_beat, browser
):
    from games.challenges.models import Challenge
    from games.room.models import Game, Match

    deadline = time.monotonic() + TEST_LIMIT_S
    errors = []
    context_a = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    context_b = browser.new_context(viewport=PHONE, reduced_motion="reduce")
    page_a, page_b = context_a.new_page(), context_b.new_page()
    for page in (page_a, page_b):
        page.on("pageerror", lambda error: errors.append(str(error)))

    # A makes a link for a match to 3, playing white, from the site menu.
    page_a.goto(f"{daphne_server.base}/en/")
    page_a.get_by_role("link", name="Play a friend").click()
    page_a.locator('#challenge-form input[name="preset"][value="match"]').check()
    page_a.locator('#challenge-form input[name="match_length"][value="3"]').check()
    page_a.locator('#challenge-form input[name="colour"][value="white"]').check()
    # the match rules check their own clock, and only it is described
    assert page_a.locator('#challenge-form input[name="clock"][value="match"]').is_checked()
    assert page_a.locator('.ng-clock[data-for-clock="match"]').is_visible()
    assert not page_a.locator('.ng-clock[data-for-clock="standard"]').is_visible()
    page_a.locator("#challenge-form .ng-submit").click()
    page_a.wait_for_selector("#share-link")
    link = page_a.locator("#share-link").input_value()
    # no language in the link: it opens in the friend's own
    assert re.fullmatch(re.escape(daphne_server.base) + r"/challenge/[0-9a-f-]{36}/", link)
    assert "Waiting for your friend" in page_a.locator("#waiting").inner_text()
    page_a.screenshot(path=str(ARTIFACTS / "challenge-link-1280.png"), full_page=True)

    # B opens the link in another session, sees the table and the clock, and accepts.
    page_b.goto(link)
    assert "Match rules: a match to 3 points." in page_b.locator("#challenge-options").inner_text()
    assert "You play black." in page_b.locator("#challenge-options").inner_text()
    assert "12 s for each move" in page_b.locator("#challenge-clock").inner_text()
    page_b.screenshot(path=str(ARTIFACTS / "challenge-invitation-360.png"), full_page=True)
    page_b.locator("#accept-challenge").click()
    page_b.wait_for_url(GAME_URL)
    game_id = GAME_URL.search(page_b.url).group(1)
    # A's page was waiting: it moves to the same game by itself.
    page_a.wait_for_url(re.compile(re.escape(game_id) + "/$"), timeout=10_000)
    for page in (page_a, page_b):
        page.wait_for_selector("#board [data-point]")
        page.wait_for_function("() => document.getElementById('game').dataset.ready === 'true'")
        assert page.locator(".player .player-clock").count() == 2
    challenge = in_thread(lambda: Challenge.objects.get())
    assert challenge.status == "accepted" and str(challenge.game_id) == game_id

    # The running side's clock counts down on both pages and they agree.
    mover = whose_turn([page_a, page_b], deadline)
    first = running_clock(page_a)
    assert first and running_clock(page_b)
    page_a.wait_for_timeout(2200)
    later_a, later_b = running_clock(page_a), running_clock(page_b)
    assert seconds(later_a) < seconds(first), (first, later_a)
    assert abs(seconds(later_a) - seconds(later_b)) <= 1, (later_a, later_b)
    note = mover.locator(".player.clock-running .player-clock-note").inner_text()
    assert note == "first move", note
    page_a.screenshot(path=str(ARTIFACTS / "clock-running-1280.png"), full_page=True)
    page_b.screenshot(path=str(ARTIFACTS / "clock-running-360.png"))

    # Both make their first moves (and one more each), clicking like people. On B's phone,
    # scrolled down to reach the buttons, each move leaves the board clear of the clock bar
    # (issue #30).
    moved, under_bar = [], []
    for _ in range(4):
        page_b.evaluate(SCROLL_BOARD_UNDER_BAR_JS)
        under_bar.append(page_b.evaluate(BOARD_UNDER_BAR_JS))  # while scrolled, too
        moved.append(play_one_turn([page_a, page_b], deadline))
        under_bar.append(page_b.evaluate(BOARD_UNDER_BAR_JS))
    assert {page_a, page_b} <= set(moved)
    assert under_bar == [0] * 8, under_bar
    page_b.screenshot(path=str(ARTIFACTS / "clock-scrolled-360.png"))
    # The match clock: 12 s free per move, then the reserve of 2 min for the match.
    page_b.wait_for_function(
        "() => /^to move · reserve 2:00$/.test((document.querySelector("
        "'.player.clock-running .player-clock-note') || {}).textContent || '')",
        timeout=10_000,
    )
    page_b.screenshot(path=str(ARTIFACTS / "clock-free-time-360.png"))

    # B leaves right after its own move, so that only its absence can end the game.
    if whose_turn([page_a, page_b], deadline) is page_b:
        play_one_turn([page_a, page_b], deadline)
    context_b.close()
    left_at = time.monotonic()
    banner = page_a.locator("#presence-text")
    banner.wait_for(state="visible", timeout=15_000)
    first = COUNTDOWN.fullmatch(banner.inner_text())
    assert first, banner.inner_text()
    page_a.wait_for_timeout(2500)
    later = COUNTDOWN.fullmatch(banner.inner_text())
    assert later, banner.inner_text()
    first_s = int(first[1]) * 60 + int(first[2])
    later_s = int(later[1]) * 60 + int(later[2])
    assert 50 <= first_s <= 60 and first_s - later_s >= 2, (first_s, later_s)
    page_a.screenshot(path=str(ARTIFACTS / "opponent-reconnecting-1280.png"), full_page=True)
    page_a.set_viewport_size(PHONE)
    page_a.wait_for_timeout(150)
    page_a.screenshot(path=str(ARTIFACTS / "opponent-reconnecting-360.png"))
    page_a.set_viewport_size(DESKTOP)

    # A plays on meanwhile (its own clock must not be what ends the game).
    action = next_action(page_a, deadline)
    version = int(page_a.locator("#game").get_attribute("data-version"))
    take_turn(page_a, action)
    wait_for_new_version(page_a, version, deadline)

    # 60 s after B left, B has lost the game and with it the whole match: AGED_MS of them are
    # made to have passed already.
    in_thread(lambda: age_absence(game_id, "black", AGED_MS))
    page_a.locator("#result").wait_for(state="visible", timeout=80_000)
    waited = time.monotonic() - left_at + AGED_MS / 1000
    title = page_a.locator("#result-title").inner_text()
    reason = page_a.locator("#result-reason").inner_text()
    match_text = page_a.locator("#result-match").inner_text()
    assert re.fullmatch(r"You won: (oin|mars), \d points?\.", title), title
    assert reason == "Your opponent left the game and so loses the match.", reason
    assert re.fullmatch(r"You won the match \d : 0\.", match_text), match_text
    assert page_a.locator("#presence").is_hidden()
    assert (
        page_a.locator("#history-list").inner_text().rstrip().split("\n")[-1].startswith("You won")
    ), page_a.locator("#history-list").inner_text()
    assert "left the game" in page_a.locator("#history-list").inner_text()
    page_a.screenshot(path=str(ARTIFACTS / "won-by-abandon-1280.png"), full_page=True)
    page_a.set_viewport_size(PHONE)
    page_a.wait_for_timeout(150)
    page_a.screenshot(path=str(ARTIFACTS / "won-by-abandon-360.png"), full_page=True)

    game = in_thread(lambda: Game.objects.get(pk=game_id))
    match = in_thread(lambda: Match.objects.get(pk=game.match_id))
    assert (game.status, game.end_reason, game.winner) == ("finished", "abandon", "white")
    assert (match.status, match.winner) == ("finished", "white")
    assert 58 <= waited <= 75, waited
    assert not errors, errors
    context_a.close()
    print(f"\ne2e clock: B left, A won after {waited:.1f} s: {title} {match_text}")


def age_absence(game_id, side, ms):
    """``side`` of game ``game_id`` has been away ``ms`` longer (a fixture's shortcut through
    the database; the game's deadline follows)."""
    from datetime import timedelta

    from django.db import transaction

    from games.room.models import Game
    from games.services import clockwork

    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        game.set_away_since(side, game.away_since(side) - timedelta(milliseconds=ms))
        clockwork.refresh_deadline(game)
        game.save()


def guest_context(browser, base, guest_id, viewport):
    """A browser context whose session is the guest ``guest_id`` (a Django session saved in the
    test database, its cookie given to the browser)."""
    from django.conf import settings
    from django.contrib.sessions.backends.db import SessionStore

    def make():
        session = SessionStore()
        session["guest_id"] = guest_id
        session.save()
        return session.session_key

    key = in_thread(make)
    context = browser.new_context(viewport=viewport, reduced_motion="reduce")
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": key, "url": base}])
    return context


def test_with_the_standard_clock_the_opponent_of_a_player_who_left_claims_the_win(
    daphne_server, celery_worker_process, clock_beat, browser
):
    """The standard clock with short times (made through the service: the pages only offer
    the real ones): the first-move countdown turns red in its last 10 s; when B leaves, A is
    told when the win may be claimed, then claims it with the button."""
    from games import services
    from games.clocks import CLOCKS, STANDARD
    from games.room.models import Game

    deadline = time.monotonic() + TEST_LIMIT_S
    spec = dataclasses.replace(CLOCKS[STANDARD], claim_after_ms=6_000, first_move_ms=14_000)

    def start():
        challenge = services.create_challenge("guest-a", preset="sport", colour="white")
        return services.accept_challenge(challenge.pk, "guest-b", clock=spec)

    game = in_thread(start)
    url = f"{daphne_server.base}/en/game/{game.id}/"
    context_a = guest_context(browser, daphne_server.base, "guest-a", DESKTOP)
    context_b = guest_context(browser, daphne_server.base, "guest-b", PHONE)
    page_a, page_b = context_a.new_page(), context_b.new_page()
    errors = []
    for page in (page_a, page_b):
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url)
        page.wait_for_function("() => document.getElementById('game').dataset.ready === 'true'")

    # The first move has 14 s here: its last 10 s are marked on both pages.
    mover = whose_turn([page_a, page_b], deadline)
    for page in (page_a, page_b):
        page.wait_for_selector(".player.clock-running.clock-low", timeout=10_000)
        assert seconds(running_clock(page)) <= 10
    assert mover.locator(".player.clock-running .player-clock-note").inner_text() == "first move"
    page_b.screenshot(path=str(ARTIFACTS / "clock-last-seconds-360.png"))

    # Both make their first move; the standard clock has a time to roll.
    play_one_turn([page_a, page_b], deadline)
    play_one_turn([page_a, page_b], deadline)
    roller = whose_turn([page_a, page_b], deadline)
    assert next_action(roller, deadline) == "roll"
    note = roller.locator(".player.clock-running .player-clock-note").inner_text()
    assert note == "to roll · reserve 2:00", note

    # B leaves; A may claim the win once B has been away for the grace period.
    context_b.close()
    banner = page_a.locator("#presence-text")
    banner.wait_for(state="visible", timeout=15_000)
    text = banner.inner_text()
    assert re.fullmatch(
        r"Your opponent has left the game\. If they are not back in 0:0[1-6], "
        r"you may claim the win\.",
        text,
    ), text
    assert page_a.locator("#claim-btn").is_hidden()
    claim = page_a.locator("#claim-btn")
    claim.wait_for(state="visible", timeout=10_000)
    assert banner.inner_text() == (
        "Your opponent has not come back: you may claim the win, or wait for them."
    )
    page_a.screenshot(path=str(ARTIFACTS / "claim-the-win-1280.png"))
    claim.click()
    page_a.locator("#result").wait_for(state="visible", timeout=10_000)
    assert re.fullmatch(r"You won: mars, 2 points\.", page_a.locator("#result-title").inner_text())
    assert page_a.locator("#result-reason").inner_text() == "Your opponent left the game."
    assert page_a.locator("#presence").is_hidden()
    game = in_thread(lambda: Game.objects.get(pk=game.pk))
    assert (game.status, game.end_reason, game.winner) == ("finished", "abandon", "white")
    assert not errors, errors
    context_a.close()
