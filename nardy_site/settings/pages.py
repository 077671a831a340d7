"""The rendered pages: their cache in Redis and the public origin they name (``SITE_URL``;
an ``https://`` origin in production)."""

from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from .channels_celery import REDIS_URL
from .environment import PRODUCTION, env

# --- Cache: rendered rules pages, in Redis (own key prefix beside Channels and Celery) -------
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": env.str("CACHE_KEY_PREFIX", default="nardy-cache"),
        "TIMEOUT": 600,
    },
}
PAGE_CACHE_SECONDS = env.int("PAGE_CACHE_SECONDS", default=600)
SITE_URL = env.str("SITE_URL", default="").strip().rstrip("/")


def _check_site_url(url: str) -> None:
    """ImproperlyConfigured naming SITE_URL unless ``url`` (trailing slash removed) is an
    ``https://`` origin: scheme and host, an optional port, no user, path, query or fragment.
    Production only: canonical links, the sitemap and the CSP's ``wss:`` origin are built
    from it, and an ``http://`` one would send crawlers off HTTPS."""
    problem = None
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        problem = "it is not a valid URL"
    else:
        if parts.scheme != "https":
            problem = "it must start with https://"
        elif not parts.hostname or "@" in parts.netloc:
            problem = "it must name the host and nothing before it"
        elif parts.path or parts.query or parts.fragment:
            problem = "it must have no path, query or fragment"
    if problem:
        raise ImproperlyConfigured(
            f"SITE_URL must be the site's public origin, e.g. https://nardy.example, not "
            f"{url!r}: {problem}."
        )


if PRODUCTION and SITE_URL:
    _check_site_url(SITE_URL)
