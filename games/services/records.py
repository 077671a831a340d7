"""Imported game records (docs/record-format.md): checked by replaying them through the
engine, then stored; those nobody opens any more expire."""

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from games import app_settings
from games.engine import record as rec
from games.room.models import ImportedRecord


def import_record(text: str, guest_id: str | None = None) -> ImportedRecord:
    """Check an uploaded game record (docs/record-format.md) by replaying it through the
    engine and save it as an ``ImportedRecord`` (normalised by the record writer).

    Raises ``games.engine.record.RecordError`` (with the line number and the reason) for a
    record that does not parse or is not a legal game; saves nothing then. Returns the
    ImportedRecord.
    """
    record = rec.parse(text)
    rec.replay(record)
    white, black = record.header("White", "?"), record.header("Black", "?")
    title = rec.clean_header_value(f"{record.header('Event', '')} · {white} – {black}")[:200]
    with transaction.atomic():
        return ImportedRecord.objects.create(
            text=rec.write(record), title=title, guest=guest_id or ""
        )


#: an imported record's ``opened`` is brought up to date at most this often
OPENED_RESOLUTION = timedelta(days=1)


def import_opened(imported: ImportedRecord) -> None:
    """Someone opened the replay of ``imported`` (an ImportedRecord): note the day, so the
    record does not expire while people still open it. One update a day at most."""
    now = timezone.now()
    if now - imported.opened >= OPENED_RESOLUTION:
        ImportedRecord.objects.filter(pk=imported.pk).update(opened=now)


def expire_imports(now: datetime | None = None) -> int:
    """Delete the imported records nobody has opened for ``GAMES_IMPORT_KEEP_DAYS`` days (the
    beat task ``games.expire_imports``; 0 days: keep them all). Returns how many went."""
    days = app_settings.IMPORT_KEEP_DAYS
    if not days:
        return 0
    cutoff = (now or timezone.now()) - timedelta(days=days)
    deleted, _by_model = ImportedRecord.objects.filter(opened__lt=cutoff).delete()
    return deleted
