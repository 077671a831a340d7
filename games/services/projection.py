"""What one viewer of a game is sent (docs/protocol.md "Events", "Snapshots"): the read side's
per-viewer half of the protocol. ``dispatch.change_message`` builds the message every socket
of a game hears after a change; a ``ViewerState`` (one per socket) decides from it whether
its viewer gets an ``event`` frame (only what changed since the version it holds, with its
own actions and legal plays), a full snapshot, or nothing, and remembers what it was sent.
Pure: it reads and writes no row, so the consumer only parses, calls and sends."""

from dataclasses import dataclass, field
from typing import Any

from games.chat.reading import message_view, visible_to
from games.protocol import MERGED_FIELDS
from games.services.reading import SHARED_FIELDS, game_url, rematch_view

#: ``Update.kind`` values: nothing to send (old news), a snapshot is needed, an event frame
SKIP, SNAPSHOT, EVENT = "skip", "snapshot", "event"


def field_change(field_name: str, held: Any, value: Any) -> Any:
    """What an event says of ``field_name``, held by the viewer as ``held`` and now ``value``:
    for an object of ``MERGED_FIELDS`` held as an object, its keys whose value changed; else
    the whole value."""
    if field_name in MERGED_FIELDS and isinstance(held, dict) and isinstance(value, dict):
        return {key: item for key, item in value.items() if held.get(key) != item}
    return value


@dataclass(frozen=True, slots=True)
class Update:
    """What to do for one change message: ``kind`` SKIP, SNAPSHOT (``force``: send it even at
    the version already sent) or EVENT (``frame``: the ``event`` frame to send as it is)."""

    kind: str
    frame: dict[str, Any] | None = None
    force: bool = False


@dataclass(slots=True)
class ViewerState:
    """What one socket's viewer was last sent: ``version`` (None before the first snapshot)
    and ``shown``, the ``SHARED_FIELDS`` of the game at that version (the base its events
    are diffs against). ``side`` is the viewer's side ("white", "black") or None for a
    spectator; ``muted``: the player muted the opponent's chat (from the snapshot's ``chat``,
    then the ``game.chat_mute`` messages: no query per chat message)."""

    side: str | None = None
    version: int | None = None
    shown: dict[str, Any] = field(default_factory=dict)
    muted: bool = False

    def snapshot_sent(self, frame: dict[str, Any], force: bool = False) -> bool:
        """True if the snapshot ``frame`` (``services.snapshot``'s) should be sent, i.e. it is
        newer than what the viewer holds or ``force``; the viewer then holds it."""
        game = frame["game"]
        version = game["version"]
        if not force and self.version is not None and version <= self.version:
            return False
        self.version = version
        self.shown = {key: game[key] for key in SHARED_FIELDS}
        self.muted = bool((game.get("chat") or {}).get("muted"))
        return True

    def on_change(self, message: dict[str, Any]) -> Update:
        """The ``Update`` for the change message ``message`` (``dispatch.change_message``:
        ``version``, ``from`` its base version, ``over``, ``state`` the shared fields,
        ``events``, ``history``, ``actions`` by side, ``legal`` for the side awaited). Old
        news is skipped; a game that ended, or a change that does not continue from the held
        version, needs a snapshot; else the event frame, which the viewer then holds."""
        version, base = message["version"], message["from"]
        if (
            self.version is None
            or version < self.version
            or (version == self.version and base != version)
        ):
            return Update(SKIP)
        if message["over"] or base != self.version:
            return Update(SNAPSHOT, force=version == self.version)
        state = message["state"]
        changes = {
            key: field_change(key, self.shown.get(key), value)
            for key, value in state.items()
            if key != "version" and self.shown.get(key) != value
        }
        legal = (
            message["legal"] if self.side is not None and self.side == state["awaiting"] else None
        )
        frame = {
            "type": "event",
            "version": version,
            "from": base,
            "events": [
                {"seq": seq, "kind": kind, "side": side}
                for seq, kind, side, *_rest in message["events"]
            ],
            "history": message["history"],
            "changes": changes,
            "actions": message["actions"].get(self.side, []) if self.side else [],
            "legal": legal,
        }
        self.shown.update(state)
        self.version = version
        return Update(EVENT, frame=frame)


def rematch_frame(message: dict[str, Any], side: str | None) -> dict[str, Any] | None:
    """The ``rematch`` frame (docs/protocol.md "Rematch") the viewer playing ``side`` (None:
    an onlooker) gets for a ``game.rematch`` message (``dispatch.send_rematch``), its URL in
    the active language, or None: nothing for them."""
    view = rematch_view(
        message.get("offer", ""), message.get("declined", ""), game_url(message.get("game")), side
    )
    return None if view is None else {"type": "rematch", **view}


def chat_frame(message: dict[str, Any], view: ViewerState, viewer: Any) -> dict[str, Any] | None:
    """The ``chat`` frame (docs/protocol.md "Chat") of a ``game.chat`` message for the viewer
    of ``view`` (``viewer``: their Actor), its preset in the active language, or None when
    they do not read it: a spectator's message to a player, a player's own words to an
    onlooker, the opponent's to a player who muted them (``chat.reading.visible_to``)."""
    if not visible_to(message["sender"], message["preset"], view.side, view.muted):
        return None
    return {"type": "chat", "message": message_view(message, view.side, viewer)}


def mute_frame(message: dict[str, Any], view: ViewerState) -> dict[str, Any] | None:
    """The ``chat_muted`` frame of a ``game.chat_mute`` message for the viewer of ``view``:
    only the player who muted (or heard again) gets it, and their ``view`` keeps it."""
    if view.side is None or message["side"] != view.side:
        return None
    view.muted = bool(message["muted"])
    return {"type": "chat_muted", "muted": view.muted}
