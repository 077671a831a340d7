"""Game models: a long-nardy game and the record of every roll and play in it.

Only ``games.services`` changes these rows (inside a transaction, with the game row locked);
everything else reads them.
"""
import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.engine import Position, check_play, get_ruleset


class Preset(models.TextChoices):
    """RULES.md R12 presets."""

    SPORT = "sport", _("Sport")
    CLASSIC = "classic", _("Classic")
    MATCH = "match", _("Match")


class Side(models.TextChoices):
    """The two sides (RULES.md R1)."""

    WHITE = "white", _("White")
    BLACK = "black", _("Black")


class Status(models.TextChoices):
    """Whether a game is still being played."""

    ACTIVE = "active", _("Active")
    FINISHED = "finished", _("Finished")


class Phase(models.TextChoices):
    """What the side to move does next: roll the dice, play the rolled dice, or nothing (over)."""

    ROLL = "roll", _("Roll")
    PLAY = "play", _("Play")
    OVER = "over", _("Over")


class BotLevel(models.TextChoices):
    """Strength of the computer opponent (see ``games.bots``)."""

    EASY = "easy", _("Easy")
    MEDIUM = "medium", _("Medium")


class ResultKind(models.TextChoices):
    """RULES.md R9 game values."""

    OIN = "oin", _("Oin")
    MARS = "mars", _("Mars")
    KOKS = "koks", _("Koks")


class EndReason(models.TextChoices):
    """How a game ended (RULES.md R9): the winner bore off its last checker, or the loser
    resigned."""

    BORE_OFF = "bore_off", _("Bore off all checkers")
    RESIGN = "resign", _("Resignation")


class EventKind(models.TextChoices):
    """Kinds of ``GameEvent``: the opening roll (R3), a roll, a play (a pass is the play ""),
    a resignation, and the end of the game."""

    OPENING = "opening", _("Opening roll")
    ROLL = "roll", _("Roll")
    PLAY = "play", _("Play")
    RESIGN = "resign", _("Resignation")
    END = "end", _("End")


def other_side(side):
    """The opponent of ``side`` ("white" <-> "black")."""
    return Side.BLACK.value if side == Side.WHITE else Side.WHITE.value


class GameQuerySet(models.QuerySet):
    """Domain queries on games: ``Game.objects.active()``, ``.for_guest(guest_id)``, …"""

    def active(self):
        """Games still being played."""
        return self.filter(status=Status.ACTIVE)

    def finished(self):
        """Games that have ended (borne off or resigned)."""
        return self.filter(status=Status.FINISHED)

    def for_guest(self, guest_id):
        """Games in which the guest ``guest_id`` (a session's guest id) plays either side."""
        if not guest_id:
            return self.none()
        return self.filter(models.Q(white_guest=guest_id) | models.Q(black_guest=guest_id))

    def against_bot(self):
        """Games in which one side is played by the computer."""
        return self.exclude(bot_side="")


class Game(models.Model):
    """One long-nardy game.

    ``position`` is the RULES.md JSON position (its ``turn`` is the side to move), ``phase``
    says whether that side rolls or plays next, ``dice`` is the roll to play in phase "play"
    (else null). ``version`` rises by one with every recorded event, so a client can tell
    whether its view is current (docs/protocol.md). A side is played by a guest
    (``white_guest``/``black_guest``: a session's guest id) or by the bot (``bot_side``).
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    preset = models.CharField(max_length=16, choices=Preset.choices, default=Preset.SPORT)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    white_guest = models.CharField(max_length=64, blank=True, db_index=True)
    black_guest = models.CharField(max_length=64, blank=True, db_index=True)
    # Accounts come later; these let a game belong to a signed-in user without a data migration.
    white_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    black_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    bot_side = models.CharField(max_length=8, choices=Side.choices, blank=True)
    bot_level = models.CharField(max_length=16, choices=BotLevel.choices, blank=True)
    position = models.JSONField()
    phase = models.CharField(max_length=8, choices=Phase.choices, default=Phase.ROLL)
    dice = models.JSONField(null=True, blank=True)
    opening = models.JSONField(default=dict, blank=True)
    version = models.PositiveIntegerField(default=0)
    winner = models.CharField(max_length=8, choices=Side.choices, blank=True)
    result_kind = models.CharField(max_length=8, choices=ResultKind.choices, blank=True)
    result_points = models.PositiveSmallIntegerField(null=True, blank=True)
    end_reason = models.CharField(max_length=16, choices=EndReason.choices, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    objects = GameQuerySet.as_manager()

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(phase="over") | models.Q(status="active"),
                name="games_game_finished_is_over",
            ),
        ]

    def __str__(self):
        return f"{self.get_preset_display()} game {self.id} ({self.status}, v{self.version})"

    @property
    def ruleset(self):
        """The engine Ruleset of this game's preset (RULES.md R12)."""
        return get_ruleset(self.preset)

    def get_position(self):
        """The stored position as an engine ``Position``."""
        return Position.from_json(self.position)

    @property
    def turn(self):
        """The side to move, or None once the game is over."""
        if self.status == Status.FINISHED:
            return None
        return self.position["turn"]

    def guest_of(self, side):
        """The guest id playing ``side`` ("" if the bot or nobody plays it)."""
        return self.white_guest if side == Side.WHITE else self.black_guest

    def side_of_guest(self, guest_id):
        """The side the guest ``guest_id`` plays, or None for an onlooker."""
        if not guest_id:
            return None
        if self.white_guest == guest_id:
            return Side.WHITE.value
        if self.black_guest == guest_id:
            return Side.BLACK.value
        return None

    @property
    def is_bot_turn(self):
        """True while the game is on and the bot is the side to move."""
        return bool(self.bot_side) and self.status == Status.ACTIVE and self.turn == self.bot_side

    def replay(self):
        """Replay the game from its record and return the engine ``Position`` it leads to.

        Starts from the R2 start position with the winner of the opening event (R3) to move,
        then applies every recorded play (checked again by the engine with its recorded dice).
        The result equals the stored ``position`` for any game changed only by the services.
        Raises ``ValueError`` if the record has no opening or holds a play the engine rejects.
        """
        ruleset = self.ruleset
        position = None
        for event in self.events.order_by("seq"):
            if event.kind == EventKind.OPENING:
                position = Position.initial(event.side)
            elif event.kind == EventKind.PLAY:
                if position is None:
                    raise ValueError(f"game {self.id}: a play recorded before the opening")
                position = check_play(position, tuple(event.dice), event.play, ruleset).result
        if position is None:
            raise ValueError(f"game {self.id}: no opening recorded")
        return position


class GameEvent(models.Model):
    """One entry of a game's record: the opening roll, a roll, a play, a resignation or the end.

    ``seq`` is the game's version right after the event (unique within the game), so the
    record read in ``seq`` order is the game's history. ``dice`` is the roll ([a, b]) for
    roll and play events and [white die, black die] for the opening; ``play`` is the play in
    RULES.md notation ("" for a pass). ``side`` is the side that acted (for the opening and
    the end: the side to move first / the winner).
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=EventKind.choices)
    side = models.CharField(max_length=8, choices=Side.choices, blank=True)
    dice = models.JSONField(null=True, blank=True)
    play = models.CharField(max_length=200, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="games_event_unique_seq"),
        ]

    def __str__(self):
        return f"{self.game_id} #{self.seq} {self.kind} {self.side} {self.dice or ''} {self.play}"
