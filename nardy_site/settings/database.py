"""The database: ``DATABASE_URL`` (SQLite in WAL mode by default, PostgreSQL in CI and
production), with the connection age, health checks and pool of the PostgreSQL processes."""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from .environment import BASE_DIR, PRODUCTION, env, required

# --- Database -------------------------------------------------------------------------------
if PRODUCTION:
    required(
        "DATABASE_URL", "the PostgreSQL database, e.g. postgres://user:password@host:5432/nardy."
    )
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Daphne runs each request in a thread of its own, so a kept connection would be left
    # behind by its thread: 0 there (Django's advice for ASGI); the Celery processes, one
    # thread each, keep theirs (CONN_MAX_AGE=60 in the Procfile). A kept connection that died
    # (a database restart, a fail-over) is noticed before it is used.
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    _pool_size = env.int("DATABASE_POOL", default=0)
    if _pool_size > 0:
        # Daphne: a connection per request or socket thread, taken from a pool and given
        # back after each use (psycopg_pool), instead of a new PostgreSQL backend each time.
        if DATABASES["default"]["CONN_MAX_AGE"]:
            raise ImproperlyConfigured(
                "DATABASE_POOL and CONN_MAX_AGE exclude each other: a "
                "pooled connection goes back to its pool after each use."
            )
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1,
            "max_size": _pool_size,
            "timeout": 10,
        }
elif PRODUCTION:
    raise ImproperlyConfigured(
        "DATABASE_URL must name a PostgreSQL database when DJANGO_ENV=production "
        f"(got {DATABASES['default']['ENGINE']}): several processes write at once."
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    _db_name = str(DATABASES["default"]["NAME"])
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            # WAL lets readers (Daphne) and a writer (the Celery worker) work at once;
            # IMMEDIATE takes the write lock at BEGIN, so a locked database waits for
            # `timeout` seconds instead of failing half-way through a transaction.
            "init_command": "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        }
    )
    if _db_name != ":memory:" and not _db_name.startswith("file:"):
        # A file (not Django's default in-memory test database) so that a Celery worker
        # started by the tests as a separate process sees the same test database; named
        # after the test run's process so that two runs in one checkout do not collide.
        _path = Path(_db_name)
        DATABASES["default"]["TEST"] = {
            "NAME": str(_path.with_name(f"test_{os.getpid()}_{_path.name}")),
        }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
