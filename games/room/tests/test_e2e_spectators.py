"""An onlooker in the browser (docs/protocol.md "Spectators"): names and ratings, no controls,
and the rating changes when the game ends."""

import pytest

from games import services
from games.room.models import Game
from games.room.tests.test_e2e_browser import (  # noqa: F401 - fixtures used by name
    ARTIFACTS,
    DESKTOP,
    PHONE,
    browser,
    daphne_server,
    in_thread,
)
from games.room.tests.test_spectators import (
    make_account,
)
from games.tests.factories import play_turns

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]


#: the buttons that act on a game; none may be visible to an onlooker
ACTION_BUTTONS = (
    "#roll-btn",
    "#double-btn",
    "#take-btn",
    "#drop-btn",
    "#undo-btn",
    "#confirm-btn",
    "#pass-btn",
    "#resign-btn",
    "#claim-btn",
    "#move-form",
    "#again-btn",
)


@pytest.mark.e2e
def test_an_onlooker_in_the_browser_sees_names_ratings_no_controls_and_the_rating_changes(
    daphne_server, browser
):
    from games.accounts.models import PlayerRating

    def setup():
        anna, boris = make_account("Anna"), make_account("Boris <b>")
        PlayerRating.objects.create(
            user=anna, preset="sport", rating=1684.4, deviation=72, games=40, wins=25
        )
        white = services.Actor(guest_id="guest-id-of-anna-e2e-1", user_id=anna.pk)
        black = services.Actor(guest_id="guest-id-of-boris-e2e-2", user_id=boris.pk)
        challenge = services.create_challenge(white, colour="white", rated=True)
        game = services.accept_challenge(challenge.pk, black)
        # both have played: black's resignation below is a result, not an abort
        return anna, boris, black, play_turns(game.pk, 2)

    anna, boris, black, game = in_thread(setup)
    base = daphne_server.base
    errors = []
    context = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base}/en/game/{game.pk}/")
    page.wait_for_selector("#board [data-point]")
    page.wait_for_function("() => document.getElementById('game').dataset.ready === 'true'")

    assert page.locator("#watching").is_visible()
    assert "You are watching this game" in page.locator("#watching").inner_text()
    for selector in ACTION_BUTTONS:
        assert not page.locator(selector).is_visible(), selector
    # The replay and the record are closed to onlookers until the end: no links to a 404.
    assert not page.locator("#replay-link").is_visible()
    assert not page.locator("#record-link").is_visible()
    white_row = page.locator('.player[data-side="white"]')
    black_row = page.locator('.player[data-side="black"]')
    assert white_row.locator(".player-name a").inner_text() == "Anna"
    assert white_row.locator(".player-name a").get_attribute("href") == (f"/en/players/{anna.pk}/")
    assert white_row.locator(".player-rating").inner_text() == "1684"  # established: no "?"
    assert black_row.locator(".player-name a").inner_text() == "Boris <b>"  # text, not markup
    assert black_row.locator(".player-rating").inner_text() == "1500?"
    assert (
        black_row.locator(".provisional-mark")
        .get_attribute("title")
        .startswith("Provisional rating")
    )
    page.screenshot(path=str(ARTIFACTS / "spectator-rated-1280.png"), full_page=True)

    version = int(page.locator("#game").get_attribute("data-version"))
    in_thread(lambda: services.resign(game.pk, black, version))
    page.wait_for_selector("#result:not([hidden])")
    assert not page.locator("#watching").is_visible()
    assert page.locator("#result-title").inner_text().startswith("Anna won")
    lines = page.locator("#result-rating li")
    assert lines.count() == 2
    changes = in_thread(
        lambda: {c.user_id: c for c in Game.objects.get(pk=game.pk).rating_changes.all()}
    )
    for index, (user, name) in enumerate(((anna, "Anna"), (boris, "Boris <b>"))):
        change = changes[user.pk]
        before, after = round(change.rating_before), round(change.rating_after)
        delta = after - before
        sign = "+" if delta > 0 else "\u2212" if delta < 0 else ""
        assert (
            lines.nth(index)
            .inner_text()
            .startswith(f"{name}'s rating: {before} → {after} ({sign}{abs(delta)})")
        )
    assert not page.locator("#again-btn").count()
    assert page.locator("#replay-link").is_visible()
    page.screenshot(path=str(ARTIFACTS / "spectator-result-1280.png"), full_page=True)
    phone = context.new_page()
    phone.set_viewport_size(PHONE)
    phone.goto(f"{base}/en/game/{game.pk}/")
    phone.wait_for_selector("#result:not([hidden])")
    phone.screenshot(path=str(ARTIFACTS / "spectator-result-360.png"), full_page=True)

    # The players' pages and the leaderboard, on a phone.
    phone.goto(f"{base}/en/players/{boris.pk}/")
    assert phone.locator("#player-name").inner_text() == "Boris <b>"
    assert phone.locator("#rating-sport .provisional-mark").is_visible()
    phone.locator("#rating-sport summary").click()
    phone.screenshot(path=str(ARTIFACTS / "player-page-360.png"), full_page=True)
    phone.goto(f"{base}/en/leaderboard/")
    assert phone.locator("#leaderboard tbody tr").count() == 1  # Boris is still provisional
    assert "Anna" in phone.locator("#leaderboard").inner_text()
    phone.screenshot(path=str(ARTIFACTS / "leaderboard-360.png"), full_page=True)

    # Against the computer nothing is rated: Anna is named, with no rating beside her name.
    bot_game = in_thread(
        lambda: services.create_bot_game(
            services.Actor(guest_id="guest-id-of-anna-e2e-1", user_id=anna.pk), human_side="white"
        )
    )
    page.goto(f"{base}/en/game/{bot_game.pk}/")
    page.wait_for_function("() => document.getElementById('game').dataset.ready === 'true'")
    white_row = page.locator('.player[data-side="white"]')
    assert white_row.locator(".player-name a").inner_text() == "Anna"
    assert white_row.locator(".player-rating").count() == 0
    assert "rating" not in white_row.get_attribute("aria-label")
    assert not errors, errors
    context.close()
