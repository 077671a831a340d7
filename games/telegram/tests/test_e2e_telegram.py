"""The site as a Telegram Mini App in headless Chromium (issue #19), with Telegram's script
replaced by a stand-in (``window.Telegram.WebApp``: it records what the page asks of
Telegram, and the test presses its MainButton). On a 390 px phone, in Russian with the light
theme and in Bulgarian with the dark one: the app signs in from initData, starts a game
against the computer from the MainButton, and plays it to the end with the MainButton (roll,
confirm) and taps on the board; the BackButton, the haptics and the closing confirmation
follow the game, and Telegram's colours are the page's. Screenshots go to
artifacts/telegram/."""

import json
import re
import time
from pathlib import Path

import pytest

from games.choices import Phase
from games.room.models import Game
from games.room.tests.test_e2e_accessibility import violations
from games.room.tests.test_e2e_browser import browser, in_thread, viewer_side  # noqa: F401
from games.tests.factories import set_position
from games.tests.telegram_helpers import BOT_USERNAME, TOKEN, WEBHOOK_SECRET, init_data
from nardy_site.tests.servers import DaphneServer, free_port

pytestmark = pytest.mark.e2e

ARTIFACTS = Path(__file__).resolve().parents[3] / "artifacts" / "telegram"
PHONE = {"width": 390, "height": 844}
GAME_LIMIT_S = 120

THEMES = {
    "light": {
        "bg_color": "#ffffff",
        "text_color": "#000000",
        "hint_color": "#707579",
        "link_color": "#2481cc",
        "button_color": "#2481cc",
        "button_text_color": "#ffffff",
        "secondary_bg_color": "#f1f1f4",
    },
    "dark": {
        "bg_color": "#17212b",
        "text_color": "#f5f5f5",
        "hint_color": "#8b98a5",
        "link_color": "#6ab3f3",
        "button_color": "#5288c1",
        "button_text_color": "#ffffff",
        "secondary_bg_color": "#232e3c",
    },
}

#: Telegram's script as the tests give it: the WebApp object with what the page uses
STAND_IN = """(() => {
  const seen = { calls: [], main: { text: "", visible: false, active: true }, back: false };
  const mainClicks = [], backClicks = [], handlers = {};
  const record = (name, value) => seen.calls.push([name, value === undefined ? null : value]);
  window.__telegram = seen;
  window.__pressMain = () => mainClicks.forEach((f) => f());
  window.__pressBack = () => backClicks.forEach((f) => f());
  const app = {
    initData: %(init_data)s, version: "8.0", platform: "android",
    colorScheme: %(scheme)s, themeParams: %(theme)s,
    viewportHeight: 760, viewportStableHeight: 760, isClosingConfirmationEnabled: false,
    isVersionAtLeast: (v) => parseFloat(v) <= 8.0,
    ready: () => record("ready"), expand: () => record("expand"),
    onEvent: (name, f) => { (handlers[name] = handlers[name] || []).push(f); },
    offEvent: () => {},
    MainButton: {
      setParams(p) {
        if ("text" in p) seen.main.text = p.text;
        if ("is_visible" in p) seen.main.visible = p.is_visible;
        if ("is_active" in p) seen.main.active = p.is_active;
        return this;
      },
      show() { seen.main.visible = true; return this; },
      hide() { seen.main.visible = false; return this; },
      onClick(f) { mainClicks.push(f); return this; },
    },
    BackButton: {
      show() { seen.back = true; }, hide() { seen.back = false; },
      onClick(f) { backClicks.push(f); },
    },
    HapticFeedback: {
      impactOccurred: (style) => record("impact", style),
      notificationOccurred: (kind) => record("notification", kind),
    },
    enableClosingConfirmation() { this.isClosingConfirmationEnabled = true; record("closing", true); },
    disableClosingConfirmation() { this.isClosingConfirmationEnabled = false; record("closing", false); },
    openTelegramLink: (url) => record("link", url),
  };
  window.__setTheme = (scheme, params) => {
    app.colorScheme = scheme; app.themeParams = params;
    (handlers.themeChanged || []).forEach((f) => f());
  };
  window.Telegram = { WebApp: app };
})();
"""

#: what the app offers now: the MainButton's state, once the room may act
MAIN_STATE_JS = """() => {
  const game = document.getElementById("game");
  const result = document.getElementById("result");
  if (result && !result.hidden) return "result";
  if (game && game.dataset.ready !== "true") return null;
  const m = window.__telegram.main;
  if (!m.visible) return null;
  return JSON.stringify(m);
}"""


@pytest.fixture
def telegram_daphne(transactional_db, test_process_env, celery_worker_process, tmp_path):
    """Daphne with the made-up bot configured; the computer's moves go to the run's worker."""
    env = dict(
        test_process_env,
        CELERY_QUEUE=celery_worker_process.queue,
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_BOT_USERNAME=BOT_USERNAME,
        TELEGRAM_WEBHOOK_SECRET=WEBHOOK_SECRET,
    )
    server = DaphneServer(free_port(), env, tmp_path / "daphne.log")
    try:
        server.start()
        yield server
    finally:
        server.stop()


def telegram_page(browser, language, theme, user_id, start_param=""):
    """A phone-sized page whose Telegram script is the stand-in, for the Telegram user
    ``user_id`` speaking ``language``, in ``theme``, opened by a link with ``start_param``."""
    context = browser.new_context(viewport=PHONE, reduced_motion="reduce", has_touch=True)
    script = STAND_IN % {
        "init_data": json.dumps(
            init_data(user_id=user_id, language_code=language, start_param=start_param)
        ),
        "scheme": json.dumps(theme),
        "theme": json.dumps(THEMES[theme]),
    }
    context.route(
        re.compile(r"^https://telegram\.org/js/telegram-web-app\.js"),
        lambda route: route.fulfill(body=script, content_type="application/javascript"),
    )
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def main_button(page, deadline):
    """Wait for the MainButton to be offered (or the result); returns its state or "result"."""
    handle = page.wait_for_function(
        MAIN_STATE_JS, timeout=max(1000, (deadline - time.monotonic()) * 1000), polling=50
    )
    value = handle.json_value()
    return value if value == "result" else json.loads(value)


def calls(page, name):
    return [value for call, value in page.evaluate("window.__telegram.calls") if call == name]


def shoot(page, name):
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def near_the_end(game_id, human):
    """Put the game in a bear-off: the player to roll with five checkers home, the computer
    with six (as a fixture would; the test plays on from there)."""
    game = Game.objects.get(pk=game_id)
    game.version += 1
    bot = "black" if human == "white" else "white"
    position = {
        "turn": human,
        human: {"1": 2, "2": 2, "3": 1},
        bot: {"5": 3, "6": 3},
        "first_turn": False,
    }
    set_position(game, position, phase=Phase.ROLL)


def play_to_the_end(page, deadline, shots):
    """Press the MainButton for each roll, confirm and pass, tapping the board to stage each
    play, until the result shows. Returns the presses."""
    presses = 0
    while time.monotonic() < deadline:
        state = main_button(page, deadline)
        if state == "result":
            return presses
        version = int(page.locator("#game").get_attribute("data-version"))
        if not state["active"]:
            # Confirm waits for a whole play: tap the highlighted checkers and destinations
            for _tap in range(12):
                if page.locator("#confirm-btn").is_enabled():
                    break
                page.locator("#board .selectable").first.click()
                dest = page.locator("#board .dest")
                if dest.count():
                    dest.first.click()
            # the MainButton follows on the next frame
            page.wait_for_function("() => window.__telegram.main.active", timeout=5000)
            if shots:
                shoot(page, shots.pop(0))
        page.evaluate("window.__pressMain()")
        presses += 1
        page.wait_for_function(
            """(v) => Number(document.getElementById("game").dataset.version) > v
                      || document.getElementById("message").textContent.trim() !== "" """,
            arg=version,
            timeout=20000,
        )
        message = page.locator("#message").inner_text().strip()
        assert not message, message
    pytest.fail("the game did not end in time")


@pytest.mark.parametrize(("language", "theme"), [("ru", "light"), ("bg", "dark")])
def test_a_telegram_user_plays_a_game_to_the_end_with_the_main_button(
    telegram_daphne, browser, language, theme
):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    base = telegram_daphne.base
    page, errors = telegram_page(browser, language, theme, user_id=770000 + len(theme))
    page.goto(f"{base}/tg/")
    page.wait_for_url(re.compile(rf"/{language}/games/$"))
    assert page.evaluate("document.documentElement.classList.contains('tg-in')")
    # Telegram's colours are the page's
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    expected = THEMES[theme]["bg_color"].lstrip("#")
    rgb = tuple(int(expected[i : i + 2], 16) for i in (0, 2, 4))
    assert background == "rgb({}, {}, {})".format(*rgb)
    assert page.evaluate("window.__telegram.back") is False  # the app's home: nothing behind
    state = main_button(page, time.monotonic() + 10)
    start_text = page.locator("button[data-tg-main='20']").first.inner_text().strip()
    assert state == {"text": start_text, "visible": True, "active": True}
    page.check("input[name=level][value=easy]")
    page.check("input[name=side][value=white]")
    shoot(page, f"{language}-{theme}-new-game")
    assert violations(page) == []  # axe, with Telegram's colours
    page.evaluate("window.__pressMain()")
    page.wait_for_url(re.compile(r"/game/[0-9a-f-]{36}/$"))
    game_id = re.search(r"([0-9a-f-]{36})/$", page.url).group(1)
    page.wait_for_selector("#board [data-point]")
    human = viewer_side(page)
    in_thread(lambda: near_the_end(game_id, human))
    page.reload()
    page.wait_for_function("() => document.getElementById('game').dataset.ready === 'true'")
    assert page.evaluate("window.__telegram.back") is True
    roll = main_button(page, time.monotonic() + 20)
    assert roll["text"] == page.locator("#roll-btn").inner_text().strip()
    assert calls(page, "closing") == [True]  # leaving asks first while the game runs

    presses = play_to_the_end(page, time.monotonic() + GAME_LIMIT_S, [f"{language}-{theme}-play"])
    assert presses >= 2
    page.wait_for_function("() => window.__telegram.calls.some(([c]) => c === 'notification')")
    result_title = page.locator("#result-title").inner_text()
    won = result_title.startswith(("Вы выиграли", "Вие спечелихте"))
    assert calls(page, "notification") == ["success" if won else "error"]
    assert calls(page, "closing")[-1] is False
    assert calls(page, "impact")  # each roll after the reload was felt
    page.wait_for_function(
        "(text) => window.__telegram.main.visible && window.__telegram.main.text === text",
        arg=page.locator("#again-btn").inner_text().strip(),
        timeout=5000,
    )
    shoot(page, f"{language}-{theme}-result")
    assert violations(page) == []
    # Telegram's theme changes while the app is open: the page follows
    other = "light" if theme == "dark" else "dark"
    page.evaluate("([scheme, params]) => window.__setTheme(scheme, params)", [other, THEMES[other]])
    assert page.evaluate("document.documentElement.classList.contains('tg-dark')") == (
        other == "dark"
    )
    # Telegram's BackButton goes back to the app's home, where nothing is behind
    page.evaluate("window.__pressBack()")
    page.wait_for_url(re.compile(rf"/{language}/games/$"))
    assert page.evaluate("window.__telegram.back") is False
    # a challenge made inside the app is sent to a Telegram chat through Telegram's share
    page.goto(f"{base}/{language}/friend/")
    main_button(page, time.monotonic() + 10)
    page.evaluate("window.__pressMain()")
    page.wait_for_url(re.compile(r"/challenge/[0-9a-f-]{36}/$"))
    challenge_hex = re.search(r"([0-9a-f-]{36})/$", page.url).group(1).replace("-", "")
    page.click("#tg-share")
    [shared] = calls(page, "link")
    assert shared.startswith("https://t.me/share/url?url=")
    assert f"startapp%3Dc{challenge_hex}" in shared
    shoot(page, f"{language}-{theme}-challenge")
    # the friend opens that link in Telegram, accepts with the MainButton, and Back takes
    # them to the app's home (not round through the challenge, which now redirects)
    friend, friend_errors = telegram_page(
        browser, language, theme, user_id=880000 + len(theme), start_param="c" + challenge_hex
    )
    friend.goto(f"{base}/tg/")
    friend.wait_for_url(re.compile(rf"/{language}/challenge/[0-9a-f-]{{36}}/$"))
    main_button(friend, time.monotonic() + 10)
    friend.evaluate("window.__pressMain()")
    friend.wait_for_url(re.compile(r"/game/[0-9a-f-]{36}/$"))
    friend.wait_for_selector("#board [data-point]")
    assert friend.evaluate("window.__telegram.back") is True
    friend.evaluate("window.__pressBack()")
    friend.wait_for_url(re.compile(rf"/{language}/games/$"))
    assert friend.evaluate("window.__telegram.back") is False
    # "Play a person" in the app: the MainButton finds an opponent, then cancels the wait; the
    # two Telegram players meet in the casual pool. The challenger's page first follows the
    # accepted challenge to its game (a navigation of its own that would cut a goto short).
    page.wait_for_url(re.compile(r"/game/[0-9a-f-]{36}/$"), timeout=10_000)
    for player in (page, friend):
        player.goto(f"{base}/{language}/lobby/?pool=casual")
        main_button(player, time.monotonic() + 10)
        find = player.locator("#lobby-join").inner_text().strip()
        player.wait_for_function(
            "(text) => window.__telegram.main.text === text && window.__telegram.main.active",
            arg=find,
            timeout=5000,
        )
    page.evaluate("window.__pressMain()")
    page.locator("#lobby-wait").wait_for(state="visible", timeout=10_000)
    page.wait_for_function(
        "(text) => window.__telegram.main.text === text",
        arg=page.locator("#lobby-cancel").inner_text().strip(),
        timeout=5000,
    )
    shoot(page, f"{language}-{theme}-lobby-wait")
    friend.evaluate("window.__pressMain()")
    for player in (friend, page):
        player.wait_for_url(re.compile(r"/game/[0-9a-f-]{36}/$"), timeout=10_000)
    assert friend.url == page.url
    assert not friend_errors, friend_errors

    game = in_thread(lambda: Game.objects.get(pk=game_id))
    assert game.status == "finished" and game.get_position().off(game.winner) == 15
    assert not errors, errors
