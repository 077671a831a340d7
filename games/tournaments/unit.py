"""The unit of work of every change of a tournament: lock the event's row, change it, raise
its ``version`` once and, after the commit, send its new state (``notices``).

    with changing(tournament_id) as change:
        ...          # change.tournament is locked; change.mark() when something changed
    # committed: every page of the event hears of it once

An exception inside rolls the whole change back and sends nothing.
"""

from contextlib import contextmanager

from django.db import transaction

from games.tournaments import notices
from games.tournaments.models import Tournament


class TournamentChange:
    """One change of one event inside the caller's transaction: ``tournament`` (locked),
    ``paired`` (the games it started, for the players' pages) and whether it ``advance``s
    (queues the pairing task after the commit)."""

    def __init__(self, tournament):
        self.tournament = tournament
        self.changed = False
        self.paired = []
        self.advance = False

    def mark(self):
        """Something the pages show changed: the version rises and the state is sent."""
        self.changed = True

    def started(self, game, white_user, black_user, starts_at_ms):
        """A game of the event was started: its players' pages announce it."""
        self.changed = True
        self.paired.append(
            {"game": str(game.pk), "users": [white_user, black_user], "starts_at": starts_at_ms}
        )


@contextmanager
def changing(tournament_id):
    """A transaction with event ``tournament_id`` locked, as a ``TournamentChange``; saved
    and sent when the block ends without an exception. Raises Tournament.DoesNotExist."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        change = TournamentChange(tournament)
        yield change
        if change.changed:
            tournament.version += 1
            tournament.save()
            notices.changed(tournament.pk, tournament.version, change.paired)
        if change.advance:
            notices.advance_later(tournament.pk)
