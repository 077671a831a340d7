"""Accounts: sign-in with Google or Telegram through django-allauth (social login only; no
local passwords, no sign-up form, no e-mail needed).

- ``SocialAccountAdapter`` / ``AccountAdapter``: allauth's hooks (open for social sign-up, no
  flash messages: pages may come from the shared page cache).
- Signal receivers: the first sign-in makes the account's ``Profile`` (display name and
  avatar from the provider); every sign-in hands the session guest's games and challenges to
  the account (``services.adopt_guest_games``).
- ``telegram_callback``: checks the data Telegram sends back before allauth sees it.
- ``account_menu`` / ``AccountMenuMiddleware``: the header's "Sign in" or name and "Sign out".
- ``sign_in_services``: the configured providers' names, for pages that say how to sign in;
  ``sign_in_available``: whether any way to sign in exists here (providers or
  ``games.accounts.dev_sign_in``).
"""

import base64
import binascii
import hashlib
import hmac
import json
import logging
import time

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.signals import user_signed_up
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.adapter import get_adapter as get_social_adapter
from allauth.socialaccount.models import SocialApp
from allauth.socialaccount.providers.telegram import views as telegram_views
from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.db import DatabaseError
from django.dispatch import receiver
from django.http import Http404
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt

from games import services
from games.accounts import dev_sign_in, one_use
from games.accounts.guests import GUEST_SESSION_KEY
from games.accounts.models import Profile
from games.accounts.profiles import DISPLAY_NAME_MAX
from games.lobby import pairing
from games.services import dispatch
from games.telegram import init_data
from rules_pages.cache import csrf_input

logger = logging.getLogger(__name__)

#: where the account menu goes in a page from the page cache (replaced per visitor)
ACCOUNT_MENU_MARKER = "<!--account-menu-->"
_ACCOUNT_MENU_MARKER_BYTES = ACCOUNT_MENU_MARKER.encode()

#: the longest display name a profile holds (``Profile.display_name``)
AVATAR_URL_MAX = Profile._meta.get_field("avatar_url").max_length

#: fields Telegram's sign-in data must have (https://core.telegram.org/widgets/login)
TELEGRAM_REQUIRED = ("id", "auth_date", "hash")
#: how far ahead of our clock a Telegram auth_date may be (seconds): clocks differ a little
TELEGRAM_CLOCK_SKEW = 300


class AccountAdapter(DefaultAccountAdapter):
    """allauth's account hooks. Sign-in and sign-out add no flash message: nothing on the site
    shows them, and a message rendered into a cached page would reach other readers; the
    header shows who is signed in."""

    def add_message(self, *args, **kwargs):
        return None


class ProviderNotConfigured(SocialApp.DoesNotExist, Http404):
    """A provider without credentials: its pages (login, callback) answer 404 rather than
    failing with allauth's SocialApp.DoesNotExist (a server error)."""


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    """allauth's social hooks: the providers are those configured in the settings (from the
    environment; no SocialApp rows are read, so listing them needs no database), and anyone
    may sign up with one (the account is made on the first sign-in, without a form)."""

    def list_apps(self, request, provider=None, client_id=None):
        """The apps of ``settings.SOCIALACCOUNT_PROVIDERS`` (each provider's "APPS"), as
        unsaved SocialApp objects, filtered by ``provider`` and ``client_id`` if given."""
        apps = []
        for provider_id, config in settings.SOCIALACCOUNT_PROVIDERS.items():
            for app_config in config.get("APPS", []):
                app = SocialApp(
                    provider=provider_id,
                    client_id=app_config["client_id"],
                    secret=app_config.get("secret", ""),
                    key=app_config.get("key", ""),
                    settings=dict(app_config.get("settings", {})),
                )
                if provider and provider not in (app.provider, app.provider_id):
                    continue
                if client_id and app.client_id != client_id:
                    continue
                apps.append(app)
        return apps

    def get_app(self, request, provider, client_id=None):
        """The provider's app; raises ProviderNotConfigured (a 404) when it has none."""
        try:
            return super().get_app(request, provider, client_id=client_id)
        except SocialApp.DoesNotExist:
            raise ProviderNotConfigured(provider) from None

    def is_open_for_signup(self, request, sociallogin):
        return True


def sign_in_available(request):
    """True when a visitor can sign in on this server: a provider is configured, or the
    development sign-in is on (``games.accounts.dev_sign_in``). Where it is False, no page
    offers it."""
    return dev_sign_in.enabled() or bool(get_social_adapter().list_providers(request))


def sign_in_services(request):
    """The services one may sign in with on this server, named for a sentence: "Google",
    "Google or Telegram" (translated "or"); "" when none is configured (no credentials in the
    environment), so pages name only the providers that work."""
    names = [provider.name for provider in get_social_adapter().list_providers(request)]
    if len(names) <= 1:
        return "".join(names)
    return _("%(services)s or %(last)s") % {"services": ", ".join(names[:-1]), "last": names[-1]}


# --- the profile and the guest's games ---------------------------------------------------


def profile_from_provider(provider, data):
    """``(display_name, avatar_url)`` from a provider's account data.

    Google (``data`` = the id_token's claims or /userinfo): ``name`` (else ``given_name``),
    ``picture``. Telegram (the signed sign-in data): ``first_name`` + ``last_name``, else
    ``username``; ``photo_url``. The name is trimmed, control characters removed and cut to
    ``DISPLAY_NAME_MAX``; "" when the provider gave none. An avatar that is no http(s) URL or
    is too long is left out."""
    data = data or {}
    if provider == "telegram":
        name = " ".join(
            str(part).strip() for part in (data.get("first_name"), data.get("last_name")) if part
        )
        name = name or str(data.get("username") or "")
        avatar = data.get("photo_url")
    else:
        name = str(data.get("name") or data.get("given_name") or "")
        avatar = data.get("picture")
    name = " ".join("".join(ch for ch in name if ch.isprintable()).split())[:DISPLAY_NAME_MAX]
    avatar = avatar if isinstance(avatar, str) else ""
    if not avatar.startswith(("https://", "http://")) or len(avatar) > AVATAR_URL_MAX:
        avatar = ""
    return name.strip(), avatar


@receiver(user_signed_up, dispatch_uid="games.accounts.make_profile")
def make_profile(sender, request, user, sociallogin=None, **kwargs):
    """allauth's ``user_signed_up``: give the new account its Profile (see
    ``profile_from_provider``; without a name from the provider it is "Player <id>")."""
    name, avatar = "", ""
    if sociallogin is not None:
        name, avatar = profile_from_provider(
            sociallogin.account.provider, sociallogin.account.extra_data
        )
    Profile.objects.get_or_create(
        user=user,
        defaults={
            "display_name": name or _("Player %(id)s") % {"id": user.pk},
            "avatar_url": avatar,
        },
    )


@receiver(user_logged_in, dispatch_uid="games.accounts.adopt_guest")
def adopt_guest(sender, request, user, **kwargs):
    """Django's ``user_logged_in``: the games and open challenges of the session's guest id
    (kept in the session across the login) now belong to the account too."""
    if request is None or not hasattr(request, "session"):
        return
    guest_id = request.session.get(GUEST_SESSION_KEY)
    if guest_id:
        services.adopt_guest_games(guest_id, user.pk)


@receiver(user_logged_out, dispatch_uid="games.accounts.leave_lobby")
def leave_lobby(sender, request, user, **kwargs):
    """Django's ``user_logged_out``: a signed-out account waits for no rated game (its open
    lobby sockets hear ``left``), and the game sockets opened with this session stop playing
    for the account (``session.changed``). Django sends this signal before it flushes the
    session, so within a request the sockets are told once the view is done
    (``SignOutNoticeMiddleware``): a game page that reloads at the notice must find the
    session gone. Outside one (the test client's ``logout``, the shell) they are told now."""
    if user is not None:
        pairing.leave_and_tell(user.pk)
    key = getattr(getattr(request, "session", None), "session_key", None)
    if key:
        pending = getattr(request, SIGNED_OUT_SESSIONS, None)
        if pending is None:
            dispatch.notify_session_changed(key)
        else:
            pending.append(key)


# --- Telegram: check the sign-in data before allauth -------------------------------------


class TelegramRefused(Exception):
    """Telegram sign-in data that is refused; ``message`` says why, in the active language."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


def decode_telegram_result(encoded):
    """The dict carried by ``tgAuthResult`` (base64 JSON), decoded exactly as allauth 65.22
    decodes it, so the checks see the data allauth will use. Raises TelegramRefused."""
    padding = "=" * (4 - (len(encoded) % 4))
    try:
        data = json.loads(base64.b64decode(encoded + padding))
    except (binascii.Error, ValueError, RecursionError):
        raise TelegramRefused(
            _("Telegram's answer could not be read. Please try signing in again.")
        ) from None
    try:
        # a JSON escape can make a lone surrogate, which no UTF-8 text (nor a signature) holds
        json.dumps(data, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        data = None
    if not isinstance(data, dict):
        raise TelegramRefused(
            _("Telegram's answer could not be read. Please try signing in again.")
        )
    return data


def telegram_data_check_string(data):
    """Telegram's data-check string: every field but ``hash`` as ``key=value``, sorted, joined
    by line feeds (the same string allauth 65.22 signs)."""
    return "\n".join(sorted(f"{key}={value}" for key, value in data.items() if key != "hash"))


def telegram_hash(data, bot_token):
    """The hex HMAC-SHA-256 of ``data``'s check string keyed with SHA-256 of ``bot_token``."""
    secret = hashlib.sha256(bot_token.encode()).digest()
    return hmac.new(secret, telegram_data_check_string(data).encode(), hashlib.sha256).hexdigest()


def check_telegram_data(data, bot_token, now=None, max_age=None):
    """Check Telegram sign-in data (a dict, as sent). In this order, so that nothing unsigned
    is read further than its signature: the fields ``id``, ``auth_date`` and ``hash``
    present; ``hash`` the signature made with ``bot_token``; every value a string or a whole
    number (no bool, float, list...); ``id`` a whole number from 1 to
    ``init_data.MAX_USER_ID`` - 1 and ``auth_date`` (Unix seconds) one from 0 to
    ``init_data.MAX_AUTH_DATE``, as a number or as digits; ``auth_date`` at most ``max_age``
    seconds (default ``settings.TELEGRAM_AUTH_MAX_AGE``) before ``now`` (Unix seconds,
    default the clock) and at most TELEGRAM_CLOCK_SKEW after. Raises TelegramRefused with
    the reason."""
    now = time.time() if now is None else now
    max_age = settings.TELEGRAM_AUTH_MAX_AGE if max_age is None else max_age
    missing = [field for field in TELEGRAM_REQUIRED if data.get(field) in (None, "")]
    if missing:
        raise TelegramRefused(
            _("Telegram's answer is incomplete (missing: %(fields)s). Please try signing in again.")
            % {"fields": ", ".join(missing)}
        )
    if not isinstance(data["hash"], str) or not hmac.compare_digest(
        data["hash"].encode(), telegram_hash(data, bot_token).encode()
    ):
        raise TelegramRefused(
            _(
                "Telegram's answer does not carry a valid signature, so it "
                "was refused. Please sign in again."
            )
        )
    for value in data.values():
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise TelegramRefused(
                _("Telegram's answer could not be read. Please try signing in again.")
            )
    user_id = init_data.whole_number(data["id"], init_data.MAX_USER_ID - 1)
    if not user_id:
        raise TelegramRefused(
            _("Telegram's answer could not be read. Please try signing in again.")
        )
    auth_date = init_data.whole_number(data["auth_date"], init_data.MAX_AUTH_DATE)
    if auth_date is None:
        raise TelegramRefused(
            _("Telegram's answer has no valid sign-in time. Please try signing in again.")
        )
    if now - auth_date > max_age or auth_date - now > TELEGRAM_CLOCK_SKEW:
        raise TelegramRefused(_("This Telegram sign-in has expired. Please sign in again."))


def widget_used_key(data):
    """The ``one_use`` key of checked sign-in ``data``: its signature (64 hex digits)."""
    return f"telegram-widget:{data['hash']}"


@csrf_exempt
def telegram_callback(request):
    """Telegram's sign-in callback (``accounts/telegram/login/callback/``), in front of
    allauth's view of the same URL.

    GET: allauth's page (its script posts the answer Telegram put in the URL fragment).
    POST ``tgAuthResult`` (base64 JSON): checked with ``check_telegram_data`` against the
    configured bot's token, and used once only (``one_use``); refused data gets a page
    saying why (HTTP 400) and creates nothing; valid data goes on to allauth, which signs
    the visitor in (or up). 404 when Telegram sign-in is not configured. Exempt from CSRF
    like allauth's view: the post comes from Telegram's redirect, and the signature is what
    proves it."""
    provider = get_social_adapter().get_provider(request, "telegram")  # 404 if not configured
    if request.method == "POST":
        try:
            data = decode_telegram_result(request.POST.get("tgAuthResult", ""))
            check_telegram_data(data, provider.app.secret)
            # signed data is not tied to a session: each answer signs in once, so a copied
            # one cannot be replayed while it is still fresh (kept in the database, which a
            # flushed Redis does not forget)
            if not one_use.claim(
                widget_used_key(data), "", settings.TELEGRAM_AUTH_MAX_AGE + TELEGRAM_CLOCK_SKEW
            ):
                raise TelegramRefused(
                    _("This Telegram sign-in was already used. Please sign in again.")
                )
        except TelegramRefused as refused:
            return render(
                request,
                "socialaccount/telegram_refused.html",
                {"reason": refused.message},
                status=400,
            )
    return telegram_views.callback(request)


# --- the header's account menu -----------------------------------------------------------


def render_account_menu(request):
    """The header's account part for ``request``'s visitor (HTML): "Sign in" linking to the
    sign-in page (nothing when this server offers no sign-in), or the display name linking
    to the own profile and a "Sign out" button (POST). Both bring the visitor back to the
    page they are on. A signed-in player also gets the link to their friends and the notices'
    script and its words (``games/_notices.html``). Written here rather than with a template,
    so a page served from the page cache renders no template for a guest."""
    back = request.get_full_path()
    if "/accounts/" in request.path:
        # on a sign-in page itself: keep where it came from
        back = request.GET.get("next", "")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        if not sign_in_available(request):
            return ""  # nothing to offer: no dead end in the header
        url = reverse("account_login") + (f"?{urlencode({'next': back})}" if back else "")
        return format_html(
            '<div class="account-menu"><a class="account-menu__in" href="{}">{}</a></div>',
            url,
            _("Sign in"),
        )
    next_field = format_html('<input type="hidden" name="next" value="{}">', back) if back else ""
    friends = reverse("games:friends")
    return format_html(
        '<div class="account-menu"><a class="account-menu__name" href="{}" title="{}">{}</a>'
        '<a class="account-menu__friends" href="{}"{}>{}</a>'
        '<form class="inline-form" method="post" action="{}">{}{}'
        '<button type="submit" class="link-button account-menu__out">{}</button></form>{}</div>',
        reverse("games:profile"),
        _("Your profile"),
        services.display_name(user.pk),
        friends,
        mark_safe(' aria-current="page"') if request.path == friends else "",
        _("Friends"),
        reverse("account_logout"),
        mark_safe(csrf_input(request)),
        next_field,
        _("Sign out"),
        # every page of a signed-in player opens the notices socket (games.friends): here,
        # the header's part drawn for each visitor even in a page from the page cache
        render_to_string("games/_notices.html", {"language": get_language()}),
    )


def account_menu(request):
    """What base.html writes for the account menu: the menu itself, or in a page served from
    the page cache (``request.csrf_marker``) the marker AccountMenuMiddleware replaces. Empty
    when the database cannot be read (the 500 page must still render)."""
    if request is None:
        return ""
    if getattr(request, "csrf_marker", False):
        return mark_safe(ACCOUNT_MENU_MARKER)
    try:
        return render_account_menu(request)
    except DatabaseError:
        logger.exception("the account menu could not be drawn")
        return ""


#: the request attribute where ``SignOutNoticeMiddleware`` collects the sessions signed out
SIGNED_OUT_SESSIONS = "signed_out_sessions"


class SignOutNoticeMiddleware:
    """Tells the game sockets of each session signed out during a request
    (``dispatch.notify_session_changed``) once the view has returned, when Django's logout has
    flushed the session: a socket closed at the notice makes its page load again, and that
    load must come signed out (a notice sent from ``user_logged_out`` itself could beat the
    flush, and the page would come back signed in)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        signed_out = []
        setattr(request, SIGNED_OUT_SESSIONS, signed_out)
        try:
            return self.get_response(request)
        finally:
            for key in signed_out:
                dispatch.notify_session_changed(key)


class AccountMenuMiddleware:
    """Puts this visitor's account menu into a page from the page cache (rules_pages/cache.py),
    where the cached copy holds ACCOUNT_MENU_MARKER. Sits after
    ``rules_pages.cache.CachedPageCsrfMiddleware`` in MIDDLEWARE, so the menu's form gets its
    CSRF token from that middleware on the way out."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            getattr(request, "csrf_marker", False)
            and not response.streaming
            and response.get("Content-Type", "").startswith("text/html")
            and _ACCOUNT_MENU_MARKER_BYTES in response.content
        ):
            menu = str(render_account_menu(request)).encode()
            response.content = response.content.replace(_ACCOUNT_MENU_MARKER_BYTES, menu)
            if response.has_header("Content-Length"):
                response["Content-Length"] = str(len(response.content))
        return response
