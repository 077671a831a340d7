"""Spectating (issue #6): anyone may open a running game read-only and sees exactly what the
players see of the board, and nothing private.

Every frame an onlooker gets, over the socket and embedded in the game page, is checked against
an explicit allow-list of keys (per path, recursively), and none of its values may hold either
player's guest id, session key, e-mail, user name or password hash, or the dice seed before
the game is over. An onlooker's action frames are refused and change nothing. For a rated game
between two accounts, a game against the computer, and a casual challenge game between guests.
In headless Chromium, an onlooker's page names the signed-in players with their ratings, says it
is watching, offers no action, and shows both rating changes when the rated game ends
(screenshots of it, of a player's page and of the leaderboard to ``artifacts/e2e/``); in a game
that is not rated (an account against the computer) the name comes without a rating.
"""

import json
import re

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client
from django.urls import reverse

from games import services
from games.accounts.models import Profile
from games.room.models import Game
from games.room.tests.test_consumers import TIMEOUT, origin, run
from games.room.tests.test_e2e_browser import (  # noqa: F401 - fixtures used by name
    ARTIFACTS,
    DESKTOP,
    PHONE,
    browser,
    daphne_server,
    in_thread,
)
from games.tests.factories import state, unchanged

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]

SIDE, NUMBER, ITEM = "<side>", "<n>", "[]"

#: every path an onlooker may see in a snapshot frame: dict keys joined by "."; the keys
#: "white"/"black" are written <side>, point numbers <n>, list items [].
SNAPSHOT_KEYS = {
    "type",
    "game",
    *(
        f"game.{key}"
        for key in (
            "id",
            "preset",
            "options",
            "rated",
            "hints",  # false for an onlooker
            "status",
            "version",
            "you",
            "players",
            "position",
            "position_id",
            "turn",
            "phase",
            "awaiting",
            "actions",
            "dice",
            "opening",
            "cube",
            "match",
            "pips",
            "off",
            "legal",
            "last",
            "history",
            "fairness",
            "links",
            "result",
            "rematch",
            "chat",
            "clock",
            "presence",
        )
    ),
    # an onlooker sees a rematch only once it started: its state and the new game's page
    "game.rematch.state",
    "game.rematch.game",
    # the chat an onlooker reads: presets, the onlookers' and the players' (games.chat)
    "game.chat",
    *(
        f"game.chat.{key}"
        for key in ("muted", "text", "open", "until", "messages", "messages.[]", "presets")
    ),
    *(
        f"game.chat.messages.[].{key}"
        for key in ("id", "from", "preset", "text", "version", "at", "mine")
    ),
    *(f"game.chat.presets.{key}" for key in ("[]", "[].key", "[].text")),
    *(
        f"game.options.{key}"
        for key in ("preset", "match_length", "koks", "cube", "bot_level", "colour")
    ),
    "game.players.<side>",
    *(f"game.players.<side>.{key}" for key in ("name", "bot", "rating", "provisional", "profile")),
    "game.position.turn",
    "game.position.first_turn",
    "game.position.<side>",
    "game.position.<side>.<n>",
    "game.dice.[]",
    *(
        f"game.opening.{key}"
        for key in ("<side>", "ties", "ties.[]", "ties.[].[]", "starter", "roll_off")
    ),
    *(f"game.cube.{key}" for key in ("value", "owner", "offered_by", "turned")),
    *(
        f"game.match.{key}"
        for key in (
            "id",
            "length",
            "score",
            "score.<side>",
            "game_number",
            "games",
            "games.[]",
            "status",
            "winner",
            "next_game",
            "url",
        )
    ),
    "game.pips.<side>",
    "game.off.<side>",
    "game.actions.[]",
    *(f"game.last.{key}" for key in ("side", "dice", "dice.[]", "play", "version")),
    "game.history.[]",
    *(
        f"game.history.[].{key}"
        for key in ("n", "side", "kind", "dice", "dice.[]", "play", "cube", "version")
    ),
    *(f"game.fairness.{key}" for key in ("seed_hash", "seed", "rolls")),
    *(f"game.links.{key}" for key in ("game", "replay", "record", "share", "image", "png")),
    *(
        f"game.result.{key}"
        for key in (
            "winner",
            "kind",
            "points",
            "reason",
            "cube",
            "loser",
            "match_lost",
            "rating",
            "rating.<side>",
        )
    ),
    *(f"game.result.rating.<side>.{key}" for key in ("before", "after", "delta", "provisional")),
    *(
        f"game.clock.{key}"
        for key in (
            "kind",
            "spec",
            "server_time",
            "running",
            "period",
            "period_started",
            "turn_started",
            "first_move",
            "paused_ms",
            "free_ms",
            "deadline",
            "reserve",
            "reserve.<side>",
        )
    ),
    *(
        f"game.clock.spec.{key}"
        for key in (
            "kind",
            "roll_ms",
            "move_ms",
            "reserve_ms",
            "max_move_ms",
            "reconnect_ms",
            "claim_after_ms",
            "first_move_ms",
            "loses",
        )
    ),
    "game.presence.<side>",
    *(f"game.presence.<side>.{key}" for key in ("here", "away_since", "loses_at", "claim_from")),
}
#: the snapshot fields an event may change (docs/protocol.md "Events")
CHANGED_FIELDS = (
    "status",
    "phase",
    "turn",
    "awaiting",
    "dice",
    "position",
    "position_id",
    "pips",
    "off",
    "cube",
    "clock",
    "presence",
    "fairness",
)
#: every path an onlooker may see in an event frame: the change's own keys, the history
#: entries and the changed fields as a snapshot's game has them
EVENT_KEYS = {
    "type",
    "version",
    "from",
    "events",
    "events.[]",
    *(f"events.[].{key}" for key in ("seq", "kind", "side")),
    "actions",
    "actions.[]",
    "legal",
    "history",
    *(
        f"history.{p[len('game.history.') :]}"
        for p in SNAPSHOT_KEYS
        if p.startswith("game.history.")
    ),
    "changes",
    *(
        "changes." + p[len("game.") :]
        for p in SNAPSHOT_KEYS
        if p.startswith("game.") and p.split(".")[1] in CHANGED_FIELDS
    ),
}
#: the server's periodic touch
TOUCH_KEYS = {"type", "version"}
#: an error frame (the answer to an onlooker's action)
ERROR_KEYS = {"type", "code", "message", "version"}
#: what an onlooker may never be given, whatever the game
ONLOOKER_NULLS = ("you", "legal")


def key_paths(value, prefix=""):
    """Every key path in ``value`` (see SNAPSHOT_KEYS for the notation)."""
    found = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("white", "black"):
                key = SIDE
            elif key.isdigit():
                key = NUMBER
            path = f"{prefix}.{key}" if prefix else key
            found.add(path)
            found |= key_paths(item, path)
    elif isinstance(value, list):
        for item in value:
            path = f"{prefix}.{ITEM}"
            found.add(path)
            found |= key_paths(item, path)
    return found


class Secrets:
    """What must never reach an onlooker: the players' guest ids, session keys and account
    internals, and the seed until the game is over."""

    def __init__(self, game, sessions=(), users=()):
        self.game_id = game.pk
        self.always = [value for value in (game.white_guest, game.black_guest, *sessions) if value]
        for user in users:
            self.always += [user.email, user.username, user.password]
        self.seed = game.seed
        assert self.seed and all(len(value) >= 8 for value in self.always)

    def check(self, text, finished=False):
        """Assert that ``text`` (a frame or a page) holds none of the secrets."""
        for value in self.always:
            assert value not in text, f"{value!r} sent to an onlooker"
        if not finished:
            assert self.seed not in text, "the seed sent before the game is over"


def check_frame(frame, secrets):
    text = json.dumps(frame)
    if frame["type"] == "error":
        assert set(frame) == ERROR_KEYS
        secrets.check(text)
        return
    if frame["type"] == "touch":
        assert set(frame) == TOUCH_KEYS
        return
    if frame["type"] == "event":
        unknown = key_paths(frame) - EVENT_KEYS
        assert not unknown, f"event keys not on the allow-list: {sorted(unknown)}"
        assert frame["actions"] == [] and frame["legal"] is None
        secrets.check(text)  # an event never ends a game: the last change comes as a snapshot
        return
    assert frame["type"] == "snapshot"
    unknown = key_paths(frame) - SNAPSHOT_KEYS
    assert not unknown, f"keys not on the allow-list: {sorted(unknown)}"
    game = frame["game"]
    assert game["hints"] is False  # hints are for the player, never for an onlooker
    for key in ONLOOKER_NULLS:
        assert game[key] is None
    assert game["actions"] == []
    finished = game["status"] != "active"
    secrets.check(text, finished=finished)
    if not finished and game["fairness"]:
        assert game["fairness"]["seed"] is None


# --- players and onlookers ----------------------------------------------------------------


def make_account(name):
    user = get_user_model().objects.create_user(
        username=f"username-of-{name.lower()}",
        email=f"{name.lower()}.mail@example.com",
        password=f"password of {name}",
    )
    Profile.objects.create(user=user, display_name=name)
    return user


def session_with(guest_id, user=None):
    """A saved session holding ``guest_id`` (and signed in as ``user``); its key."""
    if user is not None:
        client = Client()
        client.force_login(user)
        session = client.session
    else:
        session = SessionStore()
    if guest_id:
        session["guest_id"] = guest_id
    session.save()
    return session.session_key


async def socket(game_id, session_key=None):
    """A connected game socket with the session ``session_key`` (None: a browser with no
    session, as a first visit); returns it and its first snapshot frame."""
    from nardy_site.asgi import application

    headers = [(b"origin", origin().encode())]
    if session_key:
        headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={session_key}".encode()))
    comm = WebsocketCommunicator(application, f"/ws/game/{game_id}/", headers=headers)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return comm, json.loads(await comm.receive_from(timeout=TIMEOUT))


async def frames_until(comm, version, log, snapshot=False):
    """Read frames into ``log`` until a snapshot (or, unless ``snapshot``, an event) of
    ``version`` or later arrives; returns it."""
    while True:
        frame = json.loads(await comm.receive_from(timeout=TIMEOUT))
        log.append(frame)
        if frame["type"] == "snapshot" and frame["game"]["version"] >= version:
            return frame
        if frame["type"] == "event" and frame["version"] >= version and not snapshot:
            return frame


def board_of(game):
    """What every viewer sees alike of a snapshot's game: all but the viewer's own fields
    (the chat too: who reads which message depends on the viewer) and the server's time."""
    shared = {
        key: value
        for key, value in game.items()
        if key not in ("you", "actions", "hints", "legal", "clock", "presence", "chat")
    }
    clock = dict(game["clock"] or {})
    clock.pop("server_time", None)
    return shared, clock


ACTION_FRAMES = [
    {"type": kind, "version": None}
    for kind in ("roll", "double", "take", "drop", "resign", "claim")
] + [
    {"type": "play", "version": None, "play": "24/18 24/22"},
    {"type": "play", "version": None, "play": ""},
    {"type": "why", "point": 24, "staged": ""},
]


async def onlooker_tries_everything(comm, version, log):
    """The onlooker sends every action frame (at the current version) and a why frame; each
    is refused as not_your_turn."""
    for frame in ACTION_FRAMES:
        frame = {**frame, "version": version} if "version" in frame else frame
        await comm.send_json_to(frame)
        answer = json.loads(await comm.receive_from(timeout=TIMEOUT))
        log.append(answer)
        assert answer["type"] == "error" and answer["code"] == "not_your_turn", answer


def play_through_sockets(game_id, seats, onlookers, secrets, turns=4, finish_by=None):
    """The players (``seats``: side -> session key) open their sockets, then the side to act
    rolls and plays the first legal play through its socket, ``turns`` times (the computer's
    moves are made by ``services.bot_turn`` here); each onlooker (session key or None) follows
    on its own socket and tries every action once. ``finish_by``: the side that resigns at
    the end. Returns every frame the onlookers got."""
    log = []

    async def scenario():
        players = {side: (await socket(game_id, key))[0] for side, key in seats.items()}
        watchers = []
        for key in onlookers:
            comm, first = await socket(game_id, key)
            log.append(first)
            watchers.append(comm)
        for _ in range(turns):
            game = await sync_to_async(Game.objects.get)(pk=game_id)
            if game.is_over:
                break
            if game.is_bot_turn:
                await sync_to_async(services.bot_turn)(game.pk, game.version)
            else:
                mover = players[game.awaiting]
                await mover.send_json_to({"type": "snapshot"})
                view = await frames_until(mover, game.version, [], snapshot=True)
                kind = view["game"]["actions"][0]
                frame = {"type": kind, "version": game.version}
                if kind == "play":
                    frame["play"] = view["game"]["legal"]["plays"][0]["play"]
                await mover.send_json_to(frame)
            game = await sync_to_async(Game.objects.get)(pk=game_id)
            for comm in watchers:
                await frames_until(comm, game.version, log)
        game = await sync_to_async(Game.objects.get)(pk=game_id)
        # Onlookers cannot act: every frame is refused and the game stays as it was.
        before = await sync_to_async(state)(game_id)
        for comm in watchers:
            await onlooker_tries_everything(comm, game.version, log)
        assert await sync_to_async(state)(game_id) == before
        # They see what the players see of the board.
        for comm in watchers:
            await comm.send_json_to({"type": "snapshot"})
            seen = await frames_until(comm, game.version, log, snapshot=True)
            player = next(iter(players.values()))
            await player.send_json_to({"type": "snapshot"})
            mine = await frames_until(player, game.version, [], snapshot=True)
            assert board_of(seen["game"]) == board_of(mine["game"])
        if finish_by is not None:
            await players[finish_by].send_json_to({"type": "resign", "version": game.version})
            for comm in watchers:
                end = await frames_until(comm, game.version + 1, log, snapshot=True)
                assert end["game"]["status"] == "finished"
        for comm in [*players.values(), *watchers]:
            await comm.disconnect()

    run(scenario)
    for frame in log:
        check_frame(frame, secrets)
    return log


def check_page(game, secrets, client=None):
    """The game page as an onlooker opens it: the embedded snapshot is on the allow-list and
    the page holds no secret; it says the visitor is watching and offers no actions."""
    client = client or Client()
    response = client.get(reverse("games:game", kwargs={"game_id": game.pk}))
    assert response.status_code == 200
    html = response.content.decode()
    embedded = re.search(
        r'<script id="initial-snapshot" type="application/json">(.*?)</script>', html, re.S
    ).group(1)
    snapshot = json.loads(embedded)
    check_frame({"type": "snapshot", "game": snapshot}, secrets)
    secrets.check(html, finished=snapshot["status"] != "active")
    assert 'data-is-player="false"' in html
    if snapshot["status"] == "active":
        assert "You are watching this game" in html
    assert 'id="again-form"' not in html  # no "play again" for someone who did not play
    return snapshot


# --- the three kinds of games ---------------------------------------------------------------


def test_a_rated_game_between_two_accounts_shows_onlookers_nothing_private():
    anna, boris = make_account("Anna"), make_account("Boris")
    white = services.Actor(guest_id="guest-id-of-anna-0001", user_id=anna.pk)
    black = services.Actor(guest_id="guest-id-of-boris-0002", user_id=boris.pk)
    challenge = services.create_challenge(white, colour="white", rated=True)
    game = services.accept_challenge(challenge.pk, black)
    seats = {
        "white": session_with(white.guest_id, anna),
        "black": session_with(black.guest_id, boris),
    }
    watcher = make_account("Watcher")
    onlookers = [
        None,
        session_with("guest-id-of-an-onlooker-3"),
        session_with("guest-id-of-watcher-0004", watcher),
    ]
    secrets = Secrets(
        game, sessions=[*seats.values(), *onlookers[1:]], users=[anna, boris, watcher]
    )

    snapshot = check_page(game, secrets)
    assert snapshot["rated"] is True
    assert snapshot["players"]["white"]["name"] == "Anna"
    assert snapshot["players"]["white"]["profile"] == reverse(
        "games:player", kwargs={"user_id": anna.pk}
    )
    signed_in = Client()
    signed_in.force_login(watcher)
    check_page(game, secrets, signed_in)

    log = play_through_sockets(game.pk, seats, onlookers, secrets, finish_by="black")
    final = log[-1]["game"]
    assert final["result"]["winner"] == "white"
    assert set(final["result"]["rating"]) == {"white", "black"}
    assert final["fairness"]["seed"] == Game.objects.get(pk=game.pk).seed  # revealed at the end
    check_page(Game.objects.get(pk=game.pk), secrets)


def test_a_game_against_the_computer_shows_onlookers_nothing_private():
    guest = "guest-id-of-a-bot-player-5"
    game = services.create_bot_game(guest, preset="classic", cube=True, clock=True)
    seats = {game.side_of_guest(guest): session_with(guest)}
    onlookers = [None, session_with("guest-id-of-an-onlooker-6")]
    secrets = Secrets(game, sessions=[*seats.values(), *onlookers[1:]])
    assert check_page(game, secrets)["rated"] is False
    play_through_sockets(game.pk, seats, onlookers, secrets, turns=3)


def test_a_casual_challenge_game_between_guests_shows_onlookers_nothing_private():
    creator, friend = "guest-id-of-the-creator-7", "guest-id-of-the-friend-8"
    challenge = services.create_challenge(creator, preset="match", match_length=3, colour="black")
    game = services.accept_challenge(challenge.pk, friend)
    seats = {"black": session_with(creator), "white": session_with(friend)}
    onlookers = [None, session_with("guest-id-of-an-onlooker-9")]
    secrets = Secrets(game, sessions=[*seats.values(), *onlookers[1:]])
    snapshot = check_page(game, secrets)
    assert snapshot["match"]["length"] == 3
    assert snapshot["players"]["white"]["profile"] is None
    play_through_sockets(game.pk, seats, onlookers, secrets, finish_by="white")


def test_an_onlookers_http_requests_change_nothing():
    game = services.accept_challenge(
        services.create_challenge("guest-id-of-the-creator-a").pk, "guest-id-of-the-friend-b"
    )
    client = Client()
    with unchanged(game.pk):
        client.get(reverse("games:game", kwargs={"game_id": game.pk}))
        # The record and the replay stay closed to onlookers until the game is over.
        assert client.get(reverse("games:replay", kwargs={"game_id": game.pk})).status_code == 404
        assert client.get(reverse("games:record", kwargs={"game_id": game.pk})).status_code == 404
