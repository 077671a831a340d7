"""The players' actions (docs/protocol.md "Client → server") and the computer's turn, each
one change of the locked game through ``unit.changing``: the actions are judged by the clock
at the instant the server received them, checked, applied by ``turns`` and dispatched after
the commit."""

import logging
from collections.abc import Callable
from uuid import UUID

from django.db.models import F, Q
from django.db.models.fields.json import KeyTextTransform
from django.utils.translation import gettext as _

from games import bots, clocks
from games.bots import cube as cube_decisions
from games.choices import EndReason, EventKind, Phase, other_side
from games.room.models import Game
from games.services import clockwork, dispatch, turns, unit, wording
from games.services.actors import BOT, Actor
from games.services.errors import (
    BadFrame,
    CannotClaim,
    CubeNotAllowed,
    GameOver,
    NotYourTurn,
    StaleVersion,
    TimeRanOut,
    WrongPhase,
)
from games.services.legal import dice_to_play

logger = logging.getLogger(__name__)


def roll(game_id: UUID | str, actor: Actor, version: object, at: int | None = None) -> Game:
    """The side to move rolls both dice (phase "roll" -> "play").

    The dice are derived from the game's seed and the roll's number (``games.dice``), stored
    and recorded as a roll event before any socket hears of them. If no step is possible
    with them, the game stays in phase "play" and the snapshot offers only the pass
    (``legal.pass``), which the player confirms with the play "". ``at`` (ms since the epoch,
    default now) is when the server received the request: the clock is judged at that instant
    (see ``_act``). Raises NotYourTurn, StaleVersion, GameOver (TimeRanOut) or WrongPhase.
    Returns the game.
    """

    def apply(change: unit.GameChange) -> None:
        side = _check(change.game, actor, version, Phase.ROLL)
        turns.apply_roll(change, side)

    return _act(game_id, at, apply)


def play(
    game_id: UUID | str, actor: Actor, version: object, notation: object, at: int | None = None
) -> Game:
    """The side to move plays its dice: ``notation`` is the whole play (RULES.md Notation).

    The play is judged by the position it leads to (Notation); "" is the pass, legal only
    when no step is possible (R6). If the mover bears off its 15th checker the game ends and
    is scored by R9 on the loser's board (with the cube, R10). ``at`` as for ``roll``. Raises
    BadFrame (notation not a string), NotYourTurn, StaleVersion, GameOver (TimeRanOut),
    WrongPhase or IllegalPlayError (with the engine's readable reason). Returns the game.
    """
    if not isinstance(notation, str):
        raise BadFrame(_('The play must be a string such as "24/18 18/13".'))

    def apply(change: unit.GameChange) -> None:
        side = _check(change.game, actor, version, Phase.PLAY)
        turns.apply_play(change, side, notation)

    return _act(game_id, at, apply)


def double(game_id: UUID | str, actor: Actor, version: object, at: int | None = None) -> Game:
    """The side to move offers to double the stake before rolling (RULES.md R10).

    Allowed only at a table with the cube, in phase "roll", when the cube is in the middle or
    owned by that side, and below 64. The game goes to phase "cube": the other side must take
    or drop. Raises NotYourTurn, StaleVersion, GameOver (TimeRanOut), WrongPhase (after
    rolling, or while an offer waits) or CubeNotAllowed. Returns the game.
    """

    def apply(change: unit.GameChange) -> None:
        side = _check(change.game, actor, version, Phase.ROLL, action="double")
        turns.apply_double(change, side)

    return _act(game_id, at, apply)


def take(game_id: UUID | str, actor: Actor, version: object, at: int | None = None) -> Game:
    """The side offered a double accepts it (R10): the cube doubles and the taker owns it;
    the offerer then rolls (phase "roll"). Raises NotYourTurn, StaleVersion, GameOver
    (TimeRanOut) or WrongPhase (no offer waiting). Returns the game."""

    def apply(change: unit.GameChange) -> None:
        side = _check(change.game, actor, version, Phase.CUBE)
        turns.apply_take(change, side)

    return _act(game_id, at, apply)


def drop(game_id: UUID | str, actor: Actor, version: object, at: int | None = None) -> Game:
    """The side offered a double declines it (R10): it loses the game at the stake before the
    double, counted as oin; before its first play it aborts the game instead, as a
    resignation would (``turns.aborts``). Raises NotYourTurn, StaleVersion, GameOver (TimeRanOut) or
    WrongPhase (no offer waiting). Returns the game."""

    def apply(change: unit.GameChange) -> None:
        side = _check(change.game, actor, version, Phase.CUBE)
        if turns.aborts(change.game, side):
            turns.abort(change, side, EndReason.DROP)
        else:
            turns.apply_drop(change, side)

    return _act(game_id, at, apply)


def resign(game_id: UUID | str, actor: Actor, version: object, at: int | None = None) -> Game:
    """The actor resigns; the opponent wins, scored by R9 on the resigner's board (times the
    cube, R10). In a match the match goes on with the next game (R11). A resignation before
    the actor's first play in a single game or a match's first game aborts it instead: no
    result, no rating (``turns.aborts``).

    Allowed in any phase and on either side's turn while the game is on. Raises
    NotYourTurn (not a player), StaleVersion or GameOver (TimeRanOut). Returns the game.
    """

    def apply(change: unit.GameChange) -> None:
        side = _check(change.game, actor, version, phase=None)
        if turns.aborts(change.game, side):
            turns.abort(change, side, EndReason.RESIGN)
            return
        change.record(EventKind.RESIGN, side)
        turns.finish(change, winner=other_side(side), reason=EndReason.RESIGN)

    return _act(game_id, at, apply)


def claim(game_id: UUID | str, actor: Actor, version: object, at: int | None = None) -> Game:
    """Claim the win against an opponent who has been away (no open socket) for the clock's
    grace period (``standard``: ``claim_after_ms``, docs/protocol.md "Clocks"). The absent
    side loses by R9 on its position, as if it had resigned (reason ``abandon``); one that
    never made a play aborts the game instead (``turns.aborts``).

    Raises NotYourTurn (not a player), StaleVersion, GameOver (TimeRanOut) or CannotClaim
    (the opponent is here, has not been away long enough, or the clock has no claim).
    Returns the game.
    """

    def apply(change: unit.GameChange) -> None:
        game = change.game
        side = _check(game, actor, version, phase=None)
        opponent = other_side(side)
        spec = clockwork.clock_spec(game)
        away = clocks.to_ms(game.away_since(opponent))
        allowed_from = clocks.claim_from(spec, away) if spec else None
        if opponent == game.bot_side:
            raise CannotClaim(
                _("The computer never leaves a game: there is no win to claim."), game.version
            )
        if away is None:
            raise CannotClaim(_("Your opponent is here: there is no win to claim."), game.version)
        if allowed_from is None:
            raise CannotClaim(
                _("This game's clock has no claim: a player who stays away loses by the clock."),
                game.version,
            )
        if clocks.now_ms() < allowed_from:
            raise CannotClaim(
                _("Your opponent may still come back: wait until the grace period is over."),
                game.version,
            )
        if turns.aborts(game, opponent):
            turns.abort(change, opponent, EndReason.ABANDON)
        else:
            turns.lose_by(change, opponent, EventKind.ABANDON, EndReason.ABANDON)

    return _act(game_id, at, apply)


def bot_turn(game_id: UUID | str, version: int) -> Game | None:
    """Act for the bot in game ``game_id`` if it is still due at ``version``.

    Does nothing (returns None) when the game is gone or finished, the version has moved on,
    or the bot is not the side that must act, so running it twice, late or for a reconnect is
    harmless. Otherwise: answers an offered double (``games.bots.cube``), or offers one when
    the cube is available and it is clearly ahead (the human then answers), or rolls (if due)
    and plays the move chosen by ``games.bots``, through the same checks as a human's
    actions, recording each. Returns the game.
    """
    now = clocks.now_ms()
    with unit.changing(game_id, missing_ok=True) as change:
        if change is None:
            logger.info("bot turn for missing game %s", game_id)
            return None
        game = change.game
        if game.version != version or not game.is_bot_turn:
            return None
        if not turns.apply_expired(change, now):  # the human's away time may have run out
            _bot_act(change, now)
    return game


def _bot_act(change: unit.GameChange, now: int) -> None:
    """The bot's action in the locked game of ``change`` (see ``bot_turn``)."""
    game = change.game
    before = game.awaiting
    side = BOT.side_in(game)
    assert side is not None, "the computer acts only in its own games"
    position = game.get_position()
    if game.phase == Phase.CUBE:
        if cube_decisions.should_take(
            position, side, game.cube_value, game.ruleset, level=game.bot_level
        ):
            turns.apply_take(change, side)
        else:
            turns.apply_drop(change, side)
    elif (
        game.phase == Phase.ROLL
        and game.may_double(side)
        and (
            cube_decisions.should_double(
                position, side, game.cube_value, game.ruleset, level=game.bot_level
            )
        )
    ):
        turns.apply_double(change, side)
    else:
        if game.phase == Phase.ROLL:
            turns.apply_roll(change, side)
        choice = bots.choose_play(position, dice_to_play(game), game.ruleset, level=game.bot_level)
        turns.apply_play(change, side, choice.notation)
    turns.end_of_change(change, before, now)


#: a computer move still not made this long after it fell due is taken as lost (its task went
#: with a restarted Redis, or with a worker that was killed) and queued again by the beat sweep
#: (ms); a move takes well under a second
BOT_MOVE_LOST_MS = 10_000


def queue_lost_bot_moves() -> int:
    """Queue again the bot's move in every active game where the bot has had to act for more
    than BOT_MOVE_LOST_MS (since the game last changed); returns how many. Part of the beat
    sweep (``sweep_clocks``), so a lost move is made without a worker restart. Each copy
    expires after BOT_MOVE_LOST_MS, so copies do not pile up while no worker runs; a copy of
    a move that was not lost finds the version moved on (``bot_turn``) and does nothing."""
    turn = KeyTextTransform("turn", "position")
    bot_to_act = (Q(phase=Phase.CUBE) & ~Q(turn_side=F("bot_side"))) | (
        ~Q(phase=Phase.CUBE) & Q(turn_side=F("bot_side"))
    )
    lost = list(
        Game.objects.active()
        .against_bot()
        .annotate(turn_side=turn)
        .filter(bot_to_act, updated__lt=clocks.from_ms(clocks.now_ms() - BOT_MOVE_LOST_MS))
        .values_list("pk", "version")
    )
    for game_id, version in lost:
        dispatch.send_bot_move(game_id, version, expires_ms=BOT_MOVE_LOST_MS)
    return len(lost)


def queue_due_bot_moves() -> int:
    """Queue the bot's move in every active game where the bot must act; returns how many.

    Run when a worker starts: a move queued before a restart may be gone (the embedded Redis
    keeps nothing on disk, a killed worker may have held it). Harmless when the move is still
    queued too: ``bot_turn`` plays a given version once.
    """
    due = [
        (game.pk, game.version) for game in Game.objects.active().against_bot() if game.is_bot_turn
    ]
    for game_id, version in due:
        dispatch.send_bot_move(game_id, version)
    return len(due)


def _check(
    game: Game, actor: Actor, version: object, phase: str | None, action: str | None = None
) -> str:
    """Who acts and whether the request is current; returns the actor's side.

    ``phase`` is the phase the action needs (``Phase.CUBE`` for take/drop); None means any
    phase and either side's turn (resignation). ``action`` "double" adds the cube's checks.
    """
    side = actor.side_in(game)
    if side is None:
        raise NotYourTurn(_("You are not a player of this game."), game.version)
    if isinstance(version, bool) or not isinstance(version, int):
        raise BadFrame(_("The version must be a whole number."), game.version)
    if game.is_over:
        raise GameOver(_("The game is over."), game.version)
    if version != game.version:
        raise StaleVersion(_("The game has changed since you last saw it."), game.version)
    if phase is None:
        return side
    if action == "double" and not game.ruleset.cube:
        # the table has no cube at all: that is the answer in every phase (R10)
        raise CubeNotAllowed(_("This table has no doubling cube."), game.version)
    if phase == Phase.CUBE:
        if game.phase != Phase.CUBE:
            raise WrongPhase(_("No double has been offered."), game.version)
        if game.awaiting != side:
            raise NotYourTurn(_("Your opponent must answer your double."), game.version)
        return side
    if game.awaiting != side:
        if game.phase == Phase.CUBE:
            raise NotYourTurn(_("Your opponent must answer your double first."), game.version)
        raise NotYourTurn(_("It is not your turn."), game.version)
    if game.phase != phase:
        if game.phase == Phase.CUBE:
            raise WrongPhase(_("Take or drop the double first."), game.version)
        if action == "double":
            raise WrongPhase(_("A double may be offered only before rolling."), game.version)
        if phase == Phase.ROLL:
            raise WrongPhase(_("The dice are already rolled: play them."), game.version)
        raise WrongPhase(_("Roll the dice first."), game.version)
    if action == "double" and not game.may_double(side):
        if not game.ruleset.cube:
            raise CubeNotAllowed(_("This table has no doubling cube."), game.version)
        if game.cube_value >= 64:
            raise CubeNotAllowed(_("The cube is at 64 and cannot be turned again."), game.version)
        raise CubeNotAllowed(_("Your opponent owns the cube: only they may double."), game.version)
    return side


def _act(game_id: UUID | str, at: int | None, apply: Callable[[unit.GameChange], None]) -> Game:
    """Run ``apply(change)`` on the locked game as one action of a player.

    First applies anything that expired by ``at`` (ms since the epoch when the server got the
    request; None: now), so a move and a timer never both win: if time ran out, the timeout
    is saved and TimeRanOut raised instead. Otherwise stops the running clock at ``at``,
    applies the change (which raises GameError to refuse it, changing nothing), starts the
    next period and saves. Returns the game.
    """
    now = clocks.now_ms()
    at = now if at is None else min(at, now)
    with unit.changing(game_id) as change:
        game = change.game
        ran_out = turns.apply_expired(change, at)
        if not ran_out:
            before = game.awaiting
            clockwork.clock_stop(game, at)
            apply(change)
            turns.end_of_change(change, before, now)
    if ran_out:
        raise TimeRanOut(wording.ran_out_message(game), game.version)
    return game
