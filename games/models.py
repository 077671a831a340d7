"""Game models: a long-nardy game and the record of every roll and play in it.

Only ``games.services`` changes these rows (inside a transaction, with the game row locked);
everything else reads them.
"""

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

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
    ABORTED = "aborted", _("Aborted")


class Phase(models.TextChoices):
    """What happens next: the side to move rolls (or doubles, R10), plays the rolled dice, the
    other side answers an offered double (``cube``), or nothing (over)."""

    ROLL = "roll", _("Roll")
    CUBE = "cube", _("Answer the double")
    PLAY = "play", _("Play")
    OVER = "over", _("Over")


class Colour(models.TextChoices):
    """The side a player asked for when creating a game (``random``: drawn by the server)."""

    WHITE = "white", _("White")
    BLACK = "black", _("Black")
    RANDOM = "random", _("Random")


class BotLevel(models.TextChoices):
    """Strength of the computer opponent (see ``games.bots``)."""

    EASY = "easy", _("Easy")
    MEDIUM = "medium", _("Medium")
    HARD = "hard", _("Hard")
    EXPERT = "expert", _("Expert")


class ResultKind(models.TextChoices):
    """RULES.md R9 game values."""

    OIN = "oin", _("Oin")
    MARS = "mars", _("Mars")
    KOKS = "koks", _("Koks")


class EndReason(models.TextChoices):
    """How a game ended (RULES.md R9-R11): the winner bore off its last checker, the loser
    resigned, declined a double, ran out of time, or left (did not come back in time, or the
    opponent claimed the win after the grace period)."""

    BORE_OFF = "bore_off", _("Bore off all checkers")
    RESIGN = "resign", _("Resignation")
    DROP = "drop", _("Double declined")
    TIMEOUT = "timeout", _("Out of time")
    ABANDON = "abandon", _("Left the game")
    #: only in ``Abandonment.reason``: a rated game aborted before the player's first play
    ABORT = "abort", _("Aborted before a first play")


class EventKind(models.TextChoices):
    """Kinds of ``GameEvent``: the opening roll (R3), a roll, a play (a pass is the play ""),
    the cube actions (R10: double, take, drop), a resignation, a loss on time or by leaving
    (R11; ``side`` is the side that lost), an abort (no-show: nobody wins), the end of the
    game, and a pause: the clocks were credited with a server outage (``games.services.outages``;
    not part of the game's record)."""

    OPENING = "opening", _("Opening roll")
    ROLL = "roll", _("Roll")
    PLAY = "play", _("Play")
    DOUBLE = "double", _("Double")
    TAKE = "take", _("Take")
    DROP = "drop", _("Drop")
    RESIGN = "resign", _("Resignation")
    TIMEOUT = "timeout", _("Out of time")
    ABANDON = "abandon", _("Left the game")
    ABORT = "abort", _("Aborted")
    END = "end", _("End")
    PAUSE = "pause", _("Clocks paused by an outage")


def other_side(side):
    """The opponent of ``side`` ("white" <-> "black")."""
    return Side.BLACK.value if side == Side.WHITE else Side.WHITE.value


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


class ChallengeStatus(models.TextChoices):
    """Where a challenge link stands: waiting for a friend, taken (the game exists) or
    withdrawn by its creator."""

    OPEN = "open", _("Waiting")
    ACCEPTED = "accepted", _("Accepted")
    CANCELLED = "cancelled", _("Cancelled")


class Challenge(models.Model):
    """A link to a game between people: its creator picks the table options and a side; the
    first other person who opens the link and accepts plays the other side. The game runs the
    preset's clock (RULES.md R12). ``table``, ``match_length`` as in
    ``games.services.table_options``; ``game`` is set once accepted."""

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
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self):
        return f"challenge {self.id} ({self.preset}, {self.status})"


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
    #: only: the admin's pairs of accounts that play each other, ``games.collusion``)
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
    """The post-game analysis of a finished game (``games.analysis``), one per game.

    ``status``: pending (queued), running, done, failed (``error`` says why). When done:
    ``plays`` is one row per play of the record, in order (``{"n", "side", "dice", "played",
    "plays", "mark"}`` and, unless forced, ``"best"``, ``"best_position"``, ``"best_equity"``,
    ``"played_equity"``, ``"lost"``: cubeless points per game for the mover), ``summary`` is
    ``{"white"|"black": {"analysed", "forced", "best", "mistakes", "blunders", "lost",
    "error_rate"}}``, ``version`` the ``games.analysis.ANALYSIS_VERSION`` and ``method`` the
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


class Heartbeat(models.Model):
    """The clock keeper's heartbeat (one row, pk 1; ``games.services.outages``): when the beat
    sweep (or a server that found it silent) last noted the site up, and the id of the last
    ``Outage`` recorded, so every process learns of a new outage from this one row."""

    beat_at = models.DateTimeField()
    last_outage = models.PositiveIntegerField(default=0)

    def __str__(self):
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

    def __str__(self):
        return f"outage {self.started} - {self.ended} ({self.length_ms} ms)"

    @property
    def length_ms(self):
        """The outage's length (ms)."""
        return round((self.ended - self.started).total_seconds() * 1000)


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


class TelegramOff(models.TextChoices):
    """Why the bot no longer writes to a player (``TelegramLink.off_reason``)."""

    BLOCKED = "blocked", _("you blocked the bot")
    UNREACHABLE = "unreachable", _("Telegram does not let the bot write to you")


class TelegramLink(models.Model):
    """A signed-in player's chat with the site's bot (games/telegram/links.py): where their
    notices go (``chat_id``, their Telegram user id: a private chat has the user's id), in
    which language, and whether they asked for them (``notices``, off until they opt in on
    their profile). ``off_reason`` is set when Telegram refused a message for good (the player
    blocked the bot, or never started it); sending stops until they turn notices on again."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="telegram_link"
    )
    chat_id = models.BigIntegerField(unique=True)
    language = models.CharField(max_length=8, default="en")
    notices = models.BooleanField(default=False)
    off_reason = models.CharField(
        max_length=16, choices=TelegramOff.choices, blank=True, default=""
    )
    updated = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"telegram {self.chat_id} of user {self.user_id}"

    @property
    def sending(self):
        """True when the player's notices go out (asked for, and not refused by Telegram)."""
        return self.notices and not self.off_reason


class UsedToken(models.Model):
    """A one-use sign-in credential already spent (games/one_use.py): ``key`` names it
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
