"""DATABASE_POOL (nardy_site/settings/database.py): Daphne's PostgreSQL connections come from a pool
(psycopg_pool through Django) and go back to it after each use, so a socket's database call
does not start a new PostgreSQL backend."""

import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from nardy_site.tests.test_deploy_settings import ROOT, evaluate, production_env

POSTGRES = "postgres://nardy@db.internal:5432/nardy"

# Ten socket threads of one process, one database call each, one after another, as Channels
# makes them (close_old_connections before and after). Prints each call's backend pid.
POOLED_CALLS = """
import threading
import django
django.setup()
from django.db import close_old_connections, connection

pids = []

def call():
    close_old_connections()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pids.append(cursor.fetchone()[0])
    close_old_connections()

for _ in range(10):
    thread = threading.Thread(target=call)
    thread.start()
    thread.join()
print(" ".join(map(str, pids)))
"""


def without_connection_variables(monkeypatch):
    for name in ("DATABASE_POOL", "CONN_MAX_AGE"):
        monkeypatch.delenv(name, raising=False)


def test_a_pool_size_gives_postgresql_a_pool_and_no_kept_connections(monkeypatch):
    without_connection_variables(monkeypatch)
    database = evaluate(monkeypatch, production_env(DATABASE_URL=POSTGRES, DATABASE_POOL="10"))[
        "DATABASES"
    ]["default"]
    assert database["OPTIONS"]["pool"] == {"min_size": 1, "max_size": 10, "timeout": 10}
    assert database["CONN_MAX_AGE"] == 0


def test_without_a_pool_size_there_is_no_pool(monkeypatch):
    without_connection_variables(monkeypatch)
    database = evaluate(monkeypatch, production_env(DATABASE_URL=POSTGRES))["DATABASES"]["default"]
    assert "pool" not in database.get("OPTIONS", {})


def test_a_pool_with_kept_connections_is_refused_by_name(monkeypatch):
    without_connection_variables(monkeypatch)
    with pytest.raises(ImproperlyConfigured, match="DATABASE_POOL and CONN_MAX_AGE"):
        evaluate(
            monkeypatch,
            production_env(DATABASE_URL=POSTGRES, DATABASE_POOL="10", CONN_MAX_AGE="60"),
        )


@pytest.mark.django_db(transaction=True)
def test_socket_threads_share_pooled_connections_instead_of_new_backends(test_process_env):
    if not test_process_env["DATABASE_URL"].startswith("postgres://"):
        pytest.skip("a pool is for PostgreSQL (DATABASE_URL is SQLite here)")

    def backend_pids(pool_size):
        env = dict(test_process_env, DATABASE_POOL=pool_size, CONN_MAX_AGE="0")
        result = subprocess.run(
            [sys.executable, "-c", POOLED_CALLS],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout.split()

    assert len(set(backend_pids("2"))) <= 2  # ten calls, at most the pool's connections
    assert len(set(backend_pids("0"))) == 10  # without a pool: a new backend for each call
