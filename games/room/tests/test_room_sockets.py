"""The game room over the real socket stack (WebsocketCommunicator on the site's ASGI app,
Redis channel layer): a second tab and a reconnect get exactly the current state and change
nothing, the cube frames, the why frame, and the dice seed never sent while the game is on."""

import json
import random
import statistics
import time

import pytest
from asgiref.sync import sync_to_async

from games import services
from games.choices import Phase
from games.room.models import Game
from games.room.tests.test_consumers import (
    TIMEOUT,
    communicator,
    connect,
    connect_all,
    receive,
    receive_game,
    run,
)
from games.services import dispatch
from games.tests.factories import (
    BLACK_GUEST,
    HUMAN,
    WHITE_GUEST,
    FixedDice,
    new_bot_game,
    new_people_game,
    set_position,
    state,
)
from games.tests.fixtures import queued_tasks

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]

ME = services.Actor(guest_id=HUMAN)


@pytest.fixture
def fixed(monkeypatch):
    return FixedDice(monkeypatch)


def played_game(fixed, turns=20):
    """A game some turns in (the human and the bot playing random legal plays in-process),
    with the human to play."""
    rng = random.Random(4)
    game = new_bot_game(fixed, opening=(6, 5))
    for _ in range(200):
        game = Game.objects.get(pk=game.pk)
        if game.is_bot_turn:
            services.bot_turn(game.id, game.version)
            continue
        if game.phase == Phase.ROLL:
            game = services.roll(game.id, ME, game.version)
        if len(services.snapshot(game, HUMAN)["game"]["history"]) >= turns:
            return game
        plays = services.snapshot(game, HUMAN)["game"]["legal"]["plays"]
        services.play(game.id, ME, game.version, rng.choice(plays)["play"])
    raise AssertionError("no such game")


def test_a_second_tab_and_a_reconnect_get_exactly_the_current_state(fixed, unattended_queue):
    game = played_game(fixed)
    before = state(game.id)
    queued = queued_tasks(unattended_queue)
    expected = services.snapshot(Game.objects.get(pk=game.pk), HUMAN)  # in English, as the sockets

    async def scenario():
        first, second = await communicator(game.id), await communicator(game.id)
        one, two = await connect(first), await connect(second)
        assert one == two == expected["game"]
        # Disconnect and reconnect several times, and ask for snapshots: nothing changes.
        timings = []
        for _ in range(10):
            await second.disconnect()
            second = await communicator(game.id)
            started = time.perf_counter()
            again = await connect(second)
            timings.append((time.perf_counter() - started) * 1000)
            assert again == expected["game"]
            await second.send_json_to({"type": "snapshot"})
            assert (await receive(second))["game"] == expected["game"]
        await first.disconnect()
        await second.disconnect()
        return timings

    timings = run(scenario)
    assert state(game.id) == before
    assert queued_tasks(unattended_queue) == queued  # no computer move queued by reconnects
    print(
        f"\nreconnect to snapshot: median {statistics.median(timings):.1f} ms, "
        f"worst {max(timings):.1f} ms ({len(timings)} reconnects, "
        f"{len(expected['game']['history'])} turns of history)"
    )
    assert statistics.median(timings) < 500


def test_a_move_in_one_tab_reaches_the_other_with_the_same_version(fixed):
    game = new_bot_game(fixed, opening=(6, 5))

    async def scenario():
        first, second = await communicator(game.id), await communicator(game.id)
        await connect(first)
        await connect(second)
        # a second socket of the same player: every socket gets a snapshot (services.player_here)
        for comm in (first, second):
            assert (await receive(comm))["game"]["version"] == 1
        await first.send_json_to({"type": "play", "version": 1, "play": "24/18 18/13"})
        a, b = await receive_game(first), await receive_game(second)
        assert a == b and a["version"] == 2 and a["history"][-1]["play"] == "24/18 18/13"
        # The stale tab's action is refused, then it gets the fresh snapshot.
        await second.send_json_to({"type": "play", "version": 1, "play": "24/18 18/13"})
        error = await receive(second)
        assert error["code"] == "stale_version" and error["version"] == 2
        assert (await receive(second))["game"]["version"] == 2
        await first.disconnect()
        await second.disconnect()

    run(scenario)


def test_a_change_whose_notice_was_lost_reaches_the_opponent_when_the_player_is_back(
    fixed, monkeypatch
):
    # White's Daphne commits a play and dies before sending its notice; white's page
    # reconnects (to another process) while the dead socket is still listed.
    game = new_people_game(True, fixed=fixed, opening=(6, 5))

    async def scenario():
        white, black = (
            await communicator(game.id, WHITE_GUEST),
            await communicator(game.id, BLACK_GUEST),
        )
        await connect(white)
        await connect(black)
        with monkeypatch.context() as lost:
            lost.setattr(dispatch, "after_commit", lambda notice: None)
            await sync_to_async(services.play)(
                game.id, services.Actor(guest_id=WHITE_GUEST), 1, "24/18 18/13"
            )
        back = await communicator(game.id, WHITE_GUEST)
        assert (await connect(back))["version"] == 2
        seen = await receive_game(black)
        for comm in (white, black, back):
            await comm.disconnect()
        return seen

    seen = run(scenario)
    assert seen["version"] == 2 and seen["last"]["play"] == "24/18 18/13"
    assert seen["turn"] == "black"


def test_cube_frames_over_the_socket(fixed):
    game = new_bot_game(fixed, opening=(6, 5), preset="classic", cube=True)
    set_position(
        game,
        {
            "turn": "white",
            "white": {"6": 5, "5": 5, "4": 5},
            "black": {"6": 5, "5": 5, "4": 5},
            "first_turn": False,
        },
    )

    async def scenario():
        comm = await communicator(game.id)
        snap = await connect(comm)
        assert snap["actions"] == ["roll", "double", "resign"]
        await comm.send_json_to({"type": "take", "version": snap["version"]})
        assert (await receive(comm))["code"] == "wrong_phase"
        await comm.send_json_to({"type": "double", "version": snap["version"]})
        snap = await receive_game(comm)
        assert snap["phase"] == "cube" and snap["awaiting"] == "black"
        assert snap["cube"]["offered_by"] == "white" and snap["actions"] == ["resign"]
        await comm.send_json_to({"type": "drop", "version": snap["version"]})
        assert (await receive(comm))["code"] == "not_your_turn"
        await comm.disconnect()

    run(scenario)


def test_double_at_a_table_without_the_cube_is_refused(fixed):
    game = new_bot_game(fixed, opening=(6, 5), preset="match")
    before = state(game.id)

    async def scenario():
        comm = await communicator(game.id)
        await connect(comm)
        await comm.send_json_to({"type": "double", "version": 1})
        error = await receive(comm)
        assert error["code"] == "cube_not_allowed" and error["message"]
        await comm.disconnect()

    run(scenario)
    assert state(game.id) == before


def test_why_frames_explain_an_immovable_checker_in_the_sockets_language(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    before = state(game.id)

    async def scenario():
        comm = await communicator(game.id, path=f"/ws/game/{game.id}/?lang=ru")
        snap = await connect(comm)
        assert snap["legal"]["why_not"] == {}
        await comm.send_json_to({"type": "why", "point": 24, "staged": "24/18"})
        answer = await receive(comm)
        assert answer["type"] == "why" and answer["movable"] is False
        assert answer["reasons"] == [{"die": 5, "code": "head"}]
        assert answer["version"] == 1 and answer["message"]
        await comm.send_json_to({"type": "why", "point": 24})
        assert (await receive(comm))["movable"] is True
        for frame, code in (
            ({"type": "why", "point": "24"}, "bad_frame"),
            ({"type": "why", "point": 25}, "bad_frame"),
            ({"type": "why", "point": 24, "staged": 5}, "bad_frame"),
            ({"type": "why", "point": 24, "staged": "24/20"}, "illegal_play"),
        ):
            await comm.send_json_to(frame)
            error = await receive(comm)
            assert error["type"] == "error" and error["code"] == code, frame
        await comm.disconnect()

    run(scenario)
    assert state(game.id) == before


def test_the_seed_is_never_sent_while_the_game_is_on(fixed):
    game = new_bot_game(fixed, opening=(6, 5), preset="classic", cube=True)
    seed = Game.objects.get(pk=game.pk).seed

    async def scenario():
        comm = await communicator(game.id)
        texts = []
        await comm.connect(timeout=TIMEOUT)
        texts.append(await comm.receive_from(timeout=TIMEOUT))
        for frame in (
            {"type": "snapshot"},
            {"type": "why", "point": 24},
            {"type": "roll", "version": 1},
            {"type": "play", "version": 0, "play": ""},
            {"type": "play", "version": 1, "play": "24/18 18/13"},
        ):
            await comm.send_json_to(frame)
            texts.append(await comm.receive_from(timeout=TIMEOUT))
            if '"stale_version"' in texts[-1]:
                texts.append(await comm.receive_from(timeout=TIMEOUT))
        assert all(seed not in text for text in texts)
        assert json.loads(texts[0])["game"]["fairness"]["seed"] is None
        await comm.send_json_to({"type": "resign", "version": json.loads(texts[-1])["version"]})
        final = json.loads(await comm.receive_from(timeout=TIMEOUT))["game"]
        assert final["status"] == "finished" and final["fairness"]["seed"] == seed
        await comm.disconnect()

    run(scenario)


def test_a_change_whose_message_was_lost_reaches_every_socket_within_seconds(fixed, monkeypatch):
    # The play commits but its group message is never sent (a failed publish, a Redis that
    # lost its data): the process's socket watch finds both sockets behind and catches them up.
    game = new_people_game(True, fixed=fixed, opening=(6, 5))

    async def scenario():
        white, black = await connect_all(game.id, WHITE_GUEST, BLACK_GUEST)
        with monkeypatch.context() as lost:
            lost.setattr(dispatch, "after_commit", lambda notice: None)
            await sync_to_async(services.play)(
                game.id, services.Actor(guest_id=WHITE_GUEST), 1, "24/18 18/13"
            )
        started = time.monotonic()
        seen = [json.loads(await comm.receive_from(timeout=6)) for comm in (white, black)]
        waited = time.monotonic() - started
        for comm in (white, black):
            await comm.disconnect()
        return seen, waited

    seen, waited = run(scenario)
    for frame in seen:
        assert frame["type"] == "snapshot" and frame["game"]["version"] == 2
        assert frame["game"]["last"]["play"] == "24/18 18/13"
    assert waited < 5


def test_a_player_leaving_whose_message_was_lost_is_seen_away_within_seconds(fixed, monkeypatch):
    # Black's socket closes but the message saying so never goes out: the watch sees that
    # white's socket still shows black here and sends it a snapshot.
    game = new_people_game(True, fixed=fixed, opening=(6, 5))

    async def scenario():
        white, black = await connect_all(game.id, WHITE_GUEST, BLACK_GUEST)
        while not await white.receive_nothing(timeout=0.3):
            await white.receive_from()  # black's arrival
        with monkeypatch.context() as lost:
            lost.setattr(dispatch, "after_commit", lambda notice: None)
            await black.disconnect()
        started = time.monotonic()
        frame = json.loads(await white.receive_from(timeout=6))
        waited = time.monotonic() - started
        await white.disconnect()
        return frame, waited

    frame, waited = run(scenario)
    assert frame["type"] == "snapshot" and frame["game"]["presence"]["black"]["here"] is False
    assert waited < 5
