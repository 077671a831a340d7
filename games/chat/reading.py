"""The chat as each reader gets it (docs/protocol.md "Chat"): the preset phrases and their
words in the reader's language, who reads which message, one message as a frame shows it,
and the messages so far in a snapshot. Reads only; ``games.chat.chat`` writes."""

import hashlib
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import clocks
from games.chat.models import ChatMessage, ChatMute, Sender, chat_closed
from games.choices import EventKind
from games.room.models import Game, GameEvent

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
#: how long the players may still chat once their game is over (onlookers: not at all)
AFTER_END = timedelta(minutes=10)


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


def visible_q(you: str | None, muted: bool) -> Q:
    """``visible_to`` as a filter of ``ChatMessage`` rows, the same rule (a test holds them to
    it on every combination): the messages the viewer playing ``you`` (None: an onlooker),
    who muted the opponent (``muted``), reads."""
    if you is None:
        return Q(sender=SPECTATOR) | ~Q(preset="")
    if muted:
        return Q(sender=you)
    return ~Q(sender=SPECTATOR)


def ended_at(game: Game) -> datetime | None:
    """When ``game`` ended (its end or abort event), or None while it goes on."""
    if not game.is_over:
        return None
    end = (
        GameEvent.objects.filter(game=game, kind__in=(EventKind.END, EventKind.ABORT))
        .order_by("-seq")
        .values_list("created", flat=True)
        .first()
    )
    return end or game.updated


def posting_until(game: Game, you: str | None) -> datetime | None:
    """Until when the viewer playing ``you`` (None: an onlooker) may send messages in
    ``game``: None while the game goes on (no end yet); once it is over, AFTER_END after its
    end for a player, its end for an onlooker (so: no more)."""
    end = ended_at(game)
    if end is None:
        return None
    return end + AFTER_END if you is not None else end


def may_post(until: datetime | None) -> bool:
    """Whether a message may be sent now, given ``posting_until``'s answer."""
    return until is None or timezone.now() < until


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
    they read, oldest first: filtered in the query, so no one else's messages can push them
    out), "muted": bool, "text": bool (a signed-in player: may write their own words and
    report the opponent's), "open": bool (may send a message now), "until": ms or None (when
    sending closes for them: None while the game goes on), "presets": [{"key", "text"},
    …]}``."""
    if chat_closed(game):
        return None
    muted = is_muted(game, you)
    latest = ChatMessage.objects.filter(visible_q(you, muted), game=game).order_by("-pk")
    rows = [message_row(message) for message in latest[:SNAPSHOT_MESSAGES]]
    until = posting_until(game, you)
    return {
        "messages": [message_view(row, you, viewer) for row in reversed(rows)],
        "muted": muted,
        "text": you is not None and bool(getattr(viewer, "user_id", None)),
        "open": may_post(until),
        "until": None if until is None else clocks.to_ms(until),
        "presets": presets_view(),
    }
