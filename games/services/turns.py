"""What a change does to a locked game, by the rules (RULES.md R3-R11): the dice, a play,
the cube, the end of a game and its score, the next game of a match, the clock's own roll.
Each function takes the ``unit.GameChange`` it records into; none saves."""

from typing import Any
from uuid import UUID

from games import clocks, ratings
from games import dice as dice_rolls
from games.choices import EndReason, EventKind, Phase, Side, Status, other_side
from games.engine import OIN, EngineError, Position, check_play, fairdice, game_value
from games.engine.rules import PLAY_OPENING_DICE
from games.room.models import Game, Match
from games.services import clockwork, outages, playban, unit, wording
from games.services.errors import IllegalPlayError
from games.services.legal import dice_to_play
from games.signals import game_aborted, game_finished, result_decided


def apply_roll(change: unit.GameChange, side: str) -> None:
    """The side to move rolls both dice from the game's seed (phase "play")."""
    game = change.game
    number = game.rolls
    rolled = dice_rolls.roll(bytes.fromhex(game.seed) if game.seed else None, number)
    game.rolls = number + 1
    game.dice = rolled
    game.phase = Phase.PLAY
    change.record(EventKind.ROLL, side, dice=rolled, roll_number=number)


def apply_play(change: unit.GameChange, side: str, notation: str) -> None:
    """``side`` plays ``notation`` with the rolled dice; bearing off the 15th checker ends the
    game (R9). Raises IllegalPlayError with the engine's reason, changing nothing."""
    game = change.game
    position = game.get_position()
    rolled = list(dice_to_play(game))
    try:
        chosen = check_play(position, tuple(rolled), notation, game.ruleset)
    except EngineError as exc:
        raise IllegalPlayError(wording.illegal_play_message(exc), game.version) from None
    after = chosen.result
    game.position = after.to_json()
    game.dice = None
    change.record(EventKind.PLAY, side, dice=rolled, play=chosen.notation)
    if after.winner:
        finish(change, winner=after.winner, reason=EndReason.BORE_OFF)
    else:
        game.phase = Phase.ROLL


def apply_double(change: unit.GameChange, side: str) -> None:
    """``side`` offers to double (R10): phase "cube"."""
    game = change.game
    game.phase = Phase.CUBE
    change.record(EventKind.DOUBLE, side, cube=game.cube_value * 2)


def apply_take(change: unit.GameChange, side: str) -> None:
    """``side`` takes the double: the cube doubles and ``side`` owns it (R10)."""
    game = change.game
    game.cube_value *= 2
    game.cube_owner = side
    game.phase = Phase.ROLL
    change.record(EventKind.TAKE, side, cube=game.cube_value)


def apply_drop(change: unit.GameChange, side: str) -> None:
    """``side`` drops the double and loses the game at the stake before it (R10)."""
    change.record(EventKind.DROP, side, cube=change.game.cube_value)
    finish(change, winner=other_side(side), reason=EndReason.DROP)


def finish(change: unit.GameChange, winner: str, reason: str, match_lost: bool = False) -> None:
    """End the game: R9 value from the loser's board of the current position, times the cube
    (R10; a dropped double is oin at the stake before it). In a match, score it and start the
    next game or end the match (R11); ``match_lost`` ends the match whatever the score (the
    loser ran out of a ``match`` clock)."""
    game = change.game
    loser = other_side(winner)
    if reason == EndReason.DROP:
        kind, points = OIN, game.cube_value
    else:
        kind, points = game_value(
            game.get_position().board(loser),
            game.ruleset,
            cube=game.cube_value,
            cube_turned=game.cube_value > 1,
        )
    game.status = Status.FINISHED
    game.phase = Phase.OVER
    game.dice = None
    game.winner = winner
    game.result_kind = kind
    game.result_points = points
    game.end_reason = reason
    change.record(EventKind.END, winner)
    clockwork.clock_over(game)
    game_finished.send(sender=Game, game=game)
    if game.match_id:
        _score_match(game, game.match_id, winner, points, match_lost)
    else:
        ratings.rate_result(game, winner)
        result_decided.send(sender=Game, game=game, match=None, winner=winner)


def _score_match(
    game: Game, match_id: UUID, winner: str, points: int, match_lost: bool = False
) -> None:
    """Add a finished game to its match; start the next game (its winner starts, R11, with the
    match clock's reserves carried over) or end the match once a side reaches the length (or
    at once when ``match_lost``)."""
    match = Match.objects.select_for_update().get(pk=match_id)
    if winner == Side.WHITE:
        match.white_score += points
    else:
        match.black_score += points
    if match_lost or max(match.white_score, match.black_score) >= match.length:
        match.status = Status.FINISHED
        match.winner = winner
        match.save()
        if match.rated:  # a rated match changes the ratings once, when it is decided
            ratings.rate_result(game, winner, match=match)
        result_decided.send(sender=Game, game=game, match=match, winner=winner)
    else:
        match.save()
        spec = clockwork.clock_spec(game)
        reserves = None
        if spec is not None:
            per_match = spec.loses == clocks.LOSES_MATCH
            reserves = {
                side: game.reserve_of(side) if per_match else spec.reserve_ms
                for side in Side.values
            }
        start_game(
            preset=game.preset,
            table=game.table,
            colour=game.colour,
            match=match,
            match_number=(game.match_number or 1) + 1,
            starter=winner,
            clock=spec,
            reserves=reserves,
            clock_from=clocks.now_ms() + BETWEEN_GAMES_MS,
            white_guest=game.white_guest,
            black_guest=game.black_guest,
            white_user_id=game.white_user_id,
            black_user_id=game.black_user_id,
            rated=game.rated,
            bot_side=game.bot_side,
            bot_level=game.bot_level,
        )
    game.match = match


def lose_by(change: unit.GameChange, side: str, event_kind: str, reason: str) -> None:
    """``side`` loses on time or by leaving: recorded, then scored by R9 on its position (a
    ``match`` clock loses the whole match, R11)."""
    game = change.game
    playban.note_loss(game, side, reason)
    change.record(event_kind, side)
    spec = clockwork.clock_spec(game)
    match_lost = spec is not None and spec.loses == clocks.LOSES_MATCH
    finish(change, winner=other_side(side), reason=reason, match_lost=match_lost)


def aborts(game: Game, side: str) -> bool:
    """True when ``side`` resigning, dropping a double or being claimed against now aborts
    the locked ``game`` (and its match) instead of losing it (issue #30; lichess's abort):
    ``side`` has made no play in it, nor, in a match, in any game of the match before it. A
    result needs a game, so nobody can hand an accomplice a rating, a match or arena points
    by resigning at once."""
    if (game.match_number or 1) == 1:
        return not clockwork.has_moved(game, side)
    return not game.plays_by_side(whole_match=True)[side]


def abort(change: unit.GameChange, side: str, how: str = EndReason.TIMEOUT) -> None:
    """``side`` left before its first play (``aborts``): the game (and its match) ends with no
    result and no winner, and nobody's rating moves. ``how`` (an ``EndReason``: resign, drop,
    abandon, or timeout for a no-show) is kept as the game's ``end_reason``. In a rated game
    the abort counts toward ``side``'s waits before rated games (``playban.note_abort``)."""
    game = change.game
    change.record(EventKind.ABORT, side)
    game.status = Status.ABORTED
    game.phase = Phase.OVER
    game.dice = None
    game.end_reason = how
    clockwork.clock_over(game)
    playban.note_abort(game, side)
    if game.match_id:
        Match.objects.filter(pk=game.match_id).update(status=Status.ABORTED)
    game_aborted.send(sender=Game, game=game, side=side, how=how)


#: after a game of a match, the next game's clock starts this much later (ms), so the
#: players can see the result and their pages move to the next game (the page waits 6 s)
BETWEEN_GAMES_MS = 6_000


def start_game(
    *,
    preset: str,
    table: dict[str, bool],
    colour: str,
    match: Match | None,
    match_number: int | None,
    starter: str | None,
    clock: clocks.ClockSpec | None = None,
    reserves: dict[str, int] | None = None,
    clock_from: int | None = None,
    **players: Any,
) -> Game:
    """Create and save a game at version 1 with its opening (inside the caller's transaction).

    ``starter`` None: the R3 roll-off from the game's seed; else that side starts and rolls
    both dice (a match game after the first, R11). ``clock`` (a ClockSpec or None) with each
    side's ``reserves`` (ms) starts the first turn's clock at ``clock_from`` (ms)."""
    seed = dice_rolls.new_seed()
    game = Game(
        preset=preset,
        table=table,
        colour=colour,
        match=match,
        match_number=match_number,
        seed=seed.hex(),
        seed_hash=fairdice.seed_hash(seed),
        version=0,
        clock=clock.to_json() if clock else {},
        outages_seen=outages.latest(),
        **players,
    )
    if clock is not None:
        assert reserves is not None, "a clock needs the sides' reserves"
        for side in Side.values:
            game.set_reserve(side, reserves[side])
    if starter is None:
        white_die, black_die, ties, next_roll = dice_rolls.opening_roll(seed, 0)
        starter = Side.WHITE.value if white_die > black_die else Side.BLACK.value
        game.opening = {"white": white_die, "black": black_die, "ties": ties, "starter": starter}
        game.rolls = next_roll
        opening_dice = [white_die, black_die]
    else:
        game.opening = {"white": None, "black": None, "ties": [], "starter": starter}
        game.rolls = 0
        opening_dice = None
    game.position = Position.initial(starter).to_json()
    if opening_dice and game.ruleset.opening == PLAY_OPENING_DICE:
        game.phase = Phase.PLAY
        game.dice = sorted(opening_dice, reverse=True)
    else:
        game.phase = Phase.ROLL
        game.dice = None
    with unit.creating(game) as change:
        change.record(EventKind.OPENING, starter, dice=opening_dice)
        end_of_change(change, None, clock_from if clock_from is not None else clocks.now_ms())
    return game


def end_of_change(change: unit.GameChange, before: str | None, now: int) -> None:
    """After a change of the locked game: the server rolls for the side to move if its clock
    rolls by itself (the ``match`` clock), then the next clock period starts at ``now`` (ms;
    ``before``: the side that had to act before the change)."""
    game = change.game
    spec = clockwork.clock_spec(game)
    if (
        spec is not None
        and spec.auto_roll
        and not game.is_over
        and game.phase == Phase.ROLL
        and game.awaiting != game.bot_side
    ):
        apply_roll(change, game.awaiting)
    clockwork.start_period(game, before, now)


def apply_expired(change: unit.GameChange, at: int) -> bool:
    """Apply what has run out at ``at`` (ms) to the locked game of ``change`` (not saved);
    returns True if the game ended so. Nothing expires after the site was last known up
    (``outages.judged_at``)."""
    game = change.game
    at = outages.judged_at(at)
    found = clockwork.expired(game, at)
    if found is None:
        return False
    kind, side = found
    if kind == "abort":
        abort(change, side)
    elif kind == "timeout":
        clockwork.clock_stop(game, at)
        lose_by(change, side, EventKind.TIMEOUT, EndReason.TIMEOUT)
    else:
        clockwork.clock_stop(game, at)
        lose_by(change, side, EventKind.ABANDON, EndReason.ABANDON)
    return True
