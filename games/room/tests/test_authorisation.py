"""Who may act (issue #8): a player only in their own game and on their turn, an onlooker
never, a guest never in another guest's game, whose id cannot be guessed (random UUID4s);
every form posted without its CSRF token is refused with 403."""

import re
import uuid
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games import services
from games.accounts.tests.test_account_sockets import account_game, next_error, socket_of
from games.challenges.models import Challenge
from games.room.models import Game, ImportedRecord, Match
from games.room.tests.test_consumers import communicator, connect, receive
from games.tests.factories import (
    BLACK_GUEST,
    HUMAN,
    ONLOOKER,
    FixedDice,
    new_bot_game,
    new_people_game,
    state,
)

pytestmark = pytest.mark.usefixtures("unattended_queue")

ROOT = Path(__file__).resolve().parents[3]
INTRUDER = "guest-intruder"


@pytest.fixture
def fixed(monkeypatch):
    return FixedDice(monkeypatch)


def every_action(version, play="24/18 18/13"):
    """One frame of each kind that changes a game, all at ``version`` (the play is legal for
    white after a 6-5 opening)."""
    return [
        {"type": kind, "version": version}
        for kind in ("roll", "double", "take", "drop", "resign", "claim")
    ] + [{"type": "play", "version": version, "play": play}]


def answers_to(game_id, guest_id, frames):
    """The viewer's snapshot and the answer to each frame sent on a socket as ``guest_id``
    (None: a visitor without a session)."""

    async def scenario():
        comm = await communicator(game_id, guest_id)
        snapshot = await connect(comm)
        answers = []
        for frame in frames:
            await comm.send_json_to(frame)
            answers.append(await receive(comm))
        await comm.disconnect()
        return snapshot, answers

    return async_to_sync(scenario)()


# --- ids ----------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_ids_in_urls_are_random_uuid4s_not_a_sequence():
    for model in (Game, Match, Challenge, ImportedRecord):
        field = model._meta.pk
        assert field.get_internal_type() == "UUIDField" and field.default is uuid.uuid4
    games = [services.create_bot_game(f"guest-{n}") for n in range(20)]
    links = [services.create_challenge(f"guest-{n}", preset="sport") for n in range(20)]
    for made in (games, links):
        ids = [item.pk for item in made]
        assert all(i.version == 4 and i.variant == uuid.RFC_4122 for i in ids)
        # 122 random bits: no common prefix, and creation order is not the ids' order
        assert len({i.hex[:8] for i in ids}) == len(ids)
        assert ids != sorted(ids)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "path",
    [
        "/ws/game/1/",
        "/ws/game/00000000-0000-4000-8000-000000000001/",
        "/ws/game/5b3ec675-5cc5-4247-bf44-6c9ebc1cdcf8/",  # a random id no game has
        "/ws/game/../lobby/",
    ],
)
def test_a_guessed_game_id_is_closed_with_4404(path):
    async def scenario():
        comm = await communicator(None, INTRUDER, path=path)
        connected, _ = await comm.connect(timeout=5)
        assert connected
        closed = await comm.receive_output(timeout=5)
        await comm.disconnect()  # ends the consumer, which still listens to the layer
        return closed

    assert async_to_sync(scenario)() == {"type": "websocket.close", "code": 4404}


# --- acting in a game ---------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("viewer", [INTRUDER, ONLOOKER, None])
def test_nobody_but_its_players_can_act_in_a_game(fixed, viewer):
    """Another guest (with a game of their own), an onlooker and a visitor without a session:
    every action, the legal play included, is refused, and the game is left as it was."""
    game = new_bot_game(fixed, opening=(6, 5))
    new_bot_game(fixed, opening=(6, 5), guest=INTRUDER)
    before = state(game.id)
    snapshot, answers = answers_to(
        game.id, viewer, every_action(game.version) + [{"type": "why", "point": 1}]
    )
    assert snapshot["you"] is None and snapshot["actions"] == [] and snapshot["legal"] is None
    assert [a["code"] for a in answers] == ["not_your_turn"] * len(answers)
    assert all(a["message"] == "You are not a player of this game." for a in answers)
    assert state(game.id) == before


@pytest.mark.django_db(transaction=True)
def test_a_player_acts_only_on_their_turn(fixed):
    game = new_people_game(clock=None, fixed=fixed, opening=(6, 5))  # white to play 6-5
    before = state(game.id)
    frames = [
        {"type": "roll", "version": game.version},
        {"type": "play", "version": game.version, "play": "24/18 18/13"},
        {"type": "play", "version": game.version, "play": "13/7 13/8"},
    ]
    _snapshot, answers = answers_to(game.id, BLACK_GUEST, frames)
    assert [a["code"] for a in answers] == ["not_your_turn"] * 3
    assert state(game.id) == before


@pytest.mark.django_db(transaction=True)
def test_a_signed_in_account_cannot_act_in_another_accounts_game(fixed):
    owner, other = (
        get_user_model().objects.create_user(username=name) for name in ("owner", "other")
    )
    game = account_game(fixed, owner)
    client = Client()
    client.force_login(other)
    before = state(game.id)

    async def scenario():
        comm = await socket_of(client, game.id)
        snapshot = await connect(comm)
        await comm.send_json_to({"type": "play", "version": game.version, "play": "24/18 18/13"})
        answer = await next_error(comm)
        await comm.disconnect()
        return snapshot, answer

    snapshot, answer = async_to_sync(scenario)()
    assert snapshot["you"] is None and answer["code"] == "not_your_turn"
    assert state(game.id) == before


@pytest.mark.django_db(transaction=True)
def test_another_guest_cannot_withdraw_a_challenge_or_read_a_running_game(fixed):
    creator, intruder = Client(), Client()
    creator.post(reverse("games:challenge_new"), {"preset": "sport"})
    link = Challenge.objects.get()
    cancel = reverse("games:challenge_cancel", kwargs={"challenge_id": link.id})
    assert intruder.post(cancel).status_code == 409
    assert Challenge.objects.get().status == "open"
    game = new_bot_game(fixed, opening=(6, 5))
    for name in ("replay", "record"):
        assert (
            intruder.get(reverse(f"games:{name}", kwargs={"game_id": game.id})).status_code == 404
        )
    analysis = reverse("games:analysis_request", kwargs={"game_id": game.id})
    assert intruder.post(analysis).status_code == 404


# --- CSRF ---------------------------------------------------------------------------------


def _token(client):
    """Give ``client`` a CSRF cookie (as any form page does) and return its token."""
    client.get(reverse("games:challenge_new"))
    return client.cookies["csrftoken"].value


def _forms():
    """``(name, client, url, data)`` of every form of the site that posts, each set up so
    that the post would succeed with its token."""
    forms = []
    creator = Client(enforce_csrf_checks=True)
    forms.append(("new game", creator, reverse("games:new"), {"preset": "sport"}))
    forms.append(("challenge link", creator, reverse("games:challenge_new"), {"preset": "sport"}))
    # a challenge of another guest to accept, one of this guest's to withdraw
    link = services.create_challenge("guest-creator", preset="sport")
    forms.append(
        (
            "accept",
            Client(enforce_csrf_checks=True),
            reverse("games:challenge_accept", kwargs={"challenge_id": link.id}),
            {},
        )
    )
    mine = Client(enforce_csrf_checks=True)
    own = services.create_challenge(_guest(mine), preset="sport")
    forms.append(
        ("withdraw", mine, reverse("games:challenge_cancel", kwargs={"challenge_id": own.id}), {})
    )
    forms.append(
        ("import", Client(enforce_csrf_checks=True), reverse("games:import"), {"text": "garbage"})
    )
    forms.append(
        (
            "language",
            Client(enforce_csrf_checks=True),
            reverse("set_language"),
            {"language": "ru", "next": "/ru/"},
        )
    )
    finished = services.create_bot_game(HUMAN)
    services.resign(finished.id, services.Actor(guest_id=HUMAN), finished.version)
    forms.append(
        (
            "analysis",
            Client(enforce_csrf_checks=True),
            reverse("games:analysis_request", kwargs={"game_id": finished.id}),
            {},
        )
    )
    user = get_user_model().objects.create_user(username="named")
    signed_in = Client(enforce_csrf_checks=True)
    signed_in.force_login(user)
    forms.append(("profile", signed_in, reverse("games:profile"), {"display_name": "New"}))
    signed_out = Client(enforce_csrf_checks=True)
    signed_out.force_login(get_user_model().objects.create_user(username="leaving"))
    forms.append(("sign out", signed_out, reverse("account_logout"), {}))
    forms.append(
        (
            "admin sign-in",
            Client(enforce_csrf_checks=True),
            reverse("admin:login"),
            {"username": "nobody", "password": "nothing"},
        )
    )
    return forms


def _guest(client):
    """Give ``client`` a session with a guest id (as its first game would); returns the id."""
    session = client.session
    session["guest_id"] = "guest-withdrawer"
    session.save()
    return "guest-withdrawer"


@pytest.mark.django_db(transaction=True)
def test_every_form_posted_without_its_csrf_token_is_refused_with_403():
    for name, client, url, data in _forms():
        games, links = Game.objects.count(), Challenge.objects.count()
        refused = client.post(url, data)
        assert refused.status_code == 403, name
        assert (Game.objects.count(), Challenge.objects.count()) == (games, links), name
        # the same post with the token gets past the check: the test is not refusing all
        answered = client.post(url, dict(data, csrfmiddlewaretoken=_token(client)))
        assert answered.status_code != 403, name


def test_every_post_form_in_the_templates_carries_the_csrf_token():
    forms = 0
    for path in (ROOT / "templates").rglob("*.html"):
        text = path.read_text()
        for form in re.findall(
            r"<form\b[^>]*method=\"post\"[^>]*>.*?</form>", text, flags=re.S | re.I
        ):
            forms += 1
            assert "{% csrf_token %}" in form or "{% csrf_field %}" in form, path
    assert forms >= 10
