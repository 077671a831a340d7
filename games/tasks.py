"""Celery tasks of the games app. Thin: they call ``games.services`` and nothing else writes."""

import logging
import time

from celery import shared_task
from celery.signals import worker_init, worker_process_init, worker_ready
from django.db import OperationalError
from redis.exceptions import RedisError

from games import services, tournaments
from games.accounts import one_use
from games.bots import bearoff, neural
from games.lobby import pairing
from games.room import analysis
from games.services import dispatch
from games.telegram import bot_api
from games.telegram import notices as telegram_notices

#: one INFO line per bot move: "bot move game=<uuid> version=<v> ms=<float> played=<bool>"
bot_logger = logging.getLogger("games.bot")
#: the clock sweep's INFO lines: "clock sweep: ended=<n> dropped_sockets=<n>" when a sweep of
#: beat's ended games or dropped sockets, and the sweep of a worker that has just started
clock_logger = logging.getLogger("games.clock")
telegram_logger = logging.getLogger("games.telegram")
#: how many times one Telegram notice is tried again before it is given up
TELEGRAM_RETRIES = 20
#: the longest wait before a notice's next try (s); Telegram's retry_after may be longer, and
#: a try too early is told to wait again
TELEGRAM_LONGEST_WAIT = 300
#: a task that meets a database briefly locked or unreachable is retried (every task given
#: it is idempotent: it does nothing once its work is done)
DATABASE_RETRY = dict(
    autoretry_for=(OperationalError,), retry_backoff=1, retry_backoff_max=8, max_retries=5
)


@shared_task(
    name=dispatch.BOT_MOVE,
    ignore_result=True,
    **DATABASE_RETRY,
)
def bot_move(game_id, version):
    """Play the bot's turn of game ``game_id`` (a UUID string) if it is still due at ``version``.

    Queued by the services after the commit that made it the bot's turn. Safe to run twice or
    late: ``services.bot_turn`` does nothing once the version has moved on. The time the move
    took inside the task (lock, roll, choice, save) is logged in milliseconds. Returns it.
    """
    started = time.perf_counter()
    game = services.bot_turn(game_id, version)
    elapsed_ms = (time.perf_counter() - started) * 1000
    bot_logger.info(
        "bot move game=%s version=%s ms=%.1f played=%s",
        game_id,
        version,
        elapsed_ms,
        game is not None,
    )
    return elapsed_ms


@shared_task(name=dispatch.HINT, ignore_result=True)
def hint(kind, game_id, side, channel_name, language):
    """Answer a socket's hint question (docs/protocol.md "Hints"): the expert search for the
    roll ``side`` is to play (``kind`` "hint") or for its latest play ("judge") in game
    ``game_id``, sent to the socket's channel ``channel_name`` in ``language``."""
    services.answer_hint(kind, game_id, side, channel_name, language)


@shared_task(name="games.sweep_clocks", ignore_result=True)
def sweep_clocks():
    """The beat task (every ``CLOCK_SWEEP_SECONDS``): apply every deadline that has passed
    (``TIMER_GRACE_MS`` ago), drop sockets that died unseen and queue again lost computer
    moves. Returns ``(games ended, sockets dropped)``."""
    ended, dropped = services.sweep_clocks()
    if ended or dropped:
        clock_logger.info("clock sweep: ended=%d dropped_sockets=%d", ended, dropped)
    return ended, dropped


@shared_task(name=dispatch.PRESENCE_NOTICE, ignore_result=True)
def presence_notice(game_id):
    """Queued for the end of a grace period (``services.player_left``): the sockets of game
    ``game_id`` get a snapshot, whose ``actions`` now offer the claim of the win."""
    services.notify_presence(game_id)


@shared_task(
    name=telegram_notices.TASK,
    bind=True,
    ignore_result=True,
    max_retries=TELEGRAM_RETRIES,
)
def telegram_notice(self, kind, user_id, game_id, version=0):
    """Send one Telegram notice (``games.telegram.notices.send``: ``kind`` "turn",
    "accepted" or "tournament", to account ``user_id``, about game ``game_id`` at
    ``version``). Tried again later when our own count of messages is full, when Telegram
    says to wait (429: after its ``retry_after`` seconds, at most TELEGRAM_LONGEST_WAIT),
    when it cannot be reached or the database or Redis is briefly unavailable (1, 2, 4 ...
    60 s): at most TELEGRAM_RETRIES times.
    Returns what happened ("sent", "stale", "blocked", ...)."""
    try:
        return telegram_notices.send(kind, user_id, game_id, version)
    except telegram_notices.SendLater as later:
        raise self.retry(countdown=later.wait) from None
    except bot_api.RateLimited as limited:
        telegram_logger.info("telegram asks to wait %s s", limited.retry_after)
        # capped: a countdown past the broker's visibility timeout would be delivered twice
        raise self.retry(countdown=min(limited.retry_after, TELEGRAM_LONGEST_WAIT)) from None
    except (bot_api.Unavailable, OperationalError, RedisError) as error:
        telegram_logger.warning("telegram notice not sent yet: %s", error)
        raise self.retry(countdown=min(60, 2**self.request.retries)) from None


@shared_task(name="games.pair_lobby", ignore_result=True)
def pair_lobby():
    """The beat task (every ``LOBBY_PAIR_SECONDS``): pair waiting players whose windows have
    widened enough (``games.lobby.pairing.pair``), then tell the open lobby pages how many
    wait in each pool if that changed (``announce_counts``). Returns how many games it made."""
    made = len(pairing.pair())
    pairing.announce_counts()
    return made


@shared_task(
    name=tournaments.ADVANCE,
    ignore_result=True,
    **DATABASE_RETRY,
)
def tournament_advance(tournament_id):
    """Queued after each change that may free players or decide a slot: pair the arena's
    free players, or move the cup's bracket on (``tournaments.advance``). Safe twice or late.
    Returns how many games it started."""
    return len(tournaments.advance(tournament_id))


@shared_task(name="games.tournament_tick", ignore_result=True)
def tournament_tick():
    """The beat task (every ``TOURNAMENT_TICK_SECONDS``): make the scheduled events
    (``tournaments.ensure_schedule``), start those due, pair the arenas, advance the cups and
    finish what is over (``tournaments.tick``). Returns how many games it started."""
    tournaments.ensure_schedule()
    return tournaments.tick()


@shared_task(name="games.expire_imports", ignore_result=True)
def expire_imports():
    """The beat task (hourly): delete imported records nobody has opened for
    ``GAMES_IMPORT_KEEP_DAYS`` days (``services.expire_imports``). Returns how many."""
    deleted = services.expire_imports()
    if deleted:
        logging.getLogger("games.records").info("expired %d imported records", deleted)
    return deleted


@shared_task(name="games.forget_used_tokens", ignore_result=True)
def forget_used_tokens():
    """The beat task (hourly): delete the one-use sign-in claims past their time
    (``one_use.forget_expired``). Returns how many."""
    return one_use.forget_expired()


@shared_task(
    name=analysis.ANALYSE_GAME,
    ignore_result=True,
    **DATABASE_RETRY,
)
def analyse_game(game_id):
    """The post-game analysis of finished game ``game_id`` (a UUID string), queued by
    ``analysis.request_analysis``: ``analysis.run_analysis`` (a no-op if done already or running
    elsewhere). Returns the analysis time in ms, or None when there was nothing to do."""
    done = analysis.run_analysis(game_id)
    return done.duration_ms if done is not None else None


@worker_init.connect
@worker_process_init.connect
def load_bot_tables(**kwargs):
    """Load the bots' tables and the hard bot's network when a worker (or pool process)
    starts, not on its first move."""
    bearoff.table()
    neural.preload()


@worker_ready.connect
def queue_bot_moves_left_waiting(sender=None, **kwargs):
    """When a worker starts, queue every bot move still due (see services.queue_due_bot_moves)
    and apply the deadlines that passed while no worker ran."""
    count = services.queue_due_bot_moves()
    bot_logger.info("worker ready: queued %d due bot moves", count)
    ended, dropped = services.sweep_clocks()
    clock_logger.info("worker ready: clock sweep ended=%d dropped_sockets=%d", ended, dropped)
