"""Posting, muting and reporting in a game's chat (docs/protocol.md "Chat").

A message is not a move: it raises no version and never locks the game's row (a move sent at
the same moment must not wait for it nor be refused as stale). Each function checks the actor
against the game's rows, writes in one transaction and, after the commit, tells the game's
sockets through ``dispatch.send_after_commit`` (as ``services.presence`` does for a change
without a new version); each socket's ``projection`` decides what its viewer is sent. Errors
are ``GameError``s with the protocol's codes, their messages in the active language."""

import unicodedata
from typing import Any
from uuid import UUID

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import ratelimits
from games.chat.models import TEXT_MAX, ChatMessage, ChatMute, ChatReport, chat_closed
from games.chat.reading import (
    PRESETS,
    SPECTATOR,
    may_post,
    message_row,
    posting_until,
    visible_to,
)
from games.room.models import Game
from games.services import Actor, BadFrame, GameError, dispatch


class NoChat(GameError):
    """The game has no chat: against the computer, or in a tournament that turned it off."""

    code = "no_chat"


class ChatNotAllowed(GameError):
    """The sender may not do this: free text from a guest or an onlooker, a mute by an
    onlooker, a report from someone not a signed-in player (``chat_not_allowed``)."""

    code = "chat_not_allowed"


class ChatTooLong(GameError):
    """Free text longer than ``TEXT_MAX`` characters once trimmed (``chat_too_long``)."""

    code = "chat_too_long"


class ChatOver(GameError):
    """A message after the game's chat closed (``chat_over``): from an onlooker once the game
    is over, from a player once AFTER_END has passed since its end."""

    code = "chat_over"


class TooManyMessages(GameError):
    """Over the chat's rate limits (``too_many_messages``): ``retry_after`` seconds."""

    code = "too_many_messages"

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class NoSuchMessage(GameError):
    """A report of a message that is not the opponent's in this game (``no_such_message``)."""

    code = "no_such_message"


#: what ``post`` tells a guest player who sends their own words
GUEST_TEXT_REFUSED = gettext_lazy(
    "Only signed-in players can write their own messages. Sign in, or send one of the ready "
    "phrases."
)


def frame_problem(frame: dict[str, Any]) -> str | None:
    """Why a ``chat``, ``chat_mute`` or ``chat_report`` frame is malformed (a readable reason
    in the active language, sent as ``bad_frame``), or None: ``preset`` and ``text`` are
    strings or absent, ``muted`` a bool, ``id`` a whole number."""
    kind = frame["type"]
    if kind == "chat" and not all(
        isinstance(frame.get(key), (str, type(None))) for key in ("preset", "text")
    ):
        return _("A chat frame needs a preset or a text, as a string.")
    if kind == "chat_mute" and not isinstance(frame.get("muted"), bool):
        return _("A chat_mute frame needs muted: true or false.")
    message_id = frame.get("id")
    if kind == "chat_report" and (isinstance(message_id, bool) or not isinstance(message_id, int)):
        return _("A chat_report frame needs the message's id as a whole number.")
    return None


#: the zero-width joiner: the one format character kept (it joins emoji sequences)
ZWJ = "\u200d"
#: the zero-width non-joiner keeps Persian and Indic letters apart inside a word
ZWNJ = "\u200c"
JOINERS = (ZWJ, ZWNJ)
#: the most combining marks (Mn, Me) kept in a row after a base character
MARKS_MAX = 2


def clean_text(text: str) -> str:
    """``text`` trimmed, every run of white space one space, and what shows nothing or
    disguises the rest dropped: control characters (Cc), lone surrogates (Cs, which the
    database cannot store), format characters (Cf: zero-width spaces, bidi overrides and
    isolates, …) but a zero-width joiner or non-joiner between two characters (emoji
    sequences; Persian and Indic words),
    and combining marks (Mn, Me) with no base character before them or past MARKS_MAX in a
    row (a tall smear of accents)."""
    kept: list[str] = []
    marks, based = 0, False  # marks in a row so far; a base character before them
    for ch in text:
        category = unicodedata.category(ch)
        if category in ("Cc", "Cs", "Cf") and not (ch.isspace() or ch in JOINERS):
            continue
        if category in ("Mn", "Me"):
            if not based or marks >= MARKS_MAX:
                continue
            marks += 1
        elif ch not in JOINERS:
            marks, based = 0, not ch.isspace()
        kept.append(ch)
    joined = [
        ch
        for i, ch in enumerate(kept)
        if ch not in JOINERS or (0 < i < len(kept) - 1 and _joins(kept[i - 1], kept[i + 1]))
    ]
    return " ".join("".join(joined).split())


def _joins(before: str, after: str) -> bool:
    """Whether a zero-width (non-)joiner between ``before`` and ``after`` does something:
    neither is white space nor another joiner, and ``after`` is a base character, not a mark
    (before it, a mark may end the character it joins: a variation selector)."""
    if any(ch.isspace() or ch in JOINERS for ch in (before, after)):
        return False
    return unicodedata.category(after) not in ("Mn", "Me")


def _game(game_id: UUID | str) -> Game:
    """The game (raises Game.DoesNotExist); NoChat where it has none."""
    game = Game.objects.get(pk=game_id)
    if chat_closed(game):
        raise NoChat(_("This game has no chat."))
    return game


def post(
    game_id: UUID | str,
    actor: Actor,
    preset: str | None = None,
    text: str | None = None,
    visitor: tuple[Any, str | None] = (None, None),
) -> dict[str, Any]:
    """Send a chat message in game ``game_id`` from ``actor``: the preset phrase ``preset``
    (a key of ``PRESETS``) or, from a signed-in player only, ``text`` (trimmed, 1 to TEXT_MAX
    characters). ``visitor``: ``(session_identity, ip)`` counted against the chat limits
    (``ratelimits.check_chat``). The message keeps the game's version as read, and after the
    commit every socket of the game hears ``{"type": "game.chat", **message_row}``.

    Raises BadFrame (neither or both of preset and text, an unknown preset, empty text),
    NoChat, ChatOver (the game is over: an onlooker, or a player after AFTER_END),
    ChatNotAllowed (free text from a guest or an onlooker; an onlooker with no
    identity), ChatTooLong, TooManyMessages, Game.DoesNotExist. Returns the message's row."""
    if (preset is None) == (text is None):
        raise BadFrame(_("A chat frame needs either a preset or a text."))
    if preset is not None and preset not in PRESETS:
        raise BadFrame(_("Unknown chat phrase."))
    if text is not None:
        text = clean_text(text)
        if not text:
            raise BadFrame(_("The message is empty."))
        if len(text) > TEXT_MAX:
            raise ChatTooLong(
                _("A message may have at most %(max)d characters.") % {"max": TEXT_MAX}
            )
    # counted before any read: a flood costs a Redis call a frame, not a query
    try:
        ratelimits.check_chat(*visitor)
    except ratelimits.RateLimited as limited:
        raise TooManyMessages(limited.message, limited.retry_after) from None
    game = _game(game_id)
    side = game.side_of(actor)
    if side is None and text is not None:
        raise ChatNotAllowed(_("Onlookers can send the ready phrases only."))
    if text is not None and not actor.user_id:
        raise ChatNotAllowed(GUEST_TEXT_REFUSED)
    if side is None and not (actor.user_id or actor.guest_id):
        raise ChatNotAllowed(_("Open the game's page again to chat."))
    if not may_post(posting_until(game, side)):
        raise ChatOver(_("The game is over and its chat is closed."))
    with transaction.atomic():
        message = ChatMessage.objects.create(
            game=game,
            version=game.version,
            sender=side or SPECTATOR,
            user_id=actor.user_id,
            guest=actor.guest_id or "",
            preset=preset or "",
            text=text or "",
        )
        row = message_row(message)
        dispatch.send_after_commit(game.pk, {"type": "game.chat", **row})
    return row


def mute(game_id: UUID | str, actor: Actor, muted: bool) -> bool:
    """The player ``actor`` of game ``game_id`` mutes (``muted`` True) or hears again
    (False) the opponent's chat in that game, kept on the server; after the commit the
    player's sockets hear ``{"type": "game.chat_mute", "side", "muted"}`` (each sends its
    viewer a ``chat_muted`` frame, ``projection.mute_frame``). Raises NoChat,
    ChatNotAllowed (an onlooker), Game.DoesNotExist. Returns ``muted``."""
    game = _game(game_id)
    side = game.side_of(actor)
    if side is None:
        raise ChatNotAllowed(_("Only the players can mute the chat."))
    with transaction.atomic():
        if muted:
            ChatMute.objects.get_or_create(game=game, side=side)
        else:
            ChatMute.objects.filter(game=game, side=side).delete()
        dispatch.send_after_commit(
            game.pk, {"type": "game.chat_mute", "side": side, "muted": muted}
        )
    return muted


def report(game_id: UUID | str, actor: Actor, message_id: int) -> dict[str, Any]:
    """The signed-in player ``actor`` of game ``game_id`` reports the opponent's message
    ``message_id`` to the staff (``ChatReport``; once per message and reporter: a second
    report of it changes nothing). Returns the frame for the reporter's socket,
    ``{"type": "chat_reported", "id": message_id}``. Raises NoChat, ChatNotAllowed (not a
    signed-in player), NoSuchMessage (not a message of the opponent in this game),
    Game.DoesNotExist."""
    game = _game(game_id)
    side = game.side_of(actor)
    if side is None or not actor.user_id:
        raise ChatNotAllowed(_("Only signed-in players can report a message."))
    message = ChatMessage.objects.filter(pk=message_id, game=game).first()
    if message is None or message.sender == side or not visible_to(message.sender, "", side, False):
        raise NoSuchMessage(_("There is no such message of your opponent in this game."))
    try:
        with transaction.atomic():
            ChatReport.objects.get_or_create(message=message, reporter_id=actor.user_id)
    except IntegrityError:
        pass  # the same report from another tab at the same moment: one is kept
    return {"type": "chat_reported", "id": message.pk}
