"""The periodic events (games.tournaments.schedule): arenas made ahead of their start from
settings, sit-and-go cups always open, nothing made twice, a wrong entry skipped."""

from datetime import UTC, datetime

import pytest

from games import clocks, tournaments
from games.tests.tournament_helpers import accounts
from games.tournaments.models import Tournament, TournamentStatus

pytestmark = pytest.mark.django_db

SCHEDULE = [
    {"key": "hourly", "kind": "arena", "preset": "sport", "every": "hour", "minute": 0,
     "minutes": 30},
    {"key": "evening", "kind": "arena", "preset": "classic", "every": "day", "hour": 17,
     "minute": 0, "minutes": 60},
    {"key": "sng", "kind": "cup", "preset": "match", "every": "open", "size": 4,
     "match_length": 3},
    {"key": "broken", "kind": "cup", "preset": "match", "every": "open", "size": 5,
     "match_length": 3},
]  # fmt: skip


def at(hour, minute):
    return clocks.to_ms(datetime(2026, 12, 2, hour, minute, tzinfo=UTC))


def test_the_schedule_makes_the_arenas_ahead_of_time_once(settings):
    settings.TOURNAMENT_ANNOUNCE_MINUTES = 180
    made = tournaments.ensure_schedule(at(15, 10), SCHEDULE)
    hourly = sorted(t.starts_at.hour for t in made if t.schedule_key.startswith("hourly:"))
    assert hourly == [16, 17, 18]  # 16:00, 17:00, 18:00 are within three hours of 15:10
    evening = [t for t in made if t.schedule_key.startswith("evening:")]
    assert len(evening) == 1 and evening[0].starts_at.hour == 17 and evening[0].preset == "classic"
    assert (evening[0].ends_at - evening[0].starts_at).total_seconds() == 3600
    assert tournaments.ensure_schedule(at(15, 40), SCHEDULE) == []  # a second tick: nothing new
    later = tournaments.ensure_schedule(at(16, 5), SCHEDULE)
    assert [t.starts_at.hour for t in later] == [19]
    assert not Tournament.objects.filter(schedule_key__startswith="broken").exists()


def test_a_sit_and_go_cup_is_always_open_and_a_new_one_follows_a_full_one():
    (cup,) = [t for t in tournaments.ensure_schedule(at(9, 0), SCHEDULE[2:3]) if t.kind == "cup"]
    assert cup.size == 4 and cup.starts_at is None and cup.schedule_key == "sng:1"
    assert tournaments.ensure_schedule(at(9, 1), SCHEDULE[2:3]) == []
    for user_id in accounts("Ann", "Bob", "Cid", "Dan").values():
        tournaments.join(cup.pk, user_id)
    cup.refresh_from_db()
    assert cup.status == TournamentStatus.RUNNING
    (fresh,) = tournaments.ensure_schedule(at(9, 2), SCHEDULE[2:3])
    assert fresh.schedule_key == "sng:2" and fresh.status == TournamentStatus.UPCOMING


def test_a_deleted_old_cup_does_not_stop_the_sit_and_go():
    (first,) = tournaments.ensure_schedule(at(9, 0), SCHEDULE[2:3])
    for user_id in accounts("Ann", "Bob", "Cid", "Dan").values():
        tournaments.join(first.pk, user_id)
    (second,) = tournaments.ensure_schedule(at(9, 1), SCHEDULE[2:3])
    first.delete()  # staff tidy up
    for user_id in accounts("Eve", "Fay", "Gus", "Hal").values():
        tournaments.join(second.pk, user_id)
    (third,) = tournaments.ensure_schedule(at(9, 2), SCHEDULE[2:3])
    assert third.schedule_key == "sng:3"
