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
from channels_redis.core import RedisChannelLayer

from games.room.models import Game
from games.services import dispatch
from games.tests.fixtures import REDIS_PORTS, RedisServer, WorkerProcess, daphne_servers
from games.tests.live import GameSocket, Guest, bot_game, in_step, people_game, play_to_end
from nardy_site.tests.servers import free_port, running

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.celery, pytest.mark.faults]


def commands(client):
    """How many commands the Redis of ``client`` has processed since it started (the INFO
    that reads it counts in the next reading, not in its own)."""
    return int(client.info("stats")["total_commands_processed"])


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
    clients = {url: redis.Redis.from_url(url) for url in (*shards, broker)}
    before = {url: commands(client) for url, client in clients.items()}
    white, black, solo = Guest("white"), Guest("black"), Guest("solo")
    game_id = people_game(server_a.base, white, black, colour="white")
    # the game groups are hashed over the shards: a game against the computer whose group
    # lies on the other shard than the people's game, and where the computer (white here)
    # opens (its move goes through the broker's worker), makes both shards carry a game
    layer = RedisChannelLayer(hosts=shards)
    people_shard = layer.consistent_hash(dispatch.group_name(game_id))
    solo_games = []

    def wanted(solo_id):
        """True when the computer opens ``solo_id`` and its group is on the other shard."""
        game = Game.objects.get(pk=solo_id)
        computer_opens = game.version > 1 or game.is_bot_turn
        return (
            computer_opens and layer.consistent_hash(dispatch.group_name(solo_id)) != people_shard
        )

    while not solo_games or not wanted(solo_games[-1]):
        assert len(solo_games) < 40, "no game against the computer fitted"
        solo_games.append(bot_game(server_b.base, solo, side="black"))
    deadline = time.monotonic() + 10
    while Game.objects.get(pk=solo_games[-1]).version == 1:
        assert time.monotonic() < deadline, "the worker never played the computer's opening"
        time.sleep(0.2)

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
    after = {url: commands(client) for url, client in clients.items()}
    for client in clients.values():
        client.close()
    # what the site sent each Redis: all but the INFO that read ``before``
    carried = {url: after[url] - before[url] - 1 for url in clients}
    # the people's game went through its group's shard (a group send per event), the computer's
    # opening through the other shard (at least one group send: two commands) and the broker;
    # the processes' own channels (hashed from random names) may put all the rest on one shard
    other_shard = shards[1 - people_shard]
    assert carried[shards[people_shard]] > 200 and carried[other_shard] >= 2, carried
    assert carried[broker] > 5, carried
