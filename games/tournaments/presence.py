"""Who is at a tournament: the open sockets of signed-in players on its pages
(``TournamentSocket`` rows). An arena pairs only entrants who are here, so nobody is paired
into a game they will not see; a Daphne that dies leaves rows that go stale and stop
counting after ``STALE_MS``."""

from games import clocks
from games.tournaments.models import TournamentSocket

#: a socket not seen for this long (ms) no longer counts (its server went away)
STALE_MS = 45_000
#: how often an open socket says it is still there (ms), well under STALE_MS
PAGE_TOUCH_MS = 15_000
#: a closed socket still counts this long (ms): a page that reloads (after the join form, or
#: from the event's page to the game's) is not marked away in between
CLOSE_GRACE_MS = 5_000


def socket_opened(tournament_id, user_id, channel_name):
    """Record the open socket ``channel_name`` of account ``user_id`` on the tournament as seen
    now (also every ``PAGE_TOUCH_MS`` while it is open: a row the tick forgot after a stall comes
    back)."""
    TournamentSocket.objects.update_or_create(
        channel_name=channel_name,
        defaults={
            "tournament_id": tournament_id,
            "user_id": user_id,
            "seen": clocks.from_ms(clocks.now_ms()),
        },
    )


def socket_closed(channel_name):
    """The socket ``channel_name`` closed: it counts for ``CLOSE_GRACE_MS`` more, then the
    tick forgets it."""
    TournamentSocket.objects.filter(channel_name=channel_name).update(
        seen=clocks.from_ms(clocks.now_ms() - STALE_MS + CLOSE_GRACE_MS)
    )


def here(tournament_id, user_ids, now_ms):
    """The accounts among ``user_ids`` with a live socket on the tournament at ``now_ms``."""
    fresh = clocks.from_ms(now_ms - STALE_MS)
    return set(
        TournamentSocket.objects.filter(
            tournament_id=tournament_id, user_id__in=list(user_ids), seen__gte=fresh
        ).values_list("user_id", flat=True)
    )


def forget_stale(now_ms):
    """Delete the rows of sockets not seen for ``STALE_MS`` (the beat tick). Returns how many."""
    deleted, _ = TournamentSocket.objects.filter(
        seen__lt=clocks.from_ms(now_ms - STALE_MS)
    ).delete()
    return deleted
