"""Settings of the games app, read from ``django.conf.settings`` with defaults (the allauth
way): ``from games import app_settings`` then ``app_settings.SOCKET_FRAME_LIMITS``. Each
name is read on every use, so a test's ``settings`` fixture (or ``override_settings``)
changes it at once. In the project's settings a name carries the prefix ``GAMES_``, e.g.
``GAMES_SOCKET_FRAME_LIMITS = "20/second;300/minute"``.

Limits are strings of the ``limits`` library (``"<count>/<unit>"`` or ``"<count> per <n>
<unit>"``, several joined by ``;``; units second, minute, hour, day), counted in a moving
window in Redis (docs/protocol.md "Rate limits"). An empty string turns that limit off.
The caps of open sockets (``SOCKETS_PER_*``) are whole numbers counted in each server
process's memory; 0 turns one off.
"""


class AppSettings:
    """The ``GAMES_*`` settings with their defaults; ``prefix`` is put before each name."""

    def __init__(self, prefix):
        self.prefix = prefix

    def _setting(self, name, default):
        from django.conf import settings

        return getattr(settings, self.prefix + name, default)

    @property
    def RATELIMIT_ENABLED(self):
        """False turns every rate limit of the app off (bool; default True)."""
        return self._setting("RATELIMIT_ENABLED", True)

    @property
    def RATELIMIT_STORAGE_URL(self):
        """The Redis the counters live in (a ``limits`` storage URL; default ``REDIS_URL``)."""
        from django.conf import settings

        return self._setting("RATELIMIT_STORAGE_URL", settings.REDIS_URL)

    @property
    def RATELIMIT_KEY_PREFIX(self):
        """Prefix of the counters' Redis keys (beside Channels, Celery and the cache)."""
        return self._setting("RATELIMIT_KEY_PREFIX", "nardy-limits")

    @property
    def SOCKET_FRAME_LIMITS(self):
        """Frames one game or lobby socket may send. A player sends a handful of frames per
        turn (roll, play, a why when a checker will not move, a snapshot when the tab comes
        back); 20 within one second covers a burst of clicks, 300 a minute (5 a second
        sustained) more than anyone plays."""
        return self._setting("SOCKET_FRAME_LIMITS", "20/second;300/minute")

    @property
    def SESSION_FRAME_LIMITS(self):
        """Frames all the sockets of one session (or, without a session, of one address) may
        send together: a player with a game and a lobby open, or watching several games."""
        return self._setting("SESSION_FRAME_LIMITS", "40/second;600/minute")

    @property
    def CREATE_SESSION_LIMITS(self):
        """New games one session (or signed-in account) may start: a game against the
        computer, a challenge link made or accepted, a join of the lobby queue."""
        return self._setting("CREATE_SESSION_LIMITS", "30/minute")

    @property
    def CREATE_IP_LIMITS(self):
        """New games all visitors from one address may start together (a household or an
        office behind one address; a client that drops its cookie each time)."""
        return self._setting("CREATE_IP_LIMITS", "120/minute")

    @property
    def IMPORT_SESSION_LIMITS(self):
        """Game records one session (or signed-in account) may import: each is replayed
        through the engine and stored, so a script must not fill the database. A player
        correcting a record and trying again stays well under it."""
        return self._setting("IMPORT_SESSION_LIMITS", "20/hour;50/day")

    @property
    def IMPORT_IP_LIMITS(self):
        """Game records all visitors from one address may import together."""
        return self._setting("IMPORT_IP_LIMITS", "100/hour;300/day")

    @property
    def HINT_SESSION_LIMITS(self):
        """Hint searches (docs/protocol.md "Hints": a hint or a judgement not in the cache)
        one session or account may ask for: each costs a Celery worker up to 0.6 s, beside the
        computer's moves. A player asking for a hint on every turn, even at 3 s a turn, stays
        under it; the judgements of the player's plays are counted apart (``JUDGE_*``)."""
        return self._setting("HINT_SESSION_LIMITS", "20/minute;400/hour")

    @property
    def HINT_IP_LIMITS(self):
        """Hint searches all visitors from one address may ask for together."""
        return self._setting("HINT_IP_LIMITS", "60/minute;1200/hour")

    @property
    def JUDGE_SESSION_LIMITS(self):
        """Searches judging the player's own plays (docs/protocol.md "Hints": a ``judge`` not
        in the cache) one session or account may ask for. The page asks one after each of
        the player's plays, so the game itself bounds them; this only stops a script. Apart
        from the hint limits, so judging never uses up the player's hints."""
        return self._setting("JUDGE_SESSION_LIMITS", "60/minute;1200/hour")

    @property
    def JUDGE_IP_LIMITS(self):
        """Judgement searches all visitors from one address may ask for together."""
        return self._setting("JUDGE_IP_LIMITS", "180/minute;3600/hour")

    @property
    def CHAT_SESSION_LIMITS(self):
        """Chat messages (presets and text) one session or account may send in all its games
        (docs/protocol.md "Chat"): a greeting, a few words in a turn and "good game" fit well
        under it; a stream of messages does not."""
        return self._setting("CHAT_SESSION_LIMITS", "5 per 10 seconds;20/minute")

    @property
    def CHAT_IP_LIMITS(self):
        """The same, of all visitors from one address together."""
        return self._setting("CHAT_IP_LIMITS", "30 per 10 seconds;120/minute")

    @property
    def ENTRY_SESSION_LIMITS(self):
        """Tournament entries and departures (the join and leave forms) one account may make:
        each changes the event and is sent to every page of it."""
        return self._setting("ENTRY_SESSION_LIMITS", "10/minute;100/hour")

    @property
    def ENTRY_IP_LIMITS(self):
        """Tournament entries and departures all visitors from one address may make together."""
        return self._setting("ENTRY_IP_LIMITS", "60/minute;600/hour")

    @property
    def IMPORT_KEEP_DAYS(self):
        """An imported record nobody has opened for this many days is deleted by the beat
        task ``games.expire_imports`` (int >= 0; 0: kept for ever). A record someone shared
        and others still open is kept."""
        return self._count("IMPORT_KEEP_DAYS", 90)

    @property
    def CONNECT_SESSION_LIMITS(self):
        """Game and lobby sockets one visitor may open (connect) in a while: each connect
        costs a session and game read and may send every socket of the game a snapshot, so a
        page that reconnects in a loop must not busy the server. A reload is one connect;
        20 in 10 seconds covers every tab of a player coming back after a server restart."""
        return self._setting("CONNECT_SESSION_LIMITS", "20 per 10 seconds;120/minute")

    @property
    def CONNECT_IP_LIMITS(self):
        """Sockets all visitors from one address may open together in a while (many players
        behind one address reconnecting after a server restart stay under it)."""
        return self._setting("CONNECT_IP_LIMITS", "600/minute")

    @property
    def SOCKETS_PER_SESSION(self):
        """Game and lobby sockets one visitor (the signed-in account, else the session, else
        the address: ``ratelimits.scope_identity``) may hold open at once in one server
        process (int >= 0; 0: no cap). Every open socket costs a snapshot per change of its
        game; 20 covers a player with many tabs, or one watching a dozen games."""
        return self._count("SOCKETS_PER_SESSION", 20)

    @property
    def SOCKETS_PER_IP(self):
        """Game and lobby sockets all visitors from one address may hold open at once in one
        server process (int >= 0; 0: no cap): a household, an office or a school behind one
        address."""
        return self._count("SOCKETS_PER_IP", 300)

    @property
    def MAX_ACTIVE(self):
        """Games in progress past which the site refuses new ones (int >= 0; 0: no cap; see
        ``games.admission``): the games already running keep their speed instead of every
        game slowing down. docs/deploy.md gives what a core serves."""
        return self._count("MAX_ACTIVE", 0)

    @property
    def ACTIVE_WINDOW_SECONDS(self):
        """A game in progress counts for admission while something happened in it this
        recently (int > 0 seconds): a game both players left costs the server nothing."""
        return self._count("ACTIVE_WINDOW_SECONDS", 600) or 600

    @property
    def FULL_RETRY_SECONDS(self):
        """The ``Retry-After`` of a new game refused because the site is full (int >= 1)."""
        return self._count("FULL_RETRY_SECONDS", 30) or 30

    def _count(self, name, default):
        value = self._setting(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            from django.core.exceptions import ImproperlyConfigured

            raise ImproperlyConfigured(
                f"{self.prefix}{name} must be a whole number, 0 or more (0: off), not {value!r}"
            )
        return value

    @property
    def OUTAGE_MIN_MS(self):
        """A silence of the clock sweep's heartbeat longer than this (int ms >= 0; 0: outages
        are never credited) is an outage: every running clock is credited with its length
        (``games.services.outages``). Well above the sweep's interval and its delays under
        load, well below the time a player needs to notice and come back."""
        return self._count("OUTAGE_MIN_MS", 5_000)

    @property
    def IMAGE_RENDER_IP_LIMITS(self):
        """Position images (SVG or PNG, /position/<id>.png) one address may have drawn afresh:
        a PNG costs about 0.2 s of CPU and 80 KB of cache, so a stream of new ids must not
        busy the server; images already in the cache are not counted."""
        return self._setting("IMAGE_RENDER_IP_LIMITS", "60/minute")


_app_settings = AppSettings("GAMES_")


def __getattr__(name):
    # the module stands for the object: app_settings.SOCKET_FRAME_LIMITS
    return getattr(_app_settings, name)
