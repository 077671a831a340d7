"""The chat's rows (``games.chat``): the messages of a game, a player's mute of the opponent
and the reports of messages to the staff. Only ``games.chat.chat`` writes them."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.room.models import Game

#: the most characters of a free-text message, once trimmed
TEXT_MAX = 140


class Sender(models.TextChoices):
    """Who sent a message: a player by their side, or someone watching."""

    WHITE = "white", _("White")
    BLACK = "black", _("Black")
    SPECTATOR = "spectator", _("Spectator")


class ChatMessage(models.Model):
    """One message of a game's chat: a preset phrase (``preset``, its key: every reader gets
    its words in their own language) or a signed-in player's own ``text`` (at most TEXT_MAX
    characters), never both. ``version`` is the game's version when it was sent (a message
    raises no version; the replay places it by this); ``sender`` a side or ``spectator``;
    ``user``/``guest`` the sender's account and session guest id."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat_messages")
    version = models.PositiveIntegerField()
    sender = models.CharField(max_length=9, choices=Sender.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    guest = models.CharField(max_length=64, blank=True)
    preset = models.CharField(max_length=16, blank=True)
    text = models.CharField(max_length=TEXT_MAX, blank=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["game", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(preset="") & ~Q(text="")) | (~Q(preset="") & Q(text="")),
                name="games_chatmessage_preset_or_text",
            ),
            models.CheckConstraint(
                condition=~Q(sender="spectator") | Q(text=""),
                name="games_chatmessage_spectators_send_presets",
            ),
        ]

    def __str__(self):
        return f"{self.sender}: {self.preset or self.text}"


class ChatMute(models.Model):
    """The player of ``side`` in ``game`` muted the opponent's chat: none of the opponent's
    messages reach them in that game (kept here, so a reload keeps it)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    side = models.CharField(max_length=8, choices=Sender.choices[:2])
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "side"], name="games_chatmute_once_per_side")
        ]

    def __str__(self):
        return f"{self.side} muted the chat of {self.game_id}"


class ChatReport(models.Model):
    """A signed-in player reported ``message`` (of their opponent) to the staff, who see it in
    the admin with the game's whole chat and mark it ``handled``."""

    message = models.ForeignKey(ChatMessage, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created = models.DateTimeField(default=timezone.now)
    handled = models.BooleanField(_("handled"), default=False)

    class Meta:
        ordering = ["handled", "-created"]
        constraints = [
            models.UniqueConstraint(
                fields=["message", "reporter"], name="games_chatreport_once_per_reporter"
            )
        ]

    def __str__(self):
        return f"report {self.pk} of message {self.message_id}"


def chat_closed(game: Game) -> bool:
    """True where ``game`` has no chat: a game against the computer, or a tournament's game
    (its first game or any of its match) whose event turned chat off."""
    if game.bot_side:
        return True
    # through the tournaments' reverse relations: their package imports the services, which
    # read the chat
    off = Q(pairing__tournament__chat_off=True)
    if game.match_id:
        off |= Q(match__pairing__tournament__chat_off=True)
    return Game.objects.filter(off, pk=game.pk).exists()
