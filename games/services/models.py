"""Rows the service layer keeps for itself: the clock keeper's heartbeat and the outages
the clocks were paused for (``games.services.outages``)."""

from django.db import models


class Heartbeat(models.Model):
    """The clock keeper's heartbeat (one row, pk 1; ``games.services.outages``): when the beat
    sweep (or a server that found it silent) last noted the site up, and the id of the last
    ``Outage`` recorded, so every process learns of a new outage from this one row."""

    beat_at = models.DateTimeField()
    last_outage = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"heartbeat at {self.beat_at} (last outage {self.last_outage})"


class Outage(models.Model):
    """A time the site could not keep the clocks (no heartbeat for longer than
    ``GAMES_OUTAGE_MIN_MS``): from the last heartbeat before it (``started``) to the first
    after it (``ended``). Every game running then had its clocks credited with it;
    ``games`` counts the games credited."""

    started = models.DateTimeField()
    ended = models.DateTimeField()
    games = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-started"]

    def __str__(self) -> str:
        return f"outage {self.started} - {self.ended} ({self.length_ms} ms)"

    @property
    def length_ms(self) -> int:
        """The outage's length (ms)."""
        return round((self.ended - self.started).total_seconds() * 1000)
