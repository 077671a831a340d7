"""End to end in headless Chromium: two players sign in with the development sign-in; A
follows B from B's card, B follows A back from A's card (which says A follows B: challenges
are only between players who follow each other), A challenges B from the friends list; B, on
the FAQ (a page served from the page cache), sees the notice and accepts it with one click;
both land in the same game; at its end B unfollows A from the result, and A's list then shows
B as not following back, with no Challenge. In Russian, Bulgarian and English, each player at
360 or 1280 px (one server, one browser, a context per player), with axe on the friends page
and on the page with the notice: no violation. Screenshots go to
``artifacts/e2e/friends-*.png``."""

import re

import pytest

from games.room.tests.test_e2e_accessibility import violations
from games.room.tests.test_e2e_browser import (  # noqa: F401 - fixtures used by name
    ARTIFACTS,
    DESKTOP,
    PHONE,
    browser,
    daphne_server,
    in_thread,
)

pytestmark = pytest.mark.e2e

#: (language, A's screen, B's screen): every language, each side at both widths
RUNS = (("ru", DESKTOP, PHONE), ("bg", PHONE, DESKTOP), ("en", DESKTOP, PHONE))
GAME = re.compile(r"/game/([0-9a-f-]{36})/$")
READY_JS = "() => document.getElementById('game') && document.getElementById('game').dataset.ready === 'true'"
#: the words the test looks for in each language
WORDS = {
    "ru": {"follow": "Подписаться на игрока", "challenge": "Пригласить"},
    "bg": {"follow": "Последвай", "challenge": "Покани"},
    "en": {"follow": "Follow", "challenge": "Challenge"},
}


def sign_in(context, base, lang, name, errors):
    """A page of ``context`` signed in as ``name`` through the development sign-in form."""
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(f"{name}: {error}"))
    page.goto(f"{base}/{lang}/accounts/login/?next=/{lang}/friends/")
    page.fill("#dev-name", name)
    page.locator("form.dev-sign-in button[type=submit]").click()
    page.wait_for_url(re.compile(rf"/{lang}/friends/$"))
    return page


def user_id_of(name):
    from games.accounts.models import Profile

    return in_thread(lambda: Profile.objects.get(display_name=name).user_id)


def test_a_player_follows_and_challenges_a_friend_who_accepts_from_a_notice(daphne_server, browser):
    from games.room.models import Game

    base = daphne_server.base
    errors = []
    for lang, screen_a, screen_b in RUNS:
        words = WORDS[lang]
        context_a = browser.new_context(viewport=screen_a, reduced_motion="reduce")
        context_b = browser.new_context(viewport=screen_b, reduced_motion="reduce")
        name_a, name_b = f"Alice {lang}", f"Boris {lang}"
        page_a = sign_in(context_a, base, lang, name_a, errors)
        page_b = sign_in(context_b, base, lang, name_b, errors)
        a_id, b_id = user_id_of(name_a), user_id_of(name_b)
        width_a, width_b = screen_a["width"], screen_b["width"]

        # a guest is told why friends need an account
        if lang == "en":
            guest = browser.new_page(viewport=PHONE)
            guest.goto(f"{base}/en/friends/")
            assert (
                "Friends are for signed-in players"
                in guest.locator("#friends-sign-in").inner_text()
            )
            assert guest.locator("#site-notices").count() == 0  # no notices for guests
            guest.screenshot(path=str(ARTIFACTS / "friends-guest-360.png"), full_page=True)
            guest.close()

        # A follows B from B's card
        page_a.goto(f"{base}/{lang}/players/{b_id}/")
        follow = page_a.locator("#follow-button")
        assert words["follow"] in follow.inner_text()
        follow.click()
        page_a.locator("#unfollow-button").wait_for(timeout=10_000)
        page_a.screenshot(path=str(ARTIFACTS / f"friends-card-{lang}-{width_a}.png"))

        # B follows A back from A's card, which says A follows B
        page_b.goto(f"{base}/{lang}/players/{a_id}/")
        assert name_a in page_b.locator("#follows-you-note").inner_text()
        page_b.locator("#follow-button").click()
        page_b.locator("#unfollow-button").wait_for(timeout=10_000)

        # B reads the FAQ (a page from the shared page cache): its notices are live there too
        page_b.goto(f"{base}/{lang}/faq/")
        page_b.locator("#site-notices").wait_for(state="attached", timeout=10_000)

        # the friends list, from the header's menu
        page_a.goto(f"{base}/{lang}/friends/")
        row = page_a.locator(f'#friends-list li[data-user-id="{b_id}"]')
        assert name_b in row.inner_text()
        assert violations(page_a) == []
        assert page_a.evaluate("() => document.documentElement.scrollWidth") <= width_a
        page_a.screenshot(
            path=str(ARTIFACTS / f"friends-list-{lang}-{width_a}.png"), full_page=True
        )
        challenge = row.locator("a.friend__challenge")
        assert words["challenge"] in challenge.inner_text()
        # keyboard: the challenge link takes the focus and is drawn with an outline
        challenge.focus()
        assert page_a.evaluate(
            "() => getComputedStyle(document.activeElement).outlineStyle"
        ) not in ("", "none")
        challenge.click()
        page_a.locator("#send-challenge").wait_for(timeout=10_000)
        page_a.screenshot(path=str(ARTIFACTS / f"friends-form-{lang}-{width_a}.png"))
        page_a.locator("#send-challenge").click()
        page_a.locator("#waiting").wait_for(timeout=10_000)
        page_a.screenshot(path=str(ARTIFACTS / f"friends-waiting-{lang}-{width_a}.png"))

        # B gets the notice where they are, and accepts with one click
        notice = page_b.locator(".site-notice")
        notice.wait_for(timeout=10_000)
        assert name_a in notice.inner_text()
        assert violations(page_b) == []
        page_b.screenshot(path=str(ARTIFACTS / f"friends-notice-{lang}-{width_b}.png"))
        assert page_b.evaluate("() => document.documentElement.scrollWidth") <= width_b
        notice.locator(".site-notice__accept").click()
        page_b.wait_for_url(GAME, timeout=10_000)
        page_b.wait_for_function(READY_JS, timeout=10_000)
        page_a.wait_for_url(GAME, timeout=10_000)  # the challenge's page moves to the game
        page_a.wait_for_function(READY_JS, timeout=10_000)
        game_id = GAME.search(page_b.url).group(1)
        assert GAME.search(page_a.url).group(1) == game_id
        game = in_thread(lambda: Game.objects.get(pk=game_id))  # noqa: B023 - read at once
        assert {game.white_user_id, game.black_user_id} == {a_id, b_id}
        page_b.screenshot(path=str(ARTIFACTS / f"friends-game-{lang}-{width_b}.png"))
        if lang == "en":
            # B leaves the game at once (aborted: no result); its end has B's follow of A,
            # and B unfollows A there
            page_b.on("dialog", lambda dialog: dialog.accept())
            page_b.locator("#resign-btn").click()
            unfollow = page_b.locator("#result #unfollow-button")
            unfollow.wait_for(timeout=10_000)
            unfollow.click()
            follow_again = page_b.locator("#result #follow-button")
            follow_again.wait_for(timeout=10_000)
            assert name_a in follow_again.inner_text()
            assert page_b.url.endswith(f"/en/game/{game_id}/")
            page_b.locator("#result").scroll_into_view_if_needed()
            page_b.screenshot(path=str(ARTIFACTS / f"friends-follow-after-game-{width_b}.png"))
            # A's list: B no longer follows back, so no Challenge and no online status
            page_a.goto(f"{base}/en/friends/")
            row = page_a.locator(f'#friends-list li[data-user-id="{b_id}"]')
            assert "Not following you back" in row.inner_text()
            assert row.locator("a.friend__challenge").count() == 0
        context_a.close()
        context_b.close()
    assert errors == []
