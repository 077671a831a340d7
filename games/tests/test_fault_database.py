"""The database connection of a Daphne process dropped in the middle of a play (issue #8).

The test makes the fault real on PostgreSQL: a trigger makes the server's transaction wait
after the play's last write (the game row's UPDATE, which comes after its events), and the
test then ends that server backend with ``pg_terminate_backend`` while the transaction is
open. The play must be applied entirely or not at all (here: not at all, the transaction is
rolled back by the database), the player is told (an ``error`` frame with code ``retry``,
then a snapshot of the game as it stands), the opponent hears of nothing, and the same play
sent again goes through on a new connection.

SQLite (the default of scripts/test) has no connection to drop: the database is a file
opened inside the server process, so the test is skipped there; .ci/run (PostgreSQL) runs it.
"""

import asyncio
import random
import time
import uuid

import pytest
from django.db import connection, connections

from games.room.models import Game
from games.tests.live import GameSocket, Guest, in_step, next_frame, people_game, take_step

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.celery,
    pytest.mark.faults,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="SQLite has no database connection to drop: it is a file opened "
        "inside the server process (.ci/run runs this on PostgreSQL)",
    ),
]

#: the advisory lock the trigger waits for while the test holds it
LOCK_KEY = 884_211


class HeldPlay:
    """The fault's controls, on a connection of its own (autocommit; it holds the advisory
    lock): ``arm`` a game, find the ``waiting_backend``, ``terminate`` it, ``release``."""

    def __init__(self, settings_dict):
        import psycopg

        self.db = psycopg.connect(
            host=settings_dict["HOST"] or "127.0.0.1",
            port=settings_dict["PORT"] or 5432,
            user=settings_dict["USER"],
            password=settings_dict["PASSWORD"],
            dbname=settings_dict["NAME"],
            autocommit=True,
        )
        self.db.execute(f"""
            CREATE OR REPLACE FUNCTION fault_hold_play() RETURNS trigger AS $$
            BEGIN
                PERFORM pg_advisory_xact_lock({LOCK_KEY});
                RETURN NEW;
            END $$ LANGUAGE plpgsql""")

    def arm(self, game_id, version):
        """From now on any UPDATE of game ``game_id`` beyond ``version`` waits, inside the
        server's transaction, until ``release``."""
        self.db.execute("SELECT pg_advisory_lock(%s)", [LOCK_KEY])
        self.db.execute(f"""
            CREATE TRIGGER fault_hold_play AFTER UPDATE ON games_game FOR EACH ROW
            WHEN (NEW.id = '{uuid.UUID(str(game_id))}'::uuid AND NEW.version > {int(version)})
            EXECUTE FUNCTION fault_hold_play()""")

    def waiting_backend(self, timeout=20):
        """``(pid, query, in a transaction)`` of the server backend waiting for the lock."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            row = self.db.execute(
                """
                SELECT a.pid, a.query, a.xact_start IS NOT NULL
                FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND NOT l.granted AND l.objid = %s""",
                [LOCK_KEY],
            ).fetchone()
            if row:
                return row
            time.sleep(0.02)
        raise AssertionError("no server transaction reached the held play")

    def terminate(self, pid):
        """End the server backend ``pid``: its client sees the connection drop."""
        assert self.db.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone()[0]

    def release(self):
        """Let updates through again."""
        self.db.execute("DROP TRIGGER IF EXISTS fault_hold_play ON games_game")
        self.db.execute("SELECT pg_advisory_unlock_all()")

    def close(self):
        self.release()
        self.db.execute("DROP FUNCTION IF EXISTS fault_hold_play()")
        self.db.close()


@pytest.fixture
def held_play(two_servers):
    """A ``HeldPlay`` on the test database (PostgreSQL), undone after the test."""
    control = HeldPlay(connection.settings_dict)
    try:
        yield control
    finally:
        control.close()


async def in_thread(function, *args):
    """``function(*args)`` in a worker thread (Django refuses the ORM inside the event loop),
    closing that thread's database connection afterwards."""

    def run():
        try:
            return function(*args)
        finally:
            connections.close_all()

    return await asyncio.to_thread(run)


def test_a_database_connection_dropped_during_a_play_applies_nothing_and_the_retry_works(
    two_servers, held_play
):
    server = two_servers[0]
    white, black = Guest("white"), Guest("black")
    game_id = people_game(server.base, white, black, colour="white")
    rng = random.Random(4)
    seen = {}

    async def scenario():
        w = await GameSocket.open(server, game_id, white)
        k = await GameSocket.open(server, game_id, black)
        players, log = {"white": w, "black": k}, []
        while not (
            w.latest["awaiting"] == "white" and w.latest["phase"] == "play" and len(log) >= 4
        ):
            await take_step(players, [], rng, log)
        snap = w.latest
        frame = next_frame(snap, rng)
        await asyncio.to_thread(held_play.arm, game_id, snap["version"])
        await w.send(frame)
        pid, query, in_transaction = await asyncio.to_thread(held_play.waiting_backend)
        seen["query"], seen["in_transaction"] = query, in_transaction
        await asyncio.to_thread(held_play.terminate, pid)
        dropped = time.monotonic()
        await w.wait_for(lambda: w.errors(), what="the error frame")
        seen["error"] = w.errors()[-1]
        seen["error_ms"] = round((time.monotonic() - dropped) * 1000)
        await asyncio.to_thread(held_play.release)
        # after the error, a snapshot of the game as it stands: the play is not in it
        await w.wait_for(lambda: w.frames[-1]["type"] == "snapshot", what="the snapshot")
        seen["after"] = w.frames[-1]["game"]
        seen["black_versions"] = sorted({s["version"] for s in k.snapshots})
        seen["db_version"] = await in_thread(lambda: Game.objects.get(pk=game_id).version)
        # the same frame again, on the same socket: a new connection, applied once
        await w.send(frame)
        await in_step([w, k], snap["version"] + 1)
        seen["applied"] = w.latest
        for socket in (w, k):
            await socket.close()
        return snap, frame, log

    snap, frame, log = asyncio.run(scenario())

    # the connection dropped inside the play's transaction, after its last write
    assert seen["in_transaction"] and seen["query"].lstrip().startswith('UPDATE "games_game"')
    assert seen["error"]["code"] == "retry" and seen["error"]["version"] == snap["version"]
    assert "try again" in seen["error"]["message"]
    assert seen["after"]["version"] == snap["version"] and seen["after"]["dice"] == snap["dice"]
    assert seen["db_version"] == snap["version"]  # nothing of the play was kept
    assert max(seen["black_versions"]) == snap["version"]  # the opponent heard of nothing
    applied = seen["applied"]
    assert applied["version"] == snap["version"] + 1
    assert applied["history"][-1]["play"] == frame["play"]
    game = Game.objects.get(pk=game_id)
    sent = [(side, sent["play"]) for side, sent, _ms in log if sent["type"] == "play"]
    recorded = list(game.events.filter(kind="play").order_by("seq").values_list("side", "play"))
    assert recorded == sent + [("white", frame["play"])]  # the retried play once
    assert game.replay() == game.get_position()
    print(
        f"\ndatabase connection dropped inside a play: error frame {seen['error']['code']!r} "
        f"{seen['error_ms']} ms after pg_terminate_backend, nothing kept, the retry applied "
        f"on a new connection"
    )
