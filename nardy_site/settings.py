"""Django settings for the long-nardy site.

Everything that differs between machines comes from the environment (django-environ):

- ``DATABASE_URL``: default ``sqlite:///<project>/db.sqlite3`` (WAL mode); PostgreSQL in CI and
  production, e.g. ``postgres://postgres@127.0.0.1:5432/test``.
- ``REDIS_URL``: required; the Channels layer, the Celery broker, the cache and the rate
  limits unless the next two say otherwise. ``scripts/run`` and ``scripts/test`` start an
  embedded Redis and set it when it is not given.
- ``CHANNEL_REDIS_URLS``: the Redis servers of the Channels layer, comma-separated (default
  ``REDIS_URL``); with several, channels_redis shards the channels and groups over them.
- ``CELERY_BROKER_URL``: the Redis of the Celery tasks (default ``REDIS_URL``).
- ``SECRET_KEY``: default a random key kept in ``<project>/.secret_key`` (created once).
- ``DEBUG`` (default false), ``ALLOWED_HOSTS`` (default ``127.0.0.1,localhost``),
  ``CSRF_TRUSTED_ORIGINS`` (default none), ``LOG_LEVEL`` (default ``INFO``).
- ``SITE_URL``: the public origin written in canonical/hreflang links and the sitemap, e.g.
  ``https://nardy.example``; default none (the origin of each request). In production it must
  be an ``https://`` origin with no path when it is set.
- ``PAGE_CACHE_SECONDS``: how long a rendered rules page stays in the Redis page cache
  (default 600; 0 turns the cache off).
- ``CLOCK_SWEEP_SECONDS``: how often Celery beat sweeps for game clocks whose deadline has
  passed, and applies them (default 0.5).
- ``TOURNAMENT_TICK_SECONDS`` (default 2), ``TOURNAMENT_ANNOUNCE_MINUTES`` (180),
  ``TOURNAMENT_SCHEDULE_ON`` (true): the tournaments' beat tick, how early a scheduled arena
  is made, and whether the schedule (``TOURNAMENT_SCHEDULE``) makes events at all.
- Sign-in providers (django-allauth; a provider whose values are missing is not offered):
  ``GOOGLE_CLIENT_ID`` and ``GOOGLE_CLIENT_SECRET`` (an OAuth client of Google Cloud);
  ``TELEGRAM_BOT_TOKEN`` (the whole token from @BotFather; ``TELEGRAM_BOT_ID``, the bot's
  numeric id, defaults to the part of the token before the colon).
- Telegram, the Mini App and the bot (games/telegram; all off without ``TELEGRAM_BOT_TOKEN``;
  README "Telegram"): ``TELEGRAM_BOT_USERNAME`` (the bot's @name without the @, for the
  invitation links), ``TELEGRAM_MINI_APP_NAME`` (the Mini App's short name from BotFather's
  /newapp; empty: the bot's main Mini App), ``TELEGRAM_WEBHOOK_SECRET`` (the secret in the
  webhook's path and header; default derived from the token and SECRET_KEY),
  ``TELEGRAM_API_URL`` (default ``https://api.telegram.org``).
- ``DJANGO_ENV``: ``development`` (default) or ``production``. Production requires
  ``SECRET_KEY``, ``ALLOWED_HOSTS``, ``DATABASE_URL`` (PostgreSQL), ``REDIS_URL`` and
  ``ADMIN_URL`` (ImproperlyConfigured naming the variable otherwise), turns DEBUG off and sends
  every browser to HTTPS (docs/deploy.md). There: ``HSTS_SECONDS`` (default 31536000),
  ``HSTS_PRELOAD`` (default true), ``PROXY_SSL_HEADER`` (default ``X-Forwarded-Proto``; empty
  when Daphne itself terminates TLS).
- ``ADMIN_URL``: the admin's path, default ``admin/``; required in production, where it must
  be one path segment of at least 12 URL-safe characters that is not a usual admin name.
- ``LOAD_ECHO``: the load tool's echo socket (default false); refused in production.
- ``CONN_MAX_AGE``: seconds a PostgreSQL connection is kept (default 0: Daphne serves each
  request in a thread of its own, so Django advises against persistent connections under ASGI;
  the Procfile gives the Celery processes 60).
- ``DATABASE_POOL``: the largest number of PostgreSQL connections a process keeps in a pool
  (default 0: no pool). For Daphne (the Procfile gives it 10): each HTTP request and each
  socket's database work runs in a thread of its own and borrows a connection for the call.
  Not for the Celery processes (a pool does not survive their fork; they use CONN_MAX_AGE).
- ``STATIC_ROOT``: where collectstatic writes (default ``<project>/staticfiles``).
"""

import os
import re
import secrets
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

# --- Deployment: development (default) or production -----------------------------------------
DJANGO_ENV = env.str("DJANGO_ENV", default="development").strip().lower()
if DJANGO_ENV not in ("development", "production"):
    raise ImproperlyConfigured(
        f"DJANGO_ENV must be 'development' or 'production', not {DJANGO_ENV!r}."
    )
PRODUCTION = DJANGO_ENV == "production"
if PRODUCTION:
    # All the missing ones at once; a single one gets its own message with an example below.
    _missing = [
        name
        for name in ("SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL", "ADMIN_URL")
        if not env.str(name, default="").strip()
    ]
    if len(_missing) > 1:
        raise ImproperlyConfigured(
            f"{', '.join(_missing)} must be set when DJANGO_ENV=production "
            '(docs/deploy.md, "Environment").'
        )


def _required(name: str, why: str) -> str:
    """The value of environment variable ``name``; ImproperlyConfigured naming it (and
    ``why`` it is needed) when it is unset or blank in production."""
    value = env.str(name, default="").strip()
    if not value:
        raise ImproperlyConfigured(f"{name} must be set when DJANGO_ENV=production: {why}")
    return value


def _secret_key() -> str:
    """The SECRET_KEY from the environment, else a random one stored once in .secret_key.

    In production it must come from the environment (every process behind the load balancer
    needs the same key) and be as strong as ``check --deploy`` asks: at least 50 characters,
    5 different ones, not Django's ``django-insecure-`` placeholder."""
    if PRODUCTION:
        key = _required(
            "SECRET_KEY",
            "a long random string shared by every process, e.g. "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'.",
        )
        if len(key) < 50 or len(set(key)) < 5 or key.startswith("django-insecure-"):
            raise ImproperlyConfigured(
                "SECRET_KEY is too weak for production: use at least 50 random characters."
            )
        return key
    key = env.str("SECRET_KEY", default="")
    if key:
        return key
    path = BASE_DIR / ".secret_key"
    try:
        # O_EXCL: when Daphne and the Celery worker start together only one writes the file.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(50))
    key = path.read_text().strip()
    if not key:
        raise ImproperlyConfigured(f"{path} is empty: delete it or set SECRET_KEY.")
    return key


SECRET_KEY = _secret_key()
DEBUG = env.bool("DEBUG", default=False)
if PRODUCTION and DEBUG:
    raise ImproperlyConfigured("DEBUG must be off when DJANGO_ENV=production: unset DEBUG.")
if PRODUCTION:
    _required("ALLOWED_HOSTS", "the site's host names, comma-separated, e.g. nardy.example.")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
if PRODUCTION and "*" in ALLOWED_HOSTS:
    # The sign-in providers are sent back to URLs built from the Host header.
    raise ImproperlyConfigured("ALLOWED_HOSTS must name the site's hosts in production, not '*'.")
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# A form refused by the CSRF check gets the site's own page (Django's is unstyled and its
# inline style is blocked by the Content-Security-Policy).
CSRF_FAILURE_VIEW = "nardy_site.errors.csrf_failure"


def _admin_url() -> str:
    """The admin's path (no leading slash, one trailing slash). Production requires
    ``ADMIN_URL`` and refuses paths a scanner tries first."""
    if not PRODUCTION:
        return env.str("ADMIN_URL", default="admin/").strip("/") + "/"
    path = _required(
        "ADMIN_URL",
        "a path of your own for the admin, e.g. python -c "
        "\"import secrets; print('staff-' + secrets.token_urlsafe(12) + '/')\".",
    )
    path = path.strip("/")
    # Unreserved URL characters only: anything else would need quoting, and "<" ">" would be
    # read by path() as a converter.
    if not re.fullmatch(r"[A-Za-z0-9._~-]+", path):
        raise ImproperlyConfigured(
            f"ADMIN_URL {path!r} must be one path segment of letters, digits and - _ . ~ only."
        )
    guessable = {
        "admin",
        "administrator",
        "django-admin",
        "djangoadmin",
        "backend",
        "manage",
        "staff",
        "dashboard",
        "control",
        "panel",
        "adminpanel",
        "admin-panel",
    }
    if len(path) < 12 or path.lower() in guessable:
        # What is checked is the length and the usual names; the random part the example
        # adds is advice, since randomness cannot be checked.
        raise ImproperlyConfigured(
            f"ADMIN_URL {path!r} is too easy to guess: use at least 12 characters that are not "
            'a usual admin name, best with a random part (docs/deploy.md, "Environment").'
        )
    return path + "/"


ADMIN_URL = _admin_url()

INSTALLED_APPS = [
    # daphne first: its runserver serves ASGI (HTTP and WebSockets).
    "daphne",
    # whitenoise before staticfiles: runserver then leaves static files to WhiteNoise.
    "whitenoise.runserver_nostatic",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "channels",
    # The Content-Security-Policy header (CONTENT_SECURITY_POLICY below); the app adds its checks.
    "csp",
    "games",
    "rules_pages",
    # Accounts: sign-in with Google or Telegram only (games/accounts.py).
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.google",
    "allauth.socialaccount.providers.telegram",
    # Failed admin sign-ins counted and locked out (AXES_* below).
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    # Compresses pages for clients that accept gzip (a rules page with its SVG boards shrinks
    # about eightfold); outside every middleware that writes the body. Django's GZip pads the
    # output randomly against BREACH, and CSRF tokens are masked per response.
    "django.middleware.gzip.GZipMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # After CsrfViewMiddleware: puts this visitor's CSRF token into pages served from the page
    # cache (rules_pages/cache.py), so that one cached copy serves every reader.
    "rules_pages.cache.CachedPageCsrfMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Tells a signed-out session's game sockets once the sign-out's view is done (the session
    # is flushed by then), so their pages reload signed out.
    "games.accounts.sign_in.SignOutNoticeMiddleware",
    # After CachedPageCsrfMiddleware (its answer passes here first): puts this visitor's
    # "Sign in" / name-and-sign-out into pages served from the page cache.
    "games.accounts.sign_in.AccountMenuMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # After XFrameOptionsMiddleware (its answer passes here first): a page opened inside
    # Telegram may load Telegram's script and be framed by Telegram's web clients.
    "games.telegram.pages.TelegramPagesMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # Last, as django-axes asks: answers a locked-out sign-in with the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "nardy_site.urls"
WSGI_APPLICATION = "nardy_site.wsgi.application"
ASGI_APPLICATION = "nardy_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.telegram.pages.context",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
if PRODUCTION:
    _required(
        "DATABASE_URL", "the PostgreSQL database, e.g. postgres://user:password@host:5432/nardy."
    )
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Daphne runs each request in a thread of its own, so a kept connection would be left
    # behind by its thread: 0 there (Django's advice for ASGI); the Celery processes, one
    # thread each, keep theirs (CONN_MAX_AGE=60 in the Procfile). A kept connection that died
    # (a database restart, a fail-over) is noticed before it is used.
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    _pool_size = env.int("DATABASE_POOL", default=0)
    if _pool_size > 0:
        # Daphne: a connection per request or socket thread, taken from a pool and given
        # back after each use (psycopg_pool), instead of a new PostgreSQL backend each time.
        if DATABASES["default"]["CONN_MAX_AGE"]:
            raise ImproperlyConfigured(
                "DATABASE_POOL and CONN_MAX_AGE exclude each other: a "
                "pooled connection goes back to its pool after each use."
            )
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1,
            "max_size": _pool_size,
            "timeout": 10,
        }
elif PRODUCTION:
    raise ImproperlyConfigured(
        "DATABASE_URL must name a PostgreSQL database when DJANGO_ENV=production "
        f"(got {DATABASES['default']['ENGINE']}): several processes write at once."
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    _db_name = str(DATABASES["default"]["NAME"])
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            # WAL lets readers (Daphne) and a writer (the Celery worker) work at once;
            # IMMEDIATE takes the write lock at BEGIN, so a locked database waits for
            # `timeout` seconds instead of failing half-way through a transaction.
            "init_command": "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        }
    )
    if _db_name != ":memory:" and not _db_name.startswith("file:"):
        # A file (not Django's default in-memory test database) so that a Celery worker
        # started by the tests as a separate process sees the same test database; named
        # after the test run's process so that two runs in one checkout do not collide.
        _path = Path(_db_name)
        DATABASES["default"]["TEST"] = {
            "NAME": str(_path.with_name(f"test_{os.getpid()}_{_path.name}")),
        }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: Channels layer and Celery broker --------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="")
if PRODUCTION:
    _required("REDIS_URL", "the Redis shared by every process, e.g. redis://host:6379/0.")
if not REDIS_URL:
    raise ImproperlyConfigured(
        "REDIS_URL is not set. scripts/run and scripts/test start an embedded Redis and set it; "
        "otherwise export REDIS_URL=redis://127.0.0.1:6379/0 (or your Redis)."
    )

# the Channels layer may be sharded over several Redis servers (channels_redis hashes each
# channel and group to one of them)
CHANNEL_REDIS_URLS = env.list("CHANNEL_REDIS_URLS", default=[REDIS_URL])
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        # redis-py 8 gives every read a 5 s timeout, the same as channels_redis' blocking
        # receive, so idle sockets died every 5 s (django/channels_redis#422). Reads may
        # wait longer than that receive; a dead Redis is still noticed.
        # max_connections: redis-py 8's pool refuses a 101st connection at once (no wait),
        # and a few hundred sockets closing together each ask for one (group_discard).
        "CONFIG": {
            "hosts": [
                {"address": url, "socket_timeout": 30, "max_connections": 2000}
                for url in CHANNEL_REDIS_URLS
            ]
        },
    },
}

# the tasks may have a Redis of their own (a busy channel layer then never delays a move)
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL)
CELERY_RESULT_BACKEND = CELERY_BROKER_URL
CELERY_TASK_ALWAYS_EAGER = False
# A task is acknowledged after it ran, and given back if its worker dies: bot moves are
# idempotent (keyed by game version), so running one twice is harmless, losing one is not.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# The queue tasks are sent to (and a worker started without -Q reads); tests give each run its own.
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_QUEUE", default="celery")
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_TIMEZONE = "UTC"
# Celery beat: the clock sweep (games.tasks.sweep_clocks) applies every deadline that has
# passed (found by the games' deadline index: no task per move), forgets sockets of a Daphne
# that died and queues again computer moves whose task was lost. Seconds.
CLOCK_SWEEP_SECONDS = env.float("CLOCK_SWEEP_SECONDS", default=0.5)
CELERY_BEAT_SCHEDULE = {
    "sweep-clocks": {
        "task": "games.sweep_clocks",
        "schedule": CLOCK_SWEEP_SECONDS,
        # a sweep nobody ran in time is useless: the next one does the same work
        "options": {"expires": CLOCK_SWEEP_SECONDS * 5},
    },
    # matchmaking windows widen with waiting time (games.lobby): pair again regularly
    "pair-lobby": {
        "task": "games.pair_lobby",
        "schedule": env.float("LOBBY_PAIR_SECONDS", default=2.0),
        "options": {"expires": 10},
    },
    # tournaments (games.tournaments): make the scheduled events, start, pair, advance, finish
    "tournament-tick": {
        "task": "games.tournament_tick",
        "schedule": env.float("TOURNAMENT_TICK_SECONDS", default=2.0),
        "options": {"expires": 10},
    },
    # imported records nobody opened for GAMES_IMPORT_KEEP_DAYS are deleted (games.records)
    "expire-imports": {
        "task": "games.expire_imports",
        "schedule": env.float("IMPORT_EXPIRY_SECONDS", default=3600.0),
        "options": {"expires": 600},
    },
    # one-use sign-in claims past their time (games.one_use): the rows go, nothing else
    "forget-used-tokens": {
        "task": "games.forget_used_tokens",
        "schedule": 3600.0,
        "options": {"expires": 600},
    },
}

# --- Tournaments (games.tournaments.schedule): the events a site makes by itself. Times are
# UTC: 17:00 is 20:00 in Moscow and 19:00 in Sofia (winter). Arenas are made this many minutes
# before they start; an "open" cup is kept open for entries, a new one once it fills.
TOURNAMENT_ANNOUNCE_MINUTES = env.int("TOURNAMENT_ANNOUNCE_MINUTES", default=180)
TOURNAMENT_SCHEDULE = (
    [
        {
            "key": "hourly-sport",
            "kind": "arena",
            "preset": "sport",
            "every": "hour",
            "minute": 0,
            "minutes": 30,
        },
        {
            "key": "hourly-classic",
            "kind": "arena",
            "preset": "classic",
            "every": "hour",
            "minute": 30,
            "minutes": 30,
        },
        {
            "key": "evening-sport",
            "kind": "arena",
            "preset": "sport",
            "every": "day",
            "hour": 17,
            "minute": 0,
            "minutes": 60,
        },
        {
            "key": "evening-classic",
            "kind": "arena",
            "preset": "classic",
            "every": "day",
            "hour": 18,
            "minute": 0,
            "minutes": 60,
        },
        {
            "key": "evening-match",
            "kind": "arena",
            "preset": "match",
            "every": "day",
            "hour": 19,
            "minute": 0,
            "minutes": 60,
        },
        {
            "key": "sit-and-go-4",
            "kind": "cup",
            "preset": "match",
            "every": "open",
            "size": 4,
            "match_length": 3,
        },
        {
            "key": "sit-and-go-8",
            "kind": "cup",
            "preset": "match",
            "every": "open",
            "size": 8,
            "match_length": 5,
        },
    ]
    if env.bool("TOURNAMENT_SCHEDULE_ON", default=True)
    else []
)

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

# --- Rate limits, socket caps and outages: defaults in games/app_settings.py (docs/protocol.md
# "Rate limits", "Outages"); each may be given in the environment too, e.g.
# GAMES_CREATE_IP_LIMITS=600/minute or GAMES_SOCKETS_PER_IP=0 for a load test from one address.
for _name in (
    "GAMES_SOCKET_FRAME_LIMITS",
    "GAMES_SESSION_FRAME_LIMITS",
    "GAMES_CONNECT_SESSION_LIMITS",
    "GAMES_CONNECT_IP_LIMITS",
    "GAMES_CREATE_SESSION_LIMITS",
    "GAMES_CREATE_IP_LIMITS",
    "GAMES_IMPORT_SESSION_LIMITS",
    "GAMES_IMPORT_IP_LIMITS",
    "GAMES_HINT_SESSION_LIMITS",
    "GAMES_HINT_IP_LIMITS",
    "GAMES_JUDGE_SESSION_LIMITS",
    "GAMES_JUDGE_IP_LIMITS",
    "GAMES_ENTRY_SESSION_LIMITS",
    "GAMES_ENTRY_IP_LIMITS",
    "GAMES_RATELIMIT_KEY_PREFIX",
):
    if _name in os.environ:
        globals()[_name] = env.str(_name)
for _name in (
    "GAMES_SOCKETS_PER_SESSION",
    "GAMES_SOCKETS_PER_IP",
    "GAMES_MAX_ACTIVE",
    "GAMES_ACTIVE_WINDOW_SECONDS",
    "GAMES_FULL_RETRY_SECONDS",
    "GAMES_OUTAGE_MIN_MS",
    "GAMES_IMPORT_KEEP_DAYS",
):
    if _name in os.environ:
        globals()[_name] = env.int(_name)
if "GAMES_RATELIMIT_ENABLED" in os.environ:
    GAMES_RATELIMIT_ENABLED = env.bool("GAMES_RATELIMIT_ENABLED")

# --- Sessions, auth -------------------------------------------------------------------------
SESSION_ENGINE = "django.contrib.sessions.backends.db"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Accounts: django-allauth, social sign-in only (games/accounts.py) ----------------------
# DEV_SIGN_IN (default: on in development, off in production): the sign-in page offers a
# development sign-in with any name and no password (games/dev_sign_in.py), so rated play can
# be tried between two browsers on a machine with no sign-in provider.
DEV_SIGN_IN = env.bool("DEV_SIGN_IN", default=not PRODUCTION)
if PRODUCTION and DEV_SIGN_IN:
    raise ImproperlyConfigured(
        "DEV_SIGN_IN must be off when DJANGO_ENV=production: anyone could sign in as anyone."
    )
AUTHENTICATION_BACKENDS = [
    # first, as django-axes asks: refuses a locked-out address before the password is checked
    "axes.backends.AxesStandaloneBackend",
    # the admin's username and password
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
# The admin's sign-in (the only one with a password) is throttled by django-axes: after
# AXES_FAILURE_LIMIT wrong passwords from one address, that address is refused for
# AXES_COOLOFF_MINUTES. A success does not clear the count (a player signing in from that
# address would otherwise lift it); failures older than the cool-off stop counting. Attempts
# are kept in the database and listed in the admin ("Axes"); `manage.py axes_reset` lifts
# every lockout. The log names the address (not the username typed, which may be a password).
AXES_ENABLED = env.bool("AXES_ENABLED", default=True)
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.float("AXES_COOLOFF_MINUTES", default=30))
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_RESET_ON_SUCCESS = False
AXES_SENSITIVE_PARAMETERS = ["username"]
# Tries during a lockout are refused unchecked, so they need not lengthen it: the page can
# then say truly how long is left.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "nardy_site.errors.admin_locked_out"
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "rules:home"
# No local passwords, sign-up forms or e-mail management: a player signs in with a provider,
# and the first sign-in makes the account without asking anything (Telegram gives no e-mail,
# so none is required).
SOCIALACCOUNT_ONLY = True
SOCIALACCOUNT_AUTO_SIGNUP = True
SOCIALACCOUNT_ADAPTER = "games.accounts.sign_in.SocialAccountAdapter"
ACCOUNT_ADAPTER = "games.accounts.sign_in.AccountAdapter"
SOCIALACCOUNT_EMAIL_VERIFICATION = "none"
SOCIALACCOUNT_EMAIL_REQUIRED = False
SOCIALACCOUNT_QUERY_EMAIL = False
SOCIALACCOUNT_STORE_TOKENS = False
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*"]
ACCOUNT_LOGOUT_REDIRECT_URL = "rules:home"
# The Telegram sign-in's data stays valid this long after Telegram signed it (seconds): long
# enough for a slow phone or a clock a little off, short enough that an old, leaked link is
# useless; each answer also signs in only once. games.accounts.telegram_callback refuses
# older or used ones with a clear page; allauth's own check gets the same bound.
TELEGRAM_AUTH_MAX_AGE = 600
# The bot (games/telegram): its token turns on the Telegram sign-in, the Mini App, the webhook
# and the notices; without it none of them exists (their URLs answer 404).
TELEGRAM_BOT_TOKEN = env.str("TELEGRAM_BOT_TOKEN", default="").strip()
TELEGRAM_BOT_USERNAME = env.str("TELEGRAM_BOT_USERNAME", default="").strip().lstrip("@")
TELEGRAM_MINI_APP_NAME = env.str("TELEGRAM_MINI_APP_NAME", default="").strip()
TELEGRAM_API_URL = env.str("TELEGRAM_API_URL", default="https://api.telegram.org").rstrip("/")
TELEGRAM_WEBHOOK_SECRET = env.str("TELEGRAM_WEBHOOK_SECRET", default="").strip()
# Telegram's own limits for one bot: about 30 messages a second in all and one a second per
# chat (https://core.telegram.org/bots/faq); the notices keep under both.
TELEGRAM_SEND_LIMITS = env.str("TELEGRAM_SEND_LIMITS", default="25/second")
TELEGRAM_CHAT_LIMITS = env.str("TELEGRAM_CHAT_LIMITS", default="1/second;20/minute")
# A player whose game page closed less than this long ago (seconds) is not yet told it is
# their turn: a reload must not send a message.
TELEGRAM_TURN_GRACE_SECONDS = env.float("TELEGRAM_TURN_GRACE_SECONDS", default=10.0)
if PRODUCTION and TELEGRAM_BOT_TOKEN and not SITE_URL:
    _required("SITE_URL", "the bot's buttons and notices (sent from Celery) link to the site")


def _social_providers():
    """SOCIALACCOUNT_PROVIDERS with an app for each provider whose credentials are set."""
    providers = {
        "google": {
            "SCOPE": ["profile"],
            "AUTH_PARAMS": {"prompt": "select_account"},
            "OAUTH_PKCE_ENABLED": True,
        },
        "telegram": {"AUTH_PARAMS": {"auth_date_validity": TELEGRAM_AUTH_MAX_AGE}},
    }
    google_id = env.str("GOOGLE_CLIENT_ID", default="")
    google_secret = env.str("GOOGLE_CLIENT_SECRET", default="")
    if google_id and google_secret:
        providers["google"]["APPS"] = [{"client_id": google_id, "secret": google_secret}]
    bot_token = env.str("TELEGRAM_BOT_TOKEN", default="").strip()
    bot_id = env.str("TELEGRAM_BOT_ID", default="") or bot_token.partition(":")[0]
    if bot_id and bot_token:
        providers["telegram"]["APPS"] = [{"client_id": bot_id, "secret": bot_token}]
    return providers


SOCIALACCOUNT_PROVIDERS = _social_providers()
if TELEGRAM_BOT_TOKEN and PRODUCTION:
    # Telegram's web clients frame the Mini App (web.telegram.org), where a browser sends
    # only cookies marked SameSite=None (and Secure, which production's are) to the frame.
    # CSRF stays checked by its token and the Origin header.
    SESSION_COOKIE_SAMESITE = CSRF_COOKIE_SAMESITE = LANGUAGE_COOKIE_SAMESITE = "None"

# --- Languages ------------------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("ru", _("Russian")),
    ("bg", _("Bulgarian")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
# Our own Bulgarian date formats (Django's leave the date-and-time ones to the US default).
FORMAT_MODULE_PATH = ["nardy_site.formats"]
TIME_ZONE = "UTC"
USE_TZ = True

# --- Static files (served by WhiteNoise under Daphne) -----------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Development: compressed but not hashed, so pages render without a manifest (tests, a
    # fresh checkout). Production: file names carry a hash of the content, so browsers may
    # keep them forever (WhiteNoise says so), and JavaScript modules import each other by the
    # hashed names (nardy_site/storage.py); needs collectstatic, the Procfile's release.
    "staticfiles": {
        "BACKEND": "nardy_site.storage.ModuleManifestStaticFilesStorage"
        if PRODUCTION
        else "whitenoise.storage.CompressedStaticFilesStorage"
    },
}
# Development serves straight from the apps' static folders as well, so a server started
# without collectstatic (the tests' Daphne) still has every file; production only from
# STATIC_ROOT, where the hashed names are.
WHITENOISE_USE_FINDERS = not PRODUCTION

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

# --- Logging: everything to stdout ------------------------------------------------------------
LOG_LEVEL = env.str("LOG_LEVEL", default="INFO").upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
    },
    "filters": {
        "routine_tasks": {"()": "nardy_site.logging_filters.QuietRoutineTasks"},
        "refusals": {"()": "nardy_site.logging_filters.RefusalsAreNotErrors"},
    },
    "handlers": {
        "stdout": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stdout",
            "formatter": "plain",
        },
    },
    "root": {"handlers": ["stdout"], "level": LOG_LEVEL},
    "loggers": {
        "django": {"handlers": ["stdout"], "level": LOG_LEVEL, "propagate": False},
        # refusals (429 rate limited, 503 site full) are answers, not server errors
        "django.request": {
            "handlers": ["stdout"],
            "level": LOG_LEVEL,
            "propagate": False,
            "filters": ["refusals"],
        },
        "games": {"handlers": ["stdout"], "level": LOG_LEVEL, "propagate": False},
        # django-axes: failed admin sign-ins and lockouts (WARNING), not every sign-in (INFO)
        "axes": {"handlers": ["stdout"], "level": "WARNING", "propagate": False},
        # the worker's per-task lines ("received", "succeeded"), less the beat's routine ones
        "celery.app.trace": {"filters": ["routine_tasks"]},
        "celery.worker.strategy": {"filters": ["routine_tasks"]},
    },
}

# --- Load testing ---------------------------------------------------------------------------
# LOAD_ECHO (default false): serve the bare echo socket ws/echo/ (games/echo.py), the baseline
# of the load tool (python -m games.loadtool). Refused in production: no echo endpoint there.
LOAD_ECHO = env.bool("LOAD_ECHO", default=False)
if PRODUCTION and LOAD_ECHO:
    raise ImproperlyConfigured(
        "LOAD_ECHO must be off when DJANGO_ENV=production: the echo "
        "socket is a load-test tool (games/loadtool), not part of the site."
    )
