"""Everything the service layer sends once a change of a game has committed: the change's
message to the game's Channels group (docs/protocol.md "Events"), the computer's move and the
end of a claim's grace period (Celery tasks, sent by name). A clock's deadline needs no
message: Celery beat's sweep finds it by the games' deadline index (``timeouts``).

A unit of work (``games.services.unit``) hands one ``Notice`` per change to ``after_commit``.
Sent from a socket's thread inside ``deferred()``, the group message is kept in the returned
``Outbox`` for the consumer to send from its own event loop (no thread hop, no event loop
per message); anywhere else (Celery, views) it is sent at once. A message that fails to go out
is logged and not retried: every Daphne process compares the versions of its sockets' games
every few seconds (``games.live.socket_watch``), so a lost message costs a snapshot, never a move.
"""

import copy
import hashlib
import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal
from uuid import UUID

from asgiref.sync import async_to_sync
from celery import current_app
from channels.layers import get_channel_layer
from django.db import transaction

from games import clocks
from games.choices import EventKind, Side
from games.room.models import Game
from games.services import legal, reading
from games.services.clockwork import TIMER_GRACE_MS
from games.signals import change_delivered

logger = logging.getLogger(__name__)

#: Celery task names (games/tasks.py registers them under these names); no task is queued per
#: clock deadline: beat's sweep applies them (docs/deploy.md says what becomes of an older
#: release's queued timers)
BOT_MOVE = "games.bot_move"
PRESENCE_NOTICE = "games.presence_notice"
HINT = "games.hint"
#: a hint question not taken by a worker within this many seconds is dropped (the page has
#: stopped waiting for it by then)
HINT_EXPIRES_S = 30


def group_name(game_id: UUID | str) -> str:
    """The channel group of a game's open sockets: ``game_<uuid>``."""
    return f"game_{game_id}"


@dataclass
class Notice:
    """What one committed change of a game sends.

    ``game`` is a copy of the game as saved; ``from_version`` the version before the change
    (equal to the game's for a change of presence only); ``events`` the ``reading.EventRow``s
    recorded; ``presence_notice_at`` (ms) queues the end of a claim's grace period."""

    game: Game
    from_version: int
    events: list[reading.EventRow] = field(default_factory=list)
    presence: bool = False
    presence_notice_at: int | None = None

    @classmethod
    def of(
        cls,
        game: Game,
        from_version: int,
        events: Iterable[reading.EventRow] = (),
        **flags: Any,
    ) -> "Notice":
        """A notice of ``game`` as it is now (copied: the caller may go on using its object)."""
        return cls(copy.copy(game), from_version, list(events), **flags)


_deferred = threading.local()


class Outbox:
    """The group messages of the changes committed inside ``deferred()``, in commit order."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, dict[str, Any]]] = []

    async def send(self, layer: Any = None) -> None:
        """Send every kept message to its group (from an event loop); a failure is logged."""
        layer = layer or get_channel_layer()
        for group, message in self.messages:
            await _group_send(layer, group, message)
        self.messages = []


class deferred:
    """``with deferred() as outbox:`` in a socket's thread: the group messages of the changes
    committed inside are kept in ``outbox`` instead of sent (Celery tasks still go at once)."""

    def __enter__(self) -> Outbox:
        self.outer = getattr(_deferred, "outbox", None)
        _deferred.outbox = Outbox()
        return _deferred.outbox

    def __exit__(self, *exc: object) -> Literal[False]:
        _deferred.outbox = self.outer
        return False


def after_commit(notice: Notice) -> None:
    """Send ``notice`` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: deliver(notice), robust=True)


def deliver(notice: Notice) -> None:
    """Queue the Celery tasks the change calls for, then send its group message (kept in the
    active ``Outbox``, if any). Errors are logged, not raised: the change has committed."""
    game = notice.game
    game_id, version = game.pk, game.version
    try:
        if game.is_bot_turn and not notice.presence:
            send_bot_move(game_id, version)
        if notice.presence_notice_at is not None:
            current_app.send_task(
                PRESENCE_NOTICE,
                (str(game_id),),
                eta=clocks.from_ms(notice.presence_notice_at + TIMER_GRACE_MS),
                ignore_result=True,
            )
    except Exception:
        logger.exception("game %s v%s: a task was not queued", game_id, version)
    _send_now(group_name(game_id), change_message(notice))
    for receiver, error in change_delivered.send_robust(sender=Game, notice=notice):
        if error is not None:
            logger.error("game %s v%s: %s failed: %r", game_id, version, receiver, error)


def send_bot_move(game_id: UUID | str, version: int, expires_ms: int | None = None) -> None:
    """Queue the computer's move of ``game_id`` at ``version`` (the task ``BOT_MOVE``);
    ``expires_ms``: a copy not taken by a worker within that many ms is dropped."""
    expires = expires_ms / 1000 if expires_ms is not None else None
    # ignore_result: sent by name, the task's own setting is unknown here, and a result
    # backend to subscribe to would hold the caller 19 s while Redis is down
    current_app.send_task(BOT_MOVE, (str(game_id), version), expires=expires, ignore_result=True)


def send_hint_question(
    kind: str, game_id: UUID | str, side: str, channel_name: str, language: str
) -> None:
    """Queue the task ``HINT``: answer the hint question ``kind`` of ``side`` in ``game_id``
    to the socket ``channel_name`` in ``language`` (``games.services.hints.answer``)."""
    current_app.send_task(
        HINT,
        (kind, str(game_id), side, channel_name, language),
        expires=HINT_EXPIRES_S,
        ignore_result=True,
    )


def send_to_socket(channel_name: str, message: dict[str, Any]) -> None:
    """Send ``message`` (a Channels message: ``type`` names the consumer's handler) to one
    socket's channel; a failure is logged (the page stops waiting and says so)."""
    try:
        async_to_sync(get_channel_layer().send)(channel_name, message)
    except Exception:
        logger.exception("%s: the message %s was not sent", channel_name, message.get("type"))


def notify_resync(game_id: UUID | str, version: int) -> None:
    """After the commit, every socket of the game gets a full snapshot (``game.resync``)."""
    transaction.on_commit(
        lambda: _send_now(group_name(game_id), {"type": "game.resync", "version": version}),
        robust=True,
    )


def session_group(session_key: str) -> str:
    """The channel group of the sockets opened with the session ``session_key``:
    ``session_<hash>`` (a hash: the key itself is a credential, kept out of Redis)."""
    return "session_" + hashlib.sha256(session_key.encode()).hexdigest()[:32]


def notify_session_changed(session_key: str) -> None:
    """Tell the sockets opened with ``session_key`` that it signed out
    (``{"type": "session.changed"}``). Within a request ``games.accounts`` sends it once the
    session is flushed; outside one it may come first, so the message itself means the session
    confirms nothing any more, whatever a socket reading the store would find."""
    _send_now(session_group(session_key), {"type": "session.changed"})


def lobby_group(user_id: int | None, guest_id: str | None = None) -> str:
    """The channel group of a waiting player's lobby sockets: ``lobby_user_<id>`` for an
    account (all its tabs and devices), else ``lobby_guest_<hash>`` for a session's guest id
    (hashed: the id names a guest's games, kept out of Redis)."""
    if user_id:
        return f"lobby_user_{user_id}"
    return "lobby_guest_" + hashlib.sha256((guest_id or "").encode()).hexdigest()[:32]


#: the channel group of every open lobby socket, which hears the counts of waiting players
LOBBY_COUNTS_GROUP = "lobby_counts"


def tell_lobby_left(groups: Iterable[str]) -> None:
    """Tell the lobby sockets of ``groups`` (``lobby_group``) that their waiting entry left
    the queue (``{"type": "lobby.left"}``)."""
    for group in groups:
        _send_now(group, {"type": "lobby.left"})


def tell_lobby_paired(groups: Iterable[str], game_id: UUID | str) -> None:
    """Tell both players' lobby sockets (``lobby_group``) which game is theirs
    (``{"type": "lobby.paired", "game": <uuid>}``; each socket links to it in its own page's
    language)."""
    for group in groups:
        _send_now(group, {"type": "lobby.paired", "game": str(game_id)})


def tell_lobby_counts(counts: dict[str, dict[str, int]]) -> None:
    """Tell every open lobby socket how many wait in each pool (``{"type": "lobby.counts",
    "counts": {pool: {"total": n, <preset>: n, …}}}``)."""
    _send_now(LOBBY_COUNTS_GROUP, {"type": "lobby.counts", "counts": counts})


def send_rematch(game: Game) -> None:
    """After the commit, tell the sockets of ``game`` where its rematch stands
    (``{"type": "game.rematch", "offer", "declined", "game"}``: the side whose offer waits,
    the side that declined or left, the new game's id; each socket sends its viewer's
    ``rematch`` frame with the URL in its own language, ``projection.rematch_frame``). No
    version: the game is over."""
    message = {
        "type": "game.rematch",
        "offer": game.rematch_offer,
        "declined": game.rematch_declined,
        "game": str(game.rematch_id) if game.rematch_id else None,
    }
    group = group_name(game.pk)
    transaction.on_commit(lambda: _send_now(group, message), robust=True)


def send_after_commit(game_id: UUID | str, message: dict[str, Any]) -> None:
    """After the commit, send ``message`` (a Channels message: ``type`` names the consumers'
    handler) to every socket of game ``game_id``: a change that raises no version (the
    chat, ``games.chat.chat``)."""
    send_to_group_after_commit(group_name(game_id), message)


def send_to_group_after_commit(group: str, message: dict[str, Any]) -> None:
    """After the commit, send ``message`` to the Channels group ``group`` (a failure is
    logged, not raised: the sockets catch up when they connect again)."""
    transaction.on_commit(lambda: _send_now(group, message), robust=True)


def send_presence(game: Game) -> None:
    """Send the sockets of ``game`` the presence and actions as they are now (an event of the
    same version): what a viewer may do changed with time (a claim's grace period ended)."""
    _send_now(group_name(game.pk), change_message(Notice.of(game, game.version, presence=True)))


def change_message(notice: Notice) -> dict[str, Any]:
    """The group message of a change (docs/protocol.md "Events", built once for every socket):

    ``{"type": "game.changed", "version": v, "from": u, "events": [[seq, kind, side, dice,
    play, cube], ...], "history": [entries], "state": {field: value}, "actions": {side:
    [...]}, "legal": {...} | None, "over": bool, "at": ms}``. ``at``: when it was built (ms
    since the epoch: a socket measures how late group messages reach it). ``state`` holds
    the shared fields of the snapshot that a change may touch (``reading.shared_state``;
    not ``last``, which a client takes from the history's last play), ``actions`` each
    player's, ``legal`` the mover's in the event's compact form (``reading.shared_legal``).
    ``over``: the game has ended, so sockets send snapshots instead.
    """
    game = notice.game
    now = clocks.now_ms()
    events = notice.events
    message = {
        "type": "game.changed",
        "version": game.version,
        "from": notice.from_version,
        "at": now,
        "events": [list(row) for row in events],
        "over": game.is_over,
    }
    if game.is_over:
        return message
    message["state"] = reading.shared_state(game, now)
    message["history"] = reading.history(events, first_n=_turn_number(game, events))
    message["actions"] = {
        side: reading.actions_for(game, side, now) for side in Side.values if side != game.bot_side
    }
    message["legal"] = legal.shared_legal(game)
    return message


def _turn_number(game: Game, events: list[reading.EventRow]) -> int:
    """The turn number of the first of ``events``: the plays before them, plus one (the game
    counts its plays, ``events`` are the change's last ones)."""
    return game.plays - sum(row.kind == EventKind.PLAY for row in events) + 1


def _send_now(group: str, message: dict[str, Any]) -> None:
    outbox = getattr(_deferred, "outbox", None)
    if outbox is not None:
        outbox.messages.append((group, message))
        return
    try:
        async_to_sync(_group_send)(get_channel_layer(), group, message)
    except Exception:
        logger.exception("%s: a message was not sent", group)


async def _group_send(layer: Any, group: str, message: dict[str, Any]) -> None:
    try:
        await layer.group_send(group, message)
    except Exception:
        logger.warning("%s: the message %s was not sent", group, message.get("type"), exc_info=True)
