"""Clock arithmetic of RULES.md R11/R12, pure (no Django, no I/O): times are integers in
milliseconds (instants: milliseconds since the Unix epoch, as ``now_ms()`` gives).

A clock gives each side, per turn, a free time for the current *period* (``roll``: before
rolling; ``move``: after rolling; ``answer``: answering a double) and a *reserve* spent only
once a period's free time has run out. ``max_move_ms`` caps a whole turn (roll and move
together), ``reconnect_ms`` is how long a disconnected player of a ``match`` clock has to come
back, ``claim_after_ms`` how long a ``standard`` opponent waits before claiming the win from a
player who has gone away. Before a side's first move of a game (in a single game or the first
game of a match) it has ``first_move_ms`` from the start of its turn and spends no reserve; if
that runs out the game is aborted with no result (a no-show).

The service layer (``games.services``) stores the state with the game and calls these
functions; the beat sweep only asks it to apply what has expired.
"""

import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

#: period names
ROLL = "roll"
MOVE = "move"
ANSWER = "answer"
PERIODS = (ROLL, MOVE, ANSWER)

#: what a side that runs out of time loses
LOSES_GAME = "game"
LOSES_MATCH = "match"

#: clock kinds
STANDARD = "standard"
MATCH = "match"


class ClockError(ValueError):
    """A clock specification or state that does not make sense (a bug, not a player's error)."""


@dataclass(frozen=True)
class ClockSpec:
    """One clock (RULES.md R11/R12). All durations in milliseconds.

    ``roll_ms`` is the free time to roll (None: the roll is automatic, ``auto_roll``),
    ``move_ms`` the free time to play a roll (and to answer a double), ``reserve_ms`` the
    reserve each side starts with (per game, or per match when ``loses`` is "match": the
    reserve left at the end of a game carries into the next), ``max_move_ms`` the longest a
    turn may take whatever the reserve (None: no cap), ``reconnect_ms`` the time a
    disconnected player has before losing (None: they don't lose for being away),
    ``claim_after_ms`` the time after which the opponent of an absent player may claim the
    win (None: no claim), ``first_move_ms`` the time for a side's first move before the game
    is aborted, ``loses`` "game" or "match".
    """

    kind: str
    roll_ms: int | None
    move_ms: int
    reserve_ms: int
    max_move_ms: int | None = None
    reconnect_ms: int | None = None
    claim_after_ms: int | None = None
    first_move_ms: int = 60_000
    loses: str = LOSES_GAME

    @property
    def auto_roll(self):
        """True when the server rolls for the side to move (no time to roll)."""
        return self.roll_ms is None

    def free_ms(self, period):
        """The free time of ``period`` (ms); raises ClockError for an unknown period."""
        if period == ROLL:
            return self.roll_ms or 0
        if period in (MOVE, ANSWER):
            return self.move_ms
        raise ClockError(f"unknown clock period {period!r}")

    def to_json(self):
        """The spec as a JSON object (stored with each game, so a running game keeps the clock
        it started with even if the presets change)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data):
        """The spec stored by ``to_json``; raises ClockError if it is not one."""
        try:
            spec = cls(**data)
        except TypeError as exc:
            raise ClockError(f"not a clock: {exc}") from None
        if spec.loses not in (LOSES_GAME, LOSES_MATCH):
            raise ClockError(f"a clock loses the game or the match, not {spec.loses!r}")
        return spec


#: RULES.md R12: the clocks of games between people
CLOCKS = {
    # 15 s to roll, 45 s per move, 2 min reserve per game; the opponent of a player away for
    # 60 s may claim the win (our grace period, docs/protocol.md "Clocks").
    STANDARD: ClockSpec(
        kind=STANDARD,
        roll_ms=15_000,
        move_ms=45_000,
        reserve_ms=120_000,
        claim_after_ms=60_000,
        first_move_ms=60_000,
        loses=LOSES_GAME,
    ),
    # automatic roll, 12 s free per move, 2 min reserve per match, 60 s at most per move,
    # 60 s to reconnect; out of time loses the match.
    MATCH: ClockSpec(
        kind=MATCH,
        roll_ms=None,
        move_ms=12_000,
        reserve_ms=120_000,
        max_move_ms=60_000,
        reconnect_ms=60_000,
        first_move_ms=60_000,
        loses=LOSES_MATCH,
    ),
}

#: the clock of each R12 preset in games between people
PRESET_CLOCK = {"sport": STANDARD, "classic": STANDARD, "match": MATCH}


def now_ms():
    """The current instant in milliseconds since the epoch (wall clock, as stored)."""
    return time.time_ns() // 1_000_000


def to_ms(when):
    """An aware datetime as ms since the epoch (an int); None stays None."""
    if when is None:
        return None
    return int(when.timestamp() * 1000)


def from_ms(ms):
    """ms since the epoch as an aware datetime in UTC (the form the database stores)."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def spent_from_reserve(spec, period, started_ms, now):
    """How much reserve (ms) a period that began at ``started_ms`` has used by ``now``: the
    time beyond the period's free time, never negative."""
    return max(0, now - started_ms - spec.free_ms(period))


def reserve_after(spec, period, started_ms, reserve_ms, now, first_move=False):
    """The reserve (ms) left when a period that began at ``started_ms`` with ``reserve_ms``
    left ends at ``now``; a first move spends none. Never below 0."""
    if first_move:
        return reserve_ms
    return max(0, reserve_ms - spent_from_reserve(spec, period, started_ms, now))


def deadline(spec, period, started_ms, turn_started_ms, reserve_ms, first_move=False):
    """The instant (ms) at which the side whose ``period`` began at ``started_ms`` (its turn at
    ``turn_started_ms``) runs out of time with ``reserve_ms`` in reserve.

    A first move has ``first_move_ms`` from the start of the turn; otherwise the period's free
    time and then the reserve, but never beyond ``max_move_ms`` from the start of the turn.
    """
    if first_move:
        return turn_started_ms + spec.first_move_ms
    end = started_ms + spec.free_ms(period) + reserve_ms
    if spec.max_move_ms is not None:
        end = min(end, turn_started_ms + spec.max_move_ms)
    return end


def time_left(spec, period, started_ms, turn_started_ms, reserve_ms, now, first_move=False):
    """``(free_left, reserve_left, total_left)`` in ms at ``now`` for the running side: the
    free time left in the period, the reserve left (it runs once the free time is gone) and
    the time until ``deadline``; none below 0."""
    end = deadline(spec, period, started_ms, turn_started_ms, reserve_ms, first_move)
    free_left = max(0, started_ms + spec.free_ms(period) - now)
    reserve_left = reserve_after(spec, period, started_ms, reserve_ms, now, first_move)
    return free_left, reserve_left, max(0, end - now)


def away_deadline(spec, away_since_ms):
    """When a player away since ``away_since_ms`` loses for not coming back (None if this
    clock has no such rule)."""
    if away_since_ms is None or spec.reconnect_ms is None:
        return None
    return away_since_ms + spec.reconnect_ms


def claim_from(spec, away_since_ms):
    """From when the opponent may claim the win against a player away since
    ``away_since_ms`` (None if this clock has no claim or the player is here)."""
    if away_since_ms is None or spec.claim_after_ms is None:
        return None
    return away_since_ms + spec.claim_after_ms
