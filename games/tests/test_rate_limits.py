"""Rate limits (games/ratelimits.py, docs/protocol.md "Rate limits"): frames per socket and
per session on the game and lobby sockets, new games per session/account and per address
over HTTP and in the lobby. Counted in the real Redis; each test has its own key prefix
(conftest.py), and small limits are set with the ``settings`` fixture."""

import asyncio
import time

import pytest
import redis
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from games.challenges.models import Challenge
from games.lobby.models import QueueEntry
from games.lobby.tests.test_lobby import account, join_frame, lobby_socket, signed_in_cookie
from games.lobby.tests.test_lobby import receive as lobby_receive
from games.room.models import Game
from games.room.tests.test_consumers import TIMEOUT, connect, origin, receive, session_cookie
from games.tests.factories import HUMAN, FixedDice, new_bot_game, state

pytestmark = pytest.mark.usefixtures("unattended_queue")


@pytest.fixture
def game(transactional_db, monkeypatch):
    return new_bot_game(FixedDice(monkeypatch), opening=(6, 5))


def game_socket(game_id, cookie, lang="en"):
    from nardy_site.asgi import application

    return WebsocketCommunicator(
        application,
        f"/ws/game/{game_id}/?lang={lang}",
        headers=[(b"origin", origin().encode()), (b"cookie", cookie.encode())],
    )


async def frames_until_refused(comm, count, frame=None):
    """Send ``count`` frames (snapshot requests unless ``frame``) without waiting, then read
    the answers: returns the list of answer types/codes in order."""
    for _ in range(count):
        await comm.send_json_to(frame or {"type": "snapshot"})
    answers = []
    for _ in range(count):
        if await comm.receive_nothing(timeout=0.5):
            break
        answer = await receive(comm)
        answers.append(answer)
    return answers


def kinds(answers):
    return [answer.get("code", answer["type"]) for answer in answers]


def burst(game_id, count, frame=None):
    """Open a game socket as the human player, send ``count`` frames at once and read the
    answers (``frames_until_refused``), then close it; returns the answers."""
    cookie = session_cookie(HUMAN)

    async def scenario():
        comm = game_socket(game_id, cookie)
        await connect(comm)
        answers = await frames_until_refused(comm, count, frame)
        await comm.disconnect()
        return answers

    return async_to_sync(scenario)()


def lobby_answers(cookie, frame, count):
    """Send ``frame`` ``count`` times on a lobby socket with the session ``cookie``, reading
    the answer to each before the next, then close it; returns the answers."""

    async def scenario():
        comm = await lobby_socket(cookie=cookie)
        answers = []
        for _ in range(count):
            await comm.send_json_to(frame)
            answers.append(await lobby_receive(comm, timeout=TIMEOUT))
        await comm.disconnect()
        return answers

    return async_to_sync(scenario)()


def test_a_socket_over_its_frame_limit_gets_one_rate_limited_error_then_silence(game, settings):
    settings.GAMES_SOCKET_FRAME_LIMITS = "5/second"
    before = state(game.id)
    cookie = session_cookie(HUMAN)

    async def scenario():
        comm = game_socket(game.id, cookie)
        await connect(comm)
        answers = await frames_until_refused(comm, 9)
        refusal = answers[-1]
        # 5 allowed, one error for the sixth, the rest of the wait dropped unanswered
        assert kinds(answers) == ["snapshot"] * 5 + ["rate_limited"]
        assert 0 < refusal["retry_after"] <= 1 and refusal["version"] == game.version
        assert refusal["message"].startswith("Too many messages")
        await asyncio.sleep(refusal["retry_after"] + 0.05)
        await comm.send_json_to({"type": "snapshot"})
        assert (await receive(comm))["type"] == "snapshot"
        await comm.disconnect()

    async_to_sync(scenario)()
    assert state(game.id) == before


def test_a_refused_action_is_not_carried_out(game, settings):
    settings.GAMES_SOCKET_FRAME_LIMITS = "2/minute"
    cookie = session_cookie(HUMAN)

    async def scenario():
        comm = game_socket(game.id, cookie, lang="ru")
        await connect(comm)
        answers = await frames_until_refused(comm, 2)
        await comm.send_json_to({"type": "play", "version": game.version, "play": "24/18 18/13"})
        refusal = await receive(comm)
        await comm.disconnect()
        return answers, refusal

    answers, refusal = async_to_sync(scenario)()
    assert kinds(answers) == ["snapshot", "snapshot"]
    assert refusal["code"] == "rate_limited" and 50 < refusal["retry_after"] <= 60
    assert "Слишком много" in refusal["message"]  # the page's language
    assert Game.objects.get(pk=game.id).version == game.version


def test_the_sockets_of_one_session_share_its_limit(game, settings):
    settings.GAMES_SOCKET_FRAME_LIMITS = "100/minute"
    settings.GAMES_SESSION_FRAME_LIMITS = "6/minute"
    shared, other = session_cookie(HUMAN), session_cookie("guest-someone-else")

    async def scenario():
        first, second, stranger = (
            game_socket(game.id, shared),
            game_socket(game.id, shared),
            game_socket(game.id, other),
        )
        for comm in (first, second, stranger):
            await connect(comm)
        for comm in (first, second):  # the player's arrival on the second socket
            while not await comm.receive_nothing(timeout=0.3):
                await receive(comm)
        a = await frames_until_refused(first, 3)
        b = await frames_until_refused(second, 4)
        c = await frames_until_refused(stranger, 4)
        for comm in (first, second, stranger):
            await comm.disconnect()
        return a, b, c

    a, b, c = async_to_sync(scenario)()
    assert kinds(a) == ["snapshot"] * 3
    assert kinds(b) == ["snapshot"] * 3 + ["rate_limited"]
    assert kinds(c) == ["snapshot"] * 4  # another session counts on its own


def test_a_fast_player_stays_under_the_default_limits(game):
    """The defaults: a burst of 20 frames within a second (a player clicking as fast as they
    can) is answered in full."""
    answers = burst(game.id, 20, {"type": "why", "point": 1})
    assert len(answers) == 20 and "rate_limited" not in kinds(answers)


def test_the_counters_live_in_redis_under_the_configured_prefix(game, settings):
    settings.GAMES_SOCKET_FRAME_LIMITS = "5/second"
    burst(game.id, 2)
    client = redis.Redis.from_url(django_settings.REDIS_URL)
    try:
        keys = list(client.scan_iter(match=f"{settings.GAMES_RATELIMIT_KEY_PREFIX}:*"))
    finally:
        client.close()
    assert any(b"socket" in key for key in keys) and any(b"session" in key for key in keys)


def test_limits_may_be_turned_off(game, settings):
    settings.GAMES_RATELIMIT_ENABLED = False
    settings.GAMES_SOCKET_FRAME_LIMITS = "1/minute"
    assert kinds(burst(game.id, 3)) == ["snapshot"] * 3


# --- new games over HTTP -------------------------------------------------------------------


def test_new_games_over_the_session_limit_get_the_429_page_in_the_pages_language(
    transactional_db, settings
):
    settings.GAMES_CREATE_SESSION_LIMITS = "2/minute"
    client = Client()
    url = reverse("games:new")
    assert [client.post(url).status_code for _ in range(2)] == [302, 302]
    with_language = "/ru" + url[url.index("/", 1) :]
    response = client.post(with_language)
    page = response.content.decode()
    assert response.status_code == 429
    assert 50 <= int(response["Retry-After"]) <= 60
    assert "Слишком много новых партий" in page  # the reason, in Russian
    assert 'action="/ru/new/"' in page  # the form, to start one once the wait is over
    assert Game.objects.count() == 2
    # another visitor (another session) is not held back by this one
    assert Client().post(url).status_code == 302


def test_new_games_over_the_address_limit_are_refused_whatever_the_session(
    transactional_db, settings
):
    settings.GAMES_CREATE_IP_LIMITS = "3/minute"
    url = reverse("games:new")
    # a client that drops its cookie every time: a new session each request
    codes = [Client(REMOTE_ADDR="203.0.113.7").post(url).status_code for _ in range(4)]
    assert codes == [302, 302, 302, 429]
    assert Client(REMOTE_ADDR="203.0.113.8").post(url).status_code == 302
    assert Game.objects.count() == 4


def test_challenge_links_over_the_limit_get_the_form_with_the_reason(transactional_db, settings):
    settings.GAMES_CREATE_SESSION_LIMITS = "1/minute"
    client = Client()
    url = reverse("games:challenge_new").replace("/en/", "/bg/")
    assert client.post(url, {"preset": "sport"}).status_code == 302
    response = client.post(url, {"preset": "sport"})
    page = response.content.decode()
    assert response.status_code == 429 and int(response["Retry-After"]) >= 1
    assert 'class="challenge-error"' in page and "Твърде много нови партии" in page
    assert 'id="challenge-form"' in page
    assert Challenge.objects.count() == 1


def test_accepting_challenges_counts_as_starting_games(transactional_db, settings):
    settings.GAMES_CREATE_SESSION_LIMITS = "1/minute"
    creators = [Client(), Client()]
    links = []
    for creator in creators:
        creator.post(reverse("games:challenge_new"), {"preset": "sport"})
        links.append(Challenge.objects.latest("created"))
    friend = Client()
    accept = [reverse("games:challenge_accept", kwargs={"challenge_id": link.id}) for link in links]
    assert friend.post(accept[0]).status_code == 302
    refused = friend.post(accept[1])
    assert refused.status_code == 429 and "Too many new games" in refused.content.decode()
    assert Challenge.objects.get(pk=links[1].pk).game_id is None


# --- the lobby ------------------------------------------------------------------------------


def test_lobby_joins_over_the_limit_get_a_rate_limited_frame(transactional_db, settings):
    settings.GAMES_CREATE_SESSION_LIMITS = "2/minute"
    alice = account("alice")
    cookie = signed_in_cookie(alice)
    started = time.monotonic()
    answers = lobby_answers(cookie, join_frame(), 3)
    assert [a["type"] for a in answers] == ["queued", "queued", "error"]
    assert answers[2]["code"] == "rate_limited"
    assert 0 < answers[2]["retry_after"] <= 60 - (time.monotonic() - started) + 1
    # the third join changed nothing: the second entry still waits (left when its socket closed)
    assert QueueEntry.objects.filter(user=alice).count() == 2


def test_lobby_frames_have_a_frame_limit_too(transactional_db, settings):
    settings.GAMES_SOCKET_FRAME_LIMITS = "2/minute"
    answers = lobby_answers(signed_in_cookie(account("bob")), {"type": "leave"}, 3)
    assert kinds(answers) == ["left", "left", "rate_limited"]


def test_without_its_redis_the_limits_let_play_go_on(game, settings, caplog):
    # nothing listens on this port (the range of this helper's servers): connection refused
    settings.GAMES_RATELIMIT_STORAGE_URL = "redis://127.0.0.1:8799/0"
    settings.GAMES_SOCKET_FRAME_LIMITS = "1/minute"
    assert kinds(burst(game.id, 3)) == ["snapshot"] * 3
    client = Client()
    assert client.post(reverse("games:new")).status_code == 302
    assert "rate limit not checked" in caplog.text


def test_position_images_drawn_afresh_are_limited_per_address_and_cached_ones_are_not(
    transactional_db, settings
):
    import uuid

    from games.engine import Position, legal_plays
    from games.engine.position_id import encode

    settings.GAMES_IMAGE_RENDER_IP_LIMITS = "2/minute"
    # an empty image cache: the same positions may have been drawn by earlier runs
    settings.CACHES = {
        "default": dict(django_settings.CACHES["default"], KEY_PREFIX=f"images-{uuid.uuid4().hex}")
    }
    position, ids = Position.initial("white"), []
    for dice in ((6, 5), (4, 2), (3, 1)):  # three different positions, never drawn before
        position = legal_plays(position, dice)[0].result
        ids.append(encode(position))
    client = Client(REMOTE_ADDR="203.0.113.9")
    url = lambda position_id: reverse("position_png", args=[position_id])  # noqa: E731
    first, second = client.get(url(ids[0])), client.get(url(ids[1]))
    assert (first.status_code, second.status_code) == (200, 200)
    refused = client.get(url(ids[2]))
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert client.get(url(ids[0])).status_code == 200  # from the cache: not counted
    assert Client(REMOTE_ADDR="203.0.113.10").get(url(ids[2])).status_code == 200
