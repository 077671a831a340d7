"""The production switch of the settings (nardy_site/settings/, DJANGO_ENV=production): what it
requires from the environment, what it turns on, and that ``check --deploy`` finds nothing to
say.

The settings package is evaluated afresh for each case (imported anew, or a new process for
the management commands), never through the test run's own django.conf.settings."""

import importlib
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

import nardy_site

ROOT = Path(__file__).resolve().parents[2]
SETTINGS_PACKAGE = "nardy_site.settings"

#: every variable the settings read that a case sets or must not inherit from this process
SETTINGS_VARIABLES = [
    "DJANGO_ENV",
    "SECRET_KEY",
    "DEBUG",
    "ALLOWED_HOSTS",
    "DATABASE_URL",
    "REDIS_URL",
    "ADMIN_URL",
    "CSRF_TRUSTED_ORIGINS",
    "HSTS_SECONDS",
    "HSTS_PRELOAD",
    "PROXY_SSL_HEADER",
    "CONN_MAX_AGE",
    "STATIC_ROOT",
    "SITE_URL",
    "GOOGLE_CLIENT_ID",
    "GOOGLE_CLIENT_SECRET",
    "TELEGRAM_BOT_ID",
    "TELEGRAM_BOT_TOKEN",
    "LOAD_ECHO",
    "DEV_SIGN_IN",
]

REQUIRED_IN_PRODUCTION = ["SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL", "ADMIN_URL"]


def production_env(**changes):
    """A complete production environment (nothing is contacted by evaluating the settings),
    with ``changes`` applied; a change to None removes the variable."""
    env = {
        "DJANGO_ENV": "production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "nardy.example,www.nardy.example",
        "DATABASE_URL": "postgres://nardy@db.internal:5432/nardy",
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        "ADMIN_URL": f"staff-{secrets.token_urlsafe(12)}/",
    }
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def settings_afresh():
    """The names of the settings package as importing it now, with this process's environment,
    makes them: the package and its modules are imported anew, and the test run's own (which
    django.conf.settings was made from) are put back afterwards."""

    def ours(name):
        return name == SETTINGS_PACKAGE or name.startswith(SETTINGS_PACKAGE + ".")

    kept = {name: module for name, module in sys.modules.items() if ours(name)}
    try:
        for name in kept:
            del sys.modules[name]
        return dict(vars(importlib.import_module(SETTINGS_PACKAGE)))
    finally:
        for name in [name for name in sys.modules if ours(name)]:
            del sys.modules[name]
        sys.modules.update(kept)
        if SETTINGS_PACKAGE in kept:
            nardy_site.settings = kept[SETTINGS_PACKAGE]


def evaluate(monkeypatch, env):
    """The settings' names when evaluated with exactly ``env`` for the settings' variables
    (the rest of this process's environment left as it is)."""
    for name in SETTINGS_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return settings_afresh()


def process_env(env):
    """This process's environment without the settings' variables, plus ``env``."""
    base = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARIABLES}
    base["DJANGO_SETTINGS_MODULE"] = "nardy_site.settings"
    return dict(base, **env)


@pytest.mark.parametrize("name", REQUIRED_IN_PRODUCTION)
@pytest.mark.parametrize("value", [None, "  "], ids=["unset", "blank"])
def test_production_refuses_to_start_without_each_required_variable(monkeypatch, name, value):
    with pytest.raises(
        ImproperlyConfigured, match=rf"^{name} must be set when DJANGO_ENV=production"
    ):
        evaluate(monkeypatch, production_env(**{name: value}))


def test_production_names_every_missing_variable_at_once(monkeypatch):
    with pytest.raises(
        ImproperlyConfigured,
        match=r"^SECRET_KEY, DATABASE_URL, ADMIN_URL must be set when DJANGO_ENV=production",
    ):
        evaluate(monkeypatch, production_env(SECRET_KEY=None, DATABASE_URL=None, ADMIN_URL=None))


@pytest.mark.parametrize(
    "change, message",
    [
        ({"SECRET_KEY": "short-key"}, "SECRET_KEY is too weak"),
        ({"SECRET_KEY": "django-insecure-" + secrets.token_urlsafe(50)}, "SECRET_KEY is too weak"),
        (
            {"DATABASE_URL": "sqlite:////srv/nardy/db.sqlite3"},
            "DATABASE_URL must name a PostgreSQL",
        ),
        ({"ALLOWED_HOSTS": "*"}, "ALLOWED_HOSTS must name the site's hosts"),
        ({"ADMIN_URL": "admin/"}, "ADMIN_URL 'admin' is too easy to guess"),
        ({"ADMIN_URL": "/Administrator/"}, "ADMIN_URL 'Administrator' is too easy to guess"),
        ({"ADMIN_URL": "x7/"}, "too easy to guess"),
        ({"ADMIN_URL": "django-admin/"}, "ADMIN_URL 'django-admin' is too easy to guess"),
        (
            {"ADMIN_URL": "staff-Zq8vK2rLm9Xw/inner/"},
            "ADMIN_URL 'staff-Zq8vK2rLm9Xw/inner' must be one path segment",
        ),
        ({"ADMIN_URL": "staff-<slug:x>-Zq8vK2/"}, "must be one path segment of letters, digits"),
        (
            {"SITE_URL": "http://nardy.example"},
            r"^SITE_URL must be .*: it must start with https://",
        ),
        ({"SITE_URL": "nardy.example"}, r"^SITE_URL must be .*: it must start with https://"),
        ({"SITE_URL": "https://nardy.example/en/"}, r"^SITE_URL .*: it must have no path"),
        ({"SITE_URL": "https://nardy.example?x=1"}, r"^SITE_URL .*: it must have no path, query"),
        ({"SITE_URL": "https://user@nardy.example"}, r"^SITE_URL .*: it must name the host"),
        ({"SITE_URL": "https://"}, r"^SITE_URL .*: it must name the host"),
        ({"SITE_URL": "https://nardy.example:port"}, r"^SITE_URL .*: it is not a valid URL"),
        (
            {"LOAD_ECHO": "1"},
            (
                r"^LOAD_ECHO must be off when DJANGO_ENV=production: the echo socket "
                r"is a load-test tool"
            ),
        ),
        ({"DEV_SIGN_IN": "true"}, "^DEV_SIGN_IN must be off when DJANGO_ENV=production"),
        ({"DEBUG": "true"}, "DEBUG must be off"),
        ({"DJANGO_ENV": "staging"}, "DJANGO_ENV must be 'development' or 'production'"),
    ],
)
def test_production_refuses_weak_or_unsafe_values(monkeypatch, change, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        evaluate(monkeypatch, production_env(**change))


def test_production_settings_turn_on_https_hsts_secure_cookies_and_hashed_static_files(monkeypatch):
    env = production_env(ADMIN_URL="/staff-Zq8vK2rLm9Xw/")
    values = evaluate(monkeypatch, env)
    assert values["DEBUG"] is False
    assert values["SECRET_KEY"] == env["SECRET_KEY"]
    assert values["ALLOWED_HOSTS"] == ["nardy.example", "www.nardy.example"]
    assert values["ADMIN_URL"] == "staff-Zq8vK2rLm9Xw/"
    assert values["SECURE_SSL_REDIRECT"] is True
    assert values["SECURE_PROXY_SSL_HEADER"] == ("HTTP_X_FORWARDED_PROTO", "https")
    assert values["SECURE_HSTS_SECONDS"] == 31_536_000
    assert values["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert values["SECURE_HSTS_PRELOAD"] is True
    assert "SILENCED_SYSTEM_CHECKS" not in values
    for cookie in ("SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "LANGUAGE_COOKIE_SECURE"):
        assert values[cookie] is True, cookie
    assert values["SECURE_CONTENT_TYPE_NOSNIFF"] is True
    assert values["SECURE_REFERRER_POLICY"] == "same-origin"
    assert values["X_FRAME_OPTIONS"] == "DENY"
    assert (
        values["STORAGES"]["staticfiles"]["BACKEND"]
        == "nardy_site.storage.ModuleManifestStaticFilesStorage"
    )
    assert values["WHITENOISE_USE_FINDERS"] is False
    database = values["DATABASES"]["default"]
    assert database["ENGINE"] == "django.db.backends.postgresql"
    assert database["CONN_HEALTH_CHECKS"] is True
    assert database["CONN_MAX_AGE"] == 0  # Daphne: a thread per request (Procfile gives Celery 60)
    assert values["LOGGING"]["root"]["handlers"] == ["stdout"]
    assert values["LOGGING"]["handlers"]["stdout"]["stream"] == "ext://sys.stdout"


def test_the_admin_url_check_asks_for_what_its_message_says(monkeypatch):
    # The message asks for one segment of at least 12 characters that is not a usual name;
    # exactly that is checked (a random part is advised, not required: it cannot be checked).
    values = evaluate(monkeypatch, production_env(ADMIN_URL="nardy-office"))
    assert values["ADMIN_URL"] == "nardy-office/"
    with pytest.raises(ImproperlyConfigured, match=r"at least 12 characters that are not a usual"):
        evaluate(monkeypatch, production_env(ADMIN_URL="nardy-offic"))


@pytest.mark.parametrize(
    "url, expected",
    [
        ("https://nardy.example", "https://nardy.example"),
        ("https://nardy.example/", "https://nardy.example"),
        (" https://www.nardy.example:8443/ ", "https://www.nardy.example:8443"),
    ],
)
def test_production_accepts_an_https_origin_as_site_url(monkeypatch, url, expected):
    values = evaluate(monkeypatch, production_env(SITE_URL=url))
    assert values["SITE_URL"] == expected
    assert (
        "wss://" + expected[len("https://") :]
        in values["CONTENT_SECURITY_POLICY"]["DIRECTIVES"]["connect-src"]
    )


def test_development_allows_the_echo_socket_and_a_plain_http_site_url(monkeypatch):
    values = evaluate(
        monkeypatch,
        {
            "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
            "LOAD_ECHO": "1",
            "SITE_URL": "http://127.0.0.1:8000/",
        },
    )
    assert values["LOAD_ECHO"] is True
    assert values["SITE_URL"] == "http://127.0.0.1:8000"
    assert values["DEV_SIGN_IN"] is True  # on by default in development


def test_production_has_no_development_sign_in_by_default(monkeypatch):
    assert evaluate(monkeypatch, production_env())["DEV_SIGN_IN"] is False


def test_a_production_process_with_the_echo_socket_stops_with_the_variable_named():
    env = process_env(production_env(LOAD_ECHO="true"))
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "ImproperlyConfigured: LOAD_ECHO must be off when DJANGO_ENV=production" in result.stderr


def test_an_operator_may_let_daphne_terminate_tls_and_decline_the_preload_list(monkeypatch):
    values = evaluate(
        monkeypatch,
        production_env(
            PROXY_SSL_HEADER="", HSTS_PRELOAD="false", HSTS_SECONDS="600", CONN_MAX_AGE="60"
        ),
    )
    assert "SECURE_PROXY_SSL_HEADER" not in values
    assert values["SECURE_HSTS_PRELOAD"] is False
    # declining is the decision check --deploy asks for; it need not repeat the question
    assert values["SILENCED_SYSTEM_CHECKS"] == ["security.W021"]
    assert values["SECURE_HSTS_SECONDS"] == 600
    assert values["DATABASES"]["default"]["CONN_MAX_AGE"] == 60


def test_development_keeps_its_defaults_and_the_admin_at_admin(monkeypatch):
    values = evaluate(
        monkeypatch, {"REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")}
    )
    assert values["PRODUCTION"] is False
    assert values["ADMIN_URL"] == "admin/"
    assert values["DATABASES"]["default"]["ENGINE"] == "django.db.backends.sqlite3"
    assert values["WHITENOISE_USE_FINDERS"] is True
    assert "SECURE_SSL_REDIRECT" not in values
    # the same policy as production: the browser tests meet it
    assert values["CONTENT_SECURITY_POLICY"]["DIRECTIVES"]["script-src"] == ["'self'"]


def test_check_deploy_finds_no_issue_in_the_production_settings(tmp_path):
    env = process_env(production_env(STATIC_ROOT=str(tmp_path / "static")))
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "System check identified no issues (0 silenced)." in output, output


def test_a_production_process_without_its_database_stops_with_the_variable_named():
    env = process_env(production_env(DATABASE_URL=None))
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert (
        "ImproperlyConfigured: DATABASE_URL must be set when DJANGO_ENV=production" in result.stderr
    )


def test_production_with_a_telegram_bot_needs_site_url_and_frameable_cookies(monkeypatch):
    with pytest.raises(ImproperlyConfigured, match=r"^SITE_URL must be set when DJANGO_ENV"):
        evaluate(monkeypatch, production_env(TELEGRAM_BOT_TOKEN="1:made-up"))
    values = evaluate(
        monkeypatch,
        production_env(TELEGRAM_BOT_TOKEN="1:made-up", SITE_URL="https://nardy.example"),
    )
    assert values["SESSION_COOKIE_SAMESITE"] == values["CSRF_COOKIE_SAMESITE"] == "None"
    assert values["SESSION_COOKIE_SECURE"] and values["CSRF_COOKIE_SECURE"]
    plain = evaluate(monkeypatch, production_env())
    assert "SESSION_COOKIE_SAMESITE" not in plain  # Django's Lax, without a bot
