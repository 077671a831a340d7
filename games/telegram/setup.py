"""Telling Telegram about this site (``manage.py telegram_setup``): the webhook (its URL with
the secret in the path, the same secret as the ``X-Telegram-Bot-Api-Secret-Token`` header,
the updates it wants), the chat's menu button that opens the Mini App, and the bot's
commands in each of the site's languages."""

from urllib.parse import urlsplit

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from games.telegram import bot_api, config, webhook

#: the updates the webhook reads (webhook.answer)
ALLOWED_UPDATES = ["message", "my_chat_member"]


def checked_origin(origin):
    """``origin`` as ``https://host[:port]`` (a trailing slash dropped). Raises ValueError
    for anything else: another scheme, no host, a path, a query or a fragment."""
    parts = urlsplit(origin.strip())
    if (
        parts.scheme != "https"
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username
    ):
        raise ValueError(f"Telegram needs the site's https:// origin with no path, not {origin!r}")
    return f"https://{parts.netloc}"


def webhook_url(origin):
    """The webhook's absolute URL on ``origin`` (``https://host``)."""
    return origin + reverse("telegram_webhook", kwargs={"secret": config.webhook_secret()})


def commands(language):
    """The bot's command list in ``language`` (``setMyCommands``' ``commands``)."""
    with translation.override(language):
        descriptions = {"play": _("Open the board"), "start": _("About the bot")}
    return [{"command": name, "description": descriptions[name]} for name in webhook.COMMANDS]


def configure(origin, menu_language=None):
    """Set the webhook, the menu button (its text in ``menu_language``, default the site's
    LANGUAGE_CODE) and the commands (the default list in English, one per language) for the
    site at ``origin``, which must be https (Telegram calls and opens only https). Returns
    the list of methods called. Raises ValueError for a bad origin, bot_api.BotApiError for
    a refusal."""
    config.require_enabled()
    origin = checked_origin(origin)
    calls = [
        (
            "setWebhook",
            {
                "url": webhook_url(origin),
                "secret_token": config.webhook_secret(),
                "allowed_updates": ALLOWED_UPDATES,
            },
        )
    ]
    with translation.override(menu_language or settings.LANGUAGE_CODE):
        calls.append(
            (
                "setChatMenuButton",
                {
                    "menu_button": {
                        "type": "web_app",
                        "text": _("Play"),
                        "web_app": {"url": origin + reverse("telegram_app")},
                    }
                },
            )
        )
    calls.append(("setMyCommands", {"commands": commands("en")}))
    for code, _name in settings.LANGUAGES:
        calls.append(("setMyCommands", {"commands": commands(code), "language_code": code}))
    for method, payload in calls:
        bot_api.call(method, payload)
    return [method for method, _payload in calls]


def remove():
    """Remove the webhook (the bot stops hearing updates). Returns ["deleteWebhook"]."""
    config.require_enabled()
    bot_api.call("deleteWebhook", {})
    return ["deleteWebhook"]
