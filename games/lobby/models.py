"""The lobby's queue of accounts waiting for a rated opponent (``games.lobby``)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.choices import Preset
from games.room.models import Game


class QueueStatus(models.TextChoices):
    """Where a matchmaking request stands."""

    WAITING = "waiting", _("Waiting")
    PAIRED = "paired", _("Paired")
    LEFT = "left", _("Left the queue")


class QueueEntry(models.Model):
    """An account waiting in the lobby for a rated opponent with the same ``preset``,
    ``match_length`` (1 outside ``match``) and ``clock_kind``. ``rating`` is its rating when
    it joined; the pairing window widens with the time since ``joined``. ``game`` is set once
    paired. One waiting entry per account."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="queue_entries"
    )
    preset = models.CharField(max_length=16, choices=Preset.choices)
    match_length = models.PositiveSmallIntegerField(default=1)
    clock_kind = models.CharField(max_length=16)
    rating = models.FloatField()
    status = models.CharField(
        max_length=16, choices=QueueStatus.choices, default=QueueStatus.WAITING
    )
    joined = models.DateTimeField()
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["joined"]
        constraints = [
            models.UniqueConstraint(
                fields=["user"],
                condition=models.Q(status="waiting"),
                name="games_queue_one_waiting_entry",
            ),
        ]

    def __str__(self):
        return f"{self.user_id} {self.preset}/{self.match_length}/{self.clock_kind} {self.status}"
