"""What the tournaments service sends once a change has committed: the event's new version
to its Channels group (every open page of it; each Daphne process then reads the state once),
with the games just paired so that each player's page announces their own; and the Celery
task that pairs or advances the event (sent by name: pairing runs in a worker, never in a web
process)."""

import logging

from asgiref.sync import async_to_sync
from celery import current_app
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)

#: the Celery task that pairs an arena's free players or advances a cup's bracket
ADVANCE = "games.tournament_advance"


def group_name(tournament_id):
    """The channel group of an event's sockets: ``tournament_<uuid>``."""
    return f"tournament_{tournament_id}"


def changed(tournament_id, version, paired=()):
    """After the commit, tell the event's sockets ``{"type": "tournament.changed", "version":
    v, "paired": [{"game", "users": [white, black], "starts_at" (ms)}]}``: each reads the new
    state (once per process, ``games.tournaments.consumer.SharedStates``) and announces its player's
    game."""
    paired = list(paired)
    transaction.on_commit(lambda: send_change(tournament_id, version, paired), robust=True)


def send_change(tournament_id, version, paired=()):
    """Send the event's change message to its group now; a failure is logged (every page
    reads the state again when its socket reconnects, and at each later change)."""
    try:
        message = {"type": "tournament.changed", "version": version, "paired": list(paired)}
        async_to_sync(get_channel_layer().group_send)(group_name(tournament_id), message)
    except Exception:
        logger.exception("tournament %s: the change was not sent", tournament_id)


def advance_later(tournament_id):
    """After the commit, queue the task ``ADVANCE`` for the event (the beat tick does the
    same work every few seconds, should the task be lost)."""

    def send():
        try:
            current_app.send_task(ADVANCE, (str(tournament_id),), ignore_result=True)
        except Exception:
            logger.exception("tournament %s: the advance was not queued", tournament_id)

    transaction.on_commit(send, robust=True)
