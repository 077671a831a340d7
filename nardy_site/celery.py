"""The Celery app ``nardy_site``: broker = REDIS_URL, configured from Django settings named
``CELERY_*``; tasks are found in each installed app's ``tasks`` module.

Start a worker with ``celery -A nardy_site worker`` (scripts/run does this).
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nardy_site.settings")

app = Celery("nardy_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
