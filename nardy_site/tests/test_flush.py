"""The flush that empties the test database after each transactional test (conftest.py,
``django_db_setup``): when it deadlocks with a process the tests started, the other process's
transaction is the one PostgreSQL aborts."""

import re
import threading
import time

import psycopg
import pytest
from django.core.management import call_command
from django.core.management.color import no_style
from django.core.management.sql import sql_flush
from django.db import connection, connections
from psycopg import errors

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_flush_wins_a_deadlock_against_another_process_and_empties_every_table(
    test_database_url, django_user_model
):
    if connection.vendor != "postgresql":
        pytest.skip("only PostgreSQL aborts one side of a deadlock (SQLite queues the writers)")
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('is_superuser')")
        if cursor.fetchone()[0] != "on":
            pytest.skip("the test database's user may not set deadlock_timeout")
    django_user_model.objects.create(username="left-behind")
    # TRUNCATE locks the tables in the order it names them
    (statement,) = sql_flush(no_style(), connection)
    tables = re.findall(r'"([^"]+)"', statement)
    first, last = tables[0], tables[-1]

    flushed = []

    def flush():
        try:
            call_command("flush", verbosity=0, interactive=False)
            flushed.append(True)
        finally:
            connections.close_all()

    # another process's connection, with PostgreSQL's default deadlock_timeout (1 s)
    with (
        psycopg.connect(test_database_url) as other,
        psycopg.connect(test_database_url, autocommit=True) as watcher,
    ):
        other.execute(f'LOCK TABLE "{last}" IN ROW EXCLUSIVE MODE')
        flusher = threading.Thread(target=flush)
        flusher.start()
        # the flush now holds every table but the last, and waits for it
        deadline = time.monotonic() + 10
        while not waiting_on_lock(watcher):
            assert time.monotonic() < deadline, "the flush never waited for the locked table"
            time.sleep(0.05)
        with pytest.raises(errors.DeadlockDetected):
            other.execute(f'LOCK TABLE "{first}" IN ROW EXCLUSIVE MODE')
        other.rollback()
        flusher.join(timeout=30)
    assert flushed == [True]
    assert not django_user_model.objects.exists()


def waiting_on_lock(watcher) -> bool:
    """Whether a TRUNCATE waits for a lock on this database (``watcher`` in autocommit: a
    transaction would keep its first reading of pg_stat_activity)."""
    row = watcher.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND wait_event_type = 'Lock' AND query ILIKE 'TRUNCATE%'"
    ).fetchone()
    return row[0] > 0
