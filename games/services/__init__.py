"""The service layer: every change of a game goes through here.

Each change locks the game row, checks who acts and whether the request is still current,
applies the rules engine, records each change as a ``GameEvent`` with a higher ``version``,
saves once and, only after the commit, tells the game's sockets and queues the computer's
move (``unit.changing``, ``dispatch``); deadlines are applied by beat's sweep (``timeouts``).
A request that fails a check raises a ``GameError`` whose ``code`` is a docs/protocol.md error
code and changes nothing.

One module per concern, the way Zulip splits its actions:

| module | what |
|---|---|
| ``errors`` | the ``GameError`` family |
| ``actors`` | who acts: ``Actor``, ``BOT`` |
| ``options`` | table options, levels and clocks of a new game |
| ``starting`` | games against the computer, challenge links, a guest's games at sign-in |
| ``moves`` | the players' actions and the computer's turn |
| ``turns`` | what a change does to the game by the rules (dice, plays, cube, end, match) |
| ``clockwork``, ``timeouts`` | the clock kept with a game; deadlines that pass, the sweep |
| ``presence`` | sockets coming and going, the claim's grace period |
| ``unit``, ``dispatch`` | the unit of work; everything sent after a commit |
| ``reading``, ``legal`` | snapshots and events as the sockets get them; the legal plays |
| ``projection`` | what one viewer is sent after a change: nothing, a snapshot or its event |
| ``wording`` | what a player reads |
| ``records`` | imported game records |
| ``outages`` | the heartbeat; clocks credited with the time the site was down |
| ``playban`` | the wait before rated games after abandoning lost ones |
| ``hints`` | the best play and the equity a play lost, in casual games against the computer |

The names below are the package's interface (consumers, tasks, views and tests use them).
"""

from games.services.actors import BOT, Actor
from games.services.clockwork import TIMER_GRACE_MS, clock_spec
from games.services.dispatch import group_name
from games.services.errors import (
    BadFrame,
    CannotClaim,
    ChallengeError,
    CubeNotAllowed,
    GameError,
    GameOver,
    IllegalPlayError,
    NoRematch,
    NotYourTurn,
    PlayBanned,
    StaleVersion,
    TimeRanOut,
    WrongPhase,
)
from games.services.hints import NoHints, NothingToJudge, TooManyHints, hint, judge_last_play
from games.services.hints import answer as answer_hint
from games.services.hints import ask as ask_hint
from games.services.legal import explain_point
from games.services.moves import (
    BOT_MOVE_LOST_MS,
    bot_turn,
    claim,
    double,
    drop,
    play,
    queue_due_bot_moves,
    queue_lost_bot_moves,
    resign,
    roll,
    take,
)
from games.services.options import (
    DEFAULT_MATCH_LENGTH,
    MATCH_LENGTHS,
    bot_levels,
    clock_for,
    clock_kind_for,
    table_options,
)
from games.services.presence import (
    PRESENCE_STALE_MS,
    PRESENCE_TOUCH_MS,
    notify_presence,
    player_here,
    player_left,
    player_still_here,
    side_here,
)
from games.services.reading import (
    ACTION_ORDER,
    HISTORY_FIELDS,
    SHARED_FIELDS,
    EventRow,
    actions_for,
    clock_of,
    display_name,
    event_rows,
    history,
    match_of,
    opening_of,
    options_of,
    player_of,
    presence_of,
    result_of,
    snapshot,
)
from games.services.records import expire_imports, import_opened, import_record
from games.services.starting import (
    accept_challenge,
    adopt_guest_games,
    cancel_challenge,
    create_bot_game,
    create_challenge,
    new_game,
)
from games.services.timeouts import apply_timeouts, deadline_of, settle_clock, sweep_clocks
from games.services.turns import BETWEEN_GAMES_MS
from games.services.wording import (
    explanation_frame,
    illegal_play_message,
    record_error_message,
    record_error_reason,
    why_not_message,
)

__all__ = [
    "ACTION_ORDER",
    "BETWEEN_GAMES_MS",
    "BOT",
    "BOT_MOVE_LOST_MS",
    "DEFAULT_MATCH_LENGTH",
    "HISTORY_FIELDS",
    "MATCH_LENGTHS",
    "PRESENCE_STALE_MS",
    "PRESENCE_TOUCH_MS",
    "SHARED_FIELDS",
    "TIMER_GRACE_MS",
    "Actor",
    "BadFrame",
    "CannotClaim",
    "ChallengeError",
    "PlayBanned",
    "CubeNotAllowed",
    "EventRow",
    "GameError",
    "GameOver",
    "IllegalPlayError",
    "NoHints",
    "NoRematch",
    "NothingToJudge",
    "NotYourTurn",
    "StaleVersion",
    "TooManyHints",
    "TimeRanOut",
    "WrongPhase",
    "accept_challenge",
    "actions_for",
    "adopt_guest_games",
    "apply_timeouts",
    "bot_levels",
    "bot_turn",
    "cancel_challenge",
    "claim",
    "clock_for",
    "clock_kind_for",
    "clock_of",
    "clock_spec",
    "create_bot_game",
    "create_challenge",
    "deadline_of",
    "display_name",
    "double",
    "drop",
    "event_rows",
    "explain_point",
    "answer_hint",
    "ask_hint",
    "hint",
    "judge_last_play",
    "explanation_frame",
    "group_name",
    "history",
    "illegal_play_message",
    "import_record",
    "import_opened",
    "expire_imports",
    "match_of",
    "new_game",
    "notify_presence",
    "opening_of",
    "options_of",
    "play",
    "player_here",
    "player_left",
    "player_of",
    "player_still_here",
    "side_here",
    "presence_of",
    "queue_due_bot_moves",
    "queue_lost_bot_moves",
    "record_error_message",
    "record_error_reason",
    "resign",
    "result_of",
    "roll",
    "snapshot",
    "settle_clock",
    "sweep_clocks",
    "table_options",
    "take",
    "why_not_message",
]
