"""A player's rows: the profile, ratings and their changes and refunds, rated games
abandoned (the playban counts them) and spent one-use sign-in credentials."""

from django.conf import settings
from django.db import models

from games.choices import EndReason, Preset
from games.room.models import Game, Match


class Profile(models.Model):
    """A signed-in player's public face: the name shown to opponents and onlookers (editable,
    taken from the provider at sign-up) and the provider's avatar, if it gave one."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    display_name = models.CharField(max_length=40)
    avatar_url = models.URLField(max_length=500, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    #: where and when the player was last seen signing in or entering a rated game (staff
    #: only: the admin's pairs of accounts that play each other, ``games.accounts.collusion``)
    last_address = models.GenericIPAddressField(null=True, blank=True)
    last_seen = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return self.display_name


class PlayerRatingQuerySet(models.QuerySet):
    """Domain queries on ratings: ``PlayerRating.objects.established()``, ``.leaderboard(p)``."""

    def established(self):
        """Ratings whose deviation is low enough to be trusted (not provisional)."""
        return self.filter(deviation__lte=PlayerRating.PROVISIONAL_DEVIATION)

    def leaderboard(self, preset):
        """Established ratings of ``preset``, best first."""
        return (
            self.established()
            .filter(preset=preset)
            .select_related("user__profile")
            .order_by("-rating", "deviation")
        )


class PlayerRating(models.Model):
    """One account's Glicko-2 rating (``games.glicko2``) in one R12 preset: ``rating`` and
    ``deviation`` in rating points, ``volatility``; ``games``/``wins`` count its rated games
    (a match counts once). A new player starts at 1500 with deviation 350; the rating is
    provisional while the deviation is above ``PROVISIONAL_DEVIATION``."""

    #: above this deviation (points) a rating is provisional and kept off the leaderboards
    PROVISIONAL_DEVIATION = 110.0

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    preset = models.CharField(max_length=16, choices=Preset.choices)
    rating = models.FloatField(default=1500.0)
    deviation = models.FloatField(default=350.0)
    volatility = models.FloatField(default=0.06)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    objects = PlayerRatingQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "preset"], name="games_rating_user_preset"),
        ]

    def __str__(self):
        return f"{self.user_id} {self.preset} {self.rating:.0f}±{self.deviation:.0f}"

    @property
    def provisional(self):
        """True while the rating is not yet trusted (deviation above the threshold)."""
        return self.deviation > self.PROVISIONAL_DEVIATION


class RatingChange(models.Model):
    """The change of one account's rating by one rated result: a single game, or a whole
    match (``game`` is then the match's last game). Unique per account and game, so a result
    is never rated twice."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    preset = models.CharField(max_length=16, choices=Preset.choices)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.CASCADE, related_name="rating_changes"
    )
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    deviation_before = models.FloatField()
    deviation_after = models.FloatField()
    won = models.BooleanField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="games_rating_change_once"),
        ]

    def __str__(self):
        return f"{self.user_id} {self.preset} {self.rating_before:.0f}->{self.rating_after:.0f}"

    @property
    def delta(self):
        """The rating points won (positive) or lost (negative)."""
        return self.rating_after - self.rating_before


class Abandonment(models.Model):
    """A rated game that signed-in ``user`` lost by letting the clock run out (``reason``
    "timeout") or by leaving (``abandon``) in a position that was lost anyway: the hard bot's
    network gave them a ``chance`` to win below ``games.services.playban.LOST_CHANCE``. Each
    one within the rolling window makes the wait before the next rated game longer."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=16, choices=EndReason.choices)
    chance = models.FloatField()
    created = models.DateTimeField()

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["user", "created"])]
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="games_abandonment_once")
        ]

    def __str__(self):
        return f"abandonment of game {self.game_id} by {self.user_id} ({self.reason})"


class UsedToken(models.Model):
    """A one-use sign-in credential already spent (games/accounts/one_use.py): ``key`` names it
    (``"init-data:<hash>"``, ``"telegram-widget:<hash>"``), ``holder`` is the device cookie
    of the browser that spent it ("" when none), and ``expires`` is when the credential
    would be refused as too old anyway, after which beat deletes the row. Kept in the
    database rather than Redis so a cache flush cannot make a captured sign-in usable again."""

    key = models.CharField(max_length=200, unique=True)
    holder = models.CharField(max_length=200, blank=True, default="")
    expires = models.DateTimeField(db_index=True)

    def __str__(self):
        return f"{self.key} until {self.expires}"


class RatingRefund(models.Model):
    """Rating points given back to ``user`` for a rated result staff undid (a boosted or
    thrown game, ``manage.py refund_ratings``): ``points`` is what was added to their rating
    then, the opposite of what the result had moved it by (a victim gets back what they lost,
    a booster gives back what they gained). Unique per account and game, so a refund is never
    applied twice."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    preset = models.CharField(max_length=16, choices=Preset.choices)
    points = models.FloatField()
    reason = models.CharField(max_length=200)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="games_rating_refund_once")
        ]

    def __str__(self):
        return f"refund of {self.points:+.1f} to {self.user_id} for game {self.game_id}"
