"""Logging filters of the site's processes (LOGGING in nardy_site/settings/logs.py)."""

import logging

#: the beat's routine tasks: run every 0.5-2 s, they log themselves only when they did something
ROUTINE_TASKS = frozenset({"games.sweep_clocks", "games.pair_lobby", "games.tournament_tick"})


class QuietRoutineTasks(logging.Filter):
    """Drops the Celery worker's "received" and "succeeded" INFO lines of ``ROUTINE_TASKS``
    (four lines a second that would bury the ones that matter); their warnings and errors,
    and every line of the other tasks, pass."""

    def filter(self, record):
        data = getattr(record, "data", None)
        routine = isinstance(data, dict) and data.get("name") in ROUTINE_TASKS
        return not (routine and record.levelno <= logging.INFO)


#: the statuses of the site's deliberate refusals: 429 (a rate limit, games.ratelimits) and
#: 503 (the site is full, games.admission), each sent with Retry-After and its reason
REFUSAL_STATUSES = frozenset({429, 503})


class RefusalsAreNotErrors(logging.Filter):
    """Drops django.request's "Too Many Requests" warning and "Service Unavailable" error of
    a refused request: a refusal is the site working as designed, and at its busiest it sends
    hundreds a minute (the access log still lists each with its status)."""

    def filter(self, record):
        return getattr(record, "status_code", None) not in REFUSAL_STATUSES
