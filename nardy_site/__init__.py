"""The long-nardy site's Django project. Importing it loads the Celery app, so that
``@shared_task`` functions bind to it in every process (Daphne, the worker, the tests)."""

from .celery import app as celery_app

__all__ = ("celery_app",)
