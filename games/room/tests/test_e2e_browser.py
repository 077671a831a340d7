"""End to end in headless Chromium: a guest plays a whole game against the computer (issue 2).

The real stack runs: Daphne (HTTP and WebSockets) in a subprocess on a free port, a real Celery
worker process (``celery_worker_process`` from conftest) moving for the computer, the tests'
Redis as Channels layer and broker, and the test database shared by all three. The browser
clicks like a person: Roll, a highlighted checker, a highlighted destination, Confirm (or Pass),
until the result panel shows the winner and the points; the database must agree with it.

Screenshots (360 px and 1280 px wide, mid-game and result) and the timing go to
``artifacts/e2e/`` (git-ignored).
"""

import json
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from nardy_site.tests.servers import CHROMIUM, CHROMIUM_ARGS, DaphneServer, free_port

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / "artifacts" / "e2e"
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
GAME_TIME_LIMIT_S = 15 * 60
ACTION_LIMIT = 600  # rolls, plays and passes of the human; a game needs about 100
MID_GAME_ACTION = 30  # when to take the mid-game screenshots

# What the page lets the player do now (board.js marks data-ready when it may act).
NEXT_ACTION_JS = """() => {
  if (!document.getElementById("result").hidden) return "result";
  const message = document.getElementById("message").textContent.trim();
  if (message) return "error: " + message;
  if (document.getElementById("game").dataset.ready !== "true") return null;
  const usable = (id) => { const b = document.getElementById(id); return !b.hidden && !b.disabled; };
  if (usable("roll-btn")) return "roll";
  if (usable("pass-btn")) return "pass";
  if (!document.getElementById("confirm-btn").hidden && document.querySelector("#board .selectable")) {
    return "play";
  }
  return null;
}"""


@pytest.fixture
def daphne_server(transactional_db, test_process_env, celery_worker_process, tmp_path):
    """A started ``DaphneServer`` on a free port, on the test database and the tests' Redis,
    queueing bot moves for ``celery_worker_process``."""
    env = dict(test_process_env, CELERY_QUEUE=celery_worker_process.queue)
    server = DaphneServer(free_port(), env, tmp_path / "daphne.log")
    try:
        server.start()
        yield server
    finally:
        server.stop()
        if ARTIFACTS.exists():
            (ARTIFACTS / "daphne.log").write_text(server.log())


@pytest.fixture
def browser():
    """Headless Debian Chromium driven by Playwright (sync API); closed after the test."""
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def open_new_game(
    browser,
    base,
    language="en",
    label="Play against the computer",
    viewport=DESKTOP,
    reduced_motion="reduce",
):
    """A new page that starts a game against the computer from the home page, as a visitor
    does. Returns (page, game id, page errors list). The opponent's moves are not animated
    unless ``reduced_motion`` is "no-preference" (the whole-game tests stay fast)."""
    page = browser.new_page(viewport=viewport, reduced_motion=reduced_motion)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, start_from_home(page, base, language, label), errors


def start_from_home(page, base, language="en", label="Play against the computer"):
    """On ``page``, start a game against the computer from the home page, as a visitor does,
    and wait for its board. Returns the game id."""
    page.goto(f"{base}/{language}/")
    page.get_by_role("button", name=label).first.click()
    page.wait_for_url(re.compile(r"[0-9a-f-]{36}/$"))
    page.wait_for_selector("#board [data-point]")
    return re.search(r"([0-9a-f-]{36})/$", page.url).group(1)


def in_thread(read):
    """Run the database read ``read()`` in another thread and return its value: Playwright's
    sync API keeps an event loop running in this thread, where Django refuses ORM calls."""
    from django.db import connections

    def run():
        try:
            return read()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def viewer_side(page):
    """The side the page's viewer plays, from the snapshot embedded in the page."""
    return page.evaluate("""() => {
      const data = JSON.parse(document.getElementById("initial-snapshot").textContent);
      return (data.game || data).you;
    }""")


def next_action(page, deadline):
    """Wait for the page to offer something to do: "roll", "pass", "play" or "result"."""
    remaining_ms = max(1000, (deadline - time.monotonic()) * 1000)
    handle = page.wait_for_function(NEXT_ACTION_JS, timeout=remaining_ms, polling=50)
    action = handle.json_value()
    if action.startswith("error: "):
        pytest.fail(f"the server refused an action: {action[7:]}")
    return action


def wait_for_new_version(page, version, deadline):
    """Wait until a snapshot newer than ``version`` arrived (or an error is shown)."""
    remaining_ms = max(1000, (deadline - time.monotonic()) * 1000)
    page.wait_for_function(
        """(v) => Number(document.getElementById("game").dataset.version) > v
                  || document.getElementById("message").textContent.trim() !== "" """,
        arg=version,
        timeout=remaining_ms,
        polling=50,
    )


def stage_whole_turn(page):
    """Click highlighted checkers and destinations until the move is complete (Confirm on)."""
    confirm = page.locator("#confirm-btn")
    for _ in range(12):  # a double needs at most four steps; a tap may only select
        if confirm.is_enabled():
            return
        page.locator("#board .selectable").first.click()
        dest = page.locator("#board .dest")
        if dest.count():
            dest.first.click()
    pytest.fail("the staged steps never reached a complete move")


def take_turn(page, action):
    """Do what ``next_action`` offered: click Roll, click Pass, or stage a whole move by
    clicking and click Confirm."""
    if action == "roll":
        page.click("#roll-btn")
    elif action == "pass":
        page.click("#pass-btn")
    else:
        stage_whole_turn(page)
        page.click("#confirm-btn")


def shoot(page, name):
    """Screenshots of the page as it is, 1280 px and 360 px wide; leaves the phone size on."""
    for label, size in (("1280", DESKTOP), ("360", PHONE)):
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        page.screenshot(path=str(ARTIFACTS / f"{name}-{label}.png"), full_page=True)


def play_until_over(page, deadline):
    """Play the guest's side by clicking until the result panel appears: the first half of the
    game on a desktop-sized page, the rest (after the mid-game screenshots) on a 360 px wide
    one. Returns the count of each action taken: {"roll": n, "play": n, "pass": n}."""
    counts = {"roll": 0, "play": 0, "pass": 0}
    shot_mid_game = False
    while True:
        if sum(counts.values()) > ACTION_LIMIT or time.monotonic() > deadline:
            pytest.fail(
                f"the game did not end within {ACTION_LIMIT} actions or the time limit: {counts}"
            )
        action = next_action(page, deadline)
        if action == "result":
            return counts
        version = int(page.locator("#game").get_attribute("data-version"))
        if action == "play" and not shot_mid_game and counts["play"] >= MID_GAME_ACTION // 2:
            stage_whole_turn(page)
            shoot(page, "mid-game")
            shot_mid_game = True
        take_turn(page, action)
        counts[action] += 1
        wait_for_new_version(page, version, deadline)


def test_guest_plays_a_whole_game_against_the_computer_in_chromium(
    daphne_server, celery_worker_process, browser
):
    started = time.monotonic()
    deadline = started + GAME_TIME_LIMIT_S
    page, game_id, page_errors = open_new_game(browser, daphne_server.base)
    assert page.locator("#board [data-point]").count() == 24
    human = viewer_side(page)
    assert human in ("white", "black")

    counts = play_until_over(page, deadline)
    game_seconds = time.monotonic() - started

    title = page.locator("#result-title").inner_text()
    explain = page.locator("#result-explain").inner_text()
    reason = page.locator("#result-reason").inner_text()
    shoot(page, "result")
    assert page.locator("#again-btn").is_visible()
    page.close()

    assert not page_errors, page_errors
    # Who won and how, plainly: "The computer won: mars, 2 points." / "You won: oin, 1 point."
    match = re.fullmatch(r"(You|The computer) won: (oin|mars|koks), (\d+) points?\.", title)
    assert match, title
    assert explain.startswith(match.group(2).capitalize() + ":"), explain
    assert reason == (
        "You bore off all 15 checkers."
        if match.group(1) == "You"
        else "The computer bore off all 15 checkers."
    ), reason

    # The result shown is the one the server recorded.
    from games.room.models import Game

    game = in_thread(lambda: Game.objects.get(pk=game_id))
    assert game.status == "finished"
    assert game.result_kind == match.group(2)
    assert game.result_points == int(match.group(3))
    assert (game.winner == human) == (match.group(1) == "You")
    assert game.get_position().off(game.winner) == 15

    bot_ms = celery_worker_process.bot_move_times(game_id)
    assert counts["play"] > 0 and bot_ms
    timing = {
        "game_seconds": round(game_seconds, 1),
        "human_actions": counts,
        "bot_moves_in_task": celery_worker_process.summary(bot_ms),
        "result": title,
    }
    (ARTIFACTS / "timing.json").write_text(json.dumps(timing, indent=2) + "\n")
    print(f"\ne2e game against the computer: {timing}")


def test_page_reconnects_when_the_server_comes_back(daphne_server, browser):
    deadline = time.monotonic() + 120
    page, _game_id, page_errors = open_new_game(browser, daphne_server.base)
    action = next_action(page, deadline)
    assert action in ("roll", "play")
    version = int(page.locator("#game").get_attribute("data-version"))

    daphne_server.stop()
    connection = page.locator("#connection")
    connection.wait_for(state="visible", timeout=10_000)
    assert "reconnecting" in connection.inner_text()
    assert page.locator("#game").get_attribute("data-ready") == "false"
    assert page.locator("#resign-btn").is_disabled()

    daphne_server.start()
    connection.wait_for(state="hidden", timeout=30_000)
    assert next_action(page, deadline) == action
    take_turn(page, action)
    wait_for_new_version(page, version, deadline)
    assert page.locator("#message").inner_text() == ""
    assert not page_errors, page_errors


def test_page_drops_a_silent_socket_and_connects_again(daphne_server, browser):
    # A Daphne whose channel layer lost Redis may accept a socket and never answer
    # (channels_redis 4.3): the page gives up on a socket without a snapshot and reconnects.
    page, _game_id, page_errors = open_new_game(browser, daphne_server.base)
    sockets = []

    def route(ws):
        sockets.append(ws)
        if len(sockets) > 1:
            ws.connect_to_server()  # the first stays silent: opened, never answered

    page.route_web_socket(re.compile(r"/ws/game/"), route)
    # the page's timers on Playwright's clock: its 15 s wait for a snapshot passes at once
    page.clock.install()
    page.reload()
    page.wait_for_function("() => document.getElementById('board') !== null")
    page.wait_for_timeout(300)  # the first socket is open (real time: its own delivery)
    assert len(sockets) == 1
    page.clock.run_for(14_500)
    page.wait_for_timeout(200)
    assert len(sockets) == 1, "given up before 15 s without a snapshot"
    page.clock.run_for(500 + 1_000)  # the 15 s, then the first pause (0.5 s, +-20 %)
    started = time.monotonic()
    while len(sockets) < 2 and time.monotonic() - started < 10:
        page.wait_for_timeout(100)
    assert len(sockets) == 2
    page.clock.resume()  # the rest of the test on the page's own time
    page.wait_for_function(
        "() => document.getElementById('game').dataset.ready === 'true'", timeout=20_000
    )
    assert next_action(page, time.monotonic() + 60) in ("roll", "play")
    assert not page_errors, page_errors


def test_page_holds_actions_while_rate_limited_and_sends_after_the_wait(daphne_server, browser):
    # The server drops frames unanswered during a rate limit's wait (docs/protocol.md): the page
    # must not send them (it would wait for an answer forever) and must say how long to wait.
    page, _game_id, page_errors = open_new_game(browser, daphne_server.base)
    sent, armed = [], {"on": False}

    def route(ws):
        server = ws.connect_to_server()

        def from_page(message):
            frame = json.loads(message)
            sent.append(frame.get("type"))
            if armed["on"] and frame.get("type") == "roll":
                armed["on"] = False
                ws.send(
                    json.dumps(
                        {
                            "type": "error",
                            "code": "rate_limited",
                            "retry_after": 3,
                            "message": "Too many messages in a short time.",
                            "version": frame.get("version"),
                        }
                    )
                )
                return
            server.send(message)

        ws.on_message(from_page)
        server.on_message(lambda message: ws.send(message))

    page.route_web_socket(re.compile(r"/ws/game/"), route)
    page.reload()
    deadline = time.monotonic() + 120
    action = next_action(page, deadline)
    while action != "roll":
        assert action in ("play", "pass")
        version = int(page.locator("#game").get_attribute("data-version"))
        take_turn(page, action)
        wait_for_new_version(page, version, deadline)
        action = next_action(page, deadline)
    version = int(page.locator("#game").get_attribute("data-version"))
    armed["on"] = True
    page.click("#roll-btn")
    page.wait_for_function(
        "() => document.getElementById('message').textContent.includes('Too many messages')",
        timeout=10_000,
    )
    frames = len(sent)
    page.click("#roll-btn")  # during the wait: held by the page, not sent
    assert "try again in" in page.locator("#message").inner_text()
    assert len(sent) == frames and not page.locator("#roll-btn").is_disabled()
    page.wait_for_timeout(3200)
    page.click("#roll-btn")
    wait_for_new_version(page, version, deadline)
    assert int(page.locator("#game").get_attribute("data-version")) > version
    assert sent[-1] == "roll" and not page_errors, page_errors


def check_the_pass_for_me_setting(page, game_id, human):
    """With "Pass for me when no move is possible" on, a turn with no legal step is passed by
    the page itself after the status line has said it will (issue #15). Puts the game of
    ``game_id`` (the page's, its guest playing ``human``) in a blocked position first."""
    from games.choices import Phase
    from games.room.models import Game
    from games.tests.factories import set_position

    def block_the_guest():
        # the guest's fifteen on the head, 6-6 rolled and the point six away held: no step
        game = Game.objects.get(pk=game_id)
        game.version += 1
        other = "black" if human == "white" else "white"
        position = {"turn": human, human: {"24": 15}, other: {"6": 15}, "first_turn": False}
        set_position(game, position, phase=Phase.PLAY, dice_rolled=[6, 6])
        return game.version

    version = in_thread(block_the_guest)
    page.reload()
    page.wait_for_function("() => document.getElementById('game').dataset.ready === 'true'")
    status = page.locator("#status")
    passes = page.evaluate(
        "interpolate(gettext('No legal move with %(dice)s: your turn passes.'), {dice: '6\u20116'}, true)"
    )
    assert status.inner_text() == passes
    page.locator(".game-settings summary").click()
    page.check("#set-auto-pass")
    assert status.inner_text() != passes  # now it says the page will pass by itself
    page.wait_for_function(
        "(v) => Number(document.getElementById('game').dataset.version) > v", arg=version
    )
    no_move = page.evaluate("gettext('no move (pass)')")
    assert page.locator("#history-list").inner_text().count(no_move) == 1
    events = in_thread(
        lambda: list(Game.objects.get(pk=game_id).events.values_list("kind", "side", "play"))
    )
    assert ("play", human, "") in events  # recorded as the guest's pass
    # the setting is kept in this browser
    page.reload()
    page.wait_for_function("() => document.getElementById('game').dataset.ready === 'true'")
    page.locator(".game-settings summary").click()
    assert page.is_checked("#set-auto-pass")


def test_guest_resigns_on_a_phone_in_russian_and_sees_the_result(daphne_server, browser):
    from django.utils import translation

    from games.room.models import Game

    cyrillic = re.compile("[а-яё]", re.IGNORECASE)
    with translation.override("ru"):
        label = translation.gettext("Play against the computer")
    deadline = time.monotonic() + 120
    page, game_id, page_errors = open_new_game(browser, daphne_server.base, "ru", label, PHONE)
    human = viewer_side(page)
    action = next_action(page, deadline)
    assert action in ("roll", "play")
    # Template text (django domain) and board.js text (djangojs catalogue) are both Russian.
    assert cyrillic.search(
        page.locator("#roll-btn" if action == "roll" else "#confirm-btn").inner_text()
    )
    assert cyrillic.search(page.locator("#status").inner_text())
    assert cyrillic.search(page.locator("#board").get_attribute("aria-label"))
    check_the_pass_for_me_setting(page, game_id, human)

    questions = []

    def answer(dialog):
        questions.append(dialog.message)
        dialog.accept()

    page.once("dialog", answer)
    page.click("#resign-btn")
    page.locator("#result").wait_for(state="visible", timeout=30_000)
    title = page.locator("#result-title").inner_text()
    explain = page.locator("#result-explain").inner_text()
    reason = page.locator("#result-reason").inner_text()
    page.screenshot(path=str(ARTIFACTS / "resigned-ru-360.png"), full_page=True)
    assert not page_errors, page_errors
    assert questions and cyrillic.search(questions[0])
    for text in (title, explain, reason):
        assert cyrillic.search(text), text
    # The page's own catalogue (djangojs): "You resigned.", not "Guest resigned."
    assert reason == page.evaluate("gettext('You resigned.')") != "You resigned."

    game = in_thread(lambda: Game.objects.get(pk=game_id))
    assert game.status == "finished" and game.end_reason == "resign"
    assert game.winner != human
    assert re.search(r"\d+", title).group(0) == str(game.result_points)

    # "Play again" starts a new game with the same rules, in the same language.
    page.click("#again-btn")
    page.wait_for_url(lambda url: game_id not in url and "/ru/" in url)
    page.wait_for_selector("#board [data-point]")
    new_id = re.search(r"([0-9a-f-]{36})/$", page.url).group(1)
    again = in_thread(lambda: Game.objects.get(pk=new_id))
    assert again.status == "active" and again.preset == game.preset


#: makes the page think it is hidden or shown (a tab in the background), as Chromium would say
SET_VISIBILITY_JS = """(state) => {
  Object.defineProperty(document, "visibilityState", { get: () => state, configurable: true });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


@pytest.mark.parametrize(
    ("language", "viewport", "label", "your_turn"),
    [("ru", PHONE, "Играть с компьютером", "Ваш ход")],
)
def test_a_hidden_page_says_in_its_title_and_icon_that_the_turn_has_come(
    daphne_server, browser, language, viewport, label, your_turn
):
    deadline = time.monotonic() + 60
    page, _game_id, page_errors = open_new_game(
        browser, daphne_server.base, language=language, label=label, viewport=viewport
    )
    title = page.title()
    while next_action(page, deadline) != "roll":  # the computer may open: wait for our roll
        take_turn(page, next_action(page, deadline))
    page.evaluate(SET_VISIBILITY_JS, "hidden")  # our turn already: marked as the page hides
    assert page.title() == f"● {your_turn} · {title}"
    page.evaluate(SET_VISIBILITY_JS, "visible")
    assert page.title() == title
    take_turn(page, "roll")
    action = next_action(page, deadline)  # our play (or pass)
    version = int(page.locator("#game").get_attribute("data-version"))
    page.evaluate(SET_VISIBILITY_JS, "hidden")  # we look elsewhere as we send it
    take_turn(page, action)
    # the computer plays (versions after ours) and the turn comes back to the hidden page
    page.wait_for_function(
        """(v) => Number(document.getElementById("game").dataset.version) > v + 1
                  && document.title.startsWith("●")""",
        arg=version,
        timeout=30_000,
    )
    assert page.title() == f"● {your_turn} · {title}"
    assert "favicon-turn" in page.locator('link[rel="icon"]').get_attribute("href")
    page.evaluate(SET_VISIBILITY_JS, "visible")  # back: the title and the icon as they were
    assert page.title() == title
    assert "favicon-turn" not in page.locator('link[rel="icon"]').get_attribute("href")
    page.close()
    assert not page_errors, page_errors
