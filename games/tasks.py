"""Celery tasks of the games app. Thin: they call ``games.services`` and nothing else writes."""
import logging
import time

from celery import shared_task
from celery.signals import worker_init, worker_process_init, worker_ready
from django.db import OperationalError

from games import services

#: one INFO line per bot move: "bot move game=<uuid> version=<v> ms=<float> played=<bool>"
bot_logger = logging.getLogger("games.bot")


# A database that is briefly locked or unreachable is retried: the move is idempotent.
@shared_task(name="games.bot_move", ignore_result=True, autoretry_for=(OperationalError,),
             retry_backoff=1, retry_backoff_max=8, max_retries=5)
def bot_move(game_id, version):
    """Play the bot's turn of game ``game_id`` (a UUID string) if it is still due at ``version``.

    Queued by the services after the commit that made it the bot's turn. Safe to run twice or
    late: ``services.bot_turn`` does nothing once the version has moved on. The time the move
    took inside the task (lock, roll, choice, save) is logged in milliseconds. Returns it.
    """
    started = time.perf_counter()
    game = services.bot_turn(game_id, version)
    elapsed_ms = (time.perf_counter() - started) * 1000
    bot_logger.info("bot move game=%s version=%s ms=%.1f played=%s",
                    game_id, version, elapsed_ms, game is not None)
    return elapsed_ms


@worker_init.connect
@worker_process_init.connect
def load_bot_tables(**kwargs):
    """Load the bots' tables when a worker (or pool process) starts, not on its first move."""
    from games.bots import bearoff

    bearoff.table()


@worker_ready.connect
def queue_bot_moves_left_waiting(sender=None, **kwargs):
    """When a worker starts, queue every bot move still due (see services.queue_due_bot_moves)."""
    count = services.queue_due_bot_moves()
    bot_logger.info("worker ready: queued %d due bot moves", count)
