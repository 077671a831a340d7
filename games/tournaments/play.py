"""Starting the game (or match) of a pairing, and reading its result back: shared by the
arena and the cup."""

import secrets

from django.contrib.auth import get_user_model
from django.db.models import Q

from games import admission, clocks
from games.choices import EventKind, Preset
from games.room.models import Game, GameEvent
from games.services.options import table_options
from games.services.starting import new_game
from games.signals import tournament_game_started
from games.tournaments.models import (
    Entrant,
    Pairing,
    PairingStatus,
    TournamentKind,
    TournamentStatus,
)

#: a tournament game's clock starts this long after it is made (ms): the players' pages
#: announce it with a countdown and open it
ANNOUNCE_MS = 5_000


def start_game(change, pairing, now_ms, seat_by_colour=False):
    """Start the game of ``pairing`` (its two entrants set; sides drawn by the server), rated,
    with the event's table and clock, its clock running from ``ANNOUNCE_MS`` after
    ``now_ms``; the pairing is then being played and both players' pages hear of it.
    ``seat_by_colour``: the pairing's white and black become the game's (an arena's; a cup's
    keep their places in the bracket)."""
    tournament = change.tournament
    length = tournament.match_length if tournament.preset == Preset.MATCH else None
    table, length = table_options(tournament.preset, length)
    first, second = pairing.white, pairing.black
    if secrets.randbelow(2):
        first, second = second, first
    starts = now_ms + ANNOUNCE_MS
    game = new_game(
        tournament.preset,
        table,
        length,
        "random",
        clocks.CLOCKS[tournament.clock_kind],
        {"white_user_id": first.user_id, "black_user_id": second.user_id, "rated": True},
        clock_from=starts,
    )
    if seat_by_colour:
        pairing.white, pairing.black = first, second
    pairing.game, pairing.match, pairing.status = game, game.match, PairingStatus.PLAYING
    pairing.save()
    change.started(game, first.user_id, second.user_id, starts)
    tournament_game_started.send(
        sender=Game, tournament=tournament, game=game, user_ids=(first.user_id, second.user_id)
    )
    return game


def admitted(change, now_ms):
    """Whether the site has room for the event's next game now (``admission.check``, which
    then holds its place). When it has not, pairing (an arena) or the next match (a cup)
    waits, and ``full_since`` tells its page since when; games under way are untouched
    (docs/deploy.md "Capacity")."""
    tournament = change.tournament
    try:
        admission.check()
    except admission.SiteFull:
        if tournament.full_since is None:
            tournament.full_since = clocks.from_ms(now_ms)
            change.mark()
        return False
    return True


def room_again(change):
    """Clear the event's ``full_since`` once the site has room again (``admission.has_room``;
    each pairing or advance asks first, so the page's notice goes even when nobody waits)."""
    tournament = change.tournament
    if tournament.full_since is not None and admission.has_room():
        tournament.full_since = None
        change.mark()


def lock_players(user_ids):
    """Lock the accounts' rows, in id order, for the rest of the transaction: two events about
    to pair the same player (two arenas, a cup and an arena) take turns, and the second sees
    the first's game in ``busy``."""
    list(
        get_user_model()
        .objects.select_for_update()
        .filter(pk__in=sorted(set(user_ids)))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def busy(user_ids, cup_matches=True):
    """The accounts among ``user_ids`` that are in a game between people in progress (any:
    tournament, lobby or challenge; they all run a clock, so they end; a game against the
    computer left open does not count) and, with ``cup_matches``, those a cup's match is
    waiting for (both its players known, not yet started: it starts once they are free)."""
    ids = set(user_ids)
    found: set[int | None] = set()
    for white, black in (
        Game.objects.active()
        .filter(bot_side="")
        .filter(Q(white_user_id__in=ids) | Q(black_user_id__in=ids))
        .values_list("white_user_id", "black_user_id")
    ):
        found.update((white, black))
    if cup_matches:
        for white, black in (
            Pairing.objects.filter(
                status=PairingStatus.WAITING,
                tournament__kind=TournamentKind.CUP,
                tournament__status=TournamentStatus.RUNNING,
                white__isnull=False,
                black__isnull=False,
            )
            .filter(Q(white__user_id__in=ids) | Q(black__user_id__in=ids))
            .values_list("white__user_id", "black__user_id")
        ):
            found.update((white, black))
    return found & ids


def entrant_of(pairing, game, side):
    """The entrant of ``pairing`` who played ``side`` of ``game``."""
    user_id = game.user_of(side)
    for entrant in pairing.entrants():
        if entrant.user_id == user_id:
            return entrant
    raise Entrant.DoesNotExist(f"nobody of {pairing} played {side} of {game.pk}")


def plays_of(game, user_id):
    """How many plays (passes not counted) account ``user_id`` made in ``game``, or over every
    game of its match (0 if it plays neither side)."""
    plays = game.plays_by_side(whole_match=True, passes=False)
    return sum(plays[side] for side in plays if game.user_of(side) == user_id)


def players_who_played(pairings):
    """The accounts that made at least one play (a pass counts) in the games of ``pairings``
    (each pairing's game and every game of its match)."""
    matches = [pairing.match_id for pairing in pairings if pairing.match_id]
    games = [pairing.game_id for pairing in pairings if pairing.game_id and not pairing.match_id]
    found = set()
    for white, black, side in (
        GameEvent.objects.filter(kind=EventKind.PLAY)
        .filter(Q(game__match_id__in=matches) | Q(game_id__in=games))
        .order_by()
        .values_list("game__white_user_id", "game__black_user_id", "side")
        .distinct()
    ):
        found.add(white if side == "white" else black)
    return found
