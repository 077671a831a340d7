"""Dates on the pages are written as each language writes them."""

import datetime

import pytest
from django.utils import formats, translation

# naive on purpose: the formats are read as written, with no time zone to convert from
MOMENT = datetime.datetime(2026, 11, 29, 20, 6)  # noqa: DTZ001


@pytest.mark.parametrize(
    "lang, short, long",
    [
        ("ru", "29.11.2026 20:06", "29 ноября 2026 г. 20:06"),
        # Django's own Bulgarian formats fall back to the American "11/29/2026 8:06 след обяд"
        ("bg", "29.11.2026 20:06", "29.11.2026 г., 20:06"),
    ],
)
def test_dates_are_written_day_first_with_a_24_hour_clock(lang, short, long):
    with translation.override(lang):
        assert formats.date_format(MOMENT, "SHORT_DATETIME_FORMAT") == short
        assert formats.date_format(MOMENT, "DATETIME_FORMAT") == long
