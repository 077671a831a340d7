"""The chat in headless Chromium, in Russian, Bulgarian and English at 360 and 1280 px (one
Daphne server, one browser, two pages per language): a preset from one player reaches the
other in their language and is said by the polite live region, a signed-in player's own
words (a hostile one among them) arrive as text and never as markup, the panel sits below
the board on a phone and fits it, and axe finds no violation in the panel. In English also:
the report, the mute kept over a reload, an onlooker's page (the players' phrases only, its
own phrases unseen by the players) and the setting that turns the chat off.
Screenshots to ``artifacts/e2e/chat-*.png``."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from games.room.tests.test_e2e_browser import (  # noqa: F401 - fixtures used by name
    ARTIFACTS,
    DESKTOP,
    PHONE,
    browser,
    daphne_server,
    in_thread,
)

pytestmark = pytest.mark.e2e

#: (language, the words of the preset "good_luck" in it)
LANGUAGES = (("ru", "Удачи!"), ("bg", "Успех!"), ("en", "Good luck!"))
HOSTILE = '"><img src=x onerror=alert(1)> & <b>bold</b>'
READY_JS = "() => document.getElementById('game').dataset.ready === 'true'"


def signed_in_game(lang):
    """A game between two new accounts: (game id, white's session key, black's)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from games.accounts.models import Profile
    from games.chat.tests.helpers import people_game
    from games.room.models import Game

    game = people_game()
    keys = []
    for side in ("white", "black"):
        user = get_user_model().objects.create_user(username=f"chat-{lang}-{side}")
        Profile.objects.create(user=user, display_name=f"{side.title()} <i>{lang}</i>")
        Game.objects.filter(pk=game.pk).update(**{f"{side}_user": user})
        client = Client()
        client.force_login(user)
        keys.append(client.cookies[settings.SESSION_COOKIE_NAME].value)
    return str(game.pk), *keys


def open_page(browser, base, key, viewport, path, problems):
    from django.conf import settings

    context = browser.new_context(viewport=viewport, reduced_motion="reduce")
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": key, "url": base}])
    page = context.new_page()
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on(
        "dialog", lambda dialog: (problems.append("dialog " + dialog.message), dialog.dismiss())
    )
    page.goto(f"{base}{path}")
    page.wait_for_function(READY_JS)
    return page


def log_has(page, text, timeout=5_000):
    page.wait_for_function(
        "(text) => [...document.querySelectorAll('#chat-log .chat-text')]"
        ".some((el) => el.textContent.trim() === text)",
        arg=text,
        timeout=timeout,
    )


def panel_violations(page):
    found = Axe().run(page, context="#chat").response["violations"]
    return [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in found]


def test_players_chat_in_their_languages_on_a_phone_and_a_desktop(daphne_server, browser):
    from games.chat.models import ChatMessage, ChatReport

    base, problems, found = daphne_server.base, [], {}
    for lang, good_luck in LANGUAGES:
        game_id, white_key, black_key = in_thread(lambda lang=lang: signed_in_game(lang))
        path = f"/{lang}/game/{game_id}/"
        phone = open_page(browser, base, white_key, PHONE, path, problems)
        desk = open_page(browser, base, black_key, DESKTOP, path, problems)

        phone.locator('#chat-presets button[data-preset="good_luck"]').click()
        log_has(desk, good_luck)
        desk.wait_for_function(
            "(text) => document.getElementById('chat-announce').textContent.includes(text)",
            arg=good_luck,
        )
        desk.locator("#chat-text").fill(HOSTILE)
        assert desk.locator("#chat-count").inner_text().startswith(str(len(HOSTILE)))
        desk.locator("#chat-form button[type=submit]").click()
        log_has(phone, HOSTILE)
        desk.wait_for_function("() => document.getElementById('chat-text').value === ''")
        for page in (phone, desk):
            assert page.locator("#chat-log img, #chat-log b").count() == 0
            assert "{#" not in page.locator("#game").inner_text()  # no template text shows
        # on the phone the chat is below the board, and the page is no wider than the phone
        board = phone.locator(".board-frame").bounding_box()
        chat = phone.locator("#chat").bounding_box()
        assert chat["y"] >= board["y"] + board["height"] - 1, (board, chat)
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        phone.locator("#chat").scroll_into_view_if_needed()
        phone.screenshot(path=str(ARTIFACTS / f"chat-{lang}-360.png"), full_page=True)
        desk.screenshot(path=str(ARTIFACTS / f"chat-{lang}-1280.png"))
        found[lang] = panel_violations(phone) + panel_violations(desk)

        if lang == "en":
            # a report of the opponent's words
            phone.locator("#chat-log button[data-report]").first.click()
            phone.wait_for_function(
                "() => document.getElementById('chat-note').textContent.includes('reported')"
            )
            # the mute holds over a reload: the opponent's phrase never reaches this page
            phone.locator("#chat-mute").check()
            phone.wait_for_timeout(300)
            phone.reload()
            phone.wait_for_function(READY_JS)
            assert phone.locator("#chat-mute").is_checked()
            assert phone.locator("#chat-log .chat-text").count() == 1  # its own phrase only
            desk.locator('#chat-presets button[data-preset="oops"]').click()
            log_has(desk, "Oops!")
            phone.wait_for_timeout(500)
            assert phone.locator("#chat-log .chat-text").count() == 1
            # an onlooker reads the players' phrases, not their words, and chats with phrases
            # that the players never see
            watcher = browser.new_context(viewport=PHONE, reduced_motion="reduce").new_page()
            watcher.on("pageerror", lambda error: problems.append(str(error)))
            watcher.goto(f"{base}{path}")
            watcher.wait_for_function(READY_JS)
            log_has(watcher, "Oops!")
            assert HOSTILE not in watcher.locator("#chat-log").inner_text()
            assert watcher.locator("#chat-text, #chat-mute").count() == 0
            watcher.locator('#chat-presets button[data-preset="hello"]').click()
            log_has(watcher, "Hello!")
            desk.wait_for_timeout(500)
            assert "Hello!" not in desk.locator("#chat-log").inner_text()
            found["en onlooker"] = panel_violations(watcher)
            watcher.context.close()
            # the setting turns the chat off: nothing of it shows
            phone.locator(".game-settings summary").click()
            phone.locator("#set-chat").uncheck()
            assert phone.locator("#chat").is_hidden()
            phone.reload()
            phone.wait_for_function(READY_JS)
            assert phone.locator("#chat").is_hidden()
        phone.context.close()
        desk.context.close()

    assert found == {**{lang: [] for lang, _words in LANGUAGES}, "en onlooker": []}
    assert problems == []
    assert in_thread(lambda: (ChatMessage.objects.count(), ChatReport.objects.count())) == (8, 1)


def test_after_the_end_the_onlookers_phrases_close_at_once_the_players_at_until(
    daphne_server, browser
):
    from datetime import timedelta

    from django.utils import timezone

    from games import services
    from games.chat.reading import AFTER_END
    from games.room.models import Game, GameEvent
    from games.tests.factories import WHITE_GUEST

    base, problems = daphne_server.base, []
    game_id, white_key, black_key = in_thread(lambda: signed_in_game("end"))
    path = f"/en/game/{game_id}/"
    player = open_page(browser, base, black_key, DESKTOP, path, problems)
    watcher = browser.new_context(viewport=PHONE, reduced_motion="reduce").new_page()
    watcher.on("pageerror", lambda error: problems.append(str(error)))
    watcher.goto(f"{base}{path}")
    watcher.wait_for_function(READY_JS)
    closed_js = (
        "() => [...document.querySelectorAll('#chat-presets button')].every((b) => b.disabled)"
        " && document.getElementById('chat-note').textContent.includes('chat is closed')"
    )
    assert not watcher.evaluate(closed_js)

    def end_game():
        version = Game.objects.get(pk=game_id).version
        return services.resign(game_id, services.Actor(guest_id=WHITE_GUEST), version).status

    assert in_thread(end_game) == "aborted"  # no play yet: the resignation aborts
    watcher.wait_for_function(closed_js)
    found = panel_violations(watcher)
    player.locator('#chat-presets button[data-preset="good_game"]').click()
    log_has(player, "Good game!")
    assert not player.evaluate(closed_js)
    # three seconds before the ten minutes run out: the page closes its chat by itself
    in_thread(
        lambda: GameEvent.objects.filter(game_id=game_id, kind="abort").update(
            created=timezone.now() - AFTER_END + timedelta(seconds=3)
        )
    )
    player.reload()
    player.wait_for_function(READY_JS)
    assert not player.evaluate(closed_js)
    player.wait_for_function(closed_js, timeout=8_000)
    assert player.locator("#chat-text").is_disabled()
    log_has(player, "Good game!")  # the messages stay
    found += panel_violations(player)
    for page in (player, watcher):
        page.context.close()
    assert found == [] and problems == []
