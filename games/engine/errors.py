"""Errors raised by the engine. All are ``ValueError`` subclasses, so bad input never
passes silently and callers may catch one family."""


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input."""


class PositionError(EngineError):
    """A position that cannot occur: wrong checker counts, both sides on one point, bad keys."""


class NotationError(EngineError):
    """A step or play that does not parse as RULES.md Notation (``24/18 18/13``, ``3/off``)."""


class RulesetError(EngineError):
    """An unknown preset or table option (RULES.md R12)."""


class DiceError(EngineError):
    """Dice that are not two integers from 1 to 6."""


class IllegalPlay(EngineError):
    """A play that breaks a rule. ``code`` names the rule (e.g. ``head``, ``six_block``), the
    message says it in words a player can read, and ``step`` is the offending step if any."""

    def __init__(self, code: str, message: str, step: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.step = step
