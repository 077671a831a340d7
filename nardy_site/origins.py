"""The WebSocket Origin check (docs/protocol.md "Origin"): a socket opens only from a page of
this site, the same scheme, host AND port, or from an origin in ``CSRF_TRUSTED_ORIGINS``.

Channels' ``AllowedHostsOriginValidator`` compares only the host name with ``ALLOWED_HOSTS``,
so a page served on http://127.0.0.1:9999 (another program on the same machine) could open
our sockets on :8000 with the visitor's cookies. Browsers cannot forge Origin, Host or the
scheme of their connection, so comparing Origin with the origin the browser connected to
closes that hole; non-browser clients are not what this guards against.
"""

import logging
import time
from urllib.parse import urlparse

from channels.security.websocket import OriginValidator, WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

logger = logging.getLogger(__name__)

#: refusals logged per process in each window of LOG_WINDOW_S seconds; the rest are counted
#: and the count logged with the next line, so a flood of refused handshakes cannot flood
#: the log
LOG_PER_WINDOW = 20
LOG_WINDOW_S = 60.0
#: longest header value quoted in a refusal's line (characters)
LOG_VALUE_CHARS = 200
_log_window = {"start": 0.0, "logged": 0, "skipped": 0}


def _quoted(value):
    """``value`` as it goes into a log line: repr (no raw newline), cut to LOG_VALUE_CHARS."""
    text = repr(value)
    return text if len(text) <= LOG_VALUE_CHARS else text[:LOG_VALUE_CHARS] + "…"


def log_refusal(scope, origin):
    """Log one refused handshake at WARNING (origin, what was allowed, Host, ALLOWED_HOSTS),
    at most LOG_PER_WINDOW per LOG_WINDOW_S in this process; the refusals not logged are
    counted in the next line."""
    now = time.monotonic()
    if now - _log_window["start"] >= LOG_WINDOW_S:
        _log_window.update(start=now, logged=0)
    if _log_window["logged"] >= LOG_PER_WINDOW:
        _log_window["skipped"] += 1
        return
    _log_window["logged"] += 1
    skipped, _log_window["skipped"] = _log_window["skipped"], 0
    try:
        allowed = site_origins(scope)
    except ValueError:  # a Host whose port is not a number
        allowed = []
    logger.warning(
        "WebSocket %s refused: Origin %s is not one of %s (Host %s, ALLOWED_HOSTS %s)%s",
        _quoted(scope.get("path", "?")),
        _quoted(origin),
        _quoted(allowed),
        _quoted(_header(scope, b"host")),
        _quoted(list(_allowed_hosts())),
        f"; {skipped} more refused before this one, not logged" if skipped else "",
    )


#: the page scheme that goes with a socket scheme
PAGE_SCHEME = {"ws": "http", "wss": "https", "http": "http", "https": "https"}


def _header(scope, name):
    """The last value of header ``name`` (lower-case bytes) in the scope, as str, or None."""
    value = None
    for key, raw in scope.get("headers", []):
        if key == name:
            value = raw.decode("latin-1")
    return value


def _allowed_hosts():
    # as Django's HttpRequest.get_host: in DEBUG with no ALLOWED_HOSTS, the local names
    if settings.DEBUG and not settings.ALLOWED_HOSTS:
        return [".localhost", "127.0.0.1", "[::1]"]
    return settings.ALLOWED_HOSTS


def _scheme(scope):
    """The page scheme the browser used: from SECURE_PROXY_SSL_HEADER when that setting names a
    header and the request has it (as Django's ``request.is_secure``), else the socket's."""
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy:
        meta_name, secure_value = proxy
        name = meta_name.removeprefix("HTTP_").replace("_", "-").lower().encode("latin-1")
        value = _header(scope, name)
        if value is not None:
            return "https" if value.split(",")[0].strip() == secure_value else "http"
    return PAGE_SCHEME.get(scope.get("scheme", "ws"), "http")


def _host(scope):
    """The ``host[:port]`` the browser asked for: X-Forwarded-Host when USE_X_FORWARDED_HOST
    says a proxy sets it, else Host, else the server's own address; None if there is none."""
    if getattr(settings, "USE_X_FORWARDED_HOST", False):
        forwarded = _header(scope, b"x-forwarded-host")
        if forwarded:
            return forwarded.split(",")[0].strip()
    host = _header(scope, b"host")
    if host:
        return host
    server = scope.get("server")
    if server and server[0]:
        return f"{server[0]}:{server[1]}" if server[1] else server[0]
    return None


def site_origins(scope):
    """The origins (``scheme://host[:port]`` patterns in the syntax of Channels'
    OriginValidator) a socket with this ASGI ``scope`` may come from: the origin the browser
    connected to (scheme and Host as above) when its host is in ALLOWED_HOSTS, and every
    CSRF_TRUSTED_ORIGINS entry (``https://*.example.com`` covers the subdomains).

    A handshake with neither a Host header nor a server address (no browser sends one; the
    in-process test client does) gets each plain ALLOWED_HOSTS name at the scheme's default
    port instead."""
    scheme = _scheme(scope)
    origins = []
    host = _host(scope)
    if host is not None:
        domain, _port = split_domain_port(host.lower())
        if domain and validate_host(domain, _allowed_hosts()):
            origins.append(f"{scheme}://{host.lower()}")
    else:
        origins.extend(
            f"{scheme}://{name}"
            for name in _allowed_hosts()
            if name and name != "*" and not name.startswith(".")
        )
    for trusted in getattr(settings, "CSRF_TRUSTED_ORIGINS", []):
        # Django's "https://*.example.com" is Channels' "https://.example.com"
        origins.append(trusted.replace("://*.", "://.", 1).lower())
    return origins


class SiteOriginValidator(OriginValidator):
    """ASGI middleware: passes a WebSocket handshake on to ``application`` only if its Origin
    header matches one of ``site_origins(scope)`` in scheme, host and port (the scheme's
    default port when none is written); any other handshake, one without Origin included, is
    refused (HTTP 403 before the socket opens). Channels' OriginValidator does the matching;
    only the list of allowed origins is made per connection."""

    def __init__(self, application):
        super().__init__(application, allowed_origins=[])

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            raise ValueError("SiteOriginValidator guards WebSocket connections only")
        if self.allowed(scope):
            return await self.application(scope, receive, send)
        # a wrong ALLOWED_HOSTS or CSRF_TRUSTED_ORIGINS looks just like an attack without this
        log_refusal(scope, _header(scope, b"origin"))
        return await WebsocketDenier()(scope, receive, send)

    def allowed(self, scope):
        """True if the handshake's Origin is one of ``site_origins(scope)``."""
        origin = _header(scope, b"origin")
        if not origin:
            return False
        try:
            parsed = urlparse(origin)
            return parsed.scheme in ("http", "https") and any(
                self.match_allowed_origin(parsed, pattern) for pattern in site_origins(scope)
            )
        except ValueError:  # a port out of range or not a number, in Origin or Host
            return False
