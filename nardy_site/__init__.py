"""The long-nardy site's Django project. Importing it loads the Celery app, so that
``@shared_task`` functions bind to it in every process (Daphne, the worker, the tests)."""

import os

# One BLAS thread per process, set before numpy loads: the bots' matrices are small, and with
# a thread per core each of several processes (workers, Daphne, tests, an arena's pool) would
# oversubscribe the cores (2 cores: hard's arena test took 26 s, with one thread 16 s).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .celery import app as celery_app

__all__ = ("celery_app",)
