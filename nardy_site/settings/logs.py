"""Logging: every process writes to standard output."""

from .environment import env

# --- Logging: everything to stdout ------------------------------------------------------------
LOG_LEVEL = env.str("LOG_LEVEL", default="INFO").upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
    },
    "filters": {
        "routine_tasks": {"()": "nardy_site.logging_filters.QuietRoutineTasks"},
        "refusals": {"()": "nardy_site.logging_filters.RefusalsAreNotErrors"},
    },
    "handlers": {
        "stdout": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stdout",
            "formatter": "plain",
        },
    },
    "root": {"handlers": ["stdout"], "level": LOG_LEVEL},
    "loggers": {
        "django": {"handlers": ["stdout"], "level": LOG_LEVEL, "propagate": False},
        # refusals (429 rate limited, 503 site full) are answers, not server errors
        "django.request": {
            "handlers": ["stdout"],
            "level": LOG_LEVEL,
            "propagate": False,
            "filters": ["refusals"],
        },
        "games": {"handlers": ["stdout"], "level": LOG_LEVEL, "propagate": False},
        # django-axes: failed admin sign-ins and lockouts (WARNING), not every sign-in (INFO)
        "axes": {"handlers": ["stdout"], "level": "WARNING", "propagate": False},
        # the worker's per-task lines ("received", "succeeded"), less the beat's routine ones
        "celery.app.trace": {"filters": ["routine_tasks"]},
        "celery.worker.strategy": {"filters": ["routine_tasks"]},
    },
}
