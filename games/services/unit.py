"""The unit of work of every change of a game: lock the row, change it, record each event,
save once and hand one ``dispatch.Notice`` to the commit.

    with changing(game_id) as change:
        ...                      # change.game is locked; change.record(...) for each event
    # committed: the sockets, the computer and the clock's timer hear of it once

A ``GameError`` raised inside rolls the whole change back and sends nothing.
"""

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Literal, overload
from uuid import UUID

from django.db import transaction

from games.choices import EventKind
from games.room.models import Game, GameEvent
from games.services import dispatch, outages
from games.services.errors import GameError
from games.services.reading import EventRow


class GameChange:
    """One change of one game inside the caller's transaction.

    ``game``: the locked (or just created) game; ``events``: the ``EventRow``s recorded so far;
    ``from_version``: the version before the change. ``close()`` saves the game if anything
    was recorded or marked (``mark_presence``) and registers its notice after the commit."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.from_version = game.version
        self.events: list[EventRow] = []
        self.presence = False
        self.presence_notice_at: int | None = None

    def record(
        self,
        kind: str,
        side: str | None = "",
        dice: list[int] | None = None,
        play: str = "",
        roll_number: int | None = None,
        cube: int | None = None,
    ) -> None:
        """Raise the game's version by one and record the event that made it (a GameEvent row
        with ``seq`` = the new version); a play also counts in ``game.plays``."""
        game = self.game
        game.version += 1
        if kind == EventKind.PLAY:
            game.plays += 1
        GameEvent.objects.create(
            game=game,
            seq=game.version,
            kind=kind,
            side=side or "",
            dice=dice,
            play=play,
            roll_number=roll_number,
            cube=cube,
        )
        self.events.append(
            EventRow(
                game.version, kind, side or "", list(dice) if dice is not None else None, play, cube
            )
        )

    def mark_presence(self, notice_at: int | None = None) -> None:
        """Who is here changed (no version): save and tell the sockets. ``notice_at`` (ms):
        queue a presence notice then (the end of a claim's grace period)."""
        self.presence = True
        if notice_at is not None:
            self.presence_notice_at = notice_at

    @property
    def changed(self) -> bool:
        """True when the change recorded an event or marked presence."""
        return bool(self.events) or self.presence

    def close(self) -> None:
        """Save the game and register its notice, if anything changed."""
        if not self.changed:
            return
        self.game.save()
        dispatch.after_commit(
            dispatch.Notice.of(
                self.game,
                self.from_version,
                self.events,
                presence=self.presence and not self.events,
                presence_notice_at=self.presence_notice_at,
            )
        )


def lock(game_id: UUID | str) -> Game:
    """The game row, locked for the transaction; raises Game.DoesNotExist."""
    return Game.objects.select_for_update().get(pk=game_id)


def lock_or_none(game_id: UUID | str) -> Game | None:
    """The locked game, or None if it no longer exists (a timer or a socket outlived it)."""
    return Game.objects.select_for_update().filter(pk=game_id).first()


@overload
def changing(
    game_id: UUID | str, missing_ok: Literal[False] = False
) -> AbstractContextManager[GameChange]: ...


@overload
def changing(
    game_id: UUID | str, missing_ok: bool
) -> AbstractContextManager[GameChange | None]: ...


def changing(
    game_id: UUID | str, missing_ok: bool = False
) -> AbstractContextManager[GameChange | None]:
    """A transaction with game ``game_id`` locked, as a ``GameChange``; saved and dispatched
    when the block ends without an exception. ``missing_ok``: yield None for a game that no
    longer exists instead of raising Game.DoesNotExist. Before anything else the game is
    credited with the outages it missed (``outages.credit``), so no change judges a clock by
    time the site could not serve; that credit is saved even when the change after it is
    refused (a frame with the version from before it would otherwise be refused for ever).
    (Typed by the two overloads above: a GameChange, or GameChange | None with ``missing_ok``.)"""
    return _changing(game_id, missing_ok)


@contextmanager
def _changing(game_id: UUID | str, missing_ok: bool) -> Iterator[GameChange | None]:
    last = outages.latest()
    refused = None
    with transaction.atomic():
        game = lock_or_none(game_id) if missing_ok else lock(game_id)
        if game is None:
            yield None
            return
        change = GameChange(game)
        if outages.credit(change, last):
            change.close()
            change = GameChange(game)
            try:
                with transaction.atomic():  # a savepoint: a refusal undoes only the change
                    yield change
                    change.close()
            except GameError as exc:
                refused = exc
        else:
            yield change
            change.close()
    if refused is not None:
        raise refused


@contextmanager
def creating(game: Game) -> Iterator[GameChange]:
    """A ``GameChange`` of a new, unsaved game inside the caller's transaction: saved first
    (so events can point at it), closed when the block ends."""
    game.save()
    change = GameChange(game)
    yield change
    change.close()
