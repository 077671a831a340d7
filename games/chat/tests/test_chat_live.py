"""The chat's latency over real sockets (issue #32's goal: a preset reaches the opponent in
200 ms or less, median): a Daphne process on a free port, two guests who made their game as
people do (a challenge link over HTTP), their game sockets over TCP (the ``websockets``
library); white sends a preset 20 times, black's socket (a Russian page) gets it in Russian.
The chat's rate limit is turned off in that Daphne (its own test is the service's)."""

import asyncio
import json
import statistics
import time

import pytest
from websockets.asyncio.client import connect

from games.tests.live import Guest, people_game
from nardy_site.tests.servers import DaphneServer, free_port

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def chat_server(transactional_db, test_process_env, unattended_queue, tmp_path):
    """A started Daphne without chat limits, on the test database and the tests' Redis."""
    env = dict(test_process_env, CELERY_QUEUE=unattended_queue, GAMES_CHAT_SESSION_LIMITS="")
    server = DaphneServer(free_port(), env, tmp_path / "daphne.log")
    try:
        server.start()
        yield server
    finally:
        server.stop()


async def open_socket(server, game_id, guest, lang):
    ws = await connect(
        f"ws://127.0.0.1:{server.port}/ws/game/{game_id}/?lang={lang}",
        origin=server.base,
        additional_headers={"Cookie": guest.cookie_header()},
        open_timeout=20,
    )
    while json.loads(await asyncio.wait_for(ws.recv(), 20))["type"] != "snapshot":
        pass
    return ws


async def next_chat(ws):
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 20))
        if frame["type"] == "chat":
            return frame["message"]
        assert frame["type"] != "error", frame


def test_a_preset_reaches_the_opponent_over_real_sockets_in_a_fifth_of_a_second(chat_server):
    white, black = Guest("white"), Guest("black")
    game_id = people_game(chat_server.base, white, black)
    timings = []

    async def scenario():
        white_ws = await open_socket(chat_server, game_id, white, "en")
        black_ws = await open_socket(chat_server, game_id, black, "ru")
        await asyncio.sleep(0.3)  # the players' arrivals pass first
        for _ in range(20):
            started = time.perf_counter()
            await white_ws.send(json.dumps({"type": "chat", "preset": "good_game"}))
            message = await next_chat(black_ws)
            timings.append(time.perf_counter() - started)
            assert (message["text"], message["from"], message["mine"]) == (
                "Хорошая игра!",
                "white",
                False,
            )
            assert (await next_chat(white_ws))["text"] == "Good game!"
        await white_ws.close()
        await black_ws.close()

    asyncio.run(scenario())
    timings.sort()
    median, p95 = statistics.median(timings), timings[int(0.95 * len(timings)) - 1]
    print(f"chat over Daphne: median {median * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, n=20")
    assert median <= 0.2
