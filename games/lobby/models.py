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


class Pool(models.TextChoices):
    """The lobby's two pools: anyone, unrated; or signed-in players, rated and paired by
    rating."""

    CASUAL = "casual", _("Casual")
    RATED = "rated", _("Rated")


class QueueEntry(models.Model):
    """A player waiting in the lobby for an opponent with the same ``pool``, ``preset``,
    ``match_length`` (1 outside ``match``) and ``clock_kind``. In the rated pool the player is
    an account (``user``) and ``rating`` its rating when it joined; the pairing window widens
    with the time since ``joined``. In the casual pool the player is a session's ``guest`` id
    and, if signed in, its ``user`` too, and the oldest waiter is paired first whatever the
    ratings. ``game`` is set once paired. One waiting entry per account and per guest id."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="queue_entries",
    )
    guest = models.CharField(max_length=64, blank=True)
    pool = models.CharField(max_length=8, choices=Pool.choices, default=Pool.RATED)
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
            models.UniqueConstraint(
                fields=["guest"],
                condition=models.Q(status="waiting") & ~models.Q(guest=""),
                name="games_queue_one_waiting_guest_entry",
            ),
        ]
        indexes = [models.Index(fields=["status", "pool"], name="games_queue_status_pool")]

    def __str__(self):
        table = f"{self.preset}/{self.match_length}/{self.clock_kind}"
        return f"{self.user_id or self.guest} {self.pool} {table} {self.status}"
