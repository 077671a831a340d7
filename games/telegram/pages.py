"""What a page opened inside Telegram gets: Telegram's script (``telegram-web-app.js``),
our glue (static/js/telegram-app.js) and a CSP and framing that allow them, and only there.

A page is "inside Telegram" when its visitor came in through the Mini App (the session mark
``config.SESSION_KEY``, or the browser's ``config.DEVICE_COOKIE``, which outlives a sign-out)
or it is one of the Mini App's own pages (their views mark those). Such a page is never
served from or into the rules pages' shared page cache (``request.uncached_page``): it
differs per visitor."""

import secrets

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _

from games.telegram import config, links, signin

#: Telegram's script for Mini Apps (it must come from telegram.org); the CSP allows it alone
SCRIPT_URL = "https://telegram.org/js/telegram-web-app.js"
#: where Telegram's web clients frame a Mini App (web.telegram.org/k/ and /a/)
FRAME_ORIGINS = ["https://web.telegram.org"]


def in_telegram(request):
    """True when ``request``'s page is to be shown as part of the Mini App."""
    if not config.enabled():
        return False
    if getattr(request, "telegram_page", False):
        return True
    if request.COOKIES.get(config.DEVICE_COOKIE):
        return True
    session = getattr(request, "session", None)
    return bool(session is not None and session.get(config.SESSION_KEY))


def mark_device(request, response):
    """Give this browser its ``config.DEVICE_COOKIE`` (a random token) if it has none yet:
    HttpOnly, and in production SameSite=None and Secure like the session (Telegram's web
    clients frame the app)."""
    if request.COOKIES.get(config.DEVICE_COOKIE):
        return
    response.set_cookie(
        config.DEVICE_COOKIE,
        secrets.token_urlsafe(18),
        max_age=config.DEVICE_COOKIE_AGE,
        httponly=True,
        secure=settings.SESSION_COOKIE_SECURE,
        samesite=settings.SESSION_COOKIE_SAMESITE,
    )


def context(request):
    """Template context processor: ``telegram_app`` (dict or None): for a page inside
    Telegram, the script's URL and the Mini App's home (the BackButton's target when there is
    no page to go back to)."""
    if not in_telegram(request):
        return {"telegram_app": None}
    return {"telegram_app": {"script": SCRIPT_URL, "home": reverse("games:my_games")}}


def bot_link():
    """``https://t.me/<bot>`` (the chat with the bot), or "" without its username."""
    username = settings.TELEGRAM_BOT_USERNAME
    return f"https://t.me/{username}" if username else ""


class TelegramPagesMiddleware:
    """For a page inside Telegram (``in_telegram``): allows Telegram's script (CSP
    ``script-src``) and framing by Telegram's web clients (CSP ``frame-ancestors``, no
    X-Frame-Options), and keeps the page out of the shared page cache. Sits after
    XFrameOptionsMiddleware in MIDDLEWARE (its answer passes here first) and inside
    django-csp's CSPMiddleware, which reads the changes from the response."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        telegram = in_telegram(request)
        if telegram:
            request.uncached_page = True
        response = self.get_response(request)
        if telegram or getattr(request, "telegram_page", False):
            response._csp_update = {"script-src": [SCRIPT_URL]}
            response._csp_replace = {"frame-ancestors": FRAME_ORIGINS}
            response.xframe_options_exempt = True
        return response


def challenge_link(request, challenge_id):
    """For a page inside Telegram: the link that opens the challenge ``challenge_id`` in the
    Mini App (``https://t.me/<bot>?startapp=c…``), else "" (also without the bot's
    username)."""
    if not in_telegram(request):
        return ""
    return config.mini_app_link(signin.start_param_for("c", challenge_id))


def challenge_share_link(request, challenge_id):
    """For a page inside Telegram: Telegram's share link for the challenge ``challenge_id``
    (choosing a chat there sends an invitation with the ``startapp`` link that opens the
    challenge in the Mini App), else "" (also when the bot's username is not configured)."""
    link = challenge_link(request, challenge_id)
    if not link:
        return ""
    return config.share_link(link, _("A game of long nardy with me? Tap the link to accept."))


def notices_section(user_id):
    """What the own profile shows of Telegram notices (None when Telegram is off here):
    ``{"account": bool (signed in with Telegram), "on": bool (asked for), "off_reason": the
    TelegramOff label or "", "bot_url": "https://t.me/<bot>" or ""}``."""
    if not config.enabled():
        return None
    link = links.choice_of(user_id)
    return {
        "account": links.telegram_id_of(user_id) is not None,
        "on": bool(link and link.notices),
        "off_reason": link.get_off_reason_display() if link and link.off_reason else "",
        "bot_url": bot_link(),
    }
