"""Where imported records can make storage grow (issue #16): imports are limited per session
and per address (the translated 429 page, ``Retry-After``), and records nobody opens any more
are deleted by the beat task ``games.expire_imports``, run here by a real Celery worker."""

import time
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services, tasks
from games.engine.tests.test_engine_record import GOOD
from games.room.models import ImportedRecord

pytestmark = pytest.mark.django_db(transaction=True)


def import_url(lang="en"):
    return reverse("games:import").replace("/en/", f"/{lang}/")


def test_imports_over_the_session_limit_get_the_429_page_in_the_pages_language(settings):
    settings.GAMES_IMPORT_SESSION_LIMITS = "2/hour"
    client = Client()
    codes = [client.post(import_url(), {"text": GOOD}).status_code for _ in range(2)]
    assert codes == [302, 302]
    response = client.post(import_url("ru"), {"text": GOOD})
    page = response.content.decode()
    assert response.status_code == 429
    assert 3000 <= int(response["Retry-After"]) <= 3600
    assert "Слишком много записей партий загружено" in page and "минут" in page
    assert 'name="text"' in page
    assert GOOD.splitlines()[-1] in page  # the record sent is kept in the form
    assert ImportedRecord.objects.count() == 2
    # a record refused by the limit is not replayed or stored; another visitor goes on
    assert Client().post(import_url("bg"), {"text": GOOD}).status_code == 302
    assert ImportedRecord.objects.count() == 3


def test_imports_over_the_address_limit_are_refused_whatever_the_session(settings):
    settings.GAMES_IMPORT_IP_LIMITS = "3/hour"
    codes = [
        Client(REMOTE_ADDR="203.0.113.9").post(import_url("bg"), {"text": GOOD}).status_code
        for _ in range(4)
    ]
    assert codes == [302, 302, 302, 429]
    refused = Client(REMOTE_ADDR="203.0.113.9").post(import_url("bg"), {"text": GOOD})
    assert "Твърде много заредени записи" in refused.content.decode()
    assert Client(REMOTE_ADDR="203.0.113.10").post(import_url(), {"text": GOOD}).status_code == 302
    assert ImportedRecord.objects.count() == 4


def test_pasted_text_over_the_upload_cap_is_refused_as_too_long_without_an_error_log(caplog):
    with caplog.at_level("ERROR"):
        response = Client().post(import_url("ru"), {"text": "x" * 3_000_000})
    assert response.status_code == 400
    assert "длиннее 100000 символов" in response.content.decode()
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
    assert not ImportedRecord.objects.exists()


def test_opening_a_replay_keeps_its_record_from_expiring():
    record = services.import_record(GOOD)
    long_ago = timezone.now() - timedelta(days=200)
    ImportedRecord.objects.filter(pk=record.pk).update(opened=long_ago)
    assert (
        Client().get(reverse("games:imported", kwargs={"record_id": record.pk})).status_code == 200
    )
    assert ImportedRecord.objects.get(pk=record.pk).opened > timezone.now() - timedelta(minutes=1)
    assert services.expire_imports() == 0


def test_records_nobody_opened_for_the_keep_days_are_deleted_by_the_beat_task(
    celery_worker_process, settings
):
    assert django_settings.CELERY_BEAT_SCHEDULE["expire-imports"]["task"] == "games.expire_imports"
    days = settings.GAMES_IMPORT_KEEP_DAYS = 90  # the worker's default too
    old, recent, fresh = (services.import_record(GOOD) for _ in range(3))
    now = timezone.now()
    ImportedRecord.objects.filter(pk=old.pk).update(opened=now - timedelta(days=days, hours=1))
    ImportedRecord.objects.filter(pk=recent.pk).update(opened=now - timedelta(days=days - 1))
    tasks.expire_imports.delay()
    deadline = time.monotonic() + 20
    while ImportedRecord.objects.filter(pk=old.pk).exists():
        assert time.monotonic() < deadline, "the worker did not expire the old record"
        time.sleep(0.1)
    assert set(ImportedRecord.objects.values_list("pk", flat=True)) == {recent.pk, fresh.pk}
    settings.GAMES_IMPORT_KEEP_DAYS = 0
    ImportedRecord.objects.update(opened=now - timedelta(days=1000))
    assert services.expire_imports() == 0 and ImportedRecord.objects.count() == 2
