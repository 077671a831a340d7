"""The site as production runs it: HTTPS only, the security headers, hashed static files, the
admin away from /admin/, and pages that load in Chromium without breaking the
Content-Security-Policy, the processes started by the Procfile's own command lines."""

import json
import os
import posixpath
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import redis

from nardy_site.tests.servers import CHROMIUM, CHROMIUM_ARGS, DaphneServer, free_port
from nardy_site.tests.test_deploy_repository import procfile
from nardy_site.tests.test_deploy_settings import process_env, production_env

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = str(Path(sys.executable).parent)


def collectstatic(env):
    """Run collectstatic (the release step) with ``env``; fails the test with its output."""
    result = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


# Requests through Django's test client in a production process: nothing here needs the
# database (DATABASE_URL points at a closed port, so a page that touched it would fail).
PRODUCTION_REQUESTS = r"""
import json, os, re, sys
import django
django.setup()
from django.test import Client

admin = "/" + os.environ["ADMIN_URL"]
https = {"x-forwarded-proto": "https"}
client = Client(HTTP_HOST="nardy.example")
out = {}

plain = client.get("/en/rules/")
out["plain"] = [plain.status_code, plain.get("Location")]

page = client.get("/en/rules/", headers=https)
body = page.content.decode()
out["page"] = {
    "status": page.status_code,
    "headers": {name: page.get(name) for name in (
        "Strict-Transport-Security", "Content-Security-Policy", "X-Frame-Options",
        "X-Content-Type-Options", "Referrer-Policy", "Cross-Origin-Opener-Policy")},
    "csrf_cookie_secure": bool(page.cookies["csrftoken"]["secure"]),
    "stylesheet": re.search(r'href="(/static/css/site\.[0-9a-f]{12}\.css)"', body).group(1),
}
css = client.get(out["page"]["stylesheet"], headers=https)
out["css"] = [css.status_code, css.get("Cache-Control")]
out["favicon"] = client.get("/favicon.ico", headers=https).get("Location")

language = client.post("/en/i18n/setlang/", {"language": "ru", "next": "/ru/"}, headers=https)
out["language_cookie_secure"] = bool(language.cookies["django_language"]["secure"])

out["old_admin"] = client.get("/admin/", headers=https).status_code
index = client.get(admin, headers=https)
out["admin_index"] = [index.status_code, index.get("Location")]
login = client.get(admin + "login/", headers=https)
out["admin_login"] = [login.status_code, bool(login.get("Content-Security-Policy"))]
print("\n" + json.dumps(out))  # the last line: the logs go to stdout too
"""


def delete_keys(redis_url, pattern):
    """Delete the Redis keys matching ``pattern`` (a test's own queue or cache entries)."""
    client = redis.Redis.from_url(redis_url)
    try:
        keys = list(client.scan_iter(match=pattern))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


# production settings served by a process of their own: the sockets tier (conftest.py)
pytestmark = pytest.mark.sockets


@pytest.fixture(scope="module")
def production_answers(tmp_path_factory):
    """``(env, answers)``: the PRODUCTION_REQUESTS made by a production process whose static
    files were collected (into a directory of the test's own), whose database is unreachable
    and whose page cache has a prefix of its own."""
    prefix = f"deploy-test-{uuid.uuid4().hex[:12]}"
    env = process_env(
        production_env(
            DATABASE_URL="postgres://nardy@127.0.0.1:1/nardy",
            STATIC_ROOT=str(tmp_path_factory.mktemp("production-static")),
            ALLOWED_HOSTS="nardy.example",
            CACHE_KEY_PREFIX=prefix,
        )
    )
    collectstatic(env)
    try:
        result = subprocess.run(
            [sys.executable, "-c", PRODUCTION_REQUESTS],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        delete_keys(env["REDIS_URL"], f"{prefix}*")
    assert result.returncode == 0, result.stderr
    return env, json.loads(result.stdout.strip().splitlines()[-1])


def test_production_answers_only_over_https_with_its_security_headers(production_answers):
    _, out = production_answers
    assert out["plain"] == [301, "https://nardy.example/en/rules/"]
    page = out["page"]
    assert page["status"] == 200
    headers = page["headers"]
    assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert headers["Cross-Origin-Opener-Policy"] == "same-origin"
    assert page["csrf_cookie_secure"] and out["language_cookie_secure"]
    # hashed names from the manifest, kept by browsers for good
    assert out["css"][0] == 200 and "immutable" in out["css"][1]
    assert out["favicon"].startswith("/static/favicon.") and out["favicon"] != "/static/favicon.svg"


def test_production_serves_no_admin_at_admin_but_at_admin_url(production_answers):
    env, out = production_answers
    admin = "/" + env["ADMIN_URL"]
    assert out["old_admin"] == 404
    assert out["admin_index"] == [302, f"{admin}login/?next={admin}"]
    assert out["admin_login"] == [200, True]


#: a static import or re-export of a module by relative name (the pages' own style)
MODULE_IMPORT = re.compile(
    r"""^(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}/[^"']+)["']\s*;""", re.MULTILINE
)


def test_production_page_modules_import_one_another_by_their_hashed_names(production_answers):
    env, _ = production_answers
    static_root = Path(env["STATIC_ROOT"])
    names = json.loads((static_root / "staticfiles.json").read_text())["paths"]
    hashed = set(names.values())

    def reached_from(start):
        """The hashed modules ``start`` reaches; each import must name a hashed file."""
        reached, todo = set(), [names[start]]
        while todo:
            name = todo.pop()
            if name in reached:
                continue
            reached.add(name)
            imports = MODULE_IMPORT.findall((static_root / name).read_text())
            for target in imports:
                found = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
                assert found in hashed and (static_root / found).is_file(), (
                    f"{name} imports {target}"
                )
                todo.append(found)
        return reached

    # every page script is a module (static/games/live/ and board.js are shared by several)
    for path in sorted((ROOT / "static").rglob("*.js")):
        reached_from(path.relative_to(ROOT / "static").as_posix())
    modules = sorted(path.name for path in (ROOT / "static" / "games" / "room").glob("*.js"))
    assert "main.js" in modules
    # main.js reaches every module of the room, each by its hashed name only
    room = {names[f"games/room/{module}"] for module in modules}
    reached = reached_from("games/room/main.js")
    assert room <= reached
    assert {names[shared] for shared in ("games/board.js", "games/live/socket.js")} <= reached


# --- Chromium against the Procfile's processes ------------------------------------------------

#: the ports of this test's web process
PORTS = range(8700, 8750)


#: sends each CSP violation of a page to the test (a binding is not subject to the policy)
VIOLATION_LISTENER = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.cspViolation({directive: event.violatedDirective, blocked: event.blockedURI,
                       page: location.href, sample: event.sample});
});
"""


@pytest.fixture
def procfile_site(transactional_db, test_database_url, redis_url, tmp_path):
    """The ``web`` process of the Procfile on a port of 8700-8749, in production with the
    release step run first when the test database is PostgreSQL (production requires it), in
    development otherwise. Yields ``(base URL, env, production)``; stopped afterwards."""
    port = free_port(PORTS)
    base = f"http://127.0.0.1:{port}"
    production = test_database_url.startswith("postgres://")
    queue = f"deploy-test-{uuid.uuid4().hex[:12]}"
    common = {
        "DATABASE_URL": test_database_url,
        "REDIS_URL": redis_url,
        "PORT": str(port),
        "CELERY_QUEUE": queue,
        "CACHE_KEY_PREFIX": queue,
        "PATH": VENV_BIN + os.pathsep + os.environ.get("PATH", ""),
        # every provider offered, so the sign-in page shows its buttons and forms
        "GOOGLE_CLIENT_ID": "deploy-test.apps.googleusercontent.com",
        "GOOGLE_CLIENT_SECRET": "not-a-secret",
        "TELEGRAM_BOT_ID": "1",
        "TELEGRAM_BOT_TOKEN": "1:not-a-token",
        "PYTHONUNBUFFERED": "1",
    }
    if production:
        env = process_env(
            production_env(
                ALLOWED_HOSTS="127.0.0.1",
                STATIC_ROOT=str(tmp_path / "static"),
                # The browser speaks plain HTTP to Daphne and sends X-Forwarded-Proto: https as a
                # load balancer would; Django then sees an https origin, the browser an http one.
                CSRF_TRUSTED_ORIGINS=base,
                # with a bot, production needs the public origin (the bot's links)
                SITE_URL=f"https://127.0.0.1:{port}",
                **common,
            )
        )
        release = subprocess.run(
            ["bash", "-c", procfile()["release"]],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert release.returncode == 0, release.stdout + release.stderr
    else:
        env = process_env(common)
    # Daphne as the Procfile starts it, asked for its page as the load balancer would. exec:
    # the test's signals reach Daphne, not bash; env: the line starts with VAR=value words,
    # which exec alone takes for the command ("exec: DATABASE_POOL=10: not found").
    server = DaphneServer(
        port,
        env,
        tmp_path / "web.log",
        command=["bash", "-c", f"exec env {procfile()['web']}"],
        headers={"X-Forwarded-Proto": "https"},
    )
    try:
        with server:
            yield base, env, production
    finally:
        delete_keys(redis_url, f"*{queue}*")


@pytest.mark.e2e
def test_pages_load_in_chromium_without_a_csp_violation(procfile_site):
    from playwright.sync_api import sync_playwright

    base, env, production = procfile_site
    violations = []
    console = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(extra_http_headers={"X-Forwarded-Proto": "https"})
        context.expose_function("cspViolation", lambda violation: violations.append(violation))
        context.add_init_script(VIOLATION_LISTENER)
        # The providers' sign-in pages, answered here: only whether the browser may go there.
        reached = []

        def provider(route):
            reached.append(route.request.url)
            route.fulfill(status=200, content_type="text/html", body="<p>provider</p>")

        context.route("https://accounts.google.com/**", provider)
        context.route("https://oauth.telegram.org/**", provider)
        page = context.new_page()
        page.on(
            "console",
            lambda message: (
                console.append(message.text) if "Content Security Policy" in message.text else None
            ),
        )

        pages = [
            "/en/",
            "/en/rules/",
            "/en/faq/",
            "/en/glossary/",
            "/en/first-steps/",
            "/en/accounts/login/",
            "/en/friend/",
            "/en/games/",
            "/en/records/import/",
            "/en/leaderboard/",
        ]
        for path in pages:
            response = page.goto(base + path)
            assert response.status == 200, path
            assert response.headers.get("content-security-policy"), path

        # A game against the computer: its page, scripts and WebSocket.
        page.goto(base + "/en/")
        page.locator("form.play-form button[type=submit]").first.click()
        page.wait_for_url("**/game/**")
        page.wait_for_function("() => document.getElementById('game').dataset.ready === 'true'")

        # Sign-in forms post here and are sent on to the provider: form-action allows it.
        for name, origin in (
            ("google", "https://accounts.google.com/"),
            ("telegram", "https://oauth.telegram.org/"),
        ):
            page.goto(base + "/en/accounts/login/")
            page.locator(f".provider-button--{name}").click()
            page.wait_for_url(origin + "**")

        # Telegram's way back: the callback page's script posts the answer and clears it.
        with page.expect_request(
            lambda request: (
                request.method == "POST" and "/accounts/telegram/login/callback/" in request.url
            )
        ) as posted:
            page.goto(base + "/en/accounts/telegram/login/callback/?state=x#tgAuthResult=e30")
        assert posted.value.post_data == "tgAuthResult=e30"
        page.wait_for_load_state()
        assert "#" not in page.url

        if production:
            admin = base + "/" + env["ADMIN_URL"] + "login/"
            assert page.goto(admin).status == 200
        found, logged = list(violations), list(console)

        # The listener hears a violation: an inline script put into a page is refused.
        page.goto(base + "/en/")
        page.evaluate("""() => { const s = document.createElement("script");
                                 s.textContent = "window.inlineRan = true;";
                                 document.head.appendChild(s); }""")
        page.wait_for_timeout(200)
        assert page.evaluate("() => window.inlineRan === undefined")
        assert [v["directive"] for v in violations[len(found) :]] == ["script-src-elem"]
        browser.close()

    assert found == [], found
    assert logged == [], logged
    assert len(reached) == 2
