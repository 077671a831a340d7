"""The rules page in headless Chromium at 360 px and 1280 px: nothing overflows sideways, every
diagram is drawn, no request fails. Full-page screenshots go to ``artifacts/rules_pages/``
(git-ignored) to be looked at.

The site runs as in production: Daphne in a subprocess (static files by WhiteNoise), the tests'
Redis as page cache under a key prefix of its own.
"""

from pathlib import Path
from uuid import uuid4

import pytest

from nardy_site.tests.servers import CHROMIUM, CHROMIUM_ARGS, DaphneServer, free_port

pytestmark = [pytest.mark.e2e]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "rules_pages"

# Elements whose right edge passes the viewport (their own scroll boxes excepted).
OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest(".table-scroll")) continue;
    const r = el.getBoundingClientRect();
    if (r.width && (r.right > width + 0.5 || r.left < -0.5)) {
      out.push(el.tagName + "." + el.className + " " + Math.round(r.left) + ".." + Math.round(r.right));
    }
  }
  return {scroll: document.documentElement.scrollWidth, width, out: out.slice(0, 10)};
}"""


@pytest.fixture(scope="module")
def site(test_process_env, tmp_path_factory):
    """Base URL of Daphne serving the site on a free port (stopped after the module)."""
    env = dict(test_process_env, CACHE_KEY_PREFIX=f"test-shots-{uuid4().hex}")
    server = DaphneServer(free_port(), env, tmp_path_factory.mktemp("daphne") / "daphne.log")
    try:
        server.start()
        yield server.base
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize(
    ("lang", "page_path"),
    [("en", "rules/"), ("ru", "rules/"), ("bg", "rules/"), ("bg", "faq/"), ("ru", "")],
)
def test_page_fits_the_screen_and_draws_every_diagram(site, browser, width, lang, page_path):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(
        viewport={"width": width, "height": 800}, java_script_enabled=False
    )
    page = context.new_page()
    failed = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    try:
        response = page.goto(f"{site}/{lang}/{page_path}")
        assert response.status == 200
        page.wait_for_load_state("load")
        overflow = page.evaluate(OVERFLOW_JS)
        assert overflow["scroll"] <= overflow["width"], overflow
        assert not overflow["out"], overflow
        boards = page.locator("figure.diagram svg")
        for i in range(boards.count()):
            box = boards.nth(i).bounding_box()
            assert box and box["width"] >= min(300, width - 40) and box["height"] > 200, (i, box)
        name = f"{page_path.strip('/') or 'home'}-{lang}-{width}"
        # Off-screen sections are drawn only when scrolled near (content-visibility: auto):
        # drawn all at once here, so that the screenshots show the whole page.
        page.evaluate(
            "document.querySelectorAll('.rules section')"
            ".forEach((s) => { s.style.contentVisibility = 'visible'; })"
        )
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
        # The same page screen by screen, small enough to be looked at one by one.
        slices = ARTIFACTS / "screens" / name
        slices.mkdir(parents=True, exist_ok=True)
        for old in slices.glob("*.png"):
            old.unlink()
        height = page.evaluate("document.documentElement.scrollHeight")
        for index, top in enumerate(range(0, height, 800)):
            page.screenshot(
                path=str(slices / f"{index:02d}.png"),
                full_page=True,
                clip={"x": 0, "y": top, "width": width, "height": min(800, height - top)},
            )
        assert not failed, failed
    finally:
        context.close()


#: the tops of the header's page links, rounded: one value when they stand in one row
NAV_ROWS_JS = """() => {
  const inner = document.querySelector(".site-header__inner").getBoundingClientRect();
  const links = [...document.querySelectorAll(".site-nav a")].map((a) => a.getBoundingClientRect());
  return {tops: [...new Set(links.map((r) => Math.round(r.top)))],
          inside: links.every((r) => r.left >= inner.left - 0.5 && r.right <= inner.right + 0.5)};
}"""


def test_the_desktop_header_keeps_every_page_link_on_one_row(site, browser):
    """From the desktop layout up (60rem = 960 px) the header's page links stand in one row
    in every language: the Russian "Таблицы лидеров" once went to a row of its own (#30)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    wrapped = {}
    try:
        for lang in ("ru", "bg", "en"):
            page.goto(f"{site}/{lang}/")
            for width in (960, 1100, 1280):
                page.set_viewport_size({"width": width, "height": 800})
                rows = page.evaluate(NAV_ROWS_JS)
                if len(rows["tops"]) != 1 or not rows["inside"]:
                    wrapped[(lang, width)] = rows
    finally:
        context.close()
    assert not wrapped, wrapped
