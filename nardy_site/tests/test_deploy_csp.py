"""The Content-Security-Policy (django-csp, settings.CONTENT_SECURITY_POLICY): sent with every
page, strict (scripts and styles from this site only), and kept possible by templates that
hold no inline script, style or event handler. Chromium's view of it is in
test_deploy_production.py."""

import re
from pathlib import Path

import pytest
from django.conf import settings

from nardy_site.tests.test_deploy_settings import evaluate, production_env

ROOT = Path(__file__).resolve().parents[2]


def directives(header):
    """``{directive: [sources]}`` of a Content-Security-Policy header."""
    parsed = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            parsed[words[0]] = words[1:]
    return parsed


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/en/",
        "/ru/rules/",
        "/bg/faq/",
        "/en/accounts/login/",
        "/en/records/import/",
        "/en/friend/",
        "/en/no-such-page/",
    ],
)
def test_every_page_carries_the_strict_policy(client, path):
    response = client.get(path)
    assert response.status_code in (200, 404)
    policy = directives(response["Content-Security-Policy"])
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["connect-src"][0] == "'self'"
    assert not any("unsafe" in source for sources in policy.values() for source in sources)


def test_the_policy_names_the_configured_providers_and_the_sites_socket_origin(monkeypatch):
    bare = evaluate(monkeypatch, production_env())["CONTENT_SECURITY_POLICY"]["DIRECTIVES"]
    assert bare["form-action"] == ["'self'"]
    assert bare["connect-src"] == ["'self'"]

    values = evaluate(
        monkeypatch,
        production_env(
            SITE_URL="https://nardy.example/",
            GOOGLE_CLIENT_ID="id",
            GOOGLE_CLIENT_SECRET="s",
            TELEGRAM_BOT_ID="1",
            TELEGRAM_BOT_TOKEN="1:t",
        ),
    )
    policy = values["CONTENT_SECURITY_POLICY"]["DIRECTIVES"]
    # the sign-in forms are answered with a redirect to the provider, governed by form-action
    assert policy["form-action"] == [
        "'self'",
        "https://accounts.google.com",
        "https://oauth.telegram.org",
    ]
    assert policy["connect-src"] == ["'self'", "wss://nardy.example"]


#: what a strict policy refuses in a template
INLINE = [
    (
        "inline script",
        re.compile(
            r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/ld\+json\")[^>]*>", re.IGNORECASE
        ),
    ),
    ("style element", re.compile(r"<style\b", re.IGNORECASE)),
    ("style attribute", re.compile(r"\sstyle\s*=", re.IGNORECASE)),
    ("event handler attribute", re.compile(r"<[^>]*\son[a-z]+\s*=", re.IGNORECASE)),
    ("javascript: URL", re.compile(r"javascript:", re.IGNORECASE)),
]


def template_files():
    """Every template of the project (templates/ and each app's templates/)."""
    folders = [Path(folder) for folder in settings.TEMPLATES[0]["DIRS"]]
    folders += [ROOT / app / "templates" for app in ("games", "rules_pages")]
    return sorted(path for folder in folders if folder.is_dir() for path in folder.rglob("*.html"))


def test_templates_hold_no_inline_script_style_or_handler():
    files = template_files()
    assert files
    found = []
    for path in files:
        # {% comment %} blocks describe the templates and are never sent
        text = re.sub(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", "", path.read_text(), flags=re.S)
        found += [
            f"{path.relative_to(ROOT)}: {name}" for name, pattern in INLINE if pattern.search(text)
        ]
    assert not found, "refused by the Content-Security-Policy:\n" + "\n".join(found)


def test_the_inline_patterns_recognise_what_the_policy_refuses():
    samples = {
        "inline script": "<script>alert(1)</script>",
        "style element": "<style>p { color: red }</style>",
        "style attribute": '<p style="color: red">',
        "event handler attribute": '<button type="button" onclick="go()">',
        "javascript: URL": '<a href="javascript:go()">',
    }
    for name, text in samples.items():
        assert [n for n, pattern in INLINE if pattern.search(text)] == [name], name
    allowed = (
        '<script src="/static/games/board.js" defer></script>'
        '<script type="module" src="/static/games/room/main.js"></script>'
        '<script type="application/ld+json">{}</script><p data-onclick="x">'
    )
    assert [n for n, pattern in INLINE if pattern.search(allowed)] == []
