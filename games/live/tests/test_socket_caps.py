"""Caps of open sockets per visitor and per address (games.ratelimits.SocketPlaces,
games.live.sockets.SocketCap; docs/protocol.md "Rate limits"): a socket over a cap gets a
``too_many_sockets`` error and the close 4429, the open ones go on, and a socket that ends,
however it ends, gives its place back. Through the real ASGI stack (origin check, session and
auth middleware); each test counts in a fresh ``open_sockets`` of its own."""

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.core.exceptions import ImproperlyConfigured

from games import app_settings, ratelimits, services
from games.lobby.tests.test_lobby import account, signed_in_cookie
from games.lobby.tests.test_lobby import receive as lobby_receive
from games.room.tests.test_consumers import TIMEOUT, connect, origin, receive, session_cookie
from games.tests.factories import HUMAN, FixedDice, new_bot_game
from games.tests.tournament_helpers import arena

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]


@pytest.fixture(autouse=True)
def open_sockets(monkeypatch):
    """A fresh count of open sockets: counts of this process's earlier tests stay out."""
    places = ratelimits.SocketPlaces()
    monkeypatch.setattr(ratelimits, "open_sockets", places)
    return places


@pytest.fixture(autouse=True)
def open_notice_sockets(monkeypatch):
    """A fresh count of open notices sockets, as ``open_sockets``."""
    places = ratelimits.SocketPlaces()
    monkeypatch.setattr(ratelimits, "open_notice_sockets", places)
    return places


@pytest.fixture
def game(monkeypatch):
    return new_bot_game(FixedDice(monkeypatch), opening=(6, 5))


def socket(path, cookie, ip=None):
    """A WebsocketCommunicator on ``path`` with the session ``cookie``, from the client address
    ``ip`` (None: the test scope's, which has none)."""
    from nardy_site.asgi import application

    async def from_address(scope, receive_, send):  # as Daphne gives the peer's address
        await application(dict(scope, client=(ip, 50000)), receive_, send)

    return WebsocketCommunicator(
        application if ip is None else from_address,
        path,
        headers=[(b"origin", origin().encode()), (b"cookie", cookie.encode())],
    )


def identity(cookie):
    """The counted identity (``ratelimits.session_identity``) of a guest's session cookie."""
    return ("session", cookie.split("=", 1)[1])


def game_path(game, lang="en"):
    return f"/ws/game/{game.id}/?lang={lang}"


async def refused(comm):
    """Open ``comm`` and check it is refused as over a cap; returns the error frame."""
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected  # accepted, so that the page can be told why
    error = await receive(comm)
    assert error["type"] == "error" and error["code"] == "too_many_sockets"
    assert await comm.receive_output(timeout=TIMEOUT) == {"type": "websocket.close", "code": 4429}
    await comm.disconnect()
    return error


async def still_answers(comm):
    await comm.send_json_to({"type": "snapshot"})
    assert (await receive(comm))["type"] == "snapshot"


async def drain(comm):
    """Read what is waiting (a player's arrival on another socket sends snapshots)."""
    while not await comm.receive_nothing(timeout=0.3):
        await receive(comm)


def test_a_socket_over_the_session_cap_is_told_and_closed_and_the_open_ones_go_on(
    game, settings, open_sockets
):
    settings.GAMES_SOCKETS_PER_SESSION = 2
    cookie = session_cookie(HUMAN)

    async def scenario():
        first, second = socket(game_path(game), cookie), socket(game_path(game), cookie)
        await connect(first)
        await connect(second)
        error = await refused(socket(game_path(game, "ru"), cookie))
        for comm in (first, second):
            await drain(comm)
            await still_answers(comm)
        third = await refused(socket(game_path(game), cookie))
        for comm in (first, second):
            await comm.disconnect()
        return error, third

    error, third = async_to_sync(scenario)()
    assert "слишком много страниц" in error["message"] and "version" not in error  # in Russian
    assert third["message"].startswith("Too many pages of this site are open")
    assert open_sockets.count(identity(cookie)) == 0


def test_game_and_lobby_sockets_of_one_account_count_together(game, settings, open_sockets):
    settings.GAMES_SOCKETS_PER_SESSION = 2
    alice = account("alice")
    cookie = signed_in_cookie(alice)

    async def scenario():
        watching, lobby = socket(game_path(game), cookie), socket("/ws/lobby/", cookie)
        await connect(watching)
        assert (await lobby.connect(timeout=TIMEOUT))[0]
        assert open_sockets.count(("user", str(alice.pk))) == 2
        await refused(socket("/ws/lobby/", cookie))
        await refused(socket(game_path(game), cookie))
        await still_answers(watching)
        await lobby.send_json_to({"type": "leave"})
        assert (await lobby_receive(lobby))["type"] == "left"
        await watching.disconnect()
        await lobby.disconnect()

    async_to_sync(scenario)()
    assert open_sockets.count(("user", str(alice.pk))) == 0


def test_notices_sockets_have_places_of_their_own_and_never_take_a_games(
    game, settings, open_sockets, open_notice_sockets
):
    settings.GAMES_SOCKETS_PER_SESSION = 2
    alice = account("alice")
    cookie = signed_in_cookie(alice)
    me = ("user", str(alice.pk))

    async def scenario():
        pages = [socket("/ws/notices/?lang=en", cookie) for _ in range(2)]
        for page in pages:  # two open tabs of the site
            assert (await page.connect(timeout=TIMEOUT))[0]
            assert (await receive(page))["type"] == "hello"
        # a third tab's notices are refused (4429): its own places are full
        error = await refused(socket("/ws/notices/?lang=ru", cookie))
        # the game's sockets still have both their places
        playing, lobby = socket(game_path(game), cookie), socket("/ws/lobby/", cookie)
        await connect(playing)
        assert (await lobby.connect(timeout=TIMEOUT))[0]
        assert (open_sockets.count(me), open_notice_sockets.count(me)) == (2, 2)
        await refused(socket(game_path(game), cookie))  # the game's cap holds as before
        # and the game's full places never refuse a notices socket
        await pages[0].disconnect()
        again = socket("/ws/notices/?lang=en", cookie)
        assert (await again.connect(timeout=TIMEOUT))[0]
        assert (await receive(again))["type"] == "hello"
        await still_answers(playing)
        await lobby.send_json_to({"type": "leave"})
        assert (await lobby_receive(lobby))["type"] == "left"
        for comm in (pages[1], again, playing, lobby):
            await comm.disconnect()
        return error

    error = async_to_sync(scenario)()
    assert "слишком много страниц" in error["message"]
    assert open_sockets.count(me) == 0 and open_notice_sockets.count(me) == 0


def test_a_socket_closed_by_its_client_gives_its_place_back(game, settings):
    settings.GAMES_SOCKETS_PER_SESSION = 1
    cookie = session_cookie(HUMAN)

    async def scenario():
        first = socket(game_path(game), cookie)
        await connect(first)
        await refused(socket(game_path(game), cookie))
        await first.disconnect()
        again = socket(game_path(game), cookie)
        await connect(again)
        await again.disconnect()

    async_to_sync(scenario)()


def test_a_socket_whose_consumer_failed_gives_its_place_back(
    game, settings, monkeypatch, open_sockets
):
    settings.GAMES_SOCKETS_PER_SESSION = 1
    cookie = session_cookie(HUMAN)
    real_snapshot = services.snapshot

    def broken(*args, **kwargs):
        raise RuntimeError("snapshot failed")

    async def scenario():
        monkeypatch.setattr(services, "snapshot", broken)
        failing = socket(game_path(game), cookie)
        assert (await failing.connect(timeout=TIMEOUT))[0]
        with pytest.raises(RuntimeError, match="snapshot failed"):
            await failing.receive_output(timeout=TIMEOUT)  # the consumer ended with it
        monkeypatch.setattr(services, "snapshot", real_snapshot)
        again = socket(game_path(game), cookie)
        await connect(again)
        await again.disconnect()

    async_to_sync(scenario)()
    assert open_sockets.count(identity(cookie)) == 0


def test_a_socket_the_server_closed_gives_its_place_back(settings):
    settings.GAMES_SOCKETS_PER_SESSION = 1
    cookie = session_cookie(HUMAN)
    missing = "/ws/game/00000000-0000-4000-8000-000000000000/"

    async def scenario():
        for _ in range(2):  # the second would be over the cap if the first kept its place
            comm = socket(missing, cookie)
            assert (await comm.connect(timeout=TIMEOUT))[0]
            assert await comm.receive_output(timeout=TIMEOUT) == {
                "type": "websocket.close",
                "code": 4404,
            }
            await comm.disconnect()

    async_to_sync(scenario)()


def test_the_address_cap_counts_the_sockets_of_every_session_from_it(game, settings, open_sockets):
    settings.GAMES_SOCKETS_PER_IP = 2
    cookies = [session_cookie(f"guest-{n}") for n in range(4)]

    async def scenario():
        first = socket(game_path(game), cookies[0], ip="203.0.113.20")
        second = socket(game_path(game), cookies[1], ip="203.0.113.20")
        await connect(first)
        await connect(second)
        await refused(socket(game_path(game), cookies[2], ip="203.0.113.20"))
        elsewhere = socket(game_path(game), cookies[3], ip="203.0.113.21")
        await connect(elsewhere)
        assert open_sockets.count(ip="203.0.113.20") == 2
        for comm in (first, second, elsewhere):
            await still_answers(comm)
            await comm.disconnect()

    async_to_sync(scenario)()
    assert open_sockets.count(ip="203.0.113.20") == 0


@pytest.mark.parametrize(
    "turned_off",
    [
        {"GAMES_SOCKETS_PER_SESSION": 0, "GAMES_SOCKETS_PER_IP": 0},
        {"GAMES_RATELIMIT_ENABLED": False},
    ],
)
def test_a_cap_of_0_or_limits_turned_off_let_every_socket_in(
    game, settings, open_sockets, turned_off
):
    for name, value in turned_off.items():
        setattr(settings, name, value)
    cookie = session_cookie(HUMAN)
    # more sockets than either default cap (20, 300) already open for this session and address
    for _ in range(400):
        assert open_sockets.take(identity(cookie), "203.0.113.30") is not None

    async def scenario():
        comm = socket(game_path(game), cookie, ip="203.0.113.30")
        await connect(comm)
        await comm.disconnect()

    async_to_sync(scenario)()


@pytest.mark.parametrize("value", [-1, "20", 2.5, True])
def test_a_cap_that_is_not_a_whole_number_of_0_or_more_is_refused_by_name(settings, value):
    settings.GAMES_SOCKETS_PER_IP = value
    with pytest.raises(ImproperlyConfigured, match="GAMES_SOCKETS_PER_IP"):
        _ = app_settings.SOCKETS_PER_IP


def test_the_caps_can_be_given_in_the_environment_as_for_a_load_test_from_one_address(monkeypatch):
    from nardy_site.tests.test_deploy_settings import evaluate

    values = evaluate(
        monkeypatch,
        {
            "REDIS_URL": "redis://127.0.0.1:6379/0",
            "GAMES_SOCKETS_PER_IP": "0",
            "GAMES_SOCKETS_PER_SESSION": "5",
        },
    )
    assert values["GAMES_SOCKETS_PER_IP"] == 0 and values["GAMES_SOCKETS_PER_SESSION"] == 5


def test_a_visitor_reconnecting_in_a_loop_is_refused_with_a_wait_and_others_are_not(game, settings):
    settings.GAMES_CONNECT_SESSION_LIMITS = "3/minute"
    mine, other = session_cookie(HUMAN), session_cookie("someone-else")

    async def scenario():
        for _ in range(3):  # open and close, as a page reloading in a loop
            comm = socket(game_path(game), mine)
            await connect(comm)
            await comm.disconnect()
        comm = socket(game_path(game, "ru"), mine)
        connected, _ = await comm.connect(timeout=TIMEOUT)
        assert connected  # accepted, so that the page can be told why
        error = await receive(comm)
        close = await comm.receive_output(timeout=TIMEOUT)
        await comm.disconnect()
        onlooker = socket(game_path(game), other)
        assert (await connect(onlooker))["id"] == str(game.id)
        await onlooker.disconnect()
        return error, close

    error, close = async_to_sync(scenario)()
    assert error["code"] == "rate_limited" and 0 < error["retry_after"] <= 60
    assert "слишком часто" in error["message"]
    assert close == {"type": "websocket.close", "code": 4013}  # "try again later"


def test_a_player_whose_socket_closes_while_redis_refuses_is_still_marked_away(game, monkeypatch):
    from redis.exceptions import MaxConnectionsError

    async def refuse(*args, **kwargs):
        raise MaxConnectionsError("Too many connections")

    cookie = session_cookie(HUMAN)

    async def scenario():
        comm = socket(game_path(game), cookie)
        await connect(comm)
        from channels.layers import get_channel_layer

        monkeypatch.setattr(get_channel_layer(), "group_discard", refuse)
        await comm.disconnect()

    async_to_sync(scenario)()
    game.refresh_from_db()
    assert game.away_since(game.side_of(services.Actor(guest_id=HUMAN))) is not None


def test_a_tournament_page_reconnecting_in_a_loop_is_refused_without_a_traceback(settings, caplog):
    # the refusal skipped connect() and disconnect() read what connect() sets (attack run)
    settings.GAMES_CONNECT_SESSION_LIMITS = "2/minute"
    event = arena()
    path = f"/ws/tournament/{event.pk}/?lang=en"
    cookie = session_cookie(HUMAN)

    async def scenario():
        for _ in range(2):
            comm = socket(path, cookie)
            connected, _ = await comm.connect(timeout=TIMEOUT)
            assert connected
            assert (await receive(comm))["type"] == "tournament"
            await comm.disconnect()
        comm = socket(path, cookie)
        await comm.connect(timeout=TIMEOUT)
        error = await receive(comm)
        close = await comm.receive_output(timeout=TIMEOUT)
        await comm.disconnect()
        return error, close

    error, close = async_to_sync(scenario)()
    assert error["code"] == "rate_limited"
    assert close == {"type": "websocket.close", "code": 4013}
    assert not [r for r in caplog.records if r.levelname == "ERROR"], caplog.text
