"""Error views of the whole site: ``handler400``, ``handler403`` and ``handler500`` in
nardy_site/urls.py, ``CSRF_FAILURE_VIEW`` in the settings.

Each renders its page (templates/400.html, 403.html, 403_csrf.html, 500.html) with the request,
so that it extends base.html (header, language switch) in the page's language, and shows no
detail of the cause. None may raise: if the page itself fails, a plain-text answer with the
same status is given and the failure logged.
"""

import logging
import math

from axes.helpers import get_client_ip_address
from axes.models import AccessAttempt
from django.conf import settings
from django.http import HttpResponse
from django.template import loader
from django.utils import timezone

logger = logging.getLogger(__name__)


def _error_page(
    request, template_name: str, status: int, fallback: str, context=None
) -> HttpResponse:
    """``template_name`` rendered with ``request`` (and ``context``) as an HTML response of
    ``status``; on any failure of the rendering, ``fallback`` as plain text with the same
    status."""
    try:
        body = loader.render_to_string(template_name, context, request=request)
    except Exception:
        logger.exception("the error page %s itself failed to render", template_name)
        return HttpResponse(fallback, status=status, content_type="text/plain; charset=utf-8")
    return HttpResponse(body, status=status)


def bad_request(request, exception=None):
    """The 400 page (a malformed request, an unknown Host header, a suspicious operation).
    ``exception`` is not shown: its text may describe the server's checks."""
    return _error_page(request, "400.html", 400, "Bad request")


def permission_denied(request, exception=None):
    """The 403 page. ``exception`` is not shown (it may name internals)."""
    return _error_page(request, "403.html", 403, "Forbidden")


def csrf_failure(request, reason=""):
    """``CSRF_FAILURE_VIEW``: a form sent without a valid CSRF token or cookie gets the 403
    page that says, in plain words, to reload the form and send it again (Django's own page is
    unstyled, in English, and its inline style is blocked by our Content-Security-Policy).
    ``reason`` (Django's technical reason) is not shown: CsrfViewMiddleware logs it already
    (logger ``django.security.csrf``)."""
    return _error_page(
        request,
        "403_csrf.html",
        403,
        "Forbidden: the form could not be checked. Reload the page and try again.",
    )


def server_error(request):
    """The 500 page (templates/500.html) in the page's language, rendered with the request so
    that it can extend base.html (header, language switch). If even that fails, a plain-text
    answer: an error page must never raise."""
    return _error_page(request, "500.html", 500, "Server error")


def admin_locked_out(request, original_response=None, credentials=None):
    """``AXES_LOCKOUT_CALLABLE``: the admin sign-in refused to an address with too many wrong
    passwords (django-axes). HTTP 429 with ``Retry-After`` (s) and templates/admin_locked_out.html,
    which gives the wait left in whole minutes: ``AXES_COOLOFF_TIME`` from the address's last
    failed attempt. The form is not shown, nor whether the last password was right."""
    cool_off = settings.AXES_COOLOFF_TIME
    last = (
        AccessAttempt.objects.filter(ip_address=get_client_ip_address(request))
        .order_by("-attempt_time")
        .values_list("attempt_time", flat=True)
        .first()
    )
    left = cool_off if last is None else last + cool_off - timezone.now()
    seconds = max(1, math.ceil(left.total_seconds()))
    response = _error_page(
        request,
        "admin_locked_out.html",
        429,
        "Too many failed sign-ins from this address: try again later.",
        {"minutes": max(1, math.ceil(seconds / 60))},
    )
    response["Retry-After"] = str(seconds)
    return response
