"""HTTP views of Telegram (games/telegram; README "Telegram"). Each answers 404 when no bot
is configured (``settings.TELEGRAM_BOT_TOKEN``).

- ``app_entry`` (GET ``/tg/``): the Mini App's URL. Its script posts Telegram's ``initData``.
- ``app_sign_in`` (POST ``/tg/session/``): checks it and signs the visitor in.
- ``webhook`` (POST ``/telegram/webhook/<secret>/``): the bot's updates.
- ``notices_choice`` (POST ``/<lang>/profile/telegram/``): a player's choice of notices.
"""

import hmac
import logging
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from games.telegram import config, init_data, links, pages, signin, webhook

logger = logging.getLogger(__name__)

#: the largest update read (bytes); Telegram's are a few KB
MAX_UPDATE_BYTES = 256 * 1024
#: the most digits of a Content-Length read as a number (more is over the limit anyway)
_LENGTH_DIGITS = len(str(MAX_UPDATE_BYTES))
#: the longest ``next`` path the entry page passes on
MAX_NEXT = 500


def telegram_only(view):
    """404 unless Telegram is on here, before anything else (the method, the sign-in)."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        config.require_enabled()
        return view(request, *args, **kwargs)

    return wrapped


@telegram_only
@require_GET
def app_entry(request):
    """GET ``/tg/?next=<path>``: the page Telegram opens as the Mini App. Its script
    (static/js/telegram-entry.js) posts ``Telegram.WebApp.initData`` and ``next`` to
    ``app_sign_in``; outside Telegram it says how to open the app. The start parameter of a
    ``startapp`` link travels inside the signed ``initData``."""
    request.telegram_page = True
    response = render(
        request,
        "games/telegram_app.html",
        {
            "next": request.GET.get("next", "")[:MAX_NEXT],
            "sign_in_url": reverse("telegram_sign_in"),
            "bot_url": pages.bot_link(),
        },
    )
    pages.mark_device(request, response)
    return response


@telegram_only
@require_POST
def app_sign_in(request):
    """POST ``init_data`` (Telegram's ``initData``), ``next`` (a path), CSRF: signs the
    visitor in to the account of that Telegram user (``signin.sign_in``) and redirects to the
    page the app was opened for. Refused data gets a page saying why (400) and changes
    nothing."""
    request.telegram_page = True
    try:
        return signin.sign_in(
            request,
            request.POST.get("init_data", ""),
            request.POST.get("next", "")[:MAX_NEXT],
        )
    except init_data.InitDataRefused as refused:
        logger.info("telegram mini app sign-in refused: %s", refused.reason)
        # said in the language the data claims (unchecked, it only picks the words)
        translation.activate(signin.claimed_language(request.POST.get("init_data", "")))
        return render(
            request,
            "socialaccount/telegram_refused.html",
            {"reason": refused.message, "mini_app": True},
            status=400,
        )


@csrf_exempt
@telegram_only
@require_POST
def webhook_view(request, secret):
    """POST ``/telegram/webhook/<secret>/``: one Telegram update (JSON). The path's secret and
    the ``X-Telegram-Bot-Api-Secret-Token`` header must both be the webhook's secret
    (``config.webhook_secret``): a wrong path is 404, a wrong header 403. Answers 200 with
    the bot's reply as a Bot API method in the body (``webhook.answer``), or empty. A body
    over MAX_UPDATE_BYTES is 413 whatever its size (its Content-Length is checked and at most
    one byte more is read, before Django's DATA_UPLOAD_MAX_MEMORY_SIZE would answer 400); an
    unreadable update is 400 (Telegram does not resend those); one with a number JSON does
    not have (NaN, Infinity, -Infinity, or a float past its range) is ignored: 200, empty."""
    expected = config.webhook_secret().encode()
    if not hmac.compare_digest(secret.encode(), expected):
        raise Http404("unknown webhook")
    header = request.headers.get("X-Telegram-Bot-Api-Secret-Token", "").encode()
    if not hmac.compare_digest(header, expected):
        return HttpResponse(status=403)
    if _declared_too_long(request.META.get("CONTENT_LENGTH") or ""):
        return HttpResponse(status=413)
    body = request.read(MAX_UPDATE_BYTES + 1)
    if len(body) > MAX_UPDATE_BYTES:
        return HttpResponse(status=413)
    try:
        update = webhook.parse(body)
    except webhook.NotFinite:
        return HttpResponse(status=200)  # no update Telegram sends: nothing to do
    except (ValueError, RecursionError):
        return HttpResponse(status=400)
    reply = webhook.answer(update, config.site_origin(request))
    if reply is None:
        return HttpResponse(status=200)
    return JsonResponse(reply)


def _declared_too_long(length):
    """True when the Content-Length header ``length`` (str) says more than MAX_UPDATE_BYTES;
    its digits are counted before any is converted to a number."""
    if not (length.isascii() and length.isdigit()):
        return False  # none or not a number: the bounded read decides
    return len(length.lstrip("0")) > _LENGTH_DIGITS or int(length) > MAX_UPDATE_BYTES


@telegram_only
@login_required
@require_POST
def notices_choice(request):
    """POST ``notices`` ("on" or anything else: off), CSRF: the signed-in player's choice of
    Telegram notices, written in the page's language from now (``links.set_notices``). Back
    to the profile's Telegram section; a player without a Telegram account gets 400 there."""
    try:
        links.set_notices(request.user.pk, request.POST.get("notices") == "on", get_language())
    except links.NoTelegramAccount:
        return HttpResponseBadRequest(
            _("Notices come through Telegram: sign in with Telegram to have them.")
        )
    return redirect(reverse("games:profile") + "#telegram")
