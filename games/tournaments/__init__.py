"""Tournaments: arenas and knockout cups, run by the server (issue #18; lichess's
``tournament`` module is the model). Part of the service layer: every change of an event
locks its row and raises its ``version`` (``unit.changing``), and its pages hear of it after
the commit (``notices``). Pairing and the bracket's advance run in Celery (the task
``games.tournament_advance`` after each result, and the beat tick), never in a web process.

| module | what |
|---|---|
| ``rules`` | points, streaks, arena pairing and the seeded bracket, pure |
| ``entries`` | creating events; entering, leaving, coming back |
| ``arena``, ``cup`` | the two kinds of event |
| ``play`` | starting a pairing's game and reading its result |
| ``running`` | results of games, the task's and the tick's work |
| ``schedule`` | the periodic events made from settings |
| ``presence`` | which players have a page of the event open |
| ``unit``, ``notices`` | the unit of work; what is sent after a commit |
| ``reading`` | the event as pages and sockets show it |

The names below are the package's interface.
"""

from games.tournaments.entries import (
    arrived,
    cancel,
    check_options,
    create,
    join,
    leave,
    withdrawal_message,
)
from games.tournaments.errors import TournamentError
from games.tournaments.notices import ADVANCE, group_name
from games.tournaments.play import ANNOUNCE_MS
from games.tournaments.presence import PAGE_TOUCH_MS, socket_closed, socket_opened
from games.tournaments.reading import (
    announcement,
    event_of_game,
    podiums_of,
    standings,
    state,
    title,
)
from games.tournaments.running import advance, tick
from games.tournaments.schedule import ensure as ensure_schedule

__all__ = [
    "ADVANCE",
    "ANNOUNCE_MS",
    "PAGE_TOUCH_MS",
    "TournamentError",
    "advance",
    "announcement",
    "arrived",
    "cancel",
    "check_options",
    "create",
    "ensure_schedule",
    "event_of_game",
    "group_name",
    "join",
    "leave",
    "podiums_of",
    "socket_closed",
    "socket_opened",
    "standings",
    "state",
    "tick",
    "title",
    "withdrawal_message",
]
