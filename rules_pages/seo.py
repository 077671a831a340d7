"""Canonical and alternate (hreflang) URLs of a page, shared by the page head and the sitemap.

Every page exists once per language under its prefix (``/en/rules/``, ``/ru/rules/``,
``/bg/rules/``); the same path without a prefix (``/rules/``) is the ``x-default``: it sends the
visitor to their language (LocaleMiddleware: language cookie, then Accept-Language).
"""

from django.conf import settings
from django.urls import translate_url
from django.utils.translation import get_language

# Open Graph wants a territory with the language.
OG_LOCALES = {"en": "en_GB", "ru": "ru_RU", "bg": "bg_BG"}


def site_origin(request) -> str:
    """``settings.SITE_URL`` when set (the public origin behind a proxy), else the request's."""
    return settings.SITE_URL or f"{request.scheme}://{request.get_host()}"


def unprefixed(path: str) -> str:
    """``/ru/rules/`` -> ``/rules/`` (the x-default path); a path without a prefix is kept."""
    for code, _name in settings.LANGUAGES:
        prefix = f"/{code}/"
        if path.startswith(prefix):
            return "/" + path[len(prefix) :]
    return path


def page_links(request) -> dict:
    """URLs of the current page for its ``<head>``.

    Returns ``{"canonical": absolute URL in the active language, "alternates": [(hreflang,
    absolute URL), ...] for every language then "x-default", "language": active code}``.
    The canonical URL drops any query string.
    """
    origin = site_origin(request)
    path = request.path
    alternates = [(code, origin + translate_url(path, code)) for code, _name in settings.LANGUAGES]
    alternates.append(("x-default", origin + unprefixed(path)))
    return {"canonical": origin + path, "alternates": alternates, "language": get_language()}
