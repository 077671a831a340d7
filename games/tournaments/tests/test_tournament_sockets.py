"""The tournament socket (games.tournaments.consumer.TournamentConsumer, docs/protocol.md "Tournaments"):
the state on connect and after each change, the "paired" frame to the two players only and in
their page's language, presence kept while the socket is open, and refusals."""

import json
import uuid

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model

from games import clocks, tournaments
from games.lobby.tests.test_lobby import signed_in_cookie
from games.room.tests.test_consumers import TIMEOUT, origin, session_cookie
from games.tests.tournament_helpers import accounts, arena
from games.tournaments import presence
from games.tournaments.models import Entrant, TournamentSocket

# the advance tasks queued after each commit go where no worker takes them, and no beat ticks
# (conftest's paused_beat): the test runs the pairing itself (a worker or beat left running by
# another test would pair first)
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]


async def socket(event_id, user_id=None, lang="en"):
    from nardy_site.asgi import application

    if user_id is None:
        cookie = await sync_to_async(session_cookie)("guest-watcher")
    else:
        user = await sync_to_async(get_user_model().objects.get)(pk=user_id)
        cookie = await sync_to_async(signed_in_cookie)(user)
    headers = [(b"origin", origin().encode()), (b"cookie", cookie.encode())]
    comm = WebsocketCommunicator(
        application, f"/ws/tournament/{event_id}/?lang={lang}", headers=headers
    )
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return comm


async def receive(comm):
    return json.loads(await comm.receive_from(timeout=TIMEOUT))


async def receive_until(comm, kind, version=0):
    """Frames up to the first of ``kind`` (a state: of at least ``version``)."""
    while True:
        frame = await receive(comm)
        if frame["type"] == kind and frame.get("version", version) >= version:
            return frame


def test_an_unknown_event_is_closed_with_4404():
    async def scenario():
        for path in (str(uuid.uuid4()), "not-a-uuid"):
            comm = await socket(path)
            assert await comm.receive_output(timeout=TIMEOUT) == {
                "type": "websocket.close",
                "code": 4404,
            }
            await comm.disconnect()

    async_to_sync(scenario)()


def test_players_hear_of_their_own_game_and_everyone_sees_the_standings_change():
    users = accounts("Ann", "Bob", "Cid")
    event = arena()
    for user_id in (users["Ann"], users["Bob"]):
        tournaments.join(event.pk, user_id)

    async def scenario():
        watcher = await socket(event.pk)
        first = await receive(watcher)
        ann = await socket(event.pk, users["Ann"])
        bob = await socket(event.pk, users["Bob"], lang="bg")
        cid = await socket(event.pk, users["Cid"])  # signed in, not entered
        for comm in (ann, bob, cid):
            assert (await receive(comm))["type"] == "tournament"
        rows = await sync_to_async(TournamentSocket.objects.count)()
        (pairing,) = await sync_to_async(tournaments.advance)(event.pk)
        heard = [await receive_until(ann, "paired"), await receive_until(bob, "paired")]
        state = await receive_until(watcher, "tournament", first["version"] + 1)
        # cid's copy of the new state may come well after the watcher's on a loaded machine:
        # every frame up to it is kept, then whatever follows within 0.3 s
        frames = [await receive(cid)]
        while frames[-1]["type"] != "tournament" or frames[-1]["version"] <= first["version"]:
            frames.append(await receive(cid))
        while not await cid.receive_nothing(timeout=0.3):
            frames.append(await receive(cid))
        await cid.disconnect()
        await bob.disconnect()
        ids = list(users.values())
        now = clocks.now_ms()
        here_now = await sync_to_async(presence.here)(event.pk, ids, now)
        later = now + presence.CLOSE_GRACE_MS + 100
        left = await sync_to_async(presence.here)(event.pk, ids, later)
        for comm in (watcher, ann):
            await comm.disconnect()
        return first, rows, pairing, heard, state, frames, here_now, left

    first, rows, pairing, heard, state, frames, here_now, left = async_to_sync(scenario)()
    assert first["type"] == "tournament" and first["status"] == "upcoming"
    assert rows == 3  # the three signed-in sockets count as here; the guest's does not
    game = str(pairing.game_id)
    assert heard[0]["game"] == heard[1]["game"] == game
    assert heard[0]["url"] == f"/en/game/{game}/" and heard[1]["url"] == f"/bg/game/{game}/"
    assert heard[0]["starts_at"] - heard[0]["server_time"] > 3_000  # the countdown
    assert state["status"] == "running" and state["games"][0]["game"] == game
    # the player who is not in the game sees the new state, never a "paired" frame
    assert all(frame["type"] == "tournament" for frame in frames)
    # a closed socket counts a few seconds more (a page reloading), then no longer
    assert len(here_now) == 3 and left == {users["Ann"]}


def test_a_player_marked_away_is_back_when_a_page_of_the_event_opens():
    users = accounts("Ann", "Bob")
    event = arena()
    for user_id in users.values():
        tournaments.join(event.pk, user_id)
    tournaments.advance(event.pk)  # nobody has a page open: both are marked away
    assert Entrant.objects.filter(tournament=event, away=True).count() == 2

    async def scenario():
        ann = await socket(event.pk, users["Ann"])
        await receive(ann)
        bob = await socket(event.pk, users["Bob"])
        await receive(bob)
        await sync_to_async(tournaments.advance)(event.pk)  # the task queued by their return
        heard = await receive_until(ann, "paired")
        await ann.send_to(text_data=json.dumps({"type": "join"}))
        refused = await receive_until(ann, "error")
        for comm in (ann, bob):
            await comm.disconnect()
        return heard, refused

    heard, refused = async_to_sync(scenario)()
    assert not Entrant.objects.filter(tournament=event, away=True).exists()
    assert heard["type"] == "paired"
    assert refused["code"] == "bad_frame"
