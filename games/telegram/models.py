"""A player's chat with the site's Telegram bot (``games.telegram``)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


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
