"""Fixtures shared by every app's tests (generic ones only; each app keeps its own)."""

import os
import sys
import threading
import time
import uuid
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connections
from django.utils import translation

#: the games tests' fixtures, shared by every area's tests folder (games/*/tests/)
pytest_plugins = ("games.tests.fixtures",)

#: seconds the interpreter gets to end after the run before the watchdog ends it
EXIT_GRACE_S = float(os.environ.get("PYTEST_EXIT_GRACE_S", "60"))


def pytest_sessionfinish(session, exitstatus):
    """Keep the run's status for the exit watchdog (``pytest_unconfigure``)."""
    session.config._nardy_exitstatus = int(exitstatus)


def pytest_unconfigure(config):
    """An exit watchdog. A test that hung and was failed by pytest-timeout can leave a thread
    that never ends (an event loop cancelling a task that waits on a thread gone), and the
    interpreter waits for it at exit, so CI would stall until its limit with the result
    already printed. If the process has not ended ``EXIT_GRACE_S`` after the run, it ends
    with the run's own status."""
    status = getattr(config, "_nardy_exitstatus", None)
    if status is None:
        return

    def watchdog():
        time.sleep(EXIT_GRACE_S)
        sys.stderr.write(
            f"pytest: threads still running {EXIT_GRACE_S} s after the run: "
            f"{[t.name for t in threading.enumerate()]}; exiting with {status}\n"
        )
        sys.stderr.flush()
        os._exit(status)

    threading.Thread(target=watchdog, name="exit-watchdog", daemon=True).start()


def pytest_configure(config):
    """A fast password hasher: tests create users, and the real hasher costs ~0.3 s a call.
    Outage crediting (games/services/outages.py) is off in this process and in every process
    the tests start: tests move the clock by minutes (time-machine) and stop workers on
    purpose, which would be outages; the outage tests turn it on for themselves."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    os.environ.setdefault("GAMES_OUTAGE_MIN_MS", "0")
    settings.GAMES_OUTAGE_MIN_MS = int(os.environ["GAMES_OUTAGE_MIN_MS"])


#: the tiers of the suite, fastest first (``scripts/test --tier NAME`` runs one): ``unit`` (no
#: server, worker, socket or browser), ``sockets`` (sockets in process, live servers, Celery
#: workers), ``browser`` (Chromium) and ``faults`` (processes killed, Redis restarted)
TIERS = ("unit", "sockets", "browser", "faults")
#: fixtures that start or stand for a server, a worker or a queue: a test using one is of the
#: sockets tier
SOCKET_FIXTURES = frozenset(
    {
        "daphne_server",
        "load_server",
        "celery_worker_process",
        "unattended_queue",
        "clock_queue",
        "live_server",
    }
)


def tier_of(item):
    """The tier (``TIERS``) of a collected test: by its markers (``e2e``, ``faults``,
    ``celery``, ``sockets``), else by the fixtures it uses."""
    marks = {mark.name for mark in item.iter_markers()}
    if "faults" in marks:
        return "faults"
    if "e2e" in marks:
        return "browser"
    if marks & {"celery", "sockets"} or SOCKET_FIXTURES & set(item.fixturenames):
        return "sockets"
    return "unit"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark each test ``tier_<its tier>`` before ``-m`` selects (``scripts/test --tier``)."""
    for item in items:
        item.add_marker(f"tier_{tier_of(item)}")


#: PostgreSQL's deadlock_timeout for the test process's own connections (the others keep 1 s)
FLUSH_DEADLOCK_TIMEOUT = "20s"


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """The test database; on PostgreSQL, the deadlock victim chosen in advance and no session
    left on the database when it is dropped.

    After each transactional test, Django empties the tables with one TRUNCATE that locks them
    one by one, while the Celery workers and Daphne servers started by the tests may still be in
    a transaction on the rows the test left. When each waits for the other, PostgreSQL aborts
    the side whose ``deadlock_timeout`` runs out first: with 20 s for this process and the
    default 1 s for the others, it is always the other process's transaction (work for a test
    already over), never the flush, which would leave the test's rows to the next test. Setting
    it needs a superuser (CI's ``postgres``); otherwise it is left as it is.

    At the end, a backend of a process the tests stopped a moment ago may still be closing, and
    PostgreSQL refuses to drop a database with sessions on it: those are ended first."""
    postgres = [c for c in connections.all() if c.vendor == "postgresql"]
    with django_db_blocker.unblock():
        for connection in postgres:
            if is_superuser(connection):
                options = connection.settings_dict.setdefault("OPTIONS", {})
                options["options"] = (
                    f"{options.get('options', '')} -c deadlock_timeout={FLUSH_DEADLOCK_TIMEOUT}"
                ).strip()
                # a pool (DATABASE_POOL) keeps the options it was made with
                connection.close_pool()
    yield
    with django_db_blocker.unblock():
        for connection in postgres:
            connection.close()  # the kept one may have died since the last test
            with connection.cursor() as cursor:
                # a role may end its own sessions; a superuser any
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                    "AND (usename = current_user OR current_setting('is_superuser') = 'on')"
                )
            connection.close()


def is_superuser(connection) -> bool:
    """Whether the PostgreSQL ``connection``'s role is a superuser (closed afterwards)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('is_superuser')")
            return cursor.fetchone()[0] == "on"
    finally:
        connection.close()


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The Redis the tests use (settings.REDIS_URL): Channels layer and Celery broker."""
    return settings.REDIS_URL


@pytest.fixture(scope="session")
def test_database_url(django_db_setup) -> str:
    """DATABASE_URL of the test database (not the developer's), for processes the tests start.

    A Celery worker or Daphne started by a test with this DATABASE_URL sees the same test
    database as the test itself; such tests need ``transactional_db`` (or
    ``django_db(transaction=True)``) so that their rows are committed where the process can
    read them. SQLite: the file ``test_<pid>_<name>`` beside the main database; PostgreSQL:
    ``test_<name>`` on the same server.
    """
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{db['NAME']}"
    if db["ENGINE"] == "django.db.backends.postgresql":
        user = quote(db.get("USER") or "", safe="")
        password = quote(db.get("PASSWORD") or "", safe="")
        auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
        host = db.get("HOST") or "127.0.0.1"
        port = f":{db['PORT']}" if db.get("PORT") else ""
        return f"postgres://{auth}{host}{port}/{quote(db['NAME'], safe='')}"
    raise RuntimeError(f"the tests run on SQLite or PostgreSQL, not {db['ENGINE']}")


@pytest.fixture(scope="session")
def test_process_env(test_database_url, redis_url) -> dict:
    """Environment for a process started by the tests (Celery worker, Daphne): this
    environment plus the test database, the tests' Redis and the same settings module."""
    env = dict(os.environ)
    env.update(
        DATABASE_URL=test_database_url,
        REDIS_URL=redis_url,
        DJANGO_SETTINGS_MODULE=os.environ.get("DJANGO_SETTINGS_MODULE", "nardy_site.settings"),
        PYTHONUNBUFFERED="1",
        # the beat's periodic events would appear in every test's database; the schedule's
        # tests pass their own
        TOURNAMENT_SCHEDULE_ON="0",
    )
    return env


@pytest.fixture(autouse=True)
def default_language():
    """Every test starts in the site's default language: a test-client request to ``/bg/`` or
    ``/ru/`` in an earlier test (of any app) leaves that language active in this thread, and
    messages and reversed URLs would follow it."""
    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def own_rate_limit_counters(settings):
    """Each test counts the rate limits (games.ratelimits, real Redis) under keys of its own:
    the limits count by address, session and account, and tests share 127.0.0.1 and reuse
    account ids of a flushed database, so counts would carry over from test to test."""
    settings.GAMES_RATELIMIT_KEY_PREFIX = f"nardy-limits-test-{uuid.uuid4().hex[:12]}"


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """Each test gets its own Channels layer object (same Redis). The layer keeps asyncio locks
    bound to the event loop that first used them, and each in-process socket test runs its own
    loop: a receive cancelled at the end of one test left a lock held for the next, which then
    failed with "bound to a different event loop"."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()
