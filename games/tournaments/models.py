"""The tournaments' rows: events, entrants, pairings and open tournament sockets
(``games.tournaments``)."""

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.choices import Preset
from games.room.models import Game, Match


class TournamentKind(models.TextChoices):
    """The two kinds of event (``games.tournaments``): an arena (a fixed time, players paired
    as they come free, points for wins) and a knockout cup (a seeded bracket of matches)."""

    ARENA = "arena", _("Arena")
    CUP = "cup", _("Knockout cup")


class TournamentStatus(models.TextChoices):
    """Where an event stands: open for entries before it starts, under way, over (standings
    frozen), or called off (a cup that never filled, an event nobody entered)."""

    UPCOMING = "upcoming", pgettext_lazy("tournament", "Open for entries")
    RUNNING = "running", pgettext_lazy("tournament", "Under way")
    FINISHED = "finished", pgettext_lazy("tournament", "Finished")
    CANCELLED = "cancelled", pgettext_lazy("tournament", "Called off")


class Tournament(models.Model):
    """An arena or a knockout cup (``games.tournaments``); only the tournaments service
    changes it, with the row locked, and ``version`` rises with every change the pages show.

    ``preset``, ``clock_kind`` (``games.clocks.CLOCKS``) and ``match_length`` (1 for single
    games; a cup plays matches of 3, 5 or 7 points in the ``match`` preset) are the table of
    every game. An arena runs from ``starts_at`` to ``ends_at``; a cup of ``size`` players
    (4, 8 or 16) starts when full, or at ``starts_at`` with whoever entered (byes for the top
    seeds); ``rounds`` is its number of rounds once drawn. ``schedule_key`` names the
    periodic schedule slot that made it (unique: a restarted beat never makes it twice)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(_("name"), max_length=80, blank=True)
    kind = models.CharField(_("kind"), max_length=8, choices=TournamentKind.choices)
    preset = models.CharField(_("rules"), max_length=16, choices=Preset.choices)
    clock_kind = models.CharField(_("clock"), max_length=16)
    match_length = models.PositiveSmallIntegerField(_("match length"), default=1)
    size = models.PositiveSmallIntegerField(_("players"), null=True, blank=True)
    starts_at = models.DateTimeField(_("starts"), null=True, blank=True, db_index=True)
    ends_at = models.DateTimeField(_("ends"), null=True, blank=True, db_index=True)
    status = models.CharField(
        max_length=16, choices=TournamentStatus.choices, default=TournamentStatus.UPCOMING
    )
    version = models.PositiveIntegerField(default=0)
    rounds = models.PositiveSmallIntegerField(default=0)
    schedule_key = models.CharField(max_length=80, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    #: since when pairing (arena) or the next match (cup) waits because the site is full
    #: (``games.admission``); None while it does not
    full_since = models.DateTimeField(null=True, blank=True)
    #: the chat of this event's games is off (``games.chat``): the server refuses messages
    #: and the game page shows no chat panel
    chat_off = models.BooleanField(_("no chat in its games"), default=False)

    class Meta:
        ordering = ["starts_at", "created"]
        constraints = [
            models.UniqueConstraint(
                fields=["schedule_key"],
                condition=~models.Q(schedule_key=""),
                name="games_tournament_one_per_schedule_slot",
            ),
            models.CheckConstraint(
                condition=models.Q(kind="cup")
                | models.Q(starts_at__isnull=False, ends_at__isnull=False),
                name="games_tournament_arena_has_times",
            ),
            models.CheckConstraint(
                condition=models.Q(kind="arena") | models.Q(size__in=(4, 8, 16)),
                name="games_tournament_cup_size",
            ),
        ]

    def __str__(self):
        return f"{self.kind} {self.name or self.id} ({self.status})"

    @property
    def is_arena(self):
        return self.kind == TournamentKind.ARENA


class Withdrawal(models.TextChoices):
    """Why the event withdrew an entrant from pairing (``Entrant.withdrawn``)."""

    QUICK_LOSSES = "quick_losses", _("Aborted or resigned games at once repeatedly")


class Entrant(models.Model):
    """A player entered in a tournament. ``rating`` is their rating in the preset (updated
    after each of their games: arena pairing and cup seeding read it); in an arena ``score``
    (points), ``games``, ``wins`` and ``streak`` (wins in a row; from two on, a win counts
    double); ``active`` False once they left (no more pairings, points kept); ``away`` True
    while they were gone at a pairing (skipped until their page is back); ``last_opponent``
    (never paired twice in a row) and ``free_since`` (when their last game ended). In a cup
    ``seed`` (1 = highest rating). ``place`` is their final place once the event is over."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    rating = models.FloatField()
    score = models.PositiveIntegerField(default=0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    streak = models.PositiveSmallIntegerField(default=0)
    active = models.BooleanField(default=True)
    away = models.BooleanField(default=False)
    last_opponent = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    free_since = models.DateTimeField(null=True, blank=True)
    seed = models.PositiveSmallIntegerField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    joined = models.DateTimeField()
    #: arena games this entrant aborted or lost in fewer than ``rules.MIN_LOSER_PLAYS`` plays;
    #: at ``rules.QUICK_LOSS_LIMIT`` they are withdrawn from pairing (``withdrawn``)
    quick_losses = models.PositiveSmallIntegerField(default=0)
    withdrawn = models.CharField(max_length=16, choices=Withdrawal.choices, blank=True)

    class Meta:
        ordering = ["tournament", "-score", "-rating"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="games_entrant_once"),
        ]

    def __str__(self):
        return f"{self.user_id} in {self.tournament_id} ({self.score})"


class PairingStatus(models.TextChoices):
    """A pairing's state: a cup slot whose players are not known yet, a game (or match)
    being played, or decided."""

    WAITING = "waiting", _("Waiting")
    PLAYING = "playing", _("Playing")
    DONE = "done", _("Done")


class PairingOutcome(models.TextChoices):
    """How a decided pairing was decided: played out, a bye (no opponent), a no-show (the
    player who never made their first move loses), or nobody (two empty cup slots, or an
    arena game aborted because a player did not show)."""

    PLAYED = "played", _("Played")
    BYE = "bye", _("Bye")
    NO_SHOW = "no_show", _("No-show")
    NONE = "none", _("Not played")
    #: an arena game won against a loser who made fewer than ``rules.MIN_LOSER_PLAYS`` plays
    SHORT = "short", _("Too short to score")


class Pairing(models.Model):
    """One game (a match in the ``match`` preset) between two entrants of a tournament. In an
    arena it is made when both are free; in a cup it is a slot of the bracket: ``round`` (1 =
    the first) and ``slot`` (0-based; in the last round slot 0 is the final and slot 1 the
    match for third place), its entrants filled in as the rounds before are decided.
    ``game`` is the first (or only) game, ``match`` the match; ``winner`` and ``outcome`` once
    done; ``white_points``/``black_points`` what an arena game scored each side."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="pairings")
    round = models.PositiveSmallIntegerField(null=True, blank=True)
    slot = models.PositiveSmallIntegerField(null=True, blank=True)
    white = models.ForeignKey(
        Entrant, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    black = models.ForeignKey(
        Entrant, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    game = models.OneToOneField(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="pairing"
    )
    match = models.OneToOneField(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="pairing"
    )
    status = models.CharField(
        max_length=8, choices=PairingStatus.choices, default=PairingStatus.WAITING
    )
    outcome = models.CharField(max_length=8, choices=PairingOutcome.choices, blank=True)
    winner = models.ForeignKey(
        Entrant, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    white_points = models.PositiveSmallIntegerField(default=0)
    black_points = models.PositiveSmallIntegerField(default=0)
    created = models.DateTimeField()
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "round", "slot", "created"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "round", "slot"],
                condition=models.Q(round__isnull=False),
                name="games_pairing_one_per_bracket_slot",
            ),
        ]
        indexes = [models.Index(fields=["tournament", "status"])]

    def __str__(self):
        return f"pairing {self.pk} of {self.tournament_id} ({self.status})"

    def entrants(self):
        """The pairing's entrants that exist, white first."""
        return [entrant for entrant in (self.white, self.black) if entrant is not None]


class TournamentSocket(models.Model):
    """One open socket of a signed-in player on a tournament (its page, or the page of one of
    its games): an entrant is here while they have a row seen within
    ``games.tournaments.presence.STALE_MS``; an arena skips entrants who are not. The consumer
    adds the row on connect, touches ``seen`` while open and removes it on disconnect."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="sockets")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    channel_name = models.CharField(max_length=200, unique=True)
    seen = models.DateTimeField(db_index=True)

    class Meta:
        indexes = [models.Index(fields=["tournament", "user"])]

    def __str__(self):
        return f"{self.tournament_id} {self.user_id} {self.channel_name}"
