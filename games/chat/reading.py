"""The chat as each reader gets it (docs/protocol.md "Chat"): the preset phrases and their
words in the reader's language, who reads which message, one message as a frame shows it,
and the messages so far in a snapshot. Reads only; ``games.chat.chat`` writes."""

import hashlib
from typing import Any

from django.utils.translation import gettext_lazy as _

from games import clocks
from games.chat.models import ChatMessage, ChatMute, Sender, chat_closed
from games.room.models import Game

#: the preset phrases: the key travels on the wire, each reader gets the words in their own
#: language (in the order the panel shows them)
PRESETS = {
    "hello": _("Hello!"),
    "good_luck": _("Good luck!"),
    "have_fun": _("Have fun!"),
    "nice_roll": _("Nice roll!"),
    "well_played": _("Well played!"),
    "oops": _("Oops!"),
    "sorry": _("Sorry!"),
    "thanks": _("Thanks!"),
    "good_game": _("Good game!"),
    "bye": _("Bye!"),
}

#: the most messages a snapshot carries (the latest): the page's log, not the archive
SNAPSHOT_MESSAGES = 50
SPECTATOR = Sender.SPECTATOR.value


def visible_to(sender: str, preset: str, you: str | None, muted: bool) -> bool:
    """Whether the viewer playing ``you`` (None: an onlooker), who muted the opponent
    (``muted``), reads a message of ``sender`` (a side or ``spectator``) that is the preset
    ``preset`` ("" for free text). Players read their own and their opponent's messages
    (the opponent's not once muted), never an onlooker's; onlookers read onlookers' presets
    and the players' presets, never a player's own words."""
    if you is None:
        return sender == SPECTATOR or bool(preset)
    if sender == SPECTATOR:
        return False
    return sender == you or not muted


def person_key(user_id: int | None, guest: str | None) -> str:
    """Who sent a message, as ``message_view`` tells an onlooker's own: ``user:<id>`` for an
    account, else ``guest:<hash>`` of the session's guest id (hashed: a guest id names a
    guest's games, and the group message passes through Redis), "" for nobody."""
    if user_id:
        return f"user:{user_id}"
    return "guest:" + hashlib.sha256(guest.encode()).hexdigest()[:32] if guest else ""


def keys_of(viewer: Any) -> set[str]:
    """The ``person_key``s of a viewer (an Actor, a guest id or None)."""
    guest = viewer if isinstance(viewer, str) else getattr(viewer, "guest_id", None)
    return {person_key(getattr(viewer, "user_id", None), None), person_key(None, guest)} - {""}


def message_view(row: dict[str, Any], you: str | None, viewer: Any) -> dict[str, Any]:
    """One message as a frame shows it, in the active language: ``{"id", "from" (a side or
    "spectator"), "preset" (the key, or null for free text), "text" (the preset's words, or
    the free text), "version", "at" (ms), "mine"}``. ``row`` is ``message_row``'s;
    ``viewer`` is the reader's Actor (or guest id, or None)."""
    preset = row["preset"]
    if you is not None:
        mine = row["sender"] == you
    else:
        mine = row["sender"] == SPECTATOR and row["who"] in keys_of(viewer)
    return {
        "id": row["id"],
        "from": row["sender"],
        "preset": preset or None,
        "text": str(PRESETS[preset]) if preset in PRESETS else row["text"],
        "version": row["version"],
        "at": row["at"],
        "mine": mine,
    }


def message_row(message: ChatMessage) -> dict[str, Any]:
    """The fields of ``message`` as ``message_view`` and the group message read them: ``id``,
    ``sender``, ``preset``, ``text``, ``version``, ``at`` (ms) and ``who`` (``person_key``)."""
    return {
        "id": message.pk,
        "sender": message.sender,
        "preset": message.preset,
        "text": message.text,
        "version": message.version,
        "at": clocks.to_ms(message.created),
        "who": person_key(message.user_id, message.guest),
    }


def is_muted(game: Game, side: str | None) -> bool:
    """Whether the player of ``side`` (None: an onlooker, never) muted the opponent."""
    return side is not None and ChatMute.objects.filter(game=game, side=side).exists()


def presets_view() -> list[dict[str, str]]:
    """The preset phrases as ``{"key", "text"}`` in the active language, in panel order."""
    return [{"key": key, "text": str(words)} for key, words in PRESETS.items()]


def snapshot_chat(game: Game, you: str | None, viewer: Any) -> dict[str, Any] | None:
    """The snapshot's ``chat`` for the viewer playing ``you`` (None: an onlooker; ``viewer``
    their Actor, guest id or None), in the active language, or None where the game has no
    chat (``chat_closed``): ``{"messages": [message_view, …] (the latest SNAPSHOT_MESSAGES
    they read, oldest first), "muted": bool, "text": bool (a signed-in player: may write
    their own words and report the opponent's), "presets": [{"key", "text"}, …]}``."""
    if chat_closed(game):
        return None
    muted = is_muted(game, you)
    rows = [
        message_row(message)
        for message in ChatMessage.objects.filter(game=game).order_by("-pk")[:200]
    ]
    seen = [row for row in rows if visible_to(row["sender"], row["preset"], you, muted)]
    return {
        "messages": [message_view(row, you, viewer) for row in reversed(seen[:SNAPSHOT_MESSAGES])],
        "muted": muted,
        "text": you is not None and bool(getattr(viewer, "user_id", None)),
        "presets": presets_view(),
    }
