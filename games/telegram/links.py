"""The players' chats with the bot (``TelegramLink``) and their choice of notices.

A player's Telegram id comes from their allauth social account (provider "telegram"): the
Telegram sign-in and the Mini App both make that account, so a player has at most one id."""

from allauth.socialaccount.models import SocialAccount
from django.conf import settings
from django.db import transaction

from games.telegram.models import TelegramLink, TelegramOff

#: the languages a notice can be written in (the site's)
LANGUAGES = frozenset(code for code, _name in settings.LANGUAGES)


class NoTelegramAccount(ValueError):
    """The player has not signed in with Telegram, so the bot has no chat to write to."""


def language_of(code, default="en"):
    """The site's language for a Telegram ``language_code`` ("ru", "bg-BG", ...), else
    ``default``."""
    if not isinstance(code, str):
        return default
    code = code.split("-")[0].lower()
    return code if code in LANGUAGES else default


def telegram_id_of(user_id):
    """The Telegram id (int) of the account ``user_id``, or None when it has none."""
    uid = (
        SocialAccount.objects.filter(user_id=user_id, provider="telegram")
        .values_list("uid", flat=True)
        .first()
    )
    return int(uid) if uid and uid.isdigit() else None


def user_of(telegram_id):
    """The account id (int) whose Telegram id is ``telegram_id``, or None."""
    return (
        SocialAccount.objects.filter(provider="telegram", uid=str(telegram_id))
        .values_list("user_id", flat=True)
        .first()
    )


def remember(user_id, telegram_id, language):
    """Record the chat of ``user_id`` (its Telegram id), with ``language`` (a site language)
    for its notices when it is new; a player's own choice of language and of notices is kept.
    Returns the link."""
    link, _created = TelegramLink.objects.update_or_create(
        user_id=user_id,
        defaults={"chat_id": telegram_id},
        create_defaults={"chat_id": telegram_id, "language": language},
    )
    return link


def choice_of(user_id):
    """The player's ``TelegramLink``, or None when they have no Telegram chat recorded."""
    return TelegramLink.objects.filter(user_id=user_id).first()


def set_notices(user_id, on, language):
    """Turn the player's notices on or off (``on``), writing them in ``language`` from now.
    Turning them on again also clears a refusal recorded earlier (the player may have
    unblocked the bot). Raises NoTelegramAccount when the player has no Telegram account.
    Returns the link."""
    telegram_id = telegram_id_of(user_id)
    if telegram_id is None:
        raise NoTelegramAccount(user_id)
    with transaction.atomic():
        link = remember(user_id, telegram_id, language)
        link.notices = bool(on)
        link.language = language
        if on:
            link.off_reason = ""
        link.save(update_fields=["notices", "language", "off_reason", "updated"])
    return link


def sending_to(user_id):
    """The player's link when notices go to them (asked for, not refused), else None."""
    return TelegramLink.objects.filter(user_id=user_id, notices=True, off_reason="").first()


def switch_off(chat_id, reason):
    """Stop writing to ``chat_id``: Telegram refused for good (``reason``, a TelegramOff:
    blocked, or unreachable). The player sees why on their profile."""
    TelegramLink.objects.filter(chat_id=chat_id).update(off_reason=TelegramOff(reason).value)


def chat_started(telegram_id):
    """The Telegram user ``telegram_id`` started the bot (/start, or unblocked it): it can
    write to them now, so a refusal recorded earlier no longer holds."""
    TelegramLink.objects.filter(chat_id=telegram_id).update(off_reason="")
