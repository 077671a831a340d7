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

The settings are this package, one module per concern, read in this order (each uses only
what an earlier one set, and production's checks refuse a wrong environment in this order):
``environment`` (DJANGO_ENV, the project's folder, the variables production requires),
``base`` (the secret key, hosts and admin path; apps, middleware, templates, languages and
static files), ``database``, ``channels_celery`` (Redis: the Channels layer, the Celery
tasks and beat's schedule), ``tournaments`` (the events the site makes by itself), ``pages``
(the page cache and ``SITE_URL``), ``limits`` (rate limits and caps from the environment),
``auth`` (sessions, the admin's lockout, the sign-in providers, Telegram), ``security``
(HTTPS, the security headers, the Content-Security-Policy, the load tool's echo socket) and
``logs``. ``DJANGO_SETTINGS_MODULE`` is ``nardy_site.settings`` everywhere.
"""

# In this order, not the alphabet's: it is the order of production's refusals (see above).
# isort: off
from .environment import *  # noqa: F403
from .base import *  # noqa: F403
from .database import *  # noqa: F403
from .channels_celery import *  # noqa: F403
from .tournaments import *  # noqa: F403
from .pages import *  # noqa: F403
from .limits import *  # noqa: F403
from .auth import *  # noqa: F403
from .security import *  # noqa: F403
from .logs import *  # noqa: F403
# isort: on
