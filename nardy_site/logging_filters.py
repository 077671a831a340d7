"""Logging filters of the site's processes (nardy_site/settings.py LOGGING)."""

import logging

#: the beat's routine tasks: run every 0.5-2 s, they log themselves only when they did something
ROUTINE_TASKS = frozenset({"games.sweep_clocks", "games.pair_lobby"})


class QuietRoutineTasks(logging.Filter):
    """Drops the Celery worker's "received" and "succeeded" INFO lines of ``ROUTINE_TASKS``
    (four lines a second that would bury the ones that matter); their warnings and errors,
    and every line of the other tasks, pass."""

    def filter(self, record):
        data = getattr(record, "data", None)
        routine = isinstance(data, dict) and data.get("name") in ROUTINE_TASKS
        return not (routine and record.levelno <= logging.INFO)
