"""Rematches (docs/protocol.md "Rematch"): after a finished game between two people (a
challenge, the lobby; never the computer, never a tournament's, a match only once it is
over) either player offers a rematch; when the other presses too, one new game starts with
the colours swapped and the same settings (preset, table options, match length, clock, rated
or casual), linked from the finished game (``Game.rematch``), and both pages move to it.
Declining, or the offering player's socket leaving, withdraws the offer.

Each change locks the finished game's row in one transaction (so two presses at once make
one game) and tells its sockets after the commit (``dispatch.send_rematch``); no change
raises the game's version (it is over). Built on the services beside the admission cap and
the rate limits, as the lobby's pairing is (the service layer does not import those)."""

from typing import Any
from uuid import UUID

from django.db import transaction
from django.utils.translation import gettext as _

from games import admission, ratelimits
from games.choices import Side, other_side
from games.room.models import Game
from games.services import dispatch, playban, reading, starting, unit
from games.services.actors import Actor, seat
from games.services.clockwork import clock_spec
from games.services.errors import NoRematch


def _player_side(game: Game, viewer: Actor) -> str:
    side = game.side_of(viewer)
    if side is None:
        raise NoRematch(_("Only the players of this game can ask for a rematch."))
    return side


def _refuse_unless_possible(game: Game) -> None:
    if not reading.rematch_possible(game):
        raise NoRematch(_("A rematch is not possible after this game."))


def offer(
    game_id: UUID | str, viewer: Actor, visitor: tuple[Any, str | None] | None = None
) -> Game | None:
    """``viewer`` presses "Rematch" after the finished game ``game_id``: their offer waits for
    the opponent's press, or, when the opponent's offer waits, the new game starts now (one
    only, whatever presses arrive at once). ``visitor`` (``ratelimits.scope_identity``)
    counts the press as a new game against the creation limits. Raises NoRematch (not a
    player, no rematch after this game, the opponent declined, rated games closed to
    one of the players),
    ``ratelimits.RateLimited`` or ``admission.SiteFull``. Returns the new game if this press
    started it, else None."""
    if visitor is not None:
        ratelimits.check_create(*visitor)
    started = None
    with transaction.atomic():
        game = unit.lock(game_id)
        side = _player_side(game, viewer)
        _refuse_unless_possible(game)
        if game.rematch_id is None and game.rematch_declined == other_side(side):
            # the opponent said no: pressing again would only ask them again
            raise NoRematch(_("Your opponent declined: no rematch this time."))
        if game.rematch_id is None:
            if game.rematch_offer == other_side(side):
                started = _start(game)
                game.rematch = started
                game.rematch_offer = ""
                game.rematch_declined = ""
            else:
                game.rematch_offer = side
                game.rematch_declined = ""
            game.save(update_fields=["rematch", "rematch_offer", "rematch_declined", "updated"])
        dispatch.send_rematch(game)
    return started


def decline(game_id: UUID | str, viewer: Actor) -> None:
    """``viewer`` declines the opponent's offer, or withdraws their own: no offer waits any
    more and the other player is told. A rematch already started stays. Raises NoRematch."""
    with transaction.atomic():
        game = unit.lock(game_id)
        side = _player_side(game, viewer)
        _refuse_unless_possible(game)
        if game.rematch_id is None:
            game.rematch_offer = ""
            game.rematch_declined = side
            game.save(update_fields=["rematch_offer", "rematch_declined", "updated"])
        dispatch.send_rematch(game)


def _start(game: Game) -> Game:
    """The rematch of ``game`` (inside the caller's transaction): each player on the other
    side, the same preset, table options, match length, clock and rating. Raises
    ``admission.SiteFull`` or NoRematch (a rated rematch closed to one of the players)."""
    admission.check()
    if game.rated:
        for side in Side.values:
            if playban.current_wait(getattr(game, f"{side}_user_id")) is not None:
                raise NoRematch(
                    _("Rated games are closed to one of the players for now: no rated rematch.")
                )
    players: dict[str, Any] = {"rated": game.rated}
    for side in Side.values:
        actor = Actor(guest_id=game.guest_of(side), user_id=getattr(game, f"{side}_user_id"))
        players.update(seat(other_side(side), actor))
    length = game.match.length if game.match_id is not None and game.match else None
    colour = other_side(game.colour) if game.colour in Side.values else game.colour
    return starting.new_game(
        game.preset, dict(game.table), length, colour, clock_spec(game), players
    )
