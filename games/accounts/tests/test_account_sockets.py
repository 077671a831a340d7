"""The game socket follows the account (games/room/consumer.py GameConsumer): a signed-in player
plays through the socket by account, from any device; after a logout the same open socket can
no longer move (its session is read again before each action), and it stops counting the
player as present."""

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client

from games import services
from games.choices import Phase
from games.live import sockets
from games.room.models import Game, Presence
from games.room.tests.test_consumers import (
    TIMEOUT,
    connect,
    origin,
    receive,
    receive_game,
    run,
    until_game,
)
from games.services import dispatch
from games.tests.factories import FixedDice, new_bot_game, state

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]

User = get_user_model()


@pytest.fixture
def fixed(monkeypatch):
    return FixedDice(monkeypatch)


def signed_in_client(user):
    client = Client()
    client.force_login(user)
    return client


async def socket_of(client, game_id):
    """A WebsocketCommunicator on the site's ASGI app with ``client``'s session cookie."""
    from nardy_site.asgi import application

    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    return WebsocketCommunicator(
        application,
        f"/ws/game/{game_id}/",
        headers=[(b"origin", origin().encode()), (b"cookie", cookie.encode())],
    )


async def next_error(comm):
    """The next error frame (snapshots sent meanwhile, e.g. for presence, are skipped)."""
    while True:
        frame = await receive(comm)
        if frame["type"] == "error":
            return frame
        assert frame["type"] == "snapshot"


def account_game(fixed, user, opening=(6, 5)):
    """A game against the computer whose white side is ``user``'s account (made as a guest
    whose games the account adopted), the human to play the opening 6-5."""
    game = new_bot_game(fixed, opening=opening, guest="guest-of-the-account")
    services.adopt_guest_games("guest-of-the-account", user.pk)
    return Game.objects.get(pk=game.pk)


def test_a_signed_in_player_plays_by_account_and_after_logout_the_open_socket_cannot(fixed):
    user = User.objects.create_user("player")
    game = account_game(fixed, user)
    client = signed_in_client(user)  # another device: its session never held the game's guest

    async def scenario():
        comm = await socket_of(client, game.id)
        snap = await connect(comm)
        assert snap["you"] == "white" and "play" in snap["actions"]
        plays = snap["legal"]["plays"]
        await comm.send_json_to(
            {"type": "play", "version": snap["version"], "play": plays[0]["play"]}
        )
        after = await receive_game(comm)
        assert after["version"] > snap["version"]
        played = await sync_to_async(Game.objects.get)(pk=game.pk)
        assert played.version == after["version"]
        assert await sync_to_async(Presence.objects.filter(game_id=game.pk).count)() == 1

        # the bot's turn, played in-process, so the human is to roll again
        await sync_to_async(services.bot_turn)(game.id, played.version)
        back = await until_game(comm, lambda game: game["awaiting"] == "white")
        assert "roll" in back["actions"]
        before = await sync_to_async(state)(game.id)

        # sign out over HTTP with the same session: the sign-out is announced and the
        # player's socket closed, for the page to come back with the cookies it has now
        response = await sync_to_async(client.post)("/en/accounts/logout/")
        assert response.status_code == 302
        assert await comm.receive_output(timeout=TIMEOUT) == {
            "type": "websocket.close",
            "code": sockets.CLOSE_SESSION_CHANGED,
        }
        await comm.disconnect()
        # the closed socket no longer keeps its player present
        assert await sync_to_async(Presence.objects.filter(game_id=game.pk).count)() == 0

        # the page comes back signed out: an onlooker, who may neither move nor ask why
        again = await socket_of(client, game.id)
        onlooker = await connect(again)
        assert onlooker["you"] is None and onlooker["actions"] == []
        await again.send_json_to({"type": "roll", "version": onlooker["version"]})
        refused = await receive(again)
        assert refused["type"] == "error" and refused["code"] == "not_your_turn"
        await again.send_json_to({"type": "why", "point": 24, "staged": ""})
        assert (await next_error(again))["code"] == "not_your_turn"
        assert await sync_to_async(state)(game.id) == before
        await again.disconnect()

    run(scenario)
    assert Game.objects.get(pk=game.pk).phase == Phase.ROLL


def test_a_sign_out_announced_before_the_session_store_is_flushed_still_closes_the_socket(fixed):
    # Django announces a logout (user_logged_out) before it flushes the session: a socket that
    # read the store at once would still find it signed in and go on playing for the account
    user = User.objects.create_user("player")
    game = account_game(fixed, user)
    client = signed_in_client(user)
    key = client.session.session_key

    async def scenario():
        comm = await socket_of(client, game.id)
        snap = await connect(comm)
        assert snap["you"] == "white"
        await sync_to_async(dispatch.notify_session_changed)(key)  # the store is as it was
        closed = await comm.receive_output(timeout=TIMEOUT)
        # a change of the game that reaches the closed socket is not sent on it (Daphne would
        # fail the consumer: "Attempt to send on a closed protocol")
        layer = get_channel_layer()
        await layer.group_send(
            dispatch.group_name(game.id), {"type": "game.resync", "version": snap["version"]}
        )
        quiet = await comm.receive_nothing(timeout=1)
        await comm.disconnect()
        return closed, quiet

    closed, quiet = run(scenario)
    assert closed == {"type": "websocket.close", "code": sockets.CLOSE_SESSION_CHANGED}
    assert quiet
    assert Session.objects.filter(session_key=key).exists()
    assert not Presence.objects.filter(game_id=game.pk).exists()


def test_a_sign_out_over_http_tells_the_sockets_once_the_session_is_flushed(monkeypatch):
    # the closed socket's page loads again at once: before the flush it would come back
    # signed in (Django sends user_logged_out first, then flushes)
    user = User.objects.create_user("player")
    client = signed_in_client(user)
    key = client.session.session_key
    told = []
    notify = dispatch.notify_session_changed

    def spy(session_key):
        told.append((session_key, Session.objects.filter(session_key=session_key).exists()))
        notify(session_key)

    monkeypatch.setattr(dispatch, "notify_session_changed", spy)
    assert client.post("/en/accounts/logout/").status_code == 302
    assert told == [(key, False)]
    # outside a request (the test client's own logout) the sockets are told at once
    client = signed_in_client(user)
    key = client.session.session_key
    client.logout()
    assert told[1:] == [(key, True)]


def test_an_account_that_plays_no_side_only_watches(fixed):
    owner = User.objects.create_user("owner")
    game = account_game(fixed, owner)
    stranger = signed_in_client(User.objects.create_user("stranger"))
    before = state(game.id)

    async def scenario():
        comm = await socket_of(stranger, game.id)
        snap = await connect(comm)
        assert snap["you"] is None and snap["actions"] == [] and snap["legal"] is None
        await comm.send_json_to({"type": "play", "version": snap["version"], "play": "24/18 24/19"})
        refused = await receive(comm)
        assert refused["type"] == "error" and refused["code"] == "not_your_turn"
        assert await comm.receive_nothing(timeout=0.3)
        await comm.disconnect()

    run(scenario)
    assert state(game.id) == before
    assert not Presence.objects.filter(game_id=game.pk).exists()


def test_signing_in_elsewhere_does_not_give_an_open_guest_socket_an_account(fixed):
    owner = User.objects.create_user("owner")
    game = account_game(fixed, owner)
    guest = Client()
    guest.get("/en/")  # a session, but no account
    guest.post("/en/new/")  # (and a guest id of its own)

    async def scenario():
        comm = await socket_of(guest, game.id)
        snap = await connect(comm)
        assert snap["you"] is None
        # the same browser signs in to the owner's account afterwards: the socket opened
        # before keeps the identity it had (the new session key is not this socket's)
        await sync_to_async(guest.force_login)(owner)
        await comm.send_json_to({"type": "play", "version": snap["version"], "play": "24/18 24/19"})
        assert (await receive(comm))["code"] == "not_your_turn"
        await comm.disconnect()

    run(scenario)
    assert Game.objects.get(pk=game.pk).version == game.version


@pytest.mark.timeout(30)
def test_a_logged_out_socket_stops_counting_as_present_at_its_next_touch(fixed, monkeypatch):
    monkeypatch.setattr(services, "PRESENCE_TOUCH_MS", 100)
    user = User.objects.create_user("player")
    game = account_game(fixed, user)
    client = signed_in_client(user)

    async def scenario():
        comm = await socket_of(client, game.id)
        snap = await connect(comm)
        assert snap["you"] == "white"
        # the session ends without a sign-out to announce it (expired, cleared by the
        # operator): no frame from the page, the presence touch notices and closes the socket
        key = client.session.session_key
        await sync_to_async(Session.objects.filter(session_key=key).delete)()
        while True:
            output = await comm.receive_output(timeout=TIMEOUT)
            if output["type"] == "websocket.close":
                break
        assert output["code"] == sockets.CLOSE_SESSION_CHANGED
        await comm.disconnect()
        assert await sync_to_async(Presence.objects.filter(game_id=game.pk).count)() == 0

    run(scenario)


@pytest.mark.timeout(30)
def test_a_guest_who_signs_in_keeps_the_seat_through_a_new_socket(fixed, monkeypatch):
    # Signing in gives the session a new key: the guest's open socket no longer has its
    # session, so it is closed for the page to come back, now as the account that took over
    # the guest's games (it used to stay open as an onlooker, and the opponent could claim
    # the win from the player still looking at the game).
    monkeypatch.setattr(services, "PRESENCE_TOUCH_MS", 100)
    guest = Client()
    guest.post("/en/new/", {"level": "easy", "side": "white"})
    game = Game.objects.get()
    user = User.objects.create_user("player")

    async def scenario():
        comm = await socket_of(guest, game.id)
        side = (await connect(comm))["you"]
        await sync_to_async(guest.force_login)(user)  # the sign-in, in another tab
        while True:
            output = await comm.receive_output(timeout=TIMEOUT)
            if output["type"] == "websocket.close":
                break
        await comm.disconnect()
        again = await socket_of(guest, game.id)  # the page's new socket, new cookie
        back = await connect(again)
        await again.disconnect()
        return side, output["code"], back["you"]

    side, code, you = run(scenario)
    assert side in ("white", "black") and code == sockets.CLOSE_SESSION_CHANGED
    assert you == side and Game.objects.get(pk=game.pk).user_of(side) == user.pk


@pytest.mark.timeout(30)
@pytest.mark.parametrize("frame", [{"type": "snapshot"}, {"type": "why", "point": 24}])
def test_a_guest_who_signs_in_elsewhere_and_asks_before_the_touch_is_closed_not_made_an_onlooker(
    fixed, monkeypatch, frame
):
    # The page asks for a snapshot whenever its tab shows again. Asked after a sign-in in
    # another tab and before the presence touch, the read that rechecks the session used to
    # drop the seat and answer as to an onlooker, leaving the socket open and the player
    # "away" (the opponent could claim the win with the player's tab open).
    monkeypatch.setattr(services, "PRESENCE_TOUCH_MS", 60_000)
    guest = Client()
    guest.post("/en/new/", {"level": "easy", "side": "white"})
    game = Game.objects.get()
    user = User.objects.create_user("player")

    async def scenario():
        comm = await socket_of(guest, game.id)
        side = (await connect(comm))["you"]
        await sync_to_async(guest.force_login)(user)  # the sign-in, in another tab
        await comm.send_json_to(frame)
        while True:
            output = await comm.receive_output(timeout=TIMEOUT)
            if output["type"] == "websocket.close":
                break
            assert '"you": null' not in output.get("text", "")  # never told it is an onlooker
        await comm.disconnect()
        return side, output["code"]

    side, code = run(scenario)
    assert side == "white" and code == sockets.CLOSE_SESSION_CHANGED


def test_an_onlooker_whose_account_takes_over_the_game_is_sent_back_to_take_the_seat(fixed):
    # The account watches a guest's game; the guest then signs in to that account elsewhere,
    # so the game is the account's. The onlooker's socket used to get snapshots naming its
    # side and events without its actions or legal plays, and never counted as present.
    user = User.objects.create_user("watcher")
    game = new_bot_game(fixed, opening=(6, 5), guest="the-guest")
    watcher = signed_in_client(user)

    async def scenario():
        comm = await socket_of(watcher, game.id)
        assert (await connect(comm))["you"] is None
        await sync_to_async(services.adopt_guest_games)("the-guest", user.pk)
        await comm.send_json_to({"type": "snapshot"})  # e.g. the tab shown again
        while True:
            output = await comm.receive_output(timeout=TIMEOUT)
            if output["type"] == "websocket.close":
                break
        await comm.disconnect()
        again = await socket_of(watcher, game.id)  # the page back, as the player
        back = await connect(again)
        await again.disconnect()
        return output["code"], back

    code, back = run(scenario)
    assert code == sockets.CLOSE_SESSION_CHANGED
    assert back["you"] == "white" and "play" in back["actions"] and back["legal"]
