"""Deadlines that pass (RULES.md R11; docs/protocol.md "Clocks"): the beat sweep's work, and
settling a game's clock before a page or a socket reads it (``settle_clock``: no reader shows
a clock run out for longer than ``TIMER_GRACE_MS``). What a passed deadline does to the game is
``turns.apply_expired``."""

import logging
from uuid import UUID

from games import clocks
from games.choices import Status
from games.room.models import Game, Presence
from games.services import moves, outages, presence, turns, unit
from games.services.clockwork import TIMER_GRACE_MS

logger = logging.getLogger(__name__)


def apply_timeouts(game_id: UUID | str, version: int | None = None) -> Game | None:
    """Apply whatever of game ``game_id``'s clock had expired ``TIMER_GRACE_MS`` ago (a Celery
    timer, the beat sweep or a snapshot request calls this; a player's own action is judged by
    when it arrived instead, see ``moves``). With ``version``, does nothing unless the game is
    still at that version (a later one has its own timer). Safe to run twice, late or after a
    restart: an expired deadline is applied once, since the game is then over. Returns the
    game if it changed, else None."""
    now = clocks.now_ms()
    with unit.changing(game_id, missing_ok=True) as change:
        if change is None:
            return None
        game = change.game
        if game.is_over or (version is not None and game.version != version):
            return None
        due = clocks.to_ms(game.deadline)
        if not turns.apply_expired(change, now - TIMER_GRACE_MS):
            return None
    logger.info(
        "clock: game %s ended (%s) %s ms after its deadline",
        game_id,
        "aborted" if game.status == Status.ABORTED else game.end_reason,
        "?" if due is None else now - due,
    )
    return game


def sweep_clocks() -> tuple[int, int]:
    """The beat task's work: credit every running clock with an outage it missed
    (``outages``), apply every expired deadline and forget sockets that died unseen, unless
    the site is down (``outages.site_down``: nothing expires then); also queue again computer
    moves whose task was lost (``moves.queue_lost_bot_moves``). Returns ``(games ended,
    sockets dropped)``."""
    last = outages.latest(fresh=True)
    for game_id in outages.games_to_credit(last):
        with unit.changing(game_id, missing_ok=True):
            pass  # changing credits the game first
    outages.swept(last)
    requeued = moves.queue_lost_bot_moves()
    if requeued:
        logger.info("sweep: queued %d lost bot moves again", requeued)
    if outages.site_down():
        return 0, 0
    now = clocks.now_ms()
    dropped = 0
    stale = list(
        Presence.objects.filter(
            seen__lt=clocks.from_ms(now - presence.PRESENCE_STALE_MS)
        ).values_list("game_id", "channel_name")
    )
    for game_id, channel_name in stale:
        presence.player_left(game_id, channel_name, stale=True)
        dropped += 1
    ended = 0
    for game_id in list(
        Game.objects.with_expired_deadline(clocks.from_ms(now - TIMER_GRACE_MS)).values_list(
            "pk", flat=True
        )
    ):
        if apply_timeouts(game_id) is not None:
            ended += 1
    return ended, dropped


def settle_clock(game: Game) -> Game:
    """Apply the timeout of ``game`` if its deadline has passed (by ``TIMER_GRACE_MS``, as for
    the sweep) before the sweep applied it, and return the game as it stands after (``game``
    itself when nothing was due). A write (``apply_timeouts``: its own transaction, events
    after commit), called explicitly by a page or a socket before it reads the game, so that
    no reader shows a clock run out for longer than that grace; the read side never writes."""
    if game.deadline is None or clocks.to_ms(game.deadline) > clocks.now_ms() - TIMER_GRACE_MS:
        return game
    return apply_timeouts(game.pk) or Game.objects.get(pk=game.pk)


def deadline_of(game: Game) -> int | None:
    """The game's next clock deadline in ms since the epoch, or None."""
    return clocks.to_ms(game.deadline)
