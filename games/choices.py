"""The shared vocabulary of the game rows: presets, sides, statuses, phases, colours, bot
levels, results and event kinds (Django choices), used by every area of the site."""

from django.db import models
from django.utils.translation import gettext_lazy as _


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
