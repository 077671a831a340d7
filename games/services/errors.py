"""Errors of the service layer: a request that cannot be carried out changes nothing and
raises a ``GameError`` whose ``code`` is a docs/protocol.md error code."""

from django.utils.functional import Promise


class GameError(Exception):
    """A request that cannot be carried out; the game is left unchanged.

    ``code`` is the docs/protocol.md error code, ``message`` a sentence a player can read,
    ``version`` the game's current version when it is known (else None).
    """

    code = "error"

    def __init__(self, message: str | Promise, version: int | None = None) -> None:
        super().__init__(message)
        self.message = str(message)
        self.version = version


class BadFrame(GameError):
    """A missing or ill-typed argument (protocol code ``bad_frame``)."""

    code = "bad_frame"


class StaleVersion(GameError):
    """The request names a version that is not the game's current one (``stale_version``)."""

    code = "stale_version"


class NotYourTurn(GameError):
    """The actor is not the side to move, or plays no side of this game (``not_your_turn``)."""

    code = "not_your_turn"


class WrongPhase(GameError):
    """The action does not fit the phase: play before rolling, roll after rolling
    (``wrong_phase``)."""

    code = "wrong_phase"


class IllegalPlayError(GameError):
    """The play breaks RULES.md; ``message`` names the rule (``illegal_play``)."""

    code = "illegal_play"


class CubeNotAllowed(GameError):
    """A double that RULES.md R10 does not allow here: no cube at the table, the opponent owns
    it, or it is at 64 (``cube_not_allowed``)."""

    code = "cube_not_allowed"


class GameOver(GameError):
    """The game has finished; nothing more can be done in it (``game_over``)."""

    code = "game_over"


class TimeRanOut(GameOver):
    """The request came after a deadline of the game's clock (RULES.md R11): the timeout was
    applied instead and the game is over (``game_over``)."""


class CannotClaim(GameError):
    """A claim of the win that the rules do not allow now: the opponent is here, or has not
    been away for the grace period, or the clock has no claim (``cannot_claim``)."""

    code = "cannot_claim"


class ChallengeError(GameError):
    """A challenge link that cannot be accepted or withdrawn: taken, withdrawn, or one's own
    (``challenge``)."""

    code = "challenge"


class PlayBanned(GameError):
    """Rated games are closed to this account for a while: it lately let lost rated games run
    out or left them instead of resigning (``games.services.playban``; protocol code
    ``play_banned``). ``retry_after``: seconds until it may play rated games again."""

    code = "play_banned"

    def __init__(
        self, message: str | Promise, retry_after: int, version: int | None = None
    ) -> None:
        super().__init__(message, version)
        self.retry_after = retry_after


class NoRematch(GameError):
    """A rematch is not possible here: the game is not over, is against the computer or in a
    tournament, the match goes on, the viewer plays no side, or the rated rematch is closed
    to one of the players (protocol code ``no_rematch``)."""

    code = "no_rematch"
