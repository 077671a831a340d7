"""Tournaments run by the real Celery worker and beat (games.tournaments.running): a restart
of the worker in the middle of an arena loses nothing and pairs nobody twice; two games ending
at the same instant are both scored and their players paired once; the time from a game's end
to its players' next pairing (artifacts/tournaments/pairing.json)."""

import json
import threading
import time

import pytest
from django.db import connections

from games import clocks, tournaments
from games.tests.fixtures import ROOT
from games.tests.tournament_helpers import accounts, arena, enter, playing, resign
from games.tournaments.models import Entrant, Pairing, PairingStatus, TournamentStatus

ARTIFACTS = ROOT / "artifacts" / "tournaments"


def wait_for(predicate, timeout=15.0, what="the worker"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.02)
    pytest.fail(f"{what} did not act within {timeout} s")


def nobody_twice(event):
    """No entrant is in two games of the event at once."""
    seated = [
        entrant
        for pairing in Pairing.objects.filter(tournament=event, status=PairingStatus.PLAYING)
        for entrant in (pairing.white_id, pairing.black_id)
    ]
    assert len(seated) == len(set(seated)), seated


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_a_worker_restart_in_the_middle_of_an_arena_loses_no_result_and_pairs_nobody_twice(
    clock_queue,
):
    users = accounts("Ann", "Bob", "Cid", "Dan", "Eve", "Fay")
    event = arena()
    enter(event, users.values())
    # the beat's tick starts the arena and pairs everyone
    wait_for(lambda: len(playing(event)) == 3, what="the beat's tick")
    # one game ends while the worker runs: its players wait for others (never each other)
    first, second, third = playing(event)
    resign(first.game, first.black.user_id)
    time.sleep(1.0)
    assert Pairing.objects.filter(tournament=event).count() == 3
    # a second ends: the four free players are paired at once, each with someone new
    ended = resign(second.game, second.black.user_id)
    wait_for(lambda: Pairing.objects.filter(tournament=event).count() == 5, what="the task")
    newest = Pairing.objects.filter(tournament=event).latest("created")
    gap_ms = clocks.to_ms(newest.created) - clocks.to_ms(ended.events.latest("seq").created)
    assert len(playing(event)) == 3
    nobody_twice(event)
    # the worker goes down; two more games end meanwhile: their tasks wait in the queue
    clock_queue.stop()
    try:
        before = Pairing.objects.filter(tournament=event).count()
        for pairing in playing(event):
            resign(pairing.game, pairing.white.user_id)
        assert Pairing.objects.filter(tournament=event).count() == before
        scores = sorted(Entrant.objects.filter(tournament=event).values_list("score", flat=True))
        assert sum(scores) >= 4 * 2  # four results counted, with no worker running
    finally:
        clock_queue.start()
    # back up: the queued tasks and the tick pair everyone free, once
    wait_for(lambda: len(playing(event)) == 3, what="the restarted worker")
    time.sleep(2 * 2.0)  # two more ticks: nothing changes
    assert len(playing(event)) == 3
    nobody_twice(event)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "restart.json").write_text(json.dumps({"gap_ms_worker_up": gap_ms}))


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("unattended_queue")  # each thread runs what its game's task would
def test_two_games_ending_at_the_same_instant_are_both_scored_and_pair_their_players_once():
    users = accounts("Ann", "Bob", "Cid", "Dan")
    event = arena()
    enter(event, users.values())
    first, second = tournaments.advance(event.pk)
    barrier = threading.Barrier(2)
    errors = []

    def end(pairing):
        try:
            barrier.wait()
            resign(pairing.game, pairing.black.user_id)
            tournaments.advance(event.pk)  # what each game's task does
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=end, args=(p,)) for p in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    winners = {first.white.user_id, second.white.user_id}
    for row in Entrant.objects.filter(tournament=event):
        assert row.games == 1
        assert (row.score > 0) == (row.user_id in winners)
    # four free players, none with their last opponent: two new games
    again = playing(event)
    assert len(again) == 2
    nobody_twice(event)
    for pairing in again:
        pair = {pairing.white.user_id, pairing.black.user_id}
        assert pair not in (
            {first.white.user_id, first.black.user_id},
            {second.white.user_id, second.black.user_id},
        )
    event.refresh_from_db()
    assert event.status == TournamentStatus.RUNNING and event.version >= 5
