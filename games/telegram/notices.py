"""The players' notices through the bot: it is their turn in a game between people whose
page they have left; a challenge they made was accepted; a friend challenged them (from the
friends list, ``games.friends``); their next tournament game has begun while no page of the
tournament is open. Only for players who asked for them on their
profile (``links``), in the language they chose.

The receivers below decide what to send when a change commits and queue the Celery task
``TASK`` (by name); ``send`` (the task's work) checks again that the notice still applies,
keeps within Telegram's limits and calls the Bot API. A notice is sent at most once."""

import logging
import time
from functools import partial

from celery import current_app
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.dispatch import receiver
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from games import clocks, ratelimits
from games.challenges.models import Challenge, ChallengeStatus
from games.choices import EventKind, Side
from games.room.models import Game, GameEvent
from games.services import clock_kind_for, display_name, side_here
from games.signals import challenge_accepted, change_delivered, tournament_game_started
from games.tables import table_text
from games.telegram import bot_api, config, links
from games.telegram.models import TelegramOff
from games.tournaments import presence as tournament_presence
from games.tournaments.models import Tournament

logger = logging.getLogger(__name__)

#: the Celery task that sends one notice (games/tasks.py registers it under this name)
TASK = "games.telegram_notice"
#: the kinds of notice (a CHALLENGE notice is about a challenge, the others about a game)
TURN, ACCEPTED, TOURNAMENT, CHALLENGE = "turn", "accepted", "tournament", "challenge"
KINDS = (TURN, ACCEPTED, TOURNAMENT, CHALLENGE)
#: how long a sent notice is remembered, so a task run twice sends it once (seconds)
SENT_TTL = 24 * 3600
#: a challenge's page polls its status every 1.5 s; one not heard from for this long (s) is
#: taken for closed
WAITING_TTL = 5


class SendLater(Exception):
    """Our own count of messages to Telegram is full: try again in ``wait`` seconds."""

    def __init__(self, wait):
        super().__init__(f"wait {wait:.2f} s")
        self.wait = wait


# --- deciding, after a commit --------------------------------------------------------------


def _queue(kind, user_id, object_id, version=0, countdown=0):
    try:
        current_app.send_task(
            TASK,
            (kind, user_id, str(object_id), version),
            countdown=countdown or None,
            ignore_result=True,
        )
    except Exception:
        logger.exception("telegram notice %s for user %s was not queued", kind, user_id)


def turn_delay(game, side, now_ms):
    """Seconds to wait before telling ``side`` of ``game`` it is their turn: 0 when their
    page has been closed for ``TELEGRAM_TURN_GRACE_SECONDS`` or was never opened, the rest of
    that grace when it closed just now (a reload), None when a page of theirs is open."""
    if side_here(game, side, now_ms):
        return None
    away = game.away_since(side)
    if away is None:
        return 0
    left_ms = clocks.to_ms(away) + settings.TELEGRAM_TURN_GRACE_SECONDS * 1000 - now_ms
    return max(0, left_ms / 1000)


def turn_passed(notice):
    """The side that must act after the change of ``notice`` when the change handed them
    the turn (the other side played, doubled, took, or ran out of time for an action), in
    an active game between two accounts; else None."""
    game = notice.game
    side = game.awaiting
    if side is None or game.bot_side or not game.white_user_id or not game.black_user_id:
        return None
    acted = [row for row in notice.events if row.kind != EventKind.OPENING and row.side]
    if not acted or all(row.side == side for row in acted):
        return None
    return side


@receiver(change_delivered, dispatch_uid="games.telegram.notices.on_change")
def on_change(sender, notice, **kwargs):
    """``change_delivered`` receiver: queue the turn notice of the player whose turn it now
    is, if they asked for notices and no page of the game is open for them."""
    if not config.enabled() or notice.presence:
        return
    side = turn_passed(notice)
    if side is None:
        return
    user_id = notice.game.user_of(side)
    if links.sending_to(user_id) is None:
        return
    delay = turn_delay(notice.game, side, clocks.now_ms())
    if delay is not None:
        _queue(TURN, user_id, notice.game.pk, notice.game.version, countdown=delay)


def _waiting_key(challenge_id):
    return f"telegram:challenge-page:{challenge_id}"


def creator_waiting(challenge_id):
    """The maker of the open challenge ``challenge_id`` has its page open (it polls): they
    will see it accepted there, so no message is needed for the next WAITING_TTL seconds."""
    if config.enabled():
        cache.set(_waiting_key(challenge_id), 1, WAITING_TTL)


@receiver(challenge_accepted, dispatch_uid="games.telegram.notices.on_accept")
def on_accept(sender, challenge, game, **kwargs):
    """``challenge_accepted`` receiver: after the commit, queue the notice to the challenge's
    maker (an account that asked for notices), unless its page is open (``creator_waiting``)."""
    if not config.enabled() or not challenge.creator_user_id:
        return
    if cache.get(_waiting_key(challenge.pk)):
        return
    user_id = challenge.creator_user_id
    if links.sending_to(user_id) is not None:
        transaction.on_commit(lambda: _queue(ACCEPTED, user_id, game.pk), robust=True)


def challenge_sent(challenge):
    """A friend's challenge was made (inside its transaction): after the commit, queue the
    notice to its addressee if they asked for notices. Sent whether or not a page of theirs
    is open: a challenge is rare and waits for an answer, and the page may be a tab left in
    the background."""
    user_id = challenge.addressee_id
    if not config.enabled() or user_id is None:
        return
    if links.sending_to(user_id) is not None:
        transaction.on_commit(partial(_queue, CHALLENGE, user_id, challenge.pk), robust=True)


@receiver(tournament_game_started, dispatch_uid="games.telegram.notices.on_tournament_game")
def on_tournament_game(sender, tournament, game, user_ids, **kwargs):
    """``tournament_game_started`` receiver: after the commit, queue the notice to each
    player who asked for notices and has no page of the tournament open (an open page
    announces the game itself)."""
    if not config.enabled():
        return
    here = tournament_presence.here(tournament.pk, user_ids, clocks.now_ms())
    for user_id in user_ids:
        if user_id not in here and links.sending_to(user_id) is not None:
            transaction.on_commit(partial(_queue, TOURNAMENT, user_id, game.pk), robust=True)


# --- sending, in the Celery task -------------------------------------------------------------


def _opponent(game, user_id):
    other = game.black_user_id if game.white_user_id == user_id else game.white_user_id
    return display_name(other) if other else _("a guest")


def _still_due(kind, user_id, game, version):
    if game is None or game.is_over:
        return False
    if kind == TURN:
        side = Side.WHITE if game.white_user_id == user_id else Side.BLACK
        return (
            game.version == version
            and game.awaiting == side
            and not side_here(game, side, clocks.now_ms())
        )
    return True


def message_text(kind, game, user_id):
    """The notice's text for ``user_id`` (in the active language)."""
    names = {"opponent": _opponent(game, user_id)}
    if kind == TURN:
        return _("Your turn in the game against %(opponent)s.") % names
    if kind == ACCEPTED:
        return _("%(opponent)s accepted your challenge: the game has begun.") % names
    tournament = Tournament.objects.filter(pairings__game=game).values_list("name", flat=True)
    names["tournament"] = tournament.first() or ""
    return _("Your next game in “%(tournament)s” has begun: you play %(opponent)s.") % names


def message(kind, game, link):
    """The ``sendMessage`` payload of a notice to ``link`` about ``game``: the text and a
    button that opens the game in the Mini App, both in the player's language."""
    with translation.override(link.language):
        return {
            "chat_id": link.chat_id,
            "text": message_text(kind, game, link.user_id),
            "reply_markup": {
                "inline_keyboard": [
                    [
                        {
                            "text": _("Open the game"),
                            "web_app": {
                                "url": config.app_url(
                                    reverse("games:game", kwargs={"game_id": game.pk})
                                )
                            },
                        }
                    ]
                ]
            },
        }


def challenge_message(challenge, link):
    """The ``sendMessage`` payload of a friend's ``challenge`` to ``link``: who challenges and
    the table, and a button that opens the challenge in the Mini App (to accept or decline),
    in the player's language."""
    with translation.override(link.language):
        kind = clock_kind_for(challenge.preset, challenge.clock_kind)
        names = {
            "name": display_name(challenge.creator_user_id),
            "table": table_text(challenge.preset, challenge.match_length, kind, challenge.rated),
        }
        path = reverse("games:challenge", kwargs={"challenge_id": challenge.pk})
        return {
            "chat_id": link.chat_id,
            "text": _("%(name)s challenges you to a game: %(table)s.") % names,
            "reply_markup": {
                "inline_keyboard": [
                    [{"text": _("Open the challenge"), "web_app": {"url": config.app_url(path)}}]
                ]
            },
        }


def _subject(kind, user_id, object_id, version):
    """What a notice that still applies is about (the Game, or for CHALLENGE the open
    Challenge addressed to ``user_id``), else None."""
    if kind == CHALLENGE:
        return Challenge.objects.filter(
            pk=object_id, addressee_id=user_id, status=ChallengeStatus.OPEN
        ).first()
    game = Game.objects.filter(pk=object_id).first()
    return game if _still_due(kind, user_id, game, version) else None


def _sent_key(kind, user_id, game_id, version):
    return f"telegram:sent:{kind}:{user_id}:{game_id}:{version}"


def _move_time_ms(game_id, version):
    created = (
        GameEvent.objects.filter(game_id=game_id, seq=version)
        .values_list("created", flat=True)
        .first()
    )
    return clocks.to_ms(created) if created else None


def send(kind, user_id, game_id, version=0):
    """Send the notice ``kind`` about game ``game_id`` (for CHALLENGE: about that challenge)
    to ``user_id`` if it still applies: notices still on, the game still going and, for a
    turn, still the player's at ``version`` with no page of theirs open; a challenge still
    open. Returns what happened: "sent", "off", "stale",
    "duplicate", "blocked", "unreachable" or "refused". Raises SendLater (our limits of
    ``TELEGRAM_SEND_LIMITS`` and ``TELEGRAM_CHAT_LIMITS`` are full), bot_api.RateLimited or
    bot_api.Unavailable: the task tries again later."""
    if kind not in KINDS:
        raise ValueError(f"unknown notice kind {kind!r}")
    link = links.sending_to(user_id)
    if link is None or not config.enabled():
        return "off"
    subject = _subject(kind, user_id, game_id, version)
    if subject is None:
        return "stale"
    if not settings.SITE_URL:
        logger.error("telegram notice %s to user %s not sent: SITE_URL is not set", kind, user_id)
        return "refused"
    key = _sent_key(kind, user_id, game_id, version)
    if cache.get(key):
        return "duplicate"  # sent already: no need to count it against the limits
    wait = ratelimits.hit(settings.TELEGRAM_SEND_LIMITS, "telegram", "all")
    if wait is None:
        wait = ratelimits.hit(settings.TELEGRAM_CHAT_LIMITS, "telegram", "chat", str(link.chat_id))
    if wait is not None:
        raise SendLater(wait)
    # claimed before the call: two runs of one task (a redelivery) cannot both send it
    if not cache.add(key, 1, SENT_TTL):
        return "duplicate"
    sent = False
    try:
        payload = (
            challenge_message(subject, link) if kind == CHALLENGE else message(kind, subject, link)
        )
        bot_api.call("sendMessage", payload)
        sent = True
    except bot_api.Blocked:
        links.switch_off(link.chat_id, TelegramOff.BLOCKED)
        logger.info("telegram: user %s blocked the bot; notices off", user_id)
        return "blocked"
    except bot_api.Unreachable:
        links.switch_off(link.chat_id, TelegramOff.UNREACHABLE)
        logger.info("telegram: the bot may not write to user %s; notices off", user_id)
        return "unreachable"
    except bot_api.Refused as error:
        logger.error("telegram notice %s to user %s refused: %s", kind, user_id, error)
        return "refused"
    finally:
        if not sent:
            cache.delete(key)  # nothing went out: a later try may send it
    moved = _move_time_ms(game_id, version) if kind == TURN else None
    logger.info(
        "telegram notice kind=%s user=%s game=%s version=%s after_move_ms=%s",
        kind,
        user_id,
        game_id,
        version,
        round(time.time() * 1000 - moved) if moved is not None else "-",
    )
    return "sent"
