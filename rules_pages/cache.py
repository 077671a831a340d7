"""Whole-page caching of the rules pages in Redis, shared by every anonymous reader.

The pages hold POST forms (the language switcher, "Play against the computer"), and a CSRF
token is personal: rendered into a cached page it would be served to everyone, and letting the
response vary on Cookie would give each visitor a cache entry of their own. So a cached page is
rendered with a marker instead of the token (``{% csrf_field %}`` in the templates), stored
once per URL (the language prefix makes the keys differ per language), and
:class:`CachedPageCsrfMiddleware` replaces the marker with the current visitor's token on the
way out, cache hit or not. The response the visitor gets then carries ``Vary: Cookie`` and
``Cache-Control: private`` so that no shared proxy keeps a copy with a token in it.
"""

import hashlib
import logging
from functools import lru_cache, wraps
from pathlib import Path

from django.conf import settings
from django.middleware.csrf import get_token
from django.utils.cache import patch_cache_control
from django.utils.html import format_html
from django.views.decorators.cache import cache_page
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# Stands for the CSRF hidden input in a cached page; an HTML comment, so it cannot be confused
# with text of the page.
CSRF_MARKER = "<!--csrf-field-->"
_CSRF_MARKER_BYTES = CSRF_MARKER.encode()


@lru_cache(maxsize=1)
def content_version() -> str:
    """A short fingerprint of everything a rules page is made of (templates, rules_pages and
    the board renderer, translation catalogues): part of the cache key, so that new code or
    text is never answered with a page cached before it."""
    base = Path(settings.BASE_DIR)
    digest = hashlib.sha256()
    files = sorted(
        [
            *(base / "templates").rglob("*.html"),
            *(base / "rules_pages").rglob("*.py"),
            base / "games" / "board_svg.py",
            *(base / "locale").rglob("*.po"),
        ]
    )
    for path in files:
        if "tests" in path.relative_to(base).parts or not path.is_file():
            continue
        digest.update(str(path.relative_to(base)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def cached_page(view):
    """Decorate a view so that its page is cached for ``settings.PAGE_CACHE_SECONDS`` (Django's
    cache_page on the default cache, RedisCache) and rendered with the CSRF marker.

    The key is the page's absolute URL plus the active language, both of which carry the
    language, and :func:`content_version`; nothing per visitor enters the key. A request
    marked ``uncached_page`` (a page that differs per visitor) is rendered afresh and not
    stored.
    """
    cached = cache_page(settings.PAGE_CACHE_SECONDS, key_prefix=f"page-{content_version()}")(view)

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if getattr(request, "uncached_page", False):
            # a page made for this visitor alone (e.g. inside Telegram): never shared
            return view(request, *args, **kwargs)
        request.csrf_marker = True
        try:
            return cached(request, *args, **kwargs)
        except RedisError as exc:
            # Redis down or restarting: the rules still read, rendered afresh for each visitor.
            logger.warning("page cache unavailable, rendering %s uncached: %s", request.path, exc)
            return view(request, *args, **kwargs)

    return wrapper


def csrf_input(request) -> str:
    """The CSRF hidden input for a form: the marker in a cached page, else the real input."""
    if getattr(request, "csrf_marker", False):
        return CSRF_MARKER
    return format_html(
        '<input type="hidden" name="csrfmiddlewaretoken" value="{}">', get_token(request)
    )


class CachedPageCsrfMiddleware:
    """Replaces the CSRF marker of a cached page with this visitor's token.

    Sits after ``CsrfViewMiddleware`` in MIDDLEWARE, so that ``get_token`` here still lets that
    middleware set the CSRF cookie and ``Vary: Cookie`` on the response.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            getattr(request, "csrf_marker", False)
            and not response.streaming
            and response.get("Content-Type", "").startswith("text/html")
            and _CSRF_MARKER_BYTES in response.content
        ):
            token = get_token(request)
            field = format_html(
                '<input type="hidden" name="csrfmiddlewaretoken" value="{}">', token
            )
            response.content = response.content.replace(_CSRF_MARKER_BYTES, field.encode())
            if response.has_header("Content-Length"):
                response["Content-Length"] = str(len(response.content))
            # The copy sent holds a personal token: browsers may keep it, shared caches not.
            patch_cache_control(response, private=True)
        return response
