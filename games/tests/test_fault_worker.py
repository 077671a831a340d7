"""The Celery worker killed (SIGKILL) while bot moves and clock deadlines are pending
(issue #8). A killed worker acknowledges nothing: the task it was running stays
unacknowledged in Redis until the broker's visibility timeout, and the moves and beat's
sweeps still queued wait for the next worker. When a new worker starts it queues every bot
move still due and sweeps the expired deadlines (``games.tasks`` worker_ready), beat keeps
sweeping, and the queued copies run too: every bot move and every timeout must be applied
exactly once, because each task is keyed by the game and its version (a second copy finds
the game moved on) and the sweep applies only deadlines that are still running."""

import random
import time

import pytest
from django.utils import timezone

from games import clocks, services
from games.choices import EventKind, other_side
from games.clocks import ClockSpec
from games.room.models import AnalysisStatus, Game, GameAnalysis, GameEvent
from games.services.tests.test_clock_worker import (
    endings,
    sleep_until,
    started_game,
    timers_lost,
    wait_until,
)
from games.tasks import analyse_game
from games.tests.factories import FixedDice, guest_to_act, new_bot_game, new_people_game, play_turns
from games.tests.fixtures import TEST_SWEEP_SECONDS

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.celery, pytest.mark.faults]

#: the roll period ends 4 s after it starts, then 0.3 s of reserve: the deadlines fall while
#: the worker is dead (first moves keep a minute, so none is an abort)
CLOCK = ClockSpec(
    kind=clocks.STANDARD, roll_ms=4_000, move_ms=4_000, reserve_ms=300, first_move_ms=60_000
)
BOT_GAMES = 8
CLOCKED_GAMES = 4
#: turns of the game whose analysis keeps the worker busy (some 7 s of the expert search on a
#: 2-core machine; the worker is killed about a second into it)
ANALYSED_TURNS = 40


def analysis_pending():
    """A finished game of ``ANALYSED_TURNS`` turns between two guests, its post-game analysis
    requested (pending; ``games.analyse_game`` does the work). Returns the game."""
    game = new_people_game(None)
    game = play_turns(game.pk, ANALYSED_TURNS, random.Random(5))
    game = services.resign(game.pk, guest_to_act(game), game.version)
    GameAnalysis.objects.create(game=game, status=AnalysisStatus.PENDING, requested=timezone.now())
    return game


def test_a_killed_worker_applies_every_pending_bot_move_and_timeout_once_after_restart(
    clock_queue, monkeypatch
):
    fixed = FixedDice(monkeypatch)
    analysed = analysis_pending()
    clocked = [started_game(CLOCK, seed=n) for n in range(CLOCKED_GAMES)]
    deadlines = {game.pk: services.deadline_of(game) for game, _deadline in clocked}
    versions = {game.pk: game.version for game, _deadline in clocked}
    # Keep the (solo) worker busy inside a task: a post-game analysis, seconds of work.
    busy = analyse_game.apply_async((str(analysed.pk),), queue=clock_queue.queue)
    wait_until(lambda: f"[{busy.id}] received" in clock_queue.log(), what="the analysis")
    # the computer (black) opens each of these games: its moves queue behind that task
    bots = [new_bot_game(fixed, opening=(2, 6)).pk for _n in range(BOT_GAMES)]
    clock_queue.kill()
    killed = time.monotonic()
    assert f"[{busy.id}] succeeded" not in clock_queue.log(), "the kill came too late"
    assert GameAnalysis.objects.get(game=analysed).status == AnalysisStatus.RUNNING
    assert clocks.now_ms() < min(deadlines.values()), "the clocks ran out before the kill"
    assert not any(Game.objects.get(pk=pk).version > 1 for pk in bots)

    # the deadlines pass while no worker runs (beat's sweeps wait in the queue): nothing ends
    sleep_until(max(deadlines.values()) + services.TIMER_GRACE_MS + 300)
    assert not any(Game.objects.get(pk=pk).is_over for pk in deadlines)
    assert not any(Game.objects.get(pk=pk).version > 1 for pk in bots)

    starting = time.monotonic()
    clock_queue.start()
    restarted = time.monotonic()

    def all_applied():
        return all(Game.objects.get(pk=pk).version > 1 for pk in bots) and all(
            Game.objects.get(pk=pk).is_over for pk in deadlines
        )

    wait_until(all_applied, timeout=30, what="every pending move and timeout")
    caught_up = time.monotonic()
    # let the duplicates run: the original queued moves, beat's sweeps
    time.sleep(TEST_SWEEP_SECONDS * 2 + 1)

    for pk in bots:
        game = Game.objects.get(pk=pk)
        record = list(
            GameEvent.objects.filter(game_id=pk).order_by("seq").values_list("seq", "kind", "side")
        )
        # the opening, then the computer's one play of its opening roll; nothing twice
        assert record == [(1, EventKind.OPENING, "black"), (2, EventKind.PLAY, "black")], record
        assert game.version == 2 and game.replay() == game.get_position()
        assert [played for _v, played in clock_queue.bot_moves(pk)].count(True) == 1
    for pk in deadlines:
        game = Game.objects.get(pk=pk)
        loser = other_side(game.winner)
        assert endings(pk) == [("timeout", loser), ("end", game.winner)]
        assert game.version == versions[pk] + 2

    runs = [played for pk in bots for _v, played in clock_queue.bot_moves(pk)]
    print(
        f"\nworker SIGKILL inside a task, {BOT_GAMES} bot moves queued and {CLOCKED_GAMES} "
        f"deadlines pending; they passed while it was dead ({starting - killed:.1f} s). A new "
        f"worker answered a ping {restarted - starting:.1f} s after it was started and had "
        f"applied everything {caught_up - restarted:.1f} s later: {BOT_GAMES} bot moves and "
        f"{CLOCKED_GAMES} "
        f"timeouts, each exactly once ({runs.count(True)} bot-move tasks played, "
        f"{runs.count(False)} copies found the move made and did nothing)"
    )


def test_a_bot_move_whose_task_was_lost_is_queued_again_by_the_beat_sweep(clock_queue, monkeypatch):
    fixed = FixedDice(monkeypatch)
    with timers_lost(clock_queue):  # the move's task goes where no worker reads: lost
        pk = new_bot_game(fixed, opening=(2, 6)).pk
    time.sleep(TEST_SWEEP_SECONDS * 2 + 0.5)  # beat sweeps; the move is not overdue yet
    assert Game.objects.get(pk=pk).version == 1 and clock_queue.bot_moves(pk) == []
    # as if the computer had had to move for longer than BOT_MOVE_LOST_MS
    Game.objects.filter(pk=pk).update(
        updated=clocks.from_ms(clocks.now_ms() - services.BOT_MOVE_LOST_MS - 1_000)
    )
    wait_until(
        lambda: Game.objects.get(pk=pk).version == 2,
        timeout=TEST_SWEEP_SECONDS * 3 + 5,
        what="the lost move, queued again",
    )
    time.sleep(TEST_SWEEP_SECONDS + 0.5)
    assert [played for _v, played in clock_queue.bot_moves(pk)].count(True) == 1
    assert "queued 1 lost bot moves again" in clock_queue.log()
