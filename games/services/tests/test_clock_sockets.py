"""Presence, claims and no-shows over the live-game socket (docs/protocol.md "Clocks",
"Presence"), with the clock tests' real Celery worker and beat applying the deadlines: the
opponent sees a disconnect with the time left, a player back in time plays on, one who stays
away loses (the whole match with the ``match`` clock), a ``standard`` claim is refused before
the grace period and wins after it, a game whose first move never comes is aborted, and
malformed or unauthorised claims change nothing."""

import dataclasses
import random
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from games import clocks, services
from games.choices import EventKind, Status
from games.clocks import ClockSpec
from games.room.models import Game, GameEvent, Match
from games.room.tests.test_consumers import communicator, connect, receive, until_game
from games.tests.factories import (
    BLACK_GUEST,
    ONLOOKER,
    WHITE_GUEST,
    new_people_game,
    play_turn,
    unchanged,
)

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.celery,
    pytest.mark.usefixtures("clock_queue"),
]

GRACE = services.TIMER_GRACE_MS
LONG = 600_000  # ms: a time no test waits for
#: the match clock, but 1 s to reconnect (the player's own clock never runs out here)
MATCH_1S = ClockSpec(
    kind=clocks.MATCH,
    roll_ms=None,
    move_ms=LONG,
    reserve_ms=LONG,
    reconnect_ms=1_000,
    first_move_ms=LONG,
    loses=clocks.LOSES_MATCH,
)
#: 3 s to reconnect: room for a slow machine to see the departure and reconnect in time
MATCH_3S = dataclasses.replace(MATCH_1S, reconnect_ms=3_000)
#: the standard clock, but the win may be claimed after 1 s away
STANDARD_1S = ClockSpec(
    kind=clocks.STANDARD,
    roll_ms=LONG,
    move_ms=LONG,
    reserve_ms=LONG,
    claim_after_ms=1_000,
    first_move_ms=LONG,
)
#: 1 s for a first move
FIRST_MOVE_1S = ClockSpec(
    kind=clocks.STANDARD, roll_ms=LONG, move_ms=LONG, reserve_ms=LONG, first_move_ms=1_000
)


def started(spec, **options):
    """A game between people with ``spec`` where both sides have made their first move."""
    game = new_people_game(spec, **options)
    rng = random.Random(3)
    for _side in range(2):
        game = play_turn(game.pk, rng)
    return game


async def until(comm, predicate, timeout=5.0):
    """The game as the socket's page holds it, once it satisfies ``predicate``."""
    return await until_game(comm, predicate, timeout)


async def error_of(comm, frame):
    """Send ``frame``; returns the error frame that answers it."""
    await comm.send_json_to(frame)
    answer = await receive(comm)
    assert answer["type"] == "error", answer
    return answer


def run(scenario):
    return async_to_sync(scenario)()


def test_a_match_player_who_stays_away_loses_the_match(clock_lags):
    game = started(MATCH_1S, preset="match", match_length=3)

    async def scenario():
        white = await communicator(game.pk, WHITE_GUEST)
        black = await communicator(game.pk, BLACK_GUEST)
        await connect(white)
        await connect(black)
        await black.disconnect()
        away = await until(white, lambda g: not g["presence"]["black"]["here"])
        presence = away["presence"]["black"]
        assert presence["loses_at"] == presence["away_since"] + 1_000
        assert presence["claim_from"] is None and "claim" not in away["actions"]
        assert away["status"] == "active" and away["presence"]["white"]["here"] is True
        over = await until(white, lambda g: g["status"] != "active")
        await white.disconnect()
        return presence["loses_at"], over

    loses_at, over = run(scenario)
    assert over["status"] == "finished"
    assert over["result"]["winner"] == "white" and over["result"]["reason"] == "abandon"
    assert over["result"]["match_lost"] is True and over["match"]["status"] == "finished"
    assert over["history"][-1]["kind"] == "abandon" and over["history"][-1]["side"] == "black"
    assert Match.objects.get(pk=game.match_id).winner == "white"
    lag = (
        clocks.to_ms(GameEvent.objects.get(game_id=game.pk, kind=EventKind.ABANDON).created)
        - loses_at
    )
    clock_lags["timer"].append(lag)
    assert GRACE <= lag < 1_000


def test_a_match_player_back_within_the_grace_period_plays_on(clock_queue):
    game = started(MATCH_3S, preset="match", match_length=3)

    async def scenario():
        white = await communicator(game.pk, WHITE_GUEST)
        black = await communicator(game.pk, BLACK_GUEST)
        await connect(white)
        await connect(black)
        await black.disconnect()
        away = await until(white, lambda g: not g["presence"]["black"]["here"])
        loses_at = away["presence"]["black"]["loses_at"]
        black = await communicator(game.pk, BLACK_GUEST)
        back = await connect(black)
        if not back["presence"]["black"]["here"]:
            # a snapshot for the departure may still reach the new socket first
            back = await until(black, lambda g: g["presence"]["black"]["here"])
        assert back["presence"]["black"] == {
            "here": True,
            "away_since": None,
            "loses_at": None,
            "claim_from": None,
        }
        seen = await until(white, lambda g: g["presence"]["black"]["here"])
        assert seen["status"] == "active"
        # past the moment black would have lost, and its timer's run
        await sync_to_async(time.sleep)((loses_at + GRACE + 400 - clocks.now_ms()) / 1000)
        mover = white if seen["awaiting"] == "white" else black
        await mover.send_json_to({"type": "snapshot"})
        snap = await until(mover, lambda g: True)
        assert snap["status"] == "active" and snap["version"] == seen["version"]
        # and the game goes on: the side to move plays
        await mover.send_json_to(
            {"type": "play", "version": snap["version"], "play": snap["legal"]["plays"][0]["play"]}
        )
        moved = await until(white, lambda g: g["version"] > snap["version"])
        await white.disconnect()
        await black.disconnect()
        return moved

    moved = run(scenario)
    assert moved["status"] == "active"
    assert not GameEvent.objects.filter(game_id=game.pk, kind=EventKind.ABANDON).exists()


def test_a_standard_claim_is_refused_before_the_grace_period_and_wins_after_it(clock_queue):
    game = started(STANDARD_1S)

    async def scenario():
        white = await communicator(game.pk, WHITE_GUEST)
        black = await communicator(game.pk, BLACK_GUEST)
        await connect(white)
        await connect(black)
        await black.disconnect()
        away = await until(white, lambda g: not g["presence"]["black"]["here"])
        presence = away["presence"]["black"]
        assert presence["claim_from"] == presence["away_since"] + 1_000
        assert presence["loses_at"] is None and "claim" not in away["actions"]
        early = await error_of(white, {"type": "claim", "version": away["version"]})
        assert early["code"] == "cannot_claim" and early["version"] == away["version"]
        # the server tells the waiting player when the claim is open (a timer at claim_from)
        ready = await until(white, lambda g: "claim" in g["actions"], timeout=4.0)
        assert clocks.now_ms() >= presence["claim_from"] and ready["status"] == "active"
        await white.send_json_to({"type": "claim", "version": ready["version"]})
        won = await until(white, lambda g: g["status"] != "active")
        await white.disconnect()
        return won

    won = run(scenario)
    assert won["result"]["winner"] == "white" and won["result"]["reason"] == "abandon"
    assert won["result"]["loser"] == "black" and won["result"]["match_lost"] is False
    assert won["history"][-1] == {
        "n": won["history"][-1]["n"],
        "side": "black",
        "kind": "abandon",
        "version": won["version"] - 1,
    }


def test_a_game_whose_first_move_never_comes_is_aborted(clock_lags):
    game = new_people_game(FIRST_MOVE_1S)
    starter = game.awaiting
    deadline = services.deadline_of(game)

    async def scenario():
        white = await communicator(game.pk, WHITE_GUEST)
        black = await communicator(game.pk, BLACK_GUEST)
        first = await connect(white)
        await connect(black)
        assert first["clock"]["first_move"] is True and first["clock"]["deadline"] == deadline
        over = [await until(comm, lambda g: g["status"] != "active") for comm in (white, black)]
        await white.disconnect()
        await black.disconnect()
        return over

    for over in run(scenario):
        assert over["status"] == "aborted" and over["actions"] == []
        assert over["result"] == {
            "winner": None,
            "kind": None,
            "points": 0,
            "reason": "aborted",
            "aborted_by": "timeout",
            "cube": 1,
            "loser": starter,
            "match_lost": False,
            "rating": None,
        }
        assert over["clock"]["running"] is None
    lag = (
        clocks.to_ms(GameEvent.objects.get(game_id=game.pk, kind=EventKind.ABORT).created)
        - deadline
    )
    clock_lags["timer"].append(lag)
    assert GRACE <= lag < 1_000


def test_malformed_claims_and_claims_by_onlookers_change_nothing():
    game = started(True)  # the real standard clock: nothing runs out during this test

    async def scenario():
        white = await communicator(game.pk, WHITE_GUEST)
        black = await communicator(game.pk, BLACK_GUEST)
        onlooker = await communicator(game.pk, ONLOOKER)
        snap = await connect(white)
        await connect(black)
        watching = await connect(onlooker)
        assert watching["you"] is None and watching["actions"] == []
        version = snap["version"]
        for frame in (
            {"type": "claim"},
            {"type": "claim", "version": str(version)},
            {"type": "claim", "version": True},
            {"type": "claim", "version": 1.5},
            {"type": "claim", "version": None},
        ):
            assert (await error_of(white, frame))["code"] == "bad_frame"
        stale = await error_of(white, {"type": "claim", "version": version - 1})
        assert stale["code"] == "stale_version"
        assert (await receive(white))["type"] == "snapshot"
        assert (await error_of(white, {"type": "claim", "version": version}))[
            "code"
        ] == "cannot_claim"  # black is here
        assert (await error_of(onlooker, {"type": "claim", "version": version}))[
            "code"
        ] == "not_your_turn"
        for comm in (white, black, onlooker):
            await comm.disconnect()

    with unchanged(game.pk):
        run(scenario)
    assert Game.objects.get(pk=game.pk).status == Status.ACTIVE
