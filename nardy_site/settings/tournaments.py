"""The tournaments the site makes by itself (``TOURNAMENT_SCHEDULE``, read by
games.tournaments.schedule)."""

from .environment import env

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
