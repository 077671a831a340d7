"""Whether Telegram is on here, and the addresses that lead into it."""

import hashlib
import hmac
from urllib.parse import quote, urlencode

from django.conf import settings
from django.core import checks
from django.http import Http404
from django.urls import reverse

#: the session key that marks a visitor who came through the Mini App (pages.in_telegram)
SESSION_KEY = "telegram_app"
#: the cookie naming this browser (Telegram's web view) once it opened the Mini App: a random
#: token, so a reload of the same opening is told from a copy of it replayed elsewhere, and
#: the pages stay the Mini App's after a sign-out
DEVICE_COOKIE = "nardy_tg"
DEVICE_COOKIE_AGE = 365 * 24 * 3600

#: characters Telegram allows in a Mini App's start parameter (at most 512 of them)
START_PARAM_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
START_PARAM_MAX = 512


def enabled():
    """True when a bot token is configured (``settings.TELEGRAM_BOT_TOKEN``)."""
    return bool(settings.TELEGRAM_BOT_TOKEN)


def require_enabled():
    """Raise Http404 unless Telegram is on: its pages do not exist without a bot."""
    if not enabled():
        raise Http404("Telegram is not configured")


def bot_token():
    """The bot's token (str; "" when Telegram is off)."""
    return settings.TELEGRAM_BOT_TOKEN


def webhook_secret():
    """The webhook's secret (``[A-Za-z0-9_-]``, 1-256 characters, as Telegram's
    ``secret_token`` requires): ``settings.TELEGRAM_WEBHOOK_SECRET``, else an HMAC of the
    token keyed with SECRET_KEY, so each site has its own without configuring one."""
    if settings.TELEGRAM_WEBHOOK_SECRET:
        return settings.TELEGRAM_WEBHOOK_SECRET
    digest = hmac.new(settings.SECRET_KEY.encode(), bot_token().encode(), hashlib.sha256)
    return digest.hexdigest()[:48]


def site_origin(request=None):
    """The public origin (``https://host``): SITE_URL, else that of ``request``."""
    if settings.SITE_URL:
        return settings.SITE_URL
    if request is None:
        raise ValueError("SITE_URL is not set and there is no request to take the origin from")
    return f"{request.scheme}://{request.get_host()}"


def app_url(next_path="", origin=None):
    """The absolute URL of the Mini App's entry page (``/tg/``) on ``origin`` (default
    ``site_origin()``), opening ``next_path`` (a path of this site) once signed in; what a
    bot button of type ``web_app`` opens."""
    url = (origin or site_origin()) + reverse("telegram_app")
    return f"{url}?{urlencode({'next': next_path})}" if next_path else url


def valid_start_param(value):
    """True when ``value`` (str) may be a Mini App's start parameter."""
    return 0 < len(value) <= START_PARAM_MAX and set(value) <= START_PARAM_CHARS


def mini_app_link(start_param=""):
    """The ``https://t.me/...`` link that opens the Mini App in Telegram with ``start_param``
    (``startapp=``): the named Mini App (``TELEGRAM_MINI_APP_NAME``) or the bot's main one.
    "" when the bot's username is not configured. Raises ValueError for a start parameter
    Telegram would refuse."""
    if start_param and not valid_start_param(start_param):
        raise ValueError(f"not a valid start parameter: {start_param!r}")
    username = settings.TELEGRAM_BOT_USERNAME
    if not username:
        return ""
    name = settings.TELEGRAM_MINI_APP_NAME
    link = f"https://t.me/{quote(username)}" + (f"/{quote(name)}" if name else "")
    return f"{link}?{urlencode({'startapp': start_param})}" if start_param else link


def share_link(url, text):
    """Telegram's share link: choosing a chat there sends ``text`` with ``url``."""
    return "https://t.me/share/url?" + urlencode({"url": url, "text": text})


@checks.register(checks.Tags.compatibility)
def check_site_url(app_configs=None, **kwargs):
    """A warning when a bot is configured without an https SITE_URL: Telegram opens and calls
    only https addresses, and the notices (sent from Celery, with no request) link there."""
    if enabled() and not settings.SITE_URL.startswith("https://"):
        return [
            checks.Warning(
                "TELEGRAM_BOT_TOKEN is set but SITE_URL is not an https:// origin.",
                hint="Set SITE_URL to the site's public https origin (README, Telegram).",
                id="games.W010",
            )
        ]
    return []
