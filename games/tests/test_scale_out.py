"""The site on real parts spread out (issue #14, docs/deploy.md "Scaling further"): the
Channels layer sharded over two Redis servers (``CHANNEL_REDIS_URLS``), Celery on a Redis of
its own (``CELERY_BROKER_URL``), two Daphne processes. Two guests play a game to the end,
each on another process, with an onlooker on each; a guest plays the computer through the
worker. Every socket sees every version, and each Redis carries its part of the traffic."""

import asyncio
import random
import time
import uuid

import pytest
import redis

from games.models import Game
from games.tests.conftest import REDIS_PORTS, RedisServer, WorkerProcess, daphne_servers
from games.tests.live import GameSocket, Guest, bot_game, in_step, people_game, play_to_end
from nardy_site.tests.servers import free_port, running

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.celery, pytest.mark.faults]


def commands(url):
    """How many commands the Redis at ``url`` has processed since it started."""
    client = redis.Redis.from_url(url)
    try:
        return int(client.info("stats")["total_commands_processed"])
    finally:
        client.close()


@pytest.fixture
def spread_site(test_process_env, tmp_path):
    """Three private Redis servers (two channel-layer shards, one Celery broker), a worker
    and two Daphne processes; yields ``(servers, shards, broker)``."""
    ports = []
    for _n in range(3):
        ports.append(free_port(REDIS_PORTS, taken=ports))
    redises = [RedisServer(port, tmp_path) for port in ports]
    with running(*redises):
        shards, broker = [r.url for r in redises[:2]], redises[2].url
        queue = f"nardy-spread-{uuid.uuid4().hex[:8]}"
        env = dict(
            test_process_env,
            CHANNEL_REDIS_URLS=",".join(shards),
            CELERY_BROKER_URL=broker,
            CELERY_QUEUE=queue,
        )
        with (
            WorkerProcess(env, queue, tmp_path / "worker.log"),
            running(*daphne_servers(env, tmp_path)) as servers,
        ):
            yield servers, shards, broker


def test_a_site_on_two_channel_shards_and_a_broker_of_its_own_plays_on(spread_site):
    servers, shards, broker = spread_site
    server_a, server_b = servers
    before = {url: commands(url) for url in (*shards, broker)}
    white, black, solo = Guest("white"), Guest("black"), Guest("solo")
    game_id = people_game(server_a.base, white, black, colour="white")
    # the computer (white here) opens: its move goes through the broker's worker
    solo_games = []

    def computer_moved(game_id, wait=5):
        """True once the worker has played the computer's opening (within ``wait`` s)."""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if Game.objects.get(pk=game_id).version > 1:
                return True
            time.sleep(0.2)
        return False

    while not solo_games or not computer_moved(solo_games[-1]):
        assert len(solo_games) < 8, "the computer never moved first"
        solo_games.append(bot_game(server_b.base, solo, side="black"))

    async def scenario():
        sockets = [
            await GameSocket.open(server_a, game_id, white),
            await GameSocket.open(server_b, game_id, black),
            await GameSocket.open(server_a, game_id, name="onlooker on A"),
            await GameSocket.open(server_b, game_id, name="onlooker on B"),
        ]
        await in_step(sockets, sockets[0].latest["version"])
        final = await play_to_end(
            {"white": sockets[0], "black": sockets[1]}, sockets[2:], random.Random(3), []
        )
        for socket in sockets:
            await socket.close()
        return sockets, final

    sockets, final = asyncio.run(scenario())
    assert final["status"] == "finished"
    versions = [sorted({snap["version"] for snap in socket.snapshots}) for socket in sockets]
    assert all(seen == versions[0] for seen in versions)
    assert versions[0][-1] == Game.objects.get(pk=game_id).version
    after = {url: commands(url) for url in (*shards, broker)}
    # both shards carried channel traffic, and the broker the computer's move; how much each
    # carries depends on the hashes of names picked at random (the processes' channels), so
    # one shard may take nearly all of one game's messages and the other only a few groups
    assert all(after[url] - before[url] > 5 for url in shards), (before, after)
    assert sum(after[url] - before[url] for url in shards) > 200, (before, after)
    assert after[broker] - before[broker] > 5, (before, after)
