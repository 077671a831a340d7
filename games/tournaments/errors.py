"""Errors of the tournaments service: a request that cannot be carried out changes nothing."""

from games.services.errors import GameError


class TournamentError(GameError):
    """An entry or a departure the event does not allow now: it is full, over, or started
    (a cup), or the player is not entered (protocol code ``tournament``)."""

    code = "tournament"
