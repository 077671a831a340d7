"""The Celery app ``nardy_site``: broker = REDIS_URL, configured from Django settings named
``CELERY_*``; tasks are found in each installed app's ``tasks`` module.

Start a worker with ``celery -A nardy_site worker`` (scripts/run does this).
"""

import logging
import os

from celery import Celery
from celery.worker.consumer import Consumer

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nardy_site.settings")

logger = logging.getLogger(__name__)


class BrokerLossConsumer(Consumer):
    """Celery's worker consumer, kept alive when the broker connection is lost while it holds
    unacknowledged messages.

    With celery 5.7.0 and kombu 5.7.0, closing the lost connection tries to give those
    messages back through a transport it has already released and fails with
    ``AttributeError: 'NoneType' object has no attribute 'hostname'``, which ends the worker
    ("Unrecoverable error"). A busy worker holds such messages (the task it runs and those
    it prefetched; per-move clock timers, before beat's sweep replaced them, waited in it until
    their ETA), so a Redis restart could stop bot moves for good. Going on
    loses nothing more: the broker is gone, so the messages could not be given back anyway
    (a Redis that kept them returns them after its visibility timeout), and the consumer then
    reconnects as it does after any other connection error; beat's sweep applies the
    deadlines and queues again lost computer moves. games/tests/test_fault_redis.py checks it.
    """

    def on_connection_error_after_connected(self, exc):
        try:
            super().on_connection_error_after_connected(exc)
        except AttributeError:
            logger.warning(
                "broker connection lost; its unacknowledged messages could not be "
                "given back (celery/kombu 5.7.0); reconnecting",
                exc_info=True,
            )


app = Celery("nardy_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.worker_consumer = "nardy_site.celery:BrokerLossConsumer"
app.autodiscover_tasks()
