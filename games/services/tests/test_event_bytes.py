"""What an event socket costs: the bytes one socket receives over a whole seeded game between
people (docs/protocol.md "Events"), against what it was sent before events existed: the
viewer's whole snapshot after every change, as ``json.dumps`` wrote it then."""

import json
import random

import pytest
from asgiref.sync import sync_to_async

from games import services
from games.choices import Phase
from games.room.models import Game
from games.room.tests.test_consumers import connect_all, run
from games.tests.factories import (
    BLACK_GUEST,
    WHITE_GUEST,
    FixedDice,
    guest_to_act,
    new_people_game,
    random_legal_play,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]


def play_seeded_game(monkeypatch):
    """Play one game between people to its end with seeded dice and plays, white's and
    black's sockets open; returns the bytes white's socket received after its first snapshot,
    its number of frames, the bytes white's snapshot after each change would have taken (the
    protocol before events), and the game's last version."""
    fixed = FixedDice(monkeypatch)
    dice = random.Random(14)
    fixed.rolls.extend([dice.randint(1, 6), dice.randint(1, 6)] for _ in range(2000))
    game = new_people_game(True, fixed=fixed, opening=(6, 5))
    white_actor = services.Actor(guest_id=WHITE_GUEST)

    async def scenario():
        white, black = await connect_all(game.id, WHITE_GUEST, BLACK_GUEST)
        rng = random.Random(7)
        received = frames = snapshots = 0

        async def drain(comm, wait):
            """The frames waiting on ``comm`` (after ``wait`` s of quiet): (bytes, count)."""
            size = count = 0
            while not await comm.receive_nothing(timeout=wait):
                size += len((await comm.receive_from()).encode())
                count += 1
            return size, count

        def act():
            """One action of the side to act (a roll, or a random legal play); returns the
            bytes of white's snapshot after it as the old protocol sent it, or None once the
            game is over."""
            now = Game.objects.get(pk=game.id)
            if now.is_over:
                return None
            actor = guest_to_act(now)
            if now.phase == Phase.ROLL:
                services.roll(game.id, actor, now.version)
            else:
                services.play(game.id, actor, now.version, random_legal_play(now, rng))
            after = Game.objects.get(pk=game.id)
            return len(json.dumps(services.snapshot(after, white_actor)).encode())

        # one action at a time, each read by the sockets before the next, as people play
        while (snapshot_size := await sync_to_async(act)()) is not None:
            snapshots += snapshot_size
            size, count = await drain(white, 0.05)
            received, frames = received + size, frames + count
            await drain(black, 0.01)
        size, count = await drain(white, 0.5)
        received, frames = received + size, frames + count
        await white.disconnect()
        await black.disconnect()
        return received, frames, snapshots

    received, frames, snapshots = run(scenario)
    return received, frames, snapshots, Game.objects.get(pk=game.id).version


def test_a_whole_game_costs_an_event_socket_a_tenth_of_the_snapshots(monkeypatch):
    event_bytes, event_frames, snapshot_bytes, versions = play_seeded_game(monkeypatch)
    print(
        f"\nwhole game of {versions} versions, white's socket: events {event_bytes} bytes in "
        f"{event_frames} frames; a snapshot per change {snapshot_bytes} bytes "
        f"({event_bytes / snapshot_bytes:.1%})"
    )
    assert versions > 100
    assert event_frames >= versions - 3  # every change still reaches the socket
    assert event_bytes <= 0.10 * snapshot_bytes  # issue #14
