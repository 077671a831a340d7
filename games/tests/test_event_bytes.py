"""What an event socket costs: the bytes one socket receives over a whole seeded game between
people, with events (docs/protocol.md "Events") and with a snapshot per change."""

import random

import pytest
from asgiref.sync import sync_to_async

from games import services
from games.models import Game, Phase
from games.tests.factories import (
    BLACK_GUEST,
    WHITE_GUEST,
    FixedDice,
    guest_to_act,
    new_people_game,
    random_legal_play,
)
from games.tests.test_consumers import communicator, connect, run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]


def play_seeded_game(monkeypatch, events):
    """Play one game between people to its end with seeded dice and plays, white's and
    black's sockets open (``events``: with ``?events=1``); returns the bytes white's socket
    received after its first snapshot, the number of frames and the game's last version."""
    fixed = FixedDice(monkeypatch)
    dice = random.Random(14)
    fixed.rolls.extend([dice.randint(1, 6), dice.randint(1, 6)] for _ in range(2000))
    game = new_people_game(True, fixed=fixed, opening=(6, 5))
    query = "?events=1" if events else ""
    path = f"/ws/game/{game.id}/{query}"

    async def scenario():
        white = await communicator(game.id, WHITE_GUEST, path=path)
        black = await communicator(game.id, BLACK_GUEST, path=path)
        await connect(white)
        await connect(black)
        rng = random.Random(7)
        received = frames = 0

        async def drain(comm, wait):
            """The frames waiting on ``comm`` (after ``wait`` s of quiet): (bytes, count)."""
            size = count = 0
            while not await comm.receive_nothing(timeout=wait):
                size += len((await comm.receive_from()).encode())
                count += 1
            return size, count

        def act():
            """One action of the side to act (a roll, or a random legal play); False once the
            game is over."""
            now = Game.objects.get(pk=game.id)
            if now.is_over:
                return False
            actor = guest_to_act(now)
            if now.phase == Phase.ROLL:
                services.roll(game.id, actor, now.version)
            else:
                services.play(game.id, actor, now.version, random_legal_play(now, rng))
            return True

        # one action at a time, each read by the sockets before the next, as people play
        while await sync_to_async(act)():
            size, count = await drain(white, 0.05)
            received, frames = received + size, frames + count
            await drain(black, 0.01)
        size, count = await drain(white, 0.5)
        received, frames = received + size, frames + count
        await white.disconnect()
        await black.disconnect()
        return received, frames

    received, frames = run(scenario)
    return received, frames, Game.objects.get(pk=game.id).version


def test_a_whole_game_costs_an_event_socket_a_fraction_of_the_snapshots(monkeypatch):
    with monkeypatch.context() as patch:
        snapshot_bytes, snapshot_frames, versions = play_seeded_game(patch, events=False)
    with monkeypatch.context() as patch:
        event_bytes, event_frames, same_versions = play_seeded_game(patch, events=True)
    print(
        f"\nwhole game of {versions} versions, white's socket: snapshots "
        f"{snapshot_bytes} bytes in {snapshot_frames} frames; events {event_bytes} bytes "
        f"in {event_frames} frames ({event_bytes / snapshot_bytes:.1%})"
    )
    assert same_versions == versions > 100
    assert event_frames >= snapshot_frames - 2  # every change still reaches the socket
    # issue #14 aims at 10 %; the clock block, sent whole, and the mover's legal plays keep
    # it near a fifth for now (docs/performance.md)
    assert event_bytes <= 0.25 * snapshot_bytes
