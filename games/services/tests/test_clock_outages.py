"""Outages (games/services/outages.py, docs/protocol.md "Outages"): a time the site could not
keep the clocks is credited to every running clock, and no game is decided by it."""

import random

import pytest

from games import app_settings, clocks, services
from games.choices import Status
from games.services import outages
from games.services.models import Heartbeat, Outage
from games.services.tests.test_clock_presence import leave
from games.services.tests.test_clock_services import (  # noqa: F401 - fixtures used by name
    PRESENCE_ONLY,
    clock,
    clock_snap,
    fresh,
    kinds,
    past_first_moves,
)
from games.tests.factories import (
    BLACK_GUEST,
    WHITE_GUEST,
    guest_to_act,
    new_people_game,
    play_turn,
    random_legal_play,
)

#: after an outage nothing runs out sooner than this after its end (ms)
OUTAGE_GRACE = outages.RECONNECT_GRACE_MS

pytestmark = pytest.mark.django_db


@pytest.fixture
def outages_on(settings):
    """Outage crediting as in production (the suite turns it off: conftest.py), this process
    being a web process (``outages.serve_here``) unless a test says otherwise."""
    settings.GAMES_OUTAGE_MIN_MS = 5_000
    outages.serve_here()


def site_up(clock):
    """A web process has noted the heartbeat (a site that never did has no outages)."""
    outages.keep_alive(lambda: None)
    assert Heartbeat.objects.filter(pk=1).exists()


def test_an_outage_longer_than_the_time_left_does_not_decide_the_match(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(True, preset="match", match_length=3))
    mover = game.awaiting
    clock.wait(20_000)  # 20 s of the 60 s turn cap used before the site stops
    before = clock_snap(game)
    clock.outage(75_000)  # longer than the 40 s left
    assert services.sweep_clocks() == (0, 0)
    game = fresh(game)
    assert game.status == Status.ACTIVE and game.awaiting == mover
    assert kinds(game)[-1] == "pause"
    snap = clock_snap(game)
    assert snap["paused_ms"] == 75_000
    assert snap["deadline"] == before["deadline"] + 75_000  # the 40 s are still there
    assert snap["reserve"] == before["reserve"]
    outage = Outage.objects.get()
    assert outage.length_ms == 75_000 and outage.games == 1
    # the game goes on: the player to move plays with the time they had
    game = play_turn(game.pk)
    assert game.awaiting != mover and game.status == Status.ACTIVE
    assert clock_snap(game)["paused_ms"] is None  # the note lasts until the next play


def test_the_first_page_after_an_outage_credits_the_clock_before_the_sweep_runs(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(True, preset="match", match_length=3))
    clock.wait(50_000)
    clock.outage(30_000)  # the deadline fell inside the outage; no sweep has run since
    snap = services.snapshot(services.settle_clock(fresh(game)), WHITE_GUEST)["game"]
    assert snap["status"] == "active" and snap["clock"]["paused_ms"] == 30_000
    # 10 s were left: less than the reconnect grace, so the deadline is the grace's end
    assert snap["clock"]["deadline"] == clock.now() + OUTAGE_GRACE
    assert Outage.objects.count() == 1
    assert services.sweep_clocks() == (0, 0)  # nothing to credit twice
    assert fresh(game).version == game.version + 1


def test_a_move_right_after_an_outage_is_charged_only_the_time_before_it(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(True))  # standard: 15 s to roll, 45 s to move
    mover = game.awaiting
    actor = guest_to_act(game)
    clock.wait(5_000)
    game = services.roll(game.pk, actor, game.version)
    clock.wait(50_000)  # 5 s into the 120 s reserve
    clock.outage(300_000)  # far longer than the reserve
    services.player_here(game.pk, actor.guest_id, "back-1")  # the page comes back first
    game = fresh(game)
    assert kinds(game)[-1] == "pause"
    game = services.play(game.pk, actor, game.version, random_legal_play(game, random.Random(3)))
    assert game.status == Status.ACTIVE and game.awaiting != mover
    assert game.reserve_of(mover) == 115_000


def test_a_player_away_during_an_outage_is_not_marked_gone_for_it(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(PRESENCE_ONLY, preset="match", match_length=3))
    leave(game, BLACK_GUEST, "black-1")
    away = clock.now()
    clock.wait(40_000)
    clock.outage(120_000)
    assert services.sweep_clocks() == (0, 0)
    game = fresh(game)
    assert game.status == Status.ACTIVE
    assert clocks.to_ms(game.black_away_since) == away + 120_000  # 20 s of the 60 s left
    assert services.deadline_of(game) == clock.now() + OUTAGE_GRACE + 5_000


def test_sockets_of_a_server_that_died_in_an_outage_are_judged_from_its_end(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(PRESENCE_ONLY, preset="match", match_length=3))
    services.player_here(game.pk, BLACK_GUEST, "black-1")  # its server dies in the outage
    clock.outage(100_000)
    back = clock.now()
    assert services.sweep_clocks() == (0, 0)  # not dropped at once: seen at the outage's end
    clock.wait(services.PRESENCE_STALE_MS + 1)
    assert services.sweep_clocks() == (0, 1)
    assert clocks.to_ms(fresh(game).black_away_since) == back + services.PRESENCE_TOUCH_MS


def test_a_move_sent_with_the_version_from_before_the_pause_keeps_the_pause(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(True, preset="match", match_length=3))
    clock.outage(90_000)
    with pytest.raises(services.StaleVersion):
        services.roll(game.pk, guest_to_act(game), game.version)
    credited = fresh(game)
    assert kinds(credited)[-1] == "pause" and credited.version == game.version + 1
    # sent again with the version the error gave: accepted, nothing credited twice
    services.play(
        game.pk,
        guest_to_act(credited),
        credited.version,
        random_legal_play(credited, random.Random(2)),
    )
    assert kinds(fresh(game)).count("pause") == 1


def test_while_no_web_process_beats_the_workers_apply_no_deadline(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(True, preset="match", match_length=3))
    outages.forget()  # this process is a worker now: it cannot tell that the site is up
    clock.outage(120_000)  # every web process is down; the worker and beat go on
    assert services.sweep_clocks() == (0, 0)
    assert services.apply_timeouts(game.pk) is None and fresh(game).status == Status.ACTIVE
    assert not Outage.objects.exists()
    outages.serve_here()  # a web process is back: it records the outage
    outages.keep_alive(lambda: None)
    assert services.sweep_clocks() == (0, 0)
    assert kinds(fresh(game))[-1] == "pause" and Outage.objects.get().length_ms == 120_000


def test_a_short_silence_is_no_outage(clock, outages_on):
    site_up(clock)
    game = past_first_moves(new_people_game(True, preset="match", match_length=3))
    clock.outage(app_settings.OUTAGE_MIN_MS)
    assert services.sweep_clocks() == (0, 0)
    assert not Outage.objects.exists() and kinds(fresh(game))[-1] != "pause"


def test_a_game_begun_after_an_outage_and_a_finished_game_are_not_credited(clock, outages_on):
    site_up(clock)
    finished = past_first_moves(new_people_game(True))
    services.resign(finished.pk, guest_to_act(finished), finished.version)
    clock.outage(60_000)
    services.sweep_clocks()
    game = past_first_moves(new_people_game(True, preset="match", match_length=3))
    clock.wait(30_000)
    services.sweep_clocks()
    assert "pause" not in kinds(fresh(game)) + kinds(fresh(finished))
    assert Outage.objects.get().games == 0


def test_outages_can_be_turned_off(clock, settings):
    settings.GAMES_OUTAGE_MIN_MS = 0
    outages.serve_here()
    assert outages.keep_alive(lambda: None) is None  # no heartbeat is kept
    assert not Heartbeat.objects.exists()
    game = past_first_moves(new_people_game(True, preset="match", match_length=3))
    clock.outage(600_000)
    assert services.sweep_clocks() == (1, 0)
    assert fresh(game).end_reason == "timeout" and not Outage.objects.exists()
