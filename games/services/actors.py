"""Who acts on a game or looks at it: a person (guest id, account) or the bot."""

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from games.room.models import Game
from games.services.errors import BadFrame


@dataclass(frozen=True)
class Actor:
    """Who asks for a change or looks: a person, known by the guest id in their session and,
    once signed in, by their account (``user_id``), or the bot. A signed-in person plays the
    games of their account on any device, and the games of their session's guest id."""

    guest_id: str | None = None
    bot: bool = False
    user_id: int | None = None

    def side_in(self, game: Game) -> str | None:
        """The side this actor plays in ``game``, or None if it plays no side."""
        return game.side_of(self)


BOT = Actor(bot=True)


def person(who: Actor | str | None) -> Actor:
    """``who`` (a guest id string or an Actor) as an Actor with a guest id. Raises BadFrame
    when there is none (or ``who`` is the bot)."""
    actor = Actor(guest_id=who) if isinstance(who, str) or who is None else who
    if not actor.guest_id or not isinstance(actor.guest_id, str) or actor.bot:
        raise BadFrame(_("A game needs a guest to play it."))
    return actor


def seat(side: str, actor: Actor) -> dict[str, Any]:
    """The Game fields that put ``actor`` on ``side``: ``{"<side>_guest": …, "<side>_user_id":
    …}``."""
    return {f"{side}_guest": actor.guest_id, f"{side}_user_id": actor.user_id}
