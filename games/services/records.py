"""Imported game records (docs/record-format.md): checked by replaying them through the
engine, then stored."""

from django.db import transaction

from games.engine import record as rec
from games.models import ImportedRecord


def import_record(text, guest_id=None):
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
