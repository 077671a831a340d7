"""The bot's answers to Telegram's updates (the webhook; https://core.telegram.org/bots/api
"Update"). An answer is returned as the webhook's response (a Bot API method in the body:
Telegram carries it out), so a reply costs no call of our own.

- ``/start`` (with or without a deep-link payload) and ``/play``: a short welcome and a
  button that opens the Mini App (in a private chat) in the user's language; any other text
  in a private chat: how to play.
- ``my_chat_member``: the user blocked the bot (no more notices) or started it again.

``parse`` reads an update's JSON, refusing the numbers JSON does not have (NaN, Infinity)."""

import json
import math

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from games.telegram import config, init_data, links, signin
from games.telegram.models import TelegramOff

#: the commands the bot answers; the menu lists them (``setup``)
COMMANDS = ("start", "play")
#: chat ids have at most 52 significant bits (the Bot API says so), negative for groups
MAX_CHAT_ID = 2**52 - 1


class NotFinite(ValueError):
    """An update holding NaN, Infinity or -Infinity (or a float too large for a double):
    Python's ``json`` reads them, but they are not JSON, and no reply may carry them."""


def _not_finite(text):
    raise NotFinite(f"{text} is not a JSON number")


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):  # "1e400" reads as infinity
        raise NotFinite(f"{text} is out of a double's range")
    return value


def parse(body):
    """The update in ``body`` (bytes or str of JSON). Raises NotFinite (a ValueError) for
    NaN, Infinity, -Infinity or a float past a double's range anywhere in it, ValueError for
    anything else that is not JSON (an integer of over 4,300 digits is one), RecursionError
    for JSON nested too deep."""
    return json.loads(body, parse_constant=_not_finite, parse_float=_finite_float)


def _command(text):
    """``(command, payload)`` of a message's text ("/play@NardyBot x" -> ("play", "x")), or
    (None, "") when it is no command or a command to another bot ("/play@OtherBot")."""
    if not text.startswith("/"):
        return None, ""
    head, _space, payload = text[1:].partition(" ")
    name, _at, bot = head.partition("@")
    ours = settings.TELEGRAM_BOT_USERNAME
    if bot and ours and bot.lower() != ours.lower():
        return None, ""
    return name.lower(), payload.strip()


def _dict(value):
    return value if isinstance(value, dict) else {}


def _user_id(value):
    """True when ``value`` can be a Telegram user's (or private chat's) id."""
    return (
        isinstance(value, int) and not isinstance(value, bool) and 0 < value < init_data.MAX_USER_ID
    )


def _chat_id(value):
    """True when ``value`` can be a chat's id (a whole JSON number, negative for groups)."""
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) <= MAX_CHAT_ID


def _open_button(chat_type, target, origin):
    if chat_type == "private":
        return {"text": _("Play"), "web_app": {"url": config.app_url(target or "", origin)}}
    link = config.mini_app_link()
    return {"text": _("Play"), "url": link} if link else None


def _reply(message, text, origin, target=None):
    chat = message["chat"]
    answer = {"method": "sendMessage", "chat_id": chat.get("id"), "text": text}
    button = _open_button(chat.get("type"), target, origin)
    if button is not None:
        answer["reply_markup"] = {"inline_keyboard": [[button]]}
    return answer


def answer(update, origin=None):
    """The answer to ``update`` (a dict, as Telegram posts it; any other shape is ignored): a
    Bot API method to carry out (a dict with ``method``), or None when nothing is to be said.
    ``origin``: the site's public origin for the buttons (default SITE_URL). Records what it
    learns: a user who starts the bot can be written to; one who blocks it is no longer."""
    if not isinstance(update, dict):
        return None
    member = update.get("my_chat_member")
    if isinstance(member, dict):
        _member_changed(member)
        return None
    message = update.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("chat"), dict):
        return None
    if not _chat_id(message["chat"].get("id")):
        return None  # no chat to answer in
    sender = _dict(message.get("from"))
    text = message.get("text")
    if not isinstance(text, str):
        text = ""
    language = links.language_of(sender.get("language_code"))
    command, payload = _command(text.strip())
    private = message["chat"].get("type") == "private"
    if command not in COMMANDS and not private:
        return None  # a group's talk is not for the bot
    with translation.override(language):
        if command in COMMANDS:
            if private and _user_id(sender.get("id")):
                links.chat_started(sender["id"])
            target = signin.start_path(payload) if payload else None
            return _reply(
                message,
                _(
                    "Long nardy: play the computer or a friend, rated games and tournaments, "
                    "without leaving Telegram. Tap the button to open the board."
                ),
                origin,
                target,
            )
        return _reply(message, _("Send /play, or tap the button, to open the board."), origin)


def _member_changed(member):
    chat, new = _dict(member.get("chat")), _dict(member.get("new_chat_member"))
    if chat.get("type") != "private" or not _user_id(chat.get("id")):
        return
    status = new.get("status")
    if status == "kicked":
        links.switch_off(chat["id"], TelegramOff.BLOCKED)
    elif status == "member":
        links.chat_started(chat["id"])
