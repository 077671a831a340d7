"""Signing a Mini App's user in: the same account as the Telegram sign-in gives (the same
allauth social account, provider "telegram", uid the Telegram id), made on the first visit;
a guest's games move to it as at any sign-in (``games.accounts.adopt_guest``)."""

import hashlib
import json
import logging
import math
import uuid

from allauth.socialaccount.adapter import get_adapter as get_social_adapter
from allauth.socialaccount.helpers import complete_social_login
from django.conf import settings
from django.shortcuts import redirect
from django.urls import reverse, translate_url
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme

from games.accounts import one_use
from games.telegram import config, init_data, links

logger = logging.getLogger(__name__)

#: how long a used initData is remembered with the browser that used it (seconds): longer
#: than it is valid, so that browser may reopen it after a sign-out
USED_TTL = 7 * 24 * 3600
#: the start parameter's prefixes: what the ``startapp`` link opens
START_TARGETS = {"c": "games:challenge", "g": "games:game", "t": "games:tournament"}
START_ARGUMENTS = {"c": "challenge_id", "g": "game_id", "t": "tournament_id"}


def start_param_for(kind, object_id):
    """The ``startapp`` value that opens ``object_id`` (a UUID) of ``kind`` ("c" a
    challenge, "g" a game, "t" a tournament): the kind's letter and the UUID's 32 hex digits."""
    if kind not in START_TARGETS:
        raise ValueError(f"unknown start kind {kind!r}")
    return kind + object_id.hex


def start_path(start_param):
    """The path a ``startapp`` value opens, in the active language; None if it names nothing
    this site knows."""
    kind, digits = start_param[:1], start_param[1:]
    if kind not in START_TARGETS or len(digits) != 32:
        return None
    try:
        object_id = uuid.UUID(hex=digits)
    except ValueError:
        return None
    return reverse(START_TARGETS[kind], kwargs={START_ARGUMENTS[kind]: object_id})


def next_path(request, data, requested, language):
    """Where the Mini App goes once signed in, in ``language`` (active): what its start
    parameter names, else ``requested`` (a path of this site from the app's URL, translated),
    else the player's games and the new-game form."""
    target = start_path(data.start_param) if data.start_param else None
    if target:
        return target
    local = requested.startswith("/") and not requested.startswith("//")
    if local and url_has_allowed_host_and_scheme(
        requested, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        # translate_url resolves the path in its own language, then names it in ours
        with translation.override(translation.get_language_from_path(requested)):
            return translate_url(requested, language)
    return reverse("games:my_games")


def _same_player(request, telegram_id):
    user = getattr(request, "user", None)
    return bool(user and user.is_authenticated and links.telegram_id_of(user.pk) == telegram_id)


def claimed_language(raw):
    """The site language named by the ``language_code`` of ``raw`` initData's user, read
    without checking the signature (only to word a refusal), else the active one."""
    try:
        user = json.loads(init_data.parse_fields(raw).get("user", ""))
    except (init_data.InitDataRefused, ValueError, RecursionError):
        user = None
    code = user.get("language_code") if isinstance(user, dict) else None
    return links.language_of(code, translation.get_language())


def used_key(data):
    """The ``one_use`` key that remembers ``data`` (InitData) as used, and by which browser."""
    return f"init-data:{data.hash}"


def device_of(request):
    """The ``one_use`` holder of this browser: the SHA-256 (hex) of its
    ``config.DEVICE_COOKIE``, so any cookie fits and the database holds no live cookie; ""
    when it has none."""
    device = request.COOKIES.get(config.DEVICE_COOKIE, "")
    if not device:
        return ""
    return hashlib.sha256(device.encode("utf-8", "surrogatepass")).hexdigest()


def check(request, raw):
    """Check ``raw`` initData for this request. Returns ``(data, fresh)``: ``fresh`` False
    when the visitor is already signed in as that Telegram user (the app reopened, or a page
    reloaded), so nothing more is needed; then an older, already used opening is accepted.
    Otherwise the data must be fresh (``TELEGRAM_AUTH_MAX_AGE``) and unused: each signature
    signs in once, so a copy of it replayed from another browser is refused; only the
    browser that used it (its ``config.DEVICE_COOKIE``) may use it again, e.g. after signing
    out. The uses are kept in the database (``games.accounts.one_use``), so a Redis that lost
    its data forgets none. Raises InitDataRefused."""
    token = config.bot_token()
    device = device_of(request)
    try:
        data = init_data.check(raw, token)
    except init_data.InitDataRefused as refused:
        if refused.reason != "expired":
            raise
        data = init_data.check(raw, token, max_age=math.inf)
        if _same_player(request, data.telegram_id):
            return data, False
        if not device or one_use.holder_of(used_key(data)) != device:
            raise
        return data, True
    if _same_player(request, data.telegram_id):
        return data, False
    if one_use.claim(used_key(data), device, USED_TTL):
        return data, True
    if device and one_use.holder_of(used_key(data)) == device:
        return data, True
    raise init_data.InitDataRefused("used")


def sign_in(request, raw, requested=""):
    """The answer to the Mini App's sign-in (a POST of its ``initData`` ``raw`` and the path
    ``requested`` by its URL): signs the visitor in to the account of that Telegram user
    (made on the first visit), remembers the chat and the language, marks the session as the
    Mini App's, and redirects to ``next_path`` in the Telegram user's language when the site
    has it. Raises InitDataRefused (nothing is changed then)."""
    data, fresh = check(request, raw)
    language = links.language_of(data.user.get("language_code"), translation.get_language())
    translation.activate(language)
    request.LANGUAGE_CODE = language
    target = next_path(request, data, requested, language)
    if fresh:
        provider = get_social_adapter().get_provider(request, "telegram")
        login = provider.sociallogin_from_response(request, dict(data.user))
        login.state = {"process": "login", "next": target}
        try:
            response = complete_social_login(request, login)
        except Exception:
            one_use.release(used_key(data))  # nobody signed in: it may be tried again
            raise
    else:
        response = redirect(target)
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        links.remember(user.pk, data.telegram_id, language)
        request.session[config.SESSION_KEY] = True
    else:
        logger.warning("telegram mini app: user %s was not signed in", data.telegram_id)
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )
    return response
