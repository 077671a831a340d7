"""A challenge: a link to a game between people (``games.challenges``)."""

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.choices import Colour, Preset
from games.room.models import Game


class ChallengeStatus(models.TextChoices):
    """Where a challenge link stands: waiting for a friend, taken (the game exists),
    withdrawn by its creator, or declined by the friend it was addressed to."""

    OPEN = "open", _("Waiting")
    ACCEPTED = "accepted", _("Accepted")
    CANCELLED = "cancelled", _("Cancelled")
    DECLINED = "declined", _("Declined")


class Challenge(models.Model):
    """A link to a game between people: its creator picks the table options and a side; the
    first other person who opens the link and accepts plays the other side. The game runs the
    preset's clock (RULES.md R12). ``table``, ``match_length`` as in
    ``games.services.table_options``; ``game`` is set once accepted. A challenge made from
    the friends list (``games.friends.challenges``) has an ``addressee``: only that account
    may accept it, and it may decline it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    preset = models.CharField(max_length=16, choices=Preset.choices, default=Preset.SPORT)
    table = models.JSONField(default=dict, blank=True)
    match_length = models.PositiveSmallIntegerField(null=True, blank=True)
    colour = models.CharField(max_length=8, choices=Colour.choices, default=Colour.RANDOM)
    creator_guest = models.CharField(max_length=64, db_index=True)
    creator_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    rated = models.BooleanField(default=False)
    clock_kind = models.CharField(max_length=16, blank=True)
    status = models.CharField(
        max_length=16, choices=ChallengeStatus.choices, default=ChallengeStatus.OPEN
    )
    game = models.OneToOneField(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="challenge"
    )
    addressee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="challenges_received",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self):
        return f"challenge {self.id} ({self.preset}, {self.status})"
