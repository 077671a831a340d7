"""The notices socket (``ws/notices/``) in process: a guest's is refused with 4401; a signed-in
player's greets with the challenges still waiting, hears a friend's new challenge in its own
page's language, loses it when it is withdrawn, answered or its maker unfollowed, and a
challenger's socket hears the answer (declined, or accepted with the game's page). Opening it
makes its account online."""

import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator

from games import services
from games.friends import challenges, presence
from games.friends.tests.helpers import SPORT, account, actor, befriend
from games.lobby.tests.test_lobby import signed_in_cookie
from games.room.tests.test_consumers import origin, session_cookie
from games.services import dispatch

pytestmark = pytest.mark.sockets

TIMEOUT = 5


async def notices_socket(user=None, cookie=None, lang="en"):
    """A connected WebsocketCommunicator on ws/notices/ as ``user`` (or with ``cookie``)."""
    from nardy_site.asgi import application

    if cookie is None:
        cookie = await sync_to_async(signed_in_cookie)(user)
    headers = [(b"origin", origin().encode()), (b"cookie", cookie.encode())]
    comm = WebsocketCommunicator(application, f"/ws/notices/?lang={lang}", headers=headers)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return comm


async def receive(comm):
    return json.loads(await comm.receive_from(timeout=TIMEOUT))


@pytest.mark.django_db(transaction=True)
def test_a_guests_notices_socket_is_closed_with_4401():
    async def scenario():
        for cookie in (await sync_to_async(session_cookie)("guest-x"), ""):
            comm = await notices_socket(cookie=cookie)
            assert await comm.receive_output(timeout=TIMEOUT) == {
                "type": "websocket.close",
                "code": 4401,
            }
            await comm.disconnect()

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_a_challenge_reaches_the_friends_socket_and_the_answer_the_challengers():
    anna, boris = account("Anna"), account("Boris")
    befriend(anna, boris)
    waiting = challenges.challenge_friend(actor(anna), boris.pk, {"preset": "classic"})

    async def scenario():
        to_boris = await notices_socket(boris, lang="ru")
        hello = await receive(to_boris)
        assert [item["id"] for item in hello["challenges"]] == [str(waiting.pk)]
        assert hello["challenges"][0]["text"] == "Anna приглашает вас на партию."
        online = await sync_to_async(presence.online_ids)([boris.pk, anna.pk])
        assert online == {boris.pk}
        to_anna = await notices_socket(anna)
        assert await receive(to_anna) == {"type": "hello", "challenges": []}

        # a new challenge replaces the waiting one: Boris's page drops it and shows the new one
        made = await sync_to_async(challenges.challenge_friend)(actor(anna), boris.pk, SPORT)
        assert await receive(to_boris) == {"type": "closed", "challenge": str(waiting.pk)}
        frame = await receive(to_boris)
        assert frame["type"] == "challenge" and frame["challenge"]["id"] == str(made.pk)
        assert frame["challenge"]["accept"] == f"/ru/challenge/{made.pk}/accept/"
        assert frame["challenge"]["from"]["name"] == "Anna"

        # Boris declines: Anna hears it, Boris's other pages drop it
        await sync_to_async(challenges.decline)(made.pk, boris.pk)
        assert await receive(to_anna) == {
            "type": "answered",
            "challenge": str(made.pk),
            "status": "declined",
            "text": "Boris declined your challenge.",
            "game": None,
        }
        assert await receive(to_boris) == {"type": "closed", "challenge": str(made.pk)}

        # another one, accepted: Anna hears it with the game's page
        third = await sync_to_async(challenges.challenge_friend)(actor(anna), boris.pk, SPORT)
        assert (await receive(to_boris))["challenge"]["id"] == str(third.pk)
        game = await sync_to_async(services.accept_challenge)(third.pk, actor(boris))
        answered = await receive(to_anna)
        assert (answered["status"], answered["game"]) == ("accepted", f"/en/game/{game.pk}/")
        assert await receive(to_boris) == {"type": "closed", "challenge": str(third.pk)}

        # a withdrawn one leaves Boris's page; nobody else hears anything
        fourth = await sync_to_async(challenges.challenge_friend)(actor(anna), boris.pk, SPORT)
        await receive(to_boris)
        await sync_to_async(services.cancel_challenge)(fourth.pk, actor(anna))
        assert await receive(to_boris) == {"type": "closed", "challenge": str(fourth.pk)}
        assert await to_anna.receive_nothing(timeout=0.3)
        await to_anna.send_to(text_data="anything")  # client frames are ignored
        assert await to_anna.receive_nothing(timeout=0.3)

        # Boris unfollows Anna: her open challenge leaves his page at once, and no new one comes
        fifth = await sync_to_async(challenges.challenge_friend)(actor(anna), boris.pk, SPORT)
        assert (await receive(to_boris))["challenge"]["id"] == str(fifth.pk)
        await sync_to_async(challenges.unfollow)(boris.pk, anna.pk)
        assert await receive(to_boris) == {"type": "closed", "challenge": str(fifth.pk)}
        with pytest.raises(challenges.FriendChallengeError):
            await sync_to_async(challenges.challenge_friend)(actor(anna), boris.pk, SPORT)
        assert await to_boris.receive_nothing(timeout=0.3)
        await to_anna.disconnect()
        await to_boris.disconnect()

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_signing_out_closes_the_notices_socket_with_4001():
    anna = account("Anna")

    async def scenario():
        cookie = await sync_to_async(signed_in_cookie)(anna)
        comm = await notices_socket(cookie=cookie)
        assert (await receive(comm))["type"] == "hello"
        key = cookie.partition("=")[2]
        await sync_to_async(dispatch.notify_session_changed)(key)
        assert await comm.receive_output(timeout=TIMEOUT) == {
            "type": "websocket.close",
            "code": 4001,
        }
        await comm.disconnect()

    async_to_sync(scenario)()
    assert presence.online_ids([anna.pk]) == {anna.pk}  # for a little while yet
