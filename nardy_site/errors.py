"""Error views of the whole site (set as ``handler500`` in nardy_site/urls.py)."""
import logging

from django.http import HttpResponseServerError
from django.template import loader

logger = logging.getLogger(__name__)


def server_error(request):
    """The 500 page (templates/500.html) in the page's language, rendered with the request so
    that it can extend base.html (header, language switch). If even that fails, a plain-text
    answer: an error page must never raise."""
    try:
        body = loader.render_to_string("500.html", request=request)
    except Exception:  # noqa: BLE001 - the last line of defence; the cause is logged
        logger.exception("the 500 page itself failed to render")
        return HttpResponseServerError("Server error", content_type="text/plain; charset=utf-8")
    return HttpResponseServerError(body)
