"""axe-core (axe-playwright-python) on every page type of the site, in Russian, Bulgarian and
English at 390 px and in Russian at 1280 px too (the game room at both widths in every
language): no violation of any impact (issue #15).

One Daphne server and one browser serve every page: the rules pages, the new-game forms, a game
as its player before and after a roll and as an onlooker, the replay, a challenge link, the
lobby, the leaderboard, a player's profile, the sign-in page, the record import and the 404
page."""

import contextlib
import random
import re
import time

import pytest
from axe_playwright_python.sync_playwright import Axe

from games.room.tests.test_e2e_browser import (  # noqa: F401 - fixtures used by name
    DESKTOP,
    browser,
    daphne_server,
    in_thread,
    stage_whole_turn,
)
from nardy_site import lighthouse

pytestmark = pytest.mark.e2e

LANGUAGES = ("ru", "bg", "en")
WIDTHS = {"390": {"width": 390, "height": 844}, "1280": DESKTOP}
PHONE_SMALL = {"width": 360, "height": 740}
#: pages that need nothing made first (paths after the language prefix): those Lighthouse
#: audits, and the 404 page, which it refuses to
STATIC_PAGES = dict(lighthouse.STATIC_PAGES, **{"not found": "no-such-page/"})


def violations(page):
    """axe's violations on the page as it is: ``[(rule id, impact, first targets)]``."""
    found = Axe().run(page).response["violations"]
    return [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in found]


def open_game(browser, base, lang):
    """A new game against the computer started from the home page in ``lang``, as a visitor
    does: (page, game id, page errors)."""
    page = browser.new_page(viewport=DESKTOP, reduced_motion="reduce")
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base}/{lang}/")
    page.locator("button.play-button").first.click()
    page.wait_for_url(re.compile(r"[0-9a-f-]{36}/$"))
    page.wait_for_selector("#board [data-point]")
    return page, re.search(r"([0-9a-f-]{36})/$", page.url).group(1), errors


def made_pages():
    """Paths (no language prefix) of pages that need data: a finished game's replay, an open
    challenge link and a player's profile. Made in the test database."""
    from django.contrib.auth import get_user_model

    from games import clocks, services, tournaments
    from games.accounts.models import Profile
    from games.room import analysis
    from games.room.models import Game
    from games.tests.factories import play_human_turn

    challenge = services.create_challenge("a11y-friend", preset="sport", colour="white")
    bot = services.create_bot_game("a11y-guest", bot_level="easy", human_side="white")
    rng = random.Random(5)
    guest = services.Actor(guest_id="a11y-guest")
    plays, deadline = 0, time.monotonic() + 30
    while plays < 3 and time.monotonic() < deadline:  # a few plays for the analysis to mark
        game = Game.objects.get(pk=bot.pk)
        if game.is_bot_turn:  # the tests' worker moves for the computer
            time.sleep(0.1)
            continue
        with contextlib.suppress(services.StaleVersion):
            play_human_turn(bot.pk, guest="a11y-guest", rng=rng)
            plays += 1
    while True:
        with contextlib.suppress(services.StaleVersion):
            services.resign(bot.pk, guest, Game.objects.get(pk=bot.pk).version)
            break
    analysis.request_analysis(bot.pk)
    analysis.run_analysis(bot.pk)  # the replay with its analysis, as the worker would
    user = get_user_model().objects.create(username="a11y-player")
    Profile.objects.create(user=user, display_name="Ann")
    # an arena under way with its standings, and a cup with its bracket drawn
    arena = tournaments.create(
        "arena", "sport", starts_at=clocks.from_ms(clocks.now_ms()), minutes=30
    )
    cup = tournaments.create("cup", "match", size=4, match_length=3)
    for n, name in enumerate(("Ann", "Boris Vasilyevich Konstantinopolsky", "Cid", "Dan")):
        player = user if n == 0 else get_user_model().objects.create(username=f"a11y-{n}")
        if n:
            Profile.objects.create(user=player, display_name=name)
        tournaments.join(arena.pk, player.pk)
        tournaments.join(cup.pk, player.pk)
    tournaments.advance(arena.pk)
    return {
        "replay with analysis": f"game/{bot.pk}/replay/",
        "challenge": f"challenge/{challenge.pk}/",
        "player profile": f"players/{user.pk}/",
        "arena": f"tournaments/{arena.pk}/",
        "cup": f"tournaments/{cup.pk}/",
    }


def test_every_page_type_has_no_accessibility_violation_and_fits_a_phone(daphne_server, browser):
    base = daphne_server.base
    pages = dict(STATIC_PAGES, **in_thread(made_pages))
    found = {}
    for lang in LANGUAGES:
        # every page at 390 px in each language; at 1280 px in Russian, whose words are the
        # longest (what changes with the width is the layout, not the language's markup)
        for width, viewport in WIDTHS.items() if lang == "ru" else [("390", WIDTHS["390"])]:
            context = browser.new_context(viewport=viewport, reduced_motion="reduce")
            page = context.new_page()
            for name, path in pages.items():
                page.goto(f"{base}/{lang}/{path}")
                found[(name, lang, width)] = violations(page)
            context.close()

        # The game room: as its player before and after a roll, and as an onlooker.
        page, game_id, errors = open_game(browser, base, lang)
        page.wait_for_function("() => document.getElementById('game').dataset.ready === 'true'")
        roll = page.locator("#roll-btn")
        page.wait_for_selector("#roll-btn:not([hidden]), #board .selectable", timeout=20_000)
        if not roll.is_visible():  # the player plays the opening dice first
            found[("game, the opening to play", lang, "1280")] = violations(page)
            stage_whole_turn(page)
            page.click("#confirm-btn")
        roll.wait_for(state="visible", timeout=20_000)
        page.wait_for_function("() => document.getElementById('game').dataset.ready === 'true'")
        found[("game, before the roll", lang, "1280")] = violations(page)
        page.evaluate("document.querySelectorAll('#board > g').forEach((g) => { g.kept = true; })")
        roll.click()
        page.wait_for_selector("#board .can-move, #pass-btn:not([hidden])", timeout=20_000)
        # The roll redrew the dice and the points that can now move, not the whole board.
        kept = page.evaluate("Array.from(document.querySelectorAll('#board > g'), (g) => !!g.kept)")
        assert kept[0] and sum(kept) >= len(kept) // 2, kept
        found[("game, after the roll", lang, "1280")] = violations(page)
        page.set_viewport_size(WIDTHS["390"])
        found[("game, after the roll", lang, "390")] = violations(page)
        page.close()
        onlooker = browser.new_page(viewport=WIDTHS["390"])
        onlooker.goto(f"{base}/{lang}/game/{game_id}/")
        onlooker.wait_for_selector("#board [data-point]")
        found[("game, onlooker", lang, "390")] = violations(onlooker)
        onlooker.close()
        assert not errors, errors

    failing = {where: v for where, v in found.items() if v}
    assert not failing, "\n".join(f"{where}: {v}" for where, v in failing.items())
    check_a_phone_sees_the_page_under_a_small_header(base, browser, pages)


def check_a_phone_sees_the_page_under_a_small_header(base, browser, pages):
    """At 360x740 the header takes at most 15 % of the first screen on every page (the same
    header everywhere: every page in Russian, whose words are the longest, the home page in
    Bulgarian and English), a challenge link's accept button is on that first screen and so
    is a running game's whole board (issue #15). Run by the test above, on its server and
    browser."""
    context = browser.new_context(viewport=PHONE_SMALL)
    page = context.new_page()
    too_tall, accept_below = {}, {}
    for lang in LANGUAGES:
        # every page in Russian (the longest words), the home page in the others
        for name, path in pages.items() if lang == "ru" else [("home", "")]:
            page.goto(f"{base}/{lang}/{path}")
            height = page.locator(".site-header").bounding_box()["height"]
            if height > 0.15 * PHONE_SMALL["height"]:
                too_tall[(name, lang)] = height
        page.goto(f"{base}/{lang}/{pages['challenge']}")
        bottom = page.evaluate(
            "document.getElementById('accept-challenge').getBoundingClientRect().bottom"
        )
        if bottom > PHONE_SMALL["height"]:
            accept_below[lang] = bottom
    # the menu opens over the page and offers every page of the header
    page.click(".site-menu-button")
    assert page.locator("#site-menu .site-nav a").first.is_visible()
    assert page.locator("#site-menu .site-nav a").count() == 9
    context.close()
    # a running game: the whole board, and the dice on it, on the first screen
    game_page, _game_id, errors = open_game(browser, base, "ru")
    phone_context = browser.new_context(viewport=PHONE_SMALL)  # the same guest on a phone
    phone_context.add_cookies(game_page.context.cookies())
    phone = phone_context.new_page()
    phone.goto(game_page.url)
    phone.wait_for_function("() => document.getElementById('game').dataset.ready")
    board = phone.evaluate(
        "(() => { const r = document.getElementById('board').getBoundingClientRect();"
        " return [r.top, r.bottom]; })()"
    )
    game_page.close()
    phone_context.close()
    assert board[0] >= 0 and board[1] <= PHONE_SMALL["height"], board
    assert not errors, errors
    assert not too_tall, too_tall
    assert not accept_below, accept_below
