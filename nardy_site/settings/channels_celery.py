"""Redis: the Channels layer of the sockets (``CHANNEL_REDIS_URLS``), the Celery tasks'
broker (``CELERY_BROKER_URL``) and beat's schedule (the clock sweep, the lobby's pairing,
the tournaments' tick and the hourly clean-ups)."""

from django.core.exceptions import ImproperlyConfigured

from .environment import PRODUCTION, env, required

# --- Redis: Channels layer and Celery broker --------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="")
if PRODUCTION:
    required("REDIS_URL", "the Redis shared by every process, e.g. redis://host:6379/0.")
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
    # one-use sign-in claims past their time (games.accounts.one_use): the rows go, nothing else
    "forget-used-tokens": {
        "task": "games.forget_used_tokens",
        "schedule": 3600.0,
        "options": {"expires": 600},
    },
}
