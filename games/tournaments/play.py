"""Starting the game (or match) of a pairing, and reading its result back: shared by the
arena and the cup."""

import secrets

from games import clocks
from games.models import Entrant, PairingStatus, Preset
from games.services.options import table_options
from games.services.starting import new_game

#: a tournament game's clock starts this long after it is made (ms): the players' pages
#: announce it with a countdown and open it
ANNOUNCE_MS = 5_000


def start_game(change, pairing, now_ms):
    """Start the game of ``pairing`` (its two entrants set; sides drawn by the server), rated,
    with the event's table and clock, its clock running from ``ANNOUNCE_MS`` after
    ``now_ms``; the pairing is then being played and both players' pages hear of it."""
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
    pairing.game, pairing.match, pairing.status = game, game.match, PairingStatus.PLAYING
    pairing.save()
    change.started(game, first.user_id, second.user_id, starts)
    return game


def entrant_of(pairing, game, side):
    """The entrant of ``pairing`` who played ``side`` of ``game``."""
    user_id = game.user_of(side)
    for entrant in pairing.entrants():
        if entrant.user_id == user_id:
            return entrant
    raise Entrant.DoesNotExist(f"nobody of {pairing} played {side} of {game.pk}")
