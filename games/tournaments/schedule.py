"""The periodic schedule: events made by the beat tick from ``settings.TOURNAMENT_SCHEDULE``,
so a fresh site has tournaments without anyone creating them. Each entry is a dict:

- ``{"key": "hourly-sport", "kind": "arena", "preset": "sport", "every": "hour", "minute": 0,
  "minutes": 30}``: an arena every hour at that minute (UTC);
- ``{"every": "day", "hour": 17, "minute": 0, …}``: every day at that time (UTC);
- ``{"key": "sit-and-go-4", "kind": "cup", "preset": "match", "every": "open", "size": 4,
  "match_length": 3}``: a sit-and-go cup always open for entries (a new one once it fills).

Arenas are made ``settings.TOURNAMENT_ANNOUNCE_MINUTES`` before they start. Each event's
``schedule_key`` (the entry's key and its start, or a count) is unique, so two ticks at once or
a restarted beat never make one twice."""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction

from games import clocks
from games.services.errors import GameError
from games.tournaments import entries
from games.tournaments.models import Tournament, TournamentStatus

logger = logging.getLogger(__name__)


def occurrences(entry, start, end):
    """The start times (aware datetimes, UTC) of the arena ``entry`` in ``[start, end)``."""
    minute = entry.get("minute", 0)
    if entry["every"] == "hour":
        first = start.replace(minute=minute, second=0, microsecond=0)
        step = timedelta(hours=1)
    elif entry["every"] == "day":
        first = start.replace(hour=entry.get("hour", 0), minute=minute, second=0, microsecond=0)
        step = timedelta(days=1)
    else:
        raise ValueError(f"unknown schedule period {entry['every']!r}")
    while first < start:
        first += step
    found = []
    while first < end:
        found.append(first)
        first += step
    return found


def ensure(now_ms=None, schedule=None):
    """Make the events of ``schedule`` (default ``settings.TOURNAMENT_SCHEDULE``) that should
    exist at ``now_ms``: the arenas starting within the announce window, and one open cup per
    sit-and-go entry. An entry with a wrong option is logged and skipped. Returns the new
    events."""
    now_ms = clocks.now_ms() if now_ms is None else now_ms
    schedule = settings.TOURNAMENT_SCHEDULE if schedule is None else schedule
    now = clocks.from_ms(now_ms)
    window = timedelta(minutes=settings.TOURNAMENT_ANNOUNCE_MINUTES)
    made = []
    for entry in schedule:
        try:
            if entry["every"] == "open":
                made += _keep_open(entry)
            else:
                for start in occurrences(entry, now, now + window):
                    made += _make(entry, f"{entry['key']}:{start:%Y-%m-%dT%H:%M}", start)
        except (GameError, KeyError, ValueError):
            logger.exception("tournament schedule entry %r is wrong", entry.get("key"))
    return made


def _keep_open(entry):
    key = entry["key"]
    if Tournament.objects.filter(
        schedule_key__startswith=f"{key}:", status=TournamentStatus.UPCOMING
    ).exists():
        return []
    # the next number after the highest made (not the count: staff may delete old ones)
    numbers = [
        int(suffix)
        for suffix in (
            made.rpartition(":")[2]
            for made in Tournament.objects.filter(schedule_key__startswith=f"{key}:").values_list(
                "schedule_key", flat=True
            )
        )
        if suffix.isdigit()
    ]
    return _make(entry, f"{key}:{max(numbers, default=0) + 1}", None)


def _make(entry, schedule_key, starts_at):
    if Tournament.objects.filter(schedule_key=schedule_key).exists():
        return []
    try:
        with transaction.atomic():
            return [
                entries.create(
                    entry["kind"],
                    entry["preset"],
                    clock_kind=entry.get("clock"),
                    match_length=entry.get("match_length"),
                    size=entry.get("size"),
                    starts_at=starts_at,
                    minutes=entry.get("minutes"),
                    schedule_key=schedule_key,
                )
            ]
    except IntegrityError:  # another tick made it first
        return []
