"""End to end in headless Chromium: the game room of issue 4.

The same real stack as test_e2e_browser.py (Daphne in a subprocess, a real Celery worker, the
tests' Redis and database). A guest starts a `match` to 3 from the options form of "my games",
plays its first game to the end by clicking and resigns the others (a resignation with no
checker off gives the computer a mars), following the room from game to game; and
a guest reloads the page in the middle of a game, gets exactly the same game back, plays on
(one turn typed into the move box) and sees the computer's moves animated.

Screenshots go to ``artifacts/e2e/`` (git-ignored).
"""

import json
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
    play_until_over,
    take_turn,
    viewer_side,
    wait_for_new_version,
)

pytestmark = pytest.mark.e2e

GAME_URL = re.compile(r"/game/([0-9a-f-]{36})/$")
MATCH_TIME_LIMIT_S = 15 * 60


def game_id_of(page):
    return GAME_URL.search(page.url).group(1)


def start_from_options_form(page, base, preset, language="en", **choices):
    """Open "my games", choose ``preset`` (and radio ``choices`` such as match_length="3")
    in the new-game form and start the game; returns its id."""
    page.goto(f"{base}/{language}/games/")
    page.locator(f'.new-game input[name="preset"][value="{preset}"]').check()
    for name, value in choices.items():
        page.locator(f'.new-game input[name="{name}"][value="{value}"]').check()
    page.locator(".new-game .ng-submit").click()
    page.wait_for_url(GAME_URL)
    page.wait_for_selector("#board [data-point]")
    return game_id_of(page)


def resign(page):
    """Resign the game on the page as soon as the room offers it (confirming the question)."""
    page.locator("#resign-btn:not([hidden]):not([disabled])").wait_for(timeout=20_000)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#resign-btn")
    page.locator("#result").wait_for(state="visible", timeout=20_000)


def test_guest_plays_a_match_to_3_against_the_computer_to_the_end(
    daphne_server, celery_worker_process, browser
):
    from games.room.models import Game

    started = time.monotonic()
    deadline = started + MATCH_TIME_LIMIT_S
    page = browser.new_page(viewport=DESKTOP, reduced_motion="reduce")
    page_errors = []
    page.on("pageerror", lambda error: page_errors.append(str(error)))
    first_id = start_from_options_form(page, daphne_server.base, "match", match_length="3")
    human = viewer_side(page)

    game_ids = [first_id]
    results = []
    while True:
        assert page.locator("#match-score").is_visible()
        assert (
            page.locator("#match-score")
            .inner_text()
            .startswith(f"Match to 3 · game {len(game_ids)}")
        )
        if len(game_ids) == 1:
            play_until_over(page, deadline)
        else:
            resign(page)  # the match's later games: the room, not the play, is tested here
        title = page.locator("#result-title").inner_text()
        assert re.fullmatch(r"(You|The computer) won: (oin|mars|koks), \d+ points?\.", title), title
        results.append(title)
        if len(game_ids) == 1:
            page.screenshot(path=str(ARTIFACTS / "match-game-over.png"), full_page=True)
        next_link = page.locator("#next-game-link")
        if not next_link.is_visible():
            break
        # The winner of the game moves first in the next one (RULES.md R11), in the same room.
        next_link.click()
        page.wait_for_url(lambda url: game_ids[-1] not in url and GAME_URL.search(url))
        page.wait_for_selector("#board [data-point]")
        game_ids.append(game_id_of(page))
        assert len(game_ids) <= 5, "a match to 3 takes at most 5 games here"
        opening = page.locator("#opening").inner_text()
        assert re.search(
            r"won the last game, so (you start and roll|it starts and rolls) both dice\.$", opening
        ), opening

    final = page.locator("#result-match").inner_text()
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(150)
    page.screenshot(path=str(ARTIFACTS / "match-over-360.png"), full_page=True)
    assert re.fullmatch(r"(You|The computer) won the match \d : \d\.", final), final
    assert page.locator("#again-btn").is_visible()

    from games.services import opening_of

    games = in_thread(
        lambda: [Game.objects.select_related("match").get(pk=gid) for gid in game_ids]
    )
    match = in_thread(lambda: type(games[0].match).objects.get(pk=games[0].match_id))
    assert all(game.match_id == match.id for game in games)
    assert [game.match_number for game in games] == list(range(1, len(games) + 1))
    assert all(game.status == "finished" for game in games)
    # The score is the sum of the games' points; the match ends as soon as a side has 3.
    score = {
        side: sum(g.result_points for g in games if g.winner == side) for side in ("white", "black")
    }
    assert score == match.score()
    assert match.status == "finished" and score[match.winner] >= 3
    assert sum(g.result_points for g in games[:-1] if g.winner == match.winner) < 3
    assert final.startswith("You" if match.winner == human else "The computer")
    assert final.endswith(
        f"{score[match.winner]} : {score['black' if match.winner == 'white' else 'white']}."
    )
    for earlier, later in zip(games, games[1:]):
        opening = opening_of(later)
        assert opening["starter"] == earlier.winner and not opening["roll_off"]

    # "My games" lists every game of the match as finished, each with its replay.
    page.goto(f"{daphne_server.base}/en/games/")
    finished = page.locator(".games-item").filter(has_text="Match")
    assert finished.count() >= len(game_ids)
    page.locator(f'a[href$="/game/{game_ids[-1]}/replay/"]').click()
    page.wait_for_selector("#replay-board [data-point]")
    page.keyboard.press("End")
    assert "wins" in page.locator("#replay-now").inner_text()
    page.keyboard.press("ArrowLeft")
    assert "wins" not in page.locator("#replay-now").inner_text()
    page.screenshot(path=str(ARTIFACTS / "replay-1280.png"), full_page=True)
    assert not page_errors, page_errors
    print(f"\ne2e match to 3: {len(game_ids)} games, {results}, {time.monotonic() - started:.1f} s")


def test_reload_in_the_middle_continues_the_same_game(
    daphne_server, celery_worker_process, browser
):
    from games.engine import get_ruleset, legal_plays
    from games.room.models import Game

    deadline = time.monotonic() + 300
    # Motion allowed: the computer's moves are animated.
    page = browser.new_page(viewport=PHONE, reduced_motion="no-preference")
    page_errors = []
    page.on("pageerror", lambda error: page_errors.append(str(error)))
    game_id = start_from_options_form(page, daphne_server.base, "sport", side="white")

    for _ in range(6):  # three rolls and three plays of the guest, the computer answering
        action = next_action(page, deadline)
        assert action in ("roll", "play", "pass")
        version = int(page.locator("#game").get_attribute("data-version"))
        take_turn(page, action)
        wait_for_new_version(page, version, deadline)
    action = next_action(page, deadline)
    assert int(page.locator("#board").get_attribute("data-flights") or 0) > 0, (
        "the computer's checkers were never seen moving"
    )

    before = in_thread(lambda: Game.objects.get(pk=game_id))
    shown_version = int(page.locator("#game").get_attribute("data-version"))
    assert shown_version == before.version
    status_before = page.locator("#status").inner_text()
    history_before = page.locator("#history-list").inner_text()

    reload_started = time.monotonic()
    page.reload()
    page.wait_for_selector("#board [data-point]")
    board_shown_ms = (time.monotonic() - reload_started) * 1000
    page.wait_for_function("() => document.getElementById('game').dataset.ready === 'true'")
    ready_ms = (time.monotonic() - reload_started) * 1000
    assert game_id_of(page) == game_id
    assert next_action(page, deadline) == action
    after = in_thread(lambda: Game.objects.get(pk=game_id))
    assert (after.version, after.position, after.dice) == (
        before.version,
        before.position,
        before.dice,
    )
    assert int(page.locator("#game").get_attribute("data-version")) == before.version
    assert page.locator("#status").inner_text() == status_before
    assert page.locator("#history-list").inner_text() == history_before
    page.screenshot(path=str(ARTIFACTS / "reloaded-360.png"), full_page=True)

    # Play on after the reload: roll if need be, then type the move (keyboard play).
    if action == "roll":
        take_turn(page, "roll")
        wait_for_new_version(page, before.version, deadline)
        action = next_action(page, deadline)
    if action == "play":
        game = in_thread(lambda: Game.objects.get(pk=game_id))
        position = game.get_position()
        plays = legal_plays(position, tuple(game.dice), get_ruleset(game.preset))
        play = plays[-1].notation
        version = game.version
        # The placeholder is a legal play of this roll (white's own numbering).
        assert page.locator("#move-text").get_attribute("placeholder") in {
            p.notation for p in plays
        }
        # A refused play stays in the box, selected, to be corrected.
        page.fill("#move-text", "1/2")
        page.press("#move-text", "Enter")
        page.wait_for_function("() => document.getElementById('message').textContent.trim() !== ''")
        assert page.locator("#move-text").input_value() == "1/2"
        assert page.evaluate("""() => { const box = document.getElementById("move-text");
          return document.activeElement === box && box.selectionStart === 0 && box.selectionEnd === 3; }""")
        page.fill("#move-text", play)
        page.press("#move-text", "Enter")
        wait_for_new_version(page, version, deadline)
        assert page.locator("#message").inner_text() == ""
        assert page.locator("#move-text").input_value() == ""
        assert in_thread(
            lambda: (
                Game.objects.get(pk=game_id)
                .events.filter(kind="play", side="white", play=play)
                .exists()
            )
        )
    assert not page_errors, page_errors
    timing = {"reload_to_board_ms": round(board_shown_ms), "reload_to_playable_ms": round(ready_ms)}
    (ARTIFACTS / "reload-timing.json").write_text(json.dumps(timing) + "\n")
    print(f"\ne2e reload: {timing}")
