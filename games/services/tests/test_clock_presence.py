"""Presence and the clocks (games/services/presence.py, docs/protocol.md "Presence"): a player
away too long loses, one back in time plays on, a no-show aborts, a claim waits for the grace
period, and the sweep drops dead sockets."""

import pytest

from games import clocks, services
from games.choices import Status, other_side
from games.room.models import Match, Presence
from games.services.tests.test_clock_services import (  # noqa: F401 - fixtures used by name
    GRACE,
    PRESENCE_ONLY,
    clock,
    clock_snap,
    fixed,
    fresh,
    kinds,
    past_first_moves,
)
from games.tests.factories import (
    BLACK_GUEST,
    HUMAN,
    ONLOOKER,
    WHITE_GUEST,
    new_bot_game,
    new_people_game,
    unchanged,
)

pytestmark = pytest.mark.django_db


def leave(game, guest, channel):
    """The guest's socket ``channel`` opens and closes again (they are away from now)."""
    services.player_here(game.pk, guest, channel)
    return services.player_left(game.pk, channel)


def test_a_match_player_away_too_long_loses_the_match(clock):
    game = past_first_moves(new_people_game(PRESENCE_ONLY, preset="match", match_length=3))
    services.player_here(game.pk, WHITE_GUEST, "white-1")
    assert leave(game, BLACK_GUEST, "black-1") == "black"
    away = clock.now()
    snap = services.snapshot(fresh(game), WHITE_GUEST)["game"]
    assert snap["presence"]["black"] == {
        "here": False,
        "away_since": away,
        "loses_at": away + 60_000,
        "claim_from": None,
    }
    assert snap["presence"]["white"]["here"] is True
    assert services.deadline_of(fresh(game)) == away + 60_000
    assert "claim" not in snap["actions"]  # the match clock ends it by itself
    with unchanged(game.pk), pytest.raises(services.CannotClaim) as refused:
        services.claim(game.pk, services.Actor(guest_id=WHITE_GUEST), game.version)
    assert "clock has no claim" in refused.value.message
    clock.wait(60_000 + GRACE - 1)
    assert services.apply_timeouts(game.pk) is None
    clock.wait(1)
    game = services.apply_timeouts(game.pk)
    assert game.end_reason == "abandon" and game.winner == "white"
    assert kinds(game)[-2:] == ["abandon", "end"]
    match = Match.objects.get(pk=game.match_id)
    assert match.status == Status.FINISHED and match.winner == "white"
    assert services.snapshot(fresh(game), WHITE_GUEST)["game"]["result"]["match_lost"] is True


def test_a_match_player_back_within_the_grace_period_plays_on(clock):
    game = past_first_moves(new_people_game(PRESENCE_ONLY, preset="match", match_length=3))
    leave(game, BLACK_GUEST, "black-1")
    clock.wait(59_999)
    assert services.player_here(game.pk, BLACK_GUEST, "black-2") == "black"
    game = fresh(game)
    assert game.black_away_since is None and game.status == Status.ACTIVE
    assert services.snapshot(game, WHITE_GUEST)["game"]["presence"]["black"]["here"] is True
    assert services.deadline_of(game) == clock_snap(game)["deadline"]  # the clock's only
    clock.wait(120_000)
    assert services.apply_timeouts(game.pk) is None


def test_a_match_player_back_after_the_grace_period_has_lost_even_before_any_timer(clock):
    game = past_first_moves(new_people_game(PRESENCE_ONLY, preset="match", match_length=3))
    leave(game, BLACK_GUEST, "black-1")
    clock.wait(60_000)  # no timer nor sweep has run yet
    assert services.player_here(game.pk, BLACK_GUEST, "black-2") == "black"
    game = fresh(game)
    assert game.end_reason == "abandon" and game.winner == "white"
    assert not Presence.objects.filter(channel_name="black-2").exists()


def test_a_second_socket_keeps_a_player_here(clock):
    game = past_first_moves(new_people_game(PRESENCE_ONLY, preset="match", match_length=3))
    services.player_here(game.pk, BLACK_GUEST, "black-1")
    assert leave(game, BLACK_GUEST, "black-2") is None
    assert fresh(game).black_away_since is None


def test_a_player_who_never_moved_and_left_is_a_no_show(clock):
    game = new_people_game(PRESENCE_ONLY, preset="match", match_length=3)
    absent = other_side(game.awaiting)  # has not moved yet
    leave(game, game.guest_of(absent), "absent-1")
    clock.wait(60_000 + GRACE)
    game = services.apply_timeouts(game.pk)
    assert game.status == Status.ABORTED and kinds(game)[-1] == "abort"
    assert Match.objects.get(pk=game.match_id).status == Status.ABORTED


def test_a_dead_socket_is_dropped_by_the_sweep(clock):
    game = past_first_moves(new_people_game(PRESENCE_ONLY, preset="match", match_length=3))
    services.player_here(game.pk, BLACK_GUEST, "black-1")
    clock.wait(services.PRESENCE_STALE_MS // 2)
    services.player_still_here(["black-1"])  # touched: still fresh at the first sweep
    touched = clock.now()
    clock.wait(services.PRESENCE_STALE_MS // 2 + 1)
    assert services.sweep_clocks() == (0, 0)
    clock.wait(services.PRESENCE_STALE_MS // 2)
    assert services.sweep_clocks() == (0, 1)
    # away since the touch the dead socket missed, not since the sweep noticed
    assert clocks.to_ms(fresh(game).black_away_since) == touched + services.PRESENCE_TOUCH_MS
    assert not Presence.objects.filter(channel_name="black-1").exists()


def test_standard_claim_is_refused_before_the_grace_period_and_wins_after_it(clock):
    game = past_first_moves(new_people_game(True))
    white = services.Actor(guest_id=WHITE_GUEST)
    with pytest.raises(services.CannotClaim) as here:  # black has not gone anywhere
        services.claim(game.pk, white, game.version)
    assert here.value.code == "cannot_claim" and "opponent is here" in here.value.message
    leave(game, BLACK_GUEST, "black-1")
    away = clock.now()
    presence = services.snapshot(fresh(game), WHITE_GUEST)["game"]["presence"]["black"]
    assert presence == {
        "here": False,
        "away_since": away,
        "loses_at": None,
        "claim_from": away + 60_000,
    }
    clock.wait(59_999)
    with unchanged(game.pk):
        with pytest.raises(services.CannotClaim):
            services.claim(game.pk, white, game.version)
        with pytest.raises(services.NotYourTurn):  # onlookers claim nothing
            services.claim(game.pk, services.Actor(guest_id=ONLOOKER), game.version)
    assert "claim" not in services.snapshot(fresh(game), WHITE_GUEST)["game"]["actions"]
    assert services.apply_timeouts(game.pk) is None  # standard: being away alone ends nothing
    clock.wait(1)
    snap = services.snapshot(fresh(game), WHITE_GUEST)["game"]
    assert "claim" in snap["actions"]
    assert "claim" not in services.snapshot(fresh(game), BLACK_GUEST)["game"]["actions"]
    game = services.claim(game.pk, white, game.version)
    assert (game.winner, game.end_reason, game.result_kind, game.result_points) == (
        "white",
        "abandon",
        "mars",
        2,
    )
    assert kinds(game)[-2:] == ["abandon", "end"]
    result = services.snapshot(fresh(game), WHITE_GUEST)["game"]["result"]
    assert result["loser"] == "black" and result["match_lost"] is False


def test_no_claim_against_the_computer(clock, fixed):
    game = new_bot_game(fixed, opening=(6, 5), clock=True)
    with unchanged(game.pk), pytest.raises(services.CannotClaim) as refused:
        services.claim(game.pk, services.Actor(guest_id=HUMAN), game.version)
    assert "computer never leaves" in refused.value.message
