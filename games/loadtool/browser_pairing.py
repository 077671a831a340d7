"""Time "Play a person" in the browser (docs/performance.md "Quick pairing").

    .venv/bin/python -m games.loadtool.browser_pairing [BASE] [TRIES]

Against a running site (``scripts/run``: Daphne, a Celery worker and beat; default
http://127.0.0.1:8000), headless Debian Chromium: guest A presses "Play a person" on the home
page and waits; guest B presses it 1 s later. Timed from B's press until both game pages are
drawn and ready (``data-ready``), ``TRIES`` times (default 20). Prints the figures as JSON.
"""

import json
import math
import re
import statistics
import sys
import time

from playwright.sync_api import sync_playwright

READY = "() => document.getElementById('game')?.dataset.ready === 'true'"
GAME = re.compile(r"/game/([0-9a-f-]{36})/$")


def one_try(browser, base):
    """One pairing of two new guests; the milliseconds from the second press to both ready."""
    first, second = browser.new_context(), browser.new_context()
    try:
        a, b = first.new_page(), second.new_page()
        a.goto(f"{base}/en/")
        b.goto(f"{base}/en/")
        a.click("#home-person")
        a.locator("#lobby-wait").wait_for(state="visible")
        time.sleep(1)
        started = time.monotonic()
        b.click("#home-person")
        for page in (a, b):
            page.wait_for_url(GAME, timeout=15_000)
            page.wait_for_function(READY, timeout=15_000, polling=20)
        if GAME.search(a.url).group(1) != GAME.search(b.url).group(1):
            raise RuntimeError("the two guests were sent to different games")
        return (time.monotonic() - started) * 1000
    finally:
        first.close()
        second.close()


def main(argv):
    base = argv[1] if len(argv) > 1 else "http://127.0.0.1:8000"
    tries = int(argv[2]) if len(argv) > 2 else 20
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
        times = sorted(one_try(browser, base) for _n in range(tries))
        browser.close()
    print(
        json.dumps(
            {
                "tries": tries,
                "median_ms": round(statistics.median(times)),
                "p95_ms": round(times[max(0, math.ceil(0.95 * tries) - 1)]),
                "worst_ms": round(times[-1]),
                "all_ms": [round(ms) for ms in times],
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv)
