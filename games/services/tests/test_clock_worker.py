"""The clocks enforced by a real Celery worker and beat against real Redis and the test
database (issues #5, #14): beat's sweep ends a stalled player's game within 1 s of the
deadline with no task queued per move, a move just before the deadline beats the sweep, a
timeout is applied exactly once across a worker restart or several sweeps due at once. Each
run's lag (deadline to the recorded timeout) goes to artifacts/clock/lag.json (see
``clock_lags``)."""

import random
import time
from contextlib import contextmanager

import pytest

from games import clocks, services
from games.choices import EventKind, Status, other_side
from games.clocks import ClockSpec
from games.room.models import Game, GameEvent
from games.tasks import sweep_clocks
from games.tests.factories import guest_to_act, new_people_game, play_turn, random_legal_play, state
from games.tests.fixtures import TEST_SWEEP_SECONDS, _delete_queue
from nardy_site.celery import app as celery_app

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.celery,
    pytest.mark.usefixtures("clock_queue"),
]

GRACE = services.TIMER_GRACE_MS
#: a standard clock in miniature: 0.3 s to roll, 0.3 s per move, 0.4 s reserve (a roll's
#: period ends 0.7 s after it starts); first moves keep a minute, so they never abort
SHORT = ClockSpec(
    kind=clocks.STANDARD, roll_ms=300, move_ms=300, reserve_ms=400, first_move_ms=60_000
)
ENDINGS = (EventKind.TIMEOUT, EventKind.ABANDON, EventKind.ABORT)


def wait_until(predicate, timeout=8.0, what="the condition"):
    """Poll ``predicate`` every 20 ms until it is true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {timeout} s")
        time.sleep(0.02)


def sleep_until(ms):
    """Sleep until the instant ``ms`` (ms since the epoch)."""
    time.sleep(max(0, ms - clocks.now_ms()) / 1000)


def started_game(spec=SHORT, seed=1):
    """A game between people with ``spec`` where both sides have made their first move; the
    starter's roll period has just begun. Returns ``(game, deadline_ms)``."""
    rng = random.Random(seed)
    game = new_people_game(spec)
    for _side in range(2):
        game = play_turn(game.pk, rng)
    game = Game.objects.get(pk=game.pk)
    return game, services.deadline_of(game)


def rolled(game):
    """The side to act rolls now; returns the game and a legal play of that roll."""
    game = services.roll(game.pk, guest_to_act(game), game.version)
    return game, random_legal_play(game, random.Random(2))


def ended(game_id):
    return Game.objects.get(pk=game_id).is_over


def endings(game_id):
    """The game's TIMEOUT/ABANDON/ABORT and END events as ``(kind, side)``."""
    return list(
        GameEvent.objects.filter(game_id=game_id, kind__in=ENDINGS + (EventKind.END,))
        .order_by("seq")
        .values_list("kind", "side")
    )


def lag_of(game_id, deadline_ms):
    """ms from ``deadline_ms`` to the recorded timeout of the game."""
    event = GameEvent.objects.get(game_id=game_id, kind__in=ENDINGS)
    return clocks.to_ms(event.created) - deadline_ms


@contextmanager
def timers_lost(clock_worker):
    """Tasks sent in the block go to a queue no worker reads, deleted afterwards (as if the
    worker holding them had died)."""
    lost = f"{clock_worker.queue}-lost"
    celery_app.conf.task_default_queue = lost
    try:
        yield
    finally:
        celery_app.conf.task_default_queue = clock_worker.queue
        _delete_queue(lost)


def test_a_player_who_stops_moving_loses_within_1_s_of_the_deadline(clock_lags):
    games = [started_game(seed=n) for n in range(6)]
    wait_until(lambda: all(ended(game.pk) for game, _deadline in games), what="the timeouts")
    lags = []
    for game, deadline in games:
        game = Game.objects.get(pk=game.pk)
        loser = other_side(game.winner)
        assert game.status == Status.FINISHED and game.end_reason == "timeout"
        assert endings(game.pk) == [("timeout", loser), ("end", game.winner)]
        lags.append(lag_of(game.pk, deadline))
    clock_lags["timer"].extend(lags)
    # never before the deadline and its grace, and well within a second after it
    assert all(GRACE <= lag < 1_000 for lag in lags), lags


def test_a_move_just_before_the_deadline_beats_the_sweep(clock_lags):
    game, _deadline = started_game()
    mover = game.awaiting
    game, play = rolled(game)
    deadline, version = services.deadline_of(game), game.version
    sleep_until(deadline - 100)
    received = clocks.now_ms()  # as the consumer times a frame on arrival
    game = services.play(game.pk, guest_to_act(game), version, play, at=received)
    assert game.status == Status.ACTIVE and game.awaiting != mover
    # the opponent's clock runs now; they stall in turn and lose
    next_deadline = services.deadline_of(Game.objects.get(pk=game.pk))
    wait_until(lambda: ended(game.pk), what="the opponent's timeout")
    assert endings(game.pk) == [("timeout", other_side(mover)), ("end", mover)]
    clock_lags["timer"].append(lag_of(game.pk, next_deadline))


def test_a_move_received_before_the_deadline_but_handled_after_it_beats_the_sweep():
    game, _deadline = started_game()
    mover = game.awaiting
    game, play = rolled(game)
    deadline, version = services.deadline_of(game), game.version
    # the server received the move 50 ms before the deadline; it gets to the game 20 ms after
    # it, while the sweep may be due
    sleep_until(deadline + 20)
    game = services.play(game.pk, guest_to_act(game), version, play, at=deadline - 50)
    assert game.status == Status.ACTIVE and game.reserve_of(mover) == 50
    # the mover's deadline is gone: it is the opponent who runs out, later
    wait_until(lambda: ended(game.pk), what="the opponent's timeout")
    assert endings(game.pk) == [("timeout", other_side(mover)), ("end", mover)]


def test_a_worker_stopped_before_the_deadline_applies_it_once_when_started_again(clock_queue):
    spec = ClockSpec(
        kind=clocks.STANDARD, roll_ms=300, move_ms=300, reserve_ms=1_500, first_move_ms=60_000
    )
    game, deadline = started_game(spec)
    version = game.version
    time.sleep(0.1)  # the worker at its ordinary work (beat's sweeps) for a moment
    clock_queue.stop()
    assert clocks.now_ms() < deadline, "stopping the worker took longer than the clock"
    sleep_until(deadline + GRACE + 500)
    assert not ended(game.pk)  # nobody applies it while no worker runs
    clock_queue.start()
    wait_until(lambda: ended(game.pk), what="the timeout after the restart")
    # everything that was waiting (the sweeps beat sent meanwhile, the sweep when the worker
    # started) has run by now: the timeout stays applied once
    time.sleep(TEST_SWEEP_SECONDS + 0.5)
    game = Game.objects.get(pk=game.pk)
    loser = other_side(game.winner)
    assert endings(game.pk) == [("timeout", loser), ("end", game.winner)]
    assert game.version == version + 2


def test_several_sweeps_due_at_the_deadline_apply_it_once_and_later_ones_change_nothing(
    clock_queue, clock_lags
):
    game, deadline = started_game()
    version = game.version
    # three sweeps due together just after the deadline, besides beat's own (as they pile up
    # behind a busy worker, or come from a second beat); their results say how many games
    # each ended
    copies = [
        sweep_clocks.apply_async(eta=clocks.from_ms(deadline + GRACE), ignore_result=False)
        for _copy in range(3)
    ]
    ended_by = [copy.get(timeout=10)[0] for copy in copies]
    wait_until(lambda: ended(game.pk), what="the timeout")
    clock_lags["timer"].append(lag_of(game.pk, deadline))
    assert sum(ended_by) <= 1  # one of them ended the game, unless beat's came first
    after = state(game.pk)
    # once more in the worker, after the end, and in this process (as a starting worker does)
    assert sweep_clocks.apply_async(ignore_result=False).get(timeout=10)[0] == 0
    assert sweep_clocks.apply().get()[0] == 0
    assert state(game.pk) == after
    assert endings(game.pk)[0][0] == "timeout" and len(endings(game.pk)) == 2
    assert Game.objects.get(pk=game.pk).version == version + 2


def test_beat_alone_ends_a_stalled_game_and_no_task_is_queued_for_its_deadline(
    clock_queue, clock_lags
):
    before = len(clock_queue.log())
    game, deadline = started_game()
    wait_until(
        lambda: ended(game.pk), timeout=TEST_SWEEP_SECONDS * 3 + 2, what="the sweep's timeout"
    )
    # the sweep alone: no task was queued for the deadline
    assert clock_queue.tasks_received(since=before) == []
    assert endings(game.pk)[0][0] == "timeout"
    lag = lag_of(game.pk, deadline)
    clock_lags["sweep"].append(lag)
    assert GRACE <= lag < TEST_SWEEP_SECONDS * 1000 + GRACE + 500
