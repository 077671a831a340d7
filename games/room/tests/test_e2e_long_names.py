"""End to end in headless Chromium: a long display name without spaces (40 characters, the most
a profile holds) never widens a page (issue #6).

Two accounts with such names play a rated game. On a phone (360 px) and on a desktop (1280 px)
the game page (the players' cards and the move list), "my games", the lobby, a player's page
and the leaderboard fit the window: nothing scrolls sideways, the move list keeps the plays in
view, and a cut name keeps its whole text for screen readers and in its tooltip. Screenshots go
to ``artifacts/e2e/long-names-*.png`` (git-ignored).
"""

import dataclasses

import pytest

from games.clocks import CLOCKS
from games.room.tests.test_e2e_browser import (  # noqa: F401 - fixtures used by name
    ARTIFACTS,
    DESKTOP,
    PHONE,
    browser,
    daphne_server,
    in_thread,
)

pytestmark = pytest.mark.e2e

WHITE_NAME = "W" * 20 + "olfeschlegelsteinhaus"[:20]
BLACK_NAME = "Б" * 40
HOUR_MS = 3_600_000
READY_JS = "() => document.getElementById('game').dataset.ready === 'true'"
#: how far the page reaches past the window's right edge (px); 0 when nothing scrolls sideways
OVERFLOW_JS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
#: the innermost elements that reach past the window's right edge (for the failure message)
OVERFLOWING_JS = """() => {
  const width = document.documentElement.clientWidth;
  return [...document.querySelectorAll("body *")]
    .filter((el) => el.getBoundingClientRect().right > width + 1)
    .filter((el) => ![...el.children].some((child) => child.getBoundingClientRect().right > width + 1))
    .map((el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + "." + el.className
         + " " + Math.round(el.getBoundingClientRect().right));
}"""

#: a player's card: the name link's text and tooltip, whether it ends inside the card, and
#: whether the rating after it is shown within the card
CARD_JS = """(card) => {
  const box = card.getBoundingClientRect();
  const link = card.querySelector(".player-name a");
  const rating = card.querySelector(".player-rating");
  const within = (el) => el.getBoundingClientRect().right <= box.right + 1
    && el.getBoundingClientRect().width > 0;
  return {text: link.textContent, title: link.title, inside: within(link),
          rating: Boolean(rating) && within(rating)};
}"""
#: the move list's entries: who (text and tooltip), the play's text, and whether the play ends
#: inside the list
HISTORY_JS = """(list) => {
  const right = list.getBoundingClientRect().right;
  return [...list.querySelectorAll(".history-item")].map((item) => {
    const who = item.querySelector(".history-who");
    const play = item.querySelector(".history-play");
    const box = play.getBoundingClientRect();
    return {who: who.textContent, title: who.title, play: play.textContent.trim(),
            inside: box.width > 0 && box.right <= right + 1};
  });
}"""


def fits(page):
    """The page does not scroll sideways; else the elements that stick out."""
    return page.evaluate(OVERFLOW_JS) <= 0 or page.evaluate(OVERFLOWING_JS)


def setup_rated_game():
    """Two accounts named WHITE_NAME and BLACK_NAME, established ratings in the sport rules,
    and a rated game between them with a few plays made; (white's session key, game)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from games import services
    from games.accounts.models import PlayerRating, Profile
    from games.room.models import Game
    from games.tests.factories import play_turn

    users = {}
    for side, name in (("white", WHITE_NAME), ("black", BLACK_NAME)):
        users[side] = get_user_model().objects.create_user(username=f"long-{side}")
        Profile.objects.create(user=users[side], display_name=name)
        PlayerRating.objects.create(
            user=users[side], preset="sport", rating=1600, deviation=60, games=30, wins=15
        )
    white = services.Actor(guest_id="guest-long-white", user_id=users["white"].pk)
    black = services.Actor(guest_id="guest-long-black", user_id=users["black"].pk)
    challenge = services.create_challenge(white, colour="white", rated=True)
    # a slow clock: the game must still be running when the last page is checked
    slow = dataclasses.replace(CLOCKS["standard"], roll_ms=HOUR_MS, move_ms=HOUR_MS)
    game = services.accept_challenge(challenge.pk, black, clock=slow)
    for _turn in range(4):
        game = play_turn(game.pk)
    client = Client()
    client.force_login(users["white"])
    return client.cookies[settings.SESSION_COOKIE_NAME].value, Game.objects.get(pk=game.pk)


def test_a_forty_character_name_without_spaces_never_widens_a_page(daphne_server, browser):
    from django.conf import settings

    key, game = in_thread(setup_rated_game)
    base = daphne_server.base
    errors = []
    for label, viewport in (("360", PHONE), ("1280", DESKTOP)):
        context = browser.new_context(viewport=viewport, reduced_motion="reduce")
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": key, "url": base}])
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))

        page.goto(f"{base}/en/game/{game.pk}/")
        page.wait_for_function(READY_JS)
        page.wait_for_selector(".history-item")
        assert fits(page) is True, label
        # Each check reads the page in one go: a snapshot redraws the cards and the list.
        for side, name in (("white", WHITE_NAME), ("black", BLACK_NAME)):
            # a snapshot arriving redraws the card: check the layout once it has settled
            settled = (
                f"() => {{ const c = document.querySelector('.player[data-side=\"{side}\"]');"
                f" if (!c) return false; const r = ({CARD_JS})(c);"
                f" return r.inside && r.rating; }}"
            )
            # (the cards are redrawn by every snapshot and clock tick; a check in one instant
            # caught a card mid-change now and then on a loaded machine)
            page.wait_for_function(settled, timeout=10_000, polling=100)
            card = page.locator(f'.player[data-side="{side}"]').evaluate(CARD_JS)
            assert name in card["text"] and card["title"] == name, (label, side)
        # In the move list a long name is cut so that the dice and the play still show.
        items = page.locator(".history-list").evaluate(HISTORY_JS)
        assert items, label
        for item in items:
            assert item["play"] and item["inside"], (label, item)
            if item["who"] in (WHITE_NAME, BLACK_NAME):
                assert item["title"] == item["who"], (label, item)
        page.screenshot(path=str(ARTIFACTS / f"long-names-game-{label}.png"), full_page=True)

        for name, path in (
            ("my-games", "/en/games/"),
            ("lobby", "/en/lobby/"),
            ("player", f"/en/players/{game.black_user_id}/"),
            ("leaderboard", "/en/leaderboard/"),
        ):
            page.goto(f"{base}{path}")
            assert BLACK_NAME in page.locator("main").inner_text(), (name, label)
            assert fits(page) is True, (name, label)
            page.screenshot(path=str(ARTIFACTS / f"long-names-{name}-{label}.png"), full_page=True)
        context.close()
    assert not errors, errors
