"""End to end in headless Chromium: the game page when the server refuses its socket as one
too many (docs/protocol.md "Rate limits": a ``too_many_sockets`` error, then the close 4429).
The refusal is played by a Playwright route in front of the real stack of
test_e2e_browser.py, since the cap belongs to the Daphne process: the page says why, does
not hammer the server with quick reconnects, and comes back by itself on its slow retry
(the page's timers on Playwright's clock, moved forward by the test)."""

import json
import re
import time

import pytest

from games.room.tests.test_e2e_browser import (  # noqa: F401 - fixtures used by name
    browser,
    daphne_server,
    next_action,
    open_new_game,
)

pytestmark = pytest.mark.e2e


def test_page_told_too_many_sockets_says_so_and_retries_only_every_30_seconds(
    daphne_server, browser
):
    page, _game_id, page_errors = open_new_game(browser, daphne_server.base)
    opened = []

    def route(ws):
        opened.append(time.monotonic())
        if len(opened) == 1:  # the first socket is one too many; the next one is let through
            ws.send(
                json.dumps(
                    {
                        "type": "error",
                        "code": "too_many_sockets",
                        "message": "Too many pages of this site are open at once.",
                    }
                )
            )
            ws.close(code=4429, reason="too many sockets")
        else:
            ws.connect_to_server()

    page.route_web_socket(re.compile(r"/ws/game/"), route)
    # the page's own timers run on Playwright's clock, moved on by hand: no 30 s of waiting
    page.clock.install()
    page.reload()
    connection = page.locator("#connection")
    connection.wait_for(state="visible", timeout=10_000)
    page.wait_for_function(
        "() => document.getElementById('connection').textContent.includes('close some other tabs')",
        timeout=10_000,
    )
    assert "every 30 seconds" in connection.inner_text()
    assert page.locator("#game").get_attribute("data-ready") == "false"
    page.clock.fast_forward(8_000)  # a lost connection would have been retried 4 times by now
    page.wait_for_timeout(500)
    assert len(opened) == 1
    page.clock.fast_forward(18_000)  # 26 s after the refusal: still no second try
    page.wait_for_timeout(500)
    assert len(opened) == 1
    page.clock.fast_forward(6_000)  # 32 s: the slow retry has gone out, and is let through
    page.wait_for_function(
        "() => document.getElementById('game').dataset.ready === 'true'", timeout=15_000
    )
    assert len(opened) == 2
    assert connection.is_hidden()
    assert next_action(page, time.monotonic() + 60) in ("roll", "play")
    assert not page_errors, page_errors
