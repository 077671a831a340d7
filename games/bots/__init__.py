"""The computer opponent: picks one of the engine's legal plays (pure Python, no Django).

``choose_play(position, dice, ruleset, level="medium", rng=None)`` returns an engine ``Play``.
Levels: ``easy`` plays a random legal play; ``medium`` scores every legal play with
``games.bots.heuristic`` and plays the best (ties broken by ``rng``).
"""
from .heuristic import LEVELS, choose_play, score_position

__all__ = ["LEVELS", "choose_play", "score_position"]
