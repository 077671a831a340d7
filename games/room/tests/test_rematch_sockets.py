"""Rematches over the real socket stack (the site's ASGI app, Redis channel layer): an offer
reaches the opponent, both presses send both sockets the new game's URL within a second, a
decline ends the offer, and a reload (a socket that leaves and comes back) does not."""

import json
import statistics
import time

import pytest

from games.room.models import Game
from games.room.tests.test_consumers import TIMEOUT, VIEWS, connect_all, run
from games.room.tests.test_rematch import finished
from games.tests.factories import BLACK_GUEST, WHITE_GUEST

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]


async def rematch_frame(comm, timeout=TIMEOUT):
    """The next ``rematch`` frame of ``comm`` (other frames, such as touches, passed over)."""
    deadline = time.monotonic() + timeout
    while True:
        frame = json.loads(await comm.receive_from(timeout=max(0.1, deadline - time.monotonic())))
        if frame["type"] == "rematch":
            return frame
        assert frame["type"] != "error", frame


def test_both_sockets_get_the_new_game_within_a_second():
    games = [finished() for _ in range(10)]
    timings = []

    async def scenario():
        for game in games:
            white, black = await connect_all(game.pk, WHITE_GUEST, BLACK_GUEST)
            await white.send_to(text_data=json.dumps({"type": "rematch"}))
            assert (await rematch_frame(white))["state"] == "offered"
            assert (await rematch_frame(black))["state"] == "asked"
            started = time.perf_counter()
            await black.send_to(text_data=json.dumps({"type": "rematch"}))
            frames = [await rematch_frame(black), await rematch_frame(white)]
            timings.append(time.perf_counter() - started)
            assert {f["state"] for f in frames} == {"started"}
            assert frames[0]["game"] == frames[1]["game"]
            new = await Game.objects.aget(pk=game.pk)
            assert frames[0]["game"] == f"/en/game/{new.rematch_id}/"
            await white.disconnect()
            await black.disconnect()

    run(scenario)
    timings.sort()
    median = statistics.median(timings)
    p95 = timings[min(len(timings) - 1, int(0.95 * len(timings)))]
    print(
        f"rematch: second press to both frames, median {median * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms"
    )
    assert median <= 1.0


def test_a_decline_ends_the_offer_and_a_reload_does_not():
    game = finished()

    async def scenario():
        white, black = await connect_all(game.pk, WHITE_GUEST, BLACK_GUEST)
        await white.send_to(text_data=json.dumps({"type": "rematch"}))
        await rematch_frame(white)
        assert (await rematch_frame(black))["state"] == "asked"
        await black.send_to(text_data=json.dumps({"type": "rematch_decline"}))
        assert (await rematch_frame(white))["state"] == "declined"
        assert (await rematch_frame(black))["state"] == "open"
        await black.send_to(text_data=json.dumps({"type": "rematch"}))
        assert (await rematch_frame(white))["state"] == "asked"
        # black's page reloads (or its connection drops and comes back): the offer stands
        await black.disconnect()
        [again] = await connect_all(game.pk, BLACK_GUEST)
        assert VIEWS[again].game["rematch"]["state"] == "offered"
        assert await white.receive_nothing(timeout=0.5)
        await white.send_to(text_data=json.dumps({"type": "rematch"}))
        started = [await rematch_frame(white), await rematch_frame(again)]
        assert [frame["state"] for frame in started] == ["started", "started"]
        await white.disconnect()
        await again.disconnect()

    run(scenario)
