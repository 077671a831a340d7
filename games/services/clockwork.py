"""The clock state kept with a game (RULES.md R11, R12; arithmetic in ``games.clocks``):
which period runs for whom, what it leaves in reserve, the next deadline, and what has run
out at a given instant. Works on the locked game; records nothing (``turns`` and
``timeouts`` do)."""

from games import clocks
from games.choices import EventKind, Phase
from games.room.models import Game

#: the sweep applies a deadline only this long after it (ms): an action received before the
#: deadline but still waiting for the game's lock is then applied first, so the clock never
#: beats an earlier move
TIMER_GRACE_MS = 250


def clock_spec(game: Game) -> clocks.ClockSpec | None:
    """The game's ``games.clocks.ClockSpec``, or None for a game without a clock."""
    return clocks.ClockSpec.from_json(game.clock) if game.clock else None


def first_move(game: Game) -> bool:
    """True while the side that must act has not made its first move in a game where a
    no-show aborts the game (a single game or a match's first game; not answering a double)."""
    return (
        game.phase in (Phase.ROLL, Phase.PLAY)
        and bool(game.position.get("first_turn"))
        and (game.match_number or 1) == 1
    )


def has_moved(game: Game, side: str) -> bool:
    """Whether ``side`` has made a play in this game."""
    if game.awaiting == side and game.phase != Phase.CUBE:
        return not game.position.get("first_turn")
    return game.events.filter(kind=EventKind.PLAY, side=side).exists()


def running(game: Game) -> tuple[clocks.ClockSpec | None, str | None]:
    """``(spec, side)`` when a player's clock runs now (a clock, the game on, a person to
    act), else ``(spec, None)``."""
    spec = clock_spec(game)
    if spec is None or game.is_over or not game.clock_period:
        return spec, None
    side = game.awaiting
    if side is None or side == game.bot_side:
        return spec, None
    return spec, side


def clock_deadline_ms(game: Game) -> int | None:
    """When the running side's time runs out (ms), or None if no clock runs."""
    spec, side = running(game)
    if side is None:
        return None
    return clocks.deadline(
        spec,
        game.clock_period,
        clocks.to_ms(game.period_started),
        clocks.to_ms(game.turn_started),
        game.reserve_of(side),
        first_move(game),
    )


def clock_stop(game: Game, at: int) -> None:
    """End the running period at ``at`` (ms): the time beyond its free time comes off the
    side's reserve (RULES.md R11)."""
    spec, side = running(game)
    if side is None:
        return
    started = clocks.to_ms(game.period_started)
    game.set_reserve(
        side,
        clocks.reserve_after(
            spec, game.clock_period, started, game.reserve_of(side), at, first_move(game)
        ),
    )


def start_period(game: Game, before: str | None, now: int) -> None:
    """After a change of the locked game (and the clock's own roll, ``turns.end_of_change``):
    start the period of the side that must act now at ``now`` (a new turn when that side
    changed since ``before``), and set the next deadline."""
    spec = clock_spec(game)
    if spec is None:
        return
    if game.is_over:
        clock_over(game)
        return
    side = game.awaiting
    if side == game.bot_side:
        game.clock_period = ""
        game.period_started = game.turn_started = None
    else:
        periods: dict[str, str] = {
            Phase.ROLL: clocks.ROLL,
            Phase.PLAY: clocks.MOVE,
            Phase.CUBE: clocks.ANSWER,
        }
        game.clock_period = periods[game.phase]
        game.period_started = clocks.from_ms(now)
        if side != before or game.turn_started is None:
            game.turn_started = clocks.from_ms(now)
    refresh_deadline(game)


def clock_over(game: Game) -> None:
    """The game is over: no clock runs and nothing expires."""
    game.clock_period = ""
    game.period_started = game.turn_started = None
    game.deadline = None


def away_deadlines(game: Game, spec: clocks.ClockSpec) -> list[tuple[int, str]]:
    """``[(ms, side)]``: when each absent person loses for not coming back (``match`` clock)."""
    found = []
    for side in game.human_sides():
        at = clocks.away_deadline(spec, clocks.to_ms(game.away_since(side)))
        if at is not None:
            found.append((at, side))
    return found


def refresh_deadline(game: Game) -> None:
    """Set ``game.deadline``: the earliest instant at which the clock or an absence ends the
    game (None when nothing can expire)."""
    spec = clock_spec(game)
    if spec is None or game.is_over:
        game.deadline = None
        return
    moments = [at for at, _side in away_deadlines(game, spec)]
    ends = clock_deadline_ms(game)
    if ends is not None:
        moments.append(ends)
    game.deadline = clocks.from_ms(min(moments)) if moments else None


def expired(game: Game, at: int) -> tuple[str, str] | None:
    """What has run out at ``at`` (ms): ``(kind, side)`` with kind "timeout" (the side's
    clock), "abandon" (away too long) or "abort" (a no-show before its first move), the
    earliest first; None when nothing has."""
    spec = clock_spec(game)
    if spec is None or game.is_over:
        return None
    candidates = []
    ends = clock_deadline_ms(game)
    if ends is not None and at >= ends:
        candidates.append((ends, "abort" if first_move(game) else "timeout", game.awaiting))
    for away_ends, side in away_deadlines(game, spec):
        if at >= away_ends:
            no_show = (game.match_number or 1) == 1 and not has_moved(game, side)
            candidates.append((away_ends, "abort" if no_show else "abandon", side))
    if not candidates:
        return None
    _when, kind, side = min(candidates)
    return kind, side
