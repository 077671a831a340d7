"""The long-nardy rules engine: pure Python, no Django (RULES.md R1–R12).

In the spirit of python-chess: an immutable, hashable Position; Ruleset presets; legal_plays
listing each distinct result once; step_graph/legal_steps for a user interface built from the
same search; check_play judging a submitted play by the position it leads to; game_value for R9.
Command line: ``python -m games.engine moves|score|bench`` (see ``games/engine/cli.py``).
"""

from .errors import DiceError, EngineError, IllegalPlay, NotationError, PositionError, RulesetError
from .movegen import Play, check_dice, check_play, head_limit, legal_plays, legal_steps, step_graph
from .notation import format_play, format_step, parse_play, parse_step
from .position import BLACK, CHECKERS, SIDES, WHITE, Position, board_to_json, mirror, other
from .rules import PRESETS, Ruleset, get_ruleset
from .scoring import KOKS, MARS, OIN, game_value

__all__ = [
    "BLACK",
    "CHECKERS",
    "DiceError",
    "EngineError",
    "IllegalPlay",
    "KOKS",
    "MARS",
    "NotationError",
    "OIN",
    "PRESETS",
    "Play",
    "Position",
    "PositionError",
    "Ruleset",
    "RulesetError",
    "SIDES",
    "WHITE",
    "board_to_json",
    "check_dice",
    "check_play",
    "format_play",
    "format_step",
    "game_value",
    "get_ruleset",
    "head_limit",
    "legal_plays",
    "legal_steps",
    "mirror",
    "other",
    "parse_play",
    "parse_step",
    "step_graph",
]
