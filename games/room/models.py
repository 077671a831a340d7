"""The game room's rows: a game (and the match it belongs to), the record of every roll and
play in it, who has it open, its post-game analysis, and uploaded records.

Only ``games.services`` changes games and their events (inside a transaction, with the game
row locked); everything else reads them.
"""

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.choices import (
    BotLevel,
    Colour,
    EndReason,
    EventKind,
    Phase,
    Preset,
    ResultKind,
    Side,
    Status,
    other_side,
)
from games.engine import Position, check_play, get_ruleset


class GameQuerySet(models.QuerySet):
    """Domain queries on games: ``Game.objects.active()``, ``.for_guest(guest_id)``, …"""

    def active(self):
        """Games still being played."""
        return self.filter(status=Status.ACTIVE)

    def finished(self):
        """Games that have ended with a result (aborted games have none)."""
        return self.filter(status=Status.FINISHED)

    def with_expired_deadline(self, now):
        """Active games whose clock ``deadline`` (a datetime) is at or before ``now``."""
        return self.active().filter(deadline__lte=now)

    def for_guest(self, guest_id):
        """Games in which the guest ``guest_id`` (a session's guest id) plays either side."""
        if not guest_id:
            return self.none()
        return self.filter(models.Q(white_guest=guest_id) | models.Q(black_guest=guest_id))

    def against_bot(self):
        """Games in which one side is played by the computer."""
        return self.exclude(bot_side="")


class Match(models.Model):
    """A match of preset ``match`` (RULES.md R11): games follow one another until a side's
    score reaches ``length``. The winner of a game starts the next one (no roll-off).

    The players are those of its games (kept here too, so a finished match still knows them);
    ``games`` (Game.match) in ``match_number`` order are the match's games.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    preset = models.CharField(max_length=16, choices=Preset.choices, default=Preset.MATCH)
    length = models.PositiveSmallIntegerField()
    white_score = models.PositiveSmallIntegerField(default=0)
    black_score = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    winner = models.CharField(max_length=8, choices=Side.choices, blank=True)
    white_guest = models.CharField(max_length=64, blank=True, db_index=True)
    black_guest = models.CharField(max_length=64, blank=True, db_index=True)
    bot_side = models.CharField(max_length=8, choices=Side.choices, blank=True)
    bot_level = models.CharField(max_length=16, blank=True)
    rated = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(length__in=(1, 3, 5, 7)), name="games_match_length_1357"
            ),
        ]

    def __str__(self):
        return (
            f"match {self.id} to {self.length} ({self.white_score}-{self.black_score}, "
            f"{self.status})"
        )

    def score(self):
        """``{"white": n, "black": m}``: the points each side has won so far."""
        return {Side.WHITE.value: self.white_score, Side.BLACK.value: self.black_score}

    def latest_game(self):
        """The match's last game so far (the one being played while the match is on)."""
        return self.games.order_by("-match_number").first()


class Game(models.Model):
    """One long-nardy game.

    ``position`` is the RULES.md JSON position (its ``turn`` is the side to move), ``phase``
    says whether that side rolls or plays next, ``dice`` is the roll to play in phase "play"
    (else null). ``version`` rises by one with every recorded event, so a client can tell
    whether its view is current (docs/protocol.md). A side is played by a guest
    (``white_guest``/``black_guest``: a session's guest id) or by the bot (``bot_side``).

    Table options (RULES.md R12): ``table`` holds the engine's per-table overrides of the
    preset (``{"koks": bool, "cube": bool}`` for ``classic``, else empty); ``colour`` is the
    side the player asked for. A game of a ``match`` belongs to ``match`` as game number
    ``match_number``. The doubling cube (R10): ``cube_value`` and ``cube_owner`` ("" = in the
    middle); in phase ``cube`` the side to move has offered a double and the other side
    answers. Verifiable dice: every roll is derived from the secret ``seed`` (hex; see
    ``games.engine.fairdice``), whose SHA-256 ``seed_hash`` is public from the start; ``rolls``
    is the number of the next roll. Games created before seeds existed have an empty seed.
    ``plays`` counts the play events recorded (passes too): the next play's turn number in
    the history is ``plays + 1``.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    preset = models.CharField(max_length=16, choices=Preset.choices, default=Preset.SPORT)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    white_guest = models.CharField(max_length=64, blank=True, db_index=True)
    black_guest = models.CharField(max_length=64, blank=True, db_index=True)
    # Accounts come later; these let a game belong to a signed-in user without a data migration.
    white_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    black_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    bot_side = models.CharField(max_length=8, choices=Side.choices, blank=True)
    bot_level = models.CharField(max_length=16, choices=BotLevel.choices, blank=True)
    # A rated game (two accounts, RULES.md presets): its result changes both Glicko-2 ratings
    # once, in the transaction that ends it (a match is rated once, when it ends).
    rated = models.BooleanField(default=False)
    position = models.JSONField()
    phase = models.CharField(max_length=8, choices=Phase.choices, default=Phase.ROLL)
    dice = models.JSONField(null=True, blank=True)
    opening = models.JSONField(default=dict, blank=True)
    table = models.JSONField(default=dict, blank=True)
    colour = models.CharField(max_length=8, choices=Colour.choices, blank=True)
    match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.CASCADE, related_name="games"
    )
    match_number = models.PositiveSmallIntegerField(null=True, blank=True)
    cube_value = models.PositiveSmallIntegerField(default=1)
    cube_owner = models.CharField(max_length=8, choices=Side.choices, blank=True)
    seed = models.CharField(max_length=64, blank=True)
    seed_hash = models.CharField(max_length=64, blank=True)
    rolls = models.PositiveIntegerField(default=0)
    plays = models.PositiveIntegerField(default=0)
    version = models.PositiveIntegerField(default=0)
    winner = models.CharField(max_length=8, choices=Side.choices, blank=True)
    result_kind = models.CharField(max_length=8, choices=ResultKind.choices, blank=True)
    result_points = models.PositiveSmallIntegerField(null=True, blank=True)
    end_reason = models.CharField(max_length=16, choices=EndReason.choices, blank=True)
    # Clock (RULES.md R11, games.clocks): the spec ({} = no clock), the running period of the
    # side that must act, when it and the turn began, each side's reserve, and the next
    # instant at which something expires (the beat sweep looks for it).
    clock = models.JSONField(default=dict, blank=True)
    clock_period = models.CharField(max_length=8, blank=True)
    period_started = models.DateTimeField(null=True, blank=True)
    turn_started = models.DateTimeField(null=True, blank=True)
    white_reserve_ms = models.PositiveIntegerField(null=True, blank=True)
    black_reserve_ms = models.PositiveIntegerField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    # Presence: since when a player has had no open socket (None: here, or not yet seen).
    white_away_since = models.DateTimeField(null=True, blank=True)
    black_away_since = models.DateTimeField(null=True, blank=True)
    # Outages (games.services.outages): the id of the last ``Outage`` this game has accounted
    # for (its clocks were credited with it, or it ended before the game began), and the
    # length of the last one credited (ms) with ``plays`` at that moment: the pages show a
    # note until the next play.
    outages_seen = models.PositiveIntegerField(default=0)
    paused_ms = models.PositiveIntegerField(null=True, blank=True)
    paused_at_play = models.PositiveIntegerField(null=True, blank=True)
    # A rematch after a finished game between people (``games.services.rematch``): the side
    # whose offer waits for the other's press, the side that last declined it (or left with
    # its offer open), and the new game both presses started (``rematch_of`` from it).
    rematch_offer = models.CharField(max_length=8, choices=Side.choices, blank=True)
    rematch_declined = models.CharField(max_length=8, choices=Side.choices, blank=True)
    rematch = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch_of"
    )
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
            models.CheckConstraint(
                condition=models.Q(status="active") | models.Q(deadline__isnull=True),
                name="games_game_over_has_no_deadline",
            ),
            models.CheckConstraint(
                condition=models.Q(cube_value__in=(1, 2, 4, 8, 16, 32, 64)),
                name="games_game_cube_value",
            ),
            models.UniqueConstraint(
                fields=["match", "match_number"], name="games_game_unique_match_number"
            ),
        ]

    def __str__(self):
        return f"{self.get_preset_display()} game {self.id} ({self.status}, v{self.version})"

    @property
    def ruleset(self):
        """The engine Ruleset of this game: its preset (RULES.md R12) with the table options."""
        return get_ruleset(self.preset, self.table or None)

    @property
    def is_over(self):
        """True once the game has finished (with a result) or was aborted (without one)."""
        return self.status != Status.ACTIVE

    @property
    def awaiting(self):
        """The side that must act now: the side to move, or in phase ``cube`` the side offered
        the double; None once the game is over."""
        if self.is_over:
            return None
        if self.phase == Phase.CUBE:
            return other_side(self.position["turn"])
        return self.position["turn"]

    def may_double(self, side):
        """Whether ``side`` may offer a double now (R10): the table has the cube, ``side`` is to
        roll, the cube is in the middle or ``side`` owns it, and it is below 64."""
        return (
            self.ruleset.cube
            and self.status == Status.ACTIVE
            and self.phase == Phase.ROLL
            and self.turn == side
            and self.cube_owner in ("", side)
            and self.cube_value < 64
        )

    def get_position(self):
        """The stored position as an engine ``Position``."""
        return Position.from_json(self.position)

    @property
    def turn(self):
        """The side to move, or None once the game is over."""
        if self.is_over:
            return None
        return self.position["turn"]

    def reserve_of(self, side):
        """``side``'s clock reserve in ms (None without a clock)."""
        return self.white_reserve_ms if side == Side.WHITE else self.black_reserve_ms

    def set_reserve(self, side, ms):
        """Set ``side``'s clock reserve (ms)."""
        if side == Side.WHITE:
            self.white_reserve_ms = ms
        else:
            self.black_reserve_ms = ms

    def away_since(self, side):
        """Since when ``side``'s player has had no open socket (a datetime), or None."""
        return self.white_away_since if side == Side.WHITE else self.black_away_since

    def set_away_since(self, side, when):
        """Record since when ``side``'s player is away (None: here)."""
        if side == Side.WHITE:
            self.white_away_since = when
        else:
            self.black_away_since = when

    def human_sides(self):
        """The sides played by people (not the bot), in R1 order."""
        return [side for side in Side.values if side != self.bot_side]

    def guest_of(self, side):
        """The guest id playing ``side`` ("" if the bot or nobody plays it)."""
        return self.white_guest if side == Side.WHITE else self.black_guest

    def side_of(self, viewer):
        """The side ``viewer`` plays, or None for an onlooker. ``viewer`` is a
        ``games.services.Actor`` (the bot; or a person by the guest id of their session, then
        by account), a guest id string, or None."""
        if viewer is None or isinstance(viewer, str):
            return self.side_of_guest(viewer)
        if getattr(viewer, "bot", False):
            return self.bot_side or None
        # the session's own seat first: a browser keeps the side it sat down on
        by_guest = self.side_of_guest(getattr(viewer, "guest_id", None))
        if by_guest is not None:
            return by_guest
        user_id = getattr(viewer, "user_id", None)
        if user_id:
            if self.white_user_id == user_id:
                return Side.WHITE.value
            if self.black_user_id == user_id:
                return Side.BLACK.value
        return None

    def plays_by_side(self, whole_match=False, passes=True):
        """``{"white": n, "black": n}``: the plays each side made in this game or, with
        ``whole_match``, in every game of its match (the sides keep their colours through a
        match); passes count unless ``passes`` is False. One query."""
        plays = GameEvent.objects.filter(kind=EventKind.PLAY)
        if whole_match and self.match_id:
            plays = plays.filter(game__match_id=self.match_id)
        else:
            plays = plays.filter(game=self)
        if not passes:
            plays = plays.exclude(play="")
        counts = dict(
            plays.order_by().values("side").annotate(n=models.Count("pk")).values_list("side", "n")
        )
        return {side: counts.get(side, 0) for side in Side.values}

    def user_of(self, side):
        """The account id playing ``side`` (None for a guest or the bot)."""
        return self.white_user_id if side == Side.WHITE else self.black_user_id

    def side_of_guest(self, guest_id):
        """The side the guest ``guest_id`` plays, or None for an onlooker."""
        if not guest_id:
            return None
        if self.white_guest == guest_id:
            return Side.WHITE.value
        if self.black_guest == guest_id:
            return Side.BLACK.value
        return None

    def offers_hints(self, side):
        """Whether the player of ``side`` (None: an onlooker) gets hints here
        (``games.services.hints``): the human side of an unrated game against the computer."""
        return bool(self.bot_side) and not self.rated and side not in (None, self.bot_side)

    @property
    def is_bot_turn(self):
        """True while the game is on and the bot must act (roll, play, or answer a double)."""
        return bool(self.bot_side) and self.awaiting == self.bot_side

    def replay(self, before_seq=None):
        """Replay the game from its record and return the engine ``Position`` it leads to
        (with ``before_seq``: the position just before the event of that ``seq``).

        Starts from the R2 start position with the winner of the opening event (R3) to move,
        then applies every recorded play (checked again by the engine with its recorded dice).
        The result equals the stored ``position`` for any game changed only by the services.
        Raises ``ValueError`` if the record has no opening or holds a play the engine rejects.
        """
        ruleset = self.ruleset
        position = None
        events = self.events.order_by("seq")
        if before_seq is not None:
            events = events.filter(seq__lt=before_seq)
        for event in events:
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
    roll and play events and [white die, black die] for the opening (null when the previous
    game's winner starts a match game, R11); ``play`` is the play in RULES.md notation ("" for
    a pass). ``side`` is the side that acted (for the opening and the end: the side to move
    first / the winner). ``roll_number`` is the number of a roll event's roll (its dice come
    from the game's seed and this number); ``cube`` is the cube value a double offers, a take
    makes, or a drop leaves as the stake.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=EventKind.choices)
    side = models.CharField(max_length=8, choices=Side.choices, blank=True)
    dice = models.JSONField(null=True, blank=True)
    play = models.CharField(max_length=200, blank=True)
    roll_number = models.PositiveIntegerField(null=True, blank=True)
    cube = models.PositiveSmallIntegerField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="games_event_unique_seq"),
        ]

    def __str__(self):
        return f"{self.game_id} #{self.seq} {self.kind} {self.side} {self.dice or ''} {self.play}"


class Presence(models.Model):
    """One open socket of a player in a game (docs/protocol.md "Presence"): a side is here while
    it has at least one row seen within ``games.services.PRESENCE_STALE_MS``. The consumer adds
    its row on connect, touches ``seen`` while open and removes it on disconnect; the beat sweep
    removes rows of sockets that died without a disconnect (a killed Daphne)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="presences")
    side = models.CharField(max_length=8, choices=Side.choices)
    channel_name = models.CharField(max_length=200, unique=True)
    seen = models.DateTimeField(db_index=True)

    def __str__(self):
        return f"{self.game_id} {self.side} {self.channel_name}"


class ImportedRecord(models.Model):
    """A game record uploaded on the import page (docs/record-format.md) that the engine
    replayed without fault; shown as a replay. ``text`` is the record as written by the
    record writer (normalised), ``title`` a short name from its headers, ``guest`` the
    uploader's guest id. ``opened``: when its replay was last opened (to the day), so that
    records nobody opens any more expire (``services.expire_imports``)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    text = models.TextField()
    title = models.CharField(max_length=200, blank=True)
    guest = models.CharField(max_length=64, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    opened = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self):
        return f"imported record {self.id} ({self.title})"


class AnalysisStatus(models.TextChoices):
    PENDING = "pending", _("Pending")
    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class GameAnalysis(models.Model):
    """The post-game analysis of a finished game (``games.room.analysis``), one per game.

    ``status``: pending (queued), running, done, failed (``error`` says why). When done:
    ``plays`` is one row per play of the record, in order (``{"n", "side", "dice", "played",
    "plays", "mark"}`` and, unless forced, ``"best"``, ``"best_position"``, ``"best_equity"``,
    ``"played_equity"``, ``"lost"``: cubeless points per game for the mover), ``summary`` is
    ``{"white"|"black": {"analysed", "forced", "best", "mistakes", "blunders", "lost",
    "error_rate"}}``, ``version`` the ``games.room.analysis.ANALYSIS_VERSION`` and ``method`` the
    evaluator it was made with, ``game_version`` the game's version analysed and
    ``duration_ms`` how long the analysis took."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis")
    status = models.CharField(
        max_length=8, choices=AnalysisStatus.choices, default=AnalysisStatus.PENDING
    )
    version = models.PositiveSmallIntegerField(default=0)
    method = models.CharField(max_length=200, blank=True)
    game_version = models.PositiveIntegerField(null=True, blank=True)
    plays = models.JSONField(default=list, blank=True)
    summary = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    requested = models.DateTimeField()
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)

    def __str__(self):
        return f"analysis of {self.game_id} ({self.status})"
