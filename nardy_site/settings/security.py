"""HTTPS and the security headers (production turns on redirects, HSTS and secure cookies),
the Content-Security-Policy of every environment, and the load tool's echo socket, refused in
production."""

from django.core.exceptions import ImproperlyConfigured

from .auth import SOCIALACCOUNT_PROVIDERS
from .environment import PRODUCTION, env
from .pages import SITE_URL

# --- Security headers, HTTPS ------------------------------------------------------------------
# Every environment: no framing, no MIME sniffing, no Referer to other sites.
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
if PRODUCTION:
    # TLS ends at the load balancer, which must set (overwrite) this header on every request;
    # empty PROXY_SSL_HEADER when Daphne itself serves HTTPS (docs/deploy.md).
    _proxy_header = env.str("PROXY_SSL_HEADER", default="X-Forwarded-Proto").strip()
    if _proxy_header:
        SECURE_PROXY_SSL_HEADER = ("HTTP_" + _proxy_header.upper().replace("-", "_"), "https")
    SECURE_SSL_REDIRECT = True
    # A year (the preload list's minimum); every subdomain too. "preload" lets the domain be
    # submitted to the browsers' built-in list (hstspreload.org), nothing more; an operator
    # whose domain has plain-HTTP subdomains sets HSTS_PRELOAD=false, and that choice is
    # then why check --deploy need not remind of it (docs/deploy.md, "HTTPS").
    SECURE_HSTS_SECONDS = env.int("HSTS_SECONDS", default=31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = env.bool("HSTS_PRELOAD", default=True)
    if not SECURE_HSTS_PRELOAD:
        SILENCED_SYSTEM_CHECKS = ["security.W021"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True


def _content_security_policy():
    """CONTENT_SECURITY_POLICY for django-csp: no inline script or style anywhere (pages load
    their code from /static/; templates/ holds no inline script but JSON-LD data), the same in
    development so the browser tests meet the production policy.

    - ``connect-src 'self'``: the game sockets are same-origin, which 'self' covers for ws:
      and wss: in CSP 3 browsers; SITE_URL's wss: origin is named as well for older ones.
    - ``img-src https:``: players' pictures come from the providers' servers (Google, Telegram),
      which redirect to CDNs of their own; an image cannot run code.
    - ``form-action``: the sign-in forms post here and are answered with a redirect to the
      provider, which this directive also governs: only the configured providers are named.
    """
    connect = ["'self'"]
    if SITE_URL.startswith(("https://", "http://")):
        connect.append("ws" + SITE_URL[len("http") :])
    form_action = ["'self'"]
    if "APPS" in SOCIALACCOUNT_PROVIDERS["google"]:
        form_action.append("https://accounts.google.com")
    if "APPS" in SOCIALACCOUNT_PROVIDERS["telegram"]:
        form_action.append("https://oauth.telegram.org")
    return {
        "DIRECTIVES": {
            "default-src": ["'self'"],
            "script-src": ["'self'"],
            "style-src": ["'self'"],
            "img-src": ["'self'", "https:"],
            "connect-src": connect,
            "font-src": ["'self'"],
            "object-src": ["'none'"],
            "base-uri": ["'none'"],
            "frame-ancestors": ["'none'"],
            "form-action": form_action,
        },
    }


CONTENT_SECURITY_POLICY = _content_security_policy()

# --- Load testing ---------------------------------------------------------------------------
# LOAD_ECHO (default false): serve the bare echo socket ws/echo/ (games/live/echo.py), the baseline
# of the load tool (python -m games.loadtool). Refused in production: no echo endpoint there.
LOAD_ECHO = env.bool("LOAD_ECHO", default=False)
if PRODUCTION and LOAD_ECHO:
    raise ImproperlyConfigured(
        "LOAD_ECHO must be off when DJANGO_ENV=production: the echo "
        "socket is a load-test tool (games/loadtool), not part of the site."
    )
