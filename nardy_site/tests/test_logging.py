"""The site's logging: the Celery worker's lines of the beat's routine tasks are dropped, the
others kept; refusals (429, 503) are not logged as errors (nardy_site/logging_filters.py,
settings.LOGGING)."""

import logging

import pytest

from nardy_site.logging_filters import QuietRoutineTasks


def task_line(logger_name, task, level=logging.INFO):
    """A record as Celery's worker logs one (the task's context in ``data``)."""
    record = logging.LogRecord(
        logger_name, level, __file__, 1, "Task %(name)s received", None, None
    )
    record.data = {"name": task, "id": "x"}
    return record


@pytest.mark.parametrize("logger_name", ["celery.app.trace", "celery.worker.strategy"])
def test_the_routine_tasks_per_task_lines_are_dropped_and_the_others_kept(logger_name):
    quiet = QuietRoutineTasks()
    assert not quiet.filter(task_line(logger_name, "games.sweep_clocks"))
    assert not quiet.filter(task_line(logger_name, "games.pair_lobby"))
    assert quiet.filter(task_line(logger_name, "games.bot_move"))
    assert quiet.filter(task_line(logger_name, "games.sweep_clocks", logging.ERROR))
    plain = logging.LogRecord(logger_name, logging.INFO, __file__, 1, "other", None, None)
    assert quiet.filter(plain)


def test_the_filter_sits_on_the_workers_loggers():
    for name in ("celery.app.trace", "celery.worker.strategy"):
        assert any(isinstance(f, QuietRoutineTasks) for f in logging.getLogger(name).filters)


def request_line(status_code, level):
    """A record as Django logs a response with an error status (``django.request``)."""
    record = logging.LogRecord(
        "django.request", level, __file__, 1, "%s: %s", ("Status", "/en/x/"), None
    )
    record.status_code = status_code
    return record


def test_refusals_are_not_logged_as_errors_and_server_errors_are():
    logger = logging.getLogger("django.request")
    assert not logger.filter(request_line(503, logging.ERROR))  # the site is full
    assert not logger.filter(request_line(429, logging.WARNING))  # a rate limit
    assert logger.filter(request_line(500, logging.ERROR))
    assert logger.filter(request_line(404, logging.WARNING))
