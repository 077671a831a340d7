"""The chat over the real socket stack (the site's ASGI app, Redis channel layer): a preset
reaches the opponent in the opponent's language, and how fast (median of 20); the chat
frames' errors; hostile names and messages leave no unescaped character in any frame or in
the game page; a flood of chat slows neither player's moves more than a flood of plain
frames does (docs/protocol.md "Chat", "Rate limits")."""

import asyncio
import json
import random
import re
import statistics
import time

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone

from games import services
from games.chat.models import ChatMessage
from games.chat.reading import AFTER_END
from games.chat.tests.helpers import people_game, signed_in_game
from games.lobby.tests.test_lobby import signed_in_cookie
from games.room.models import Game, GameEvent
from games.room.tests.test_consumers import TIMEOUT, origin, run, session_cookie
from games.tests.factories import BLACK_GUEST, WHITE_GUEST, random_legal_play

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]

RNG = random.Random(7)

HOSTILE = ("<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "&amp;")


def socket(game_id, cookie, lang="en"):
    from nardy_site.asgi import application

    return WebsocketCommunicator(
        application,
        f"/ws/game/{game_id}/?lang={lang}",
        headers=[(b"origin", origin().encode()), (b"cookie", cookie.encode())],
    )


class Reader:
    """A connected socket that keeps every raw frame it reads."""

    def __init__(self, comm):
        self.comm, self.raw = comm, []

    async def open(self):
        assert (await self.comm.connect(timeout=TIMEOUT))[0]
        return (await self.next("snapshot"))["game"]

    async def next(self, kind, timeout=TIMEOUT, code=None):
        """The next frame of type ``kind`` (and error ``code``), others passed over."""
        deadline = time.monotonic() + timeout
        while True:
            text = await self.comm.receive_from(timeout=max(0.05, deadline - time.monotonic()))
            self.raw.append(text)
            frame = json.loads(text)
            if frame["type"] == kind and (code is None or frame.get("code") == code):
                return frame

    async def send(self, frame):
        await self.comm.send_to(text_data=json.dumps(frame))

    async def past(self, version, timeout=TIMEOUT):
        """Frames until one shows the game past ``version``: an event or, when a snapshot the
        socket asked for came first, that snapshot (the event is then old news)."""
        deadline = time.monotonic() + timeout
        while True:
            text = await self.comm.receive_from(timeout=max(0.05, deadline - time.monotonic()))
            self.raw.append(text)
            frame = json.loads(text)
            shown = frame.get("version") if frame["type"] == "event" else None
            if frame["type"] == "snapshot":
                shown = frame["game"]["version"]
            if shown is not None and shown > version:
                return frame

    async def drain(self, quiet=0.2):
        while not await self.comm.receive_nothing(timeout=quiet):
            self.raw.append(await self.comm.receive_from())


async def readers(game_id, cookies, langs):
    made = [Reader(socket(game_id, cookie, lang)) for cookie, lang in zip(cookies, langs)]
    for reader in made:
        await reader.open()
    for reader in made:
        await reader.drain()
    return made


def test_a_preset_reaches_the_opponent_in_their_language_within_a_fifth_of_a_second(
    fixed, settings
):
    settings.GAMES_CHAT_SESSION_LIMITS = ""  # 20 messages at once: the limit has its own test
    game = people_game(fixed)
    cookies = [session_cookie(WHITE_GUEST), session_cookie(BLACK_GUEST)]
    timings = []

    async def scenario():
        white, black = await readers(game.pk, cookies, ["en", "ru"])
        for _ in range(20):
            started = time.perf_counter()
            await white.send({"type": "chat", "preset": "good_luck"})
            frame = await black.next("chat")
            timings.append(time.perf_counter() - started)
            assert frame["message"]["text"] == "Удачи!" and frame["message"]["from"] == "white"
            assert frame["message"]["mine"] is False
            mine = await white.next("chat")
            assert mine["message"]["text"] == "Good luck!" and mine["message"]["mine"] is True
        for reader in (white, black):
            await reader.comm.disconnect()

    run(scenario)
    median = statistics.median(timings)
    p95 = sorted(timings)[int(0.95 * len(timings)) - 1]
    print(f"chat preset to the opponent: median {median * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms")
    assert Game.objects.get(pk=game.pk).version == game.version
    assert median <= 0.2


def test_chat_frames_are_refused_with_their_reasons_and_change_no_version(fixed):
    game, white, _black = signed_in_game(fixed=fixed)
    guest_cookie = session_cookie(BLACK_GUEST)  # the guest seat, not signed in
    white_cookie = signed_in_cookie(Game.objects.get(pk=game.pk).white_user)

    async def scenario():
        guest, player = await readers(game.pk, [guest_cookie, white_cookie], ["ru", "en"])
        await guest.send({"type": "chat", "text": "hello"})
        refused = await guest.next("error")
        await player.send({"type": "chat", "text": "x" * 141})
        too_long = await player.next("error")
        await player.send({"type": "chat", "preset": 5})
        bad = await player.next("error")
        await player.send({"type": "chat_mute"})
        bad_mute = await player.next("error")
        await player.send({"type": "chat_report", "id": 10**9})
        unknown = await player.next("error")
        await player.send({"type": "chat", "text": "  fine  "})
        said = await guest.next("chat")
        for reader in (guest, player):
            await reader.comm.disconnect()
        return refused, too_long, bad, bad_mute, unknown, said

    refused, too_long, bad, bad_mute, unknown, said = run(scenario)
    assert refused["code"] == "chat_not_allowed" and "Только" in refused["message"]
    assert too_long["code"] == "chat_too_long" and "140" in too_long["message"]
    assert bad["code"] == bad_mute["code"] == "bad_frame"
    assert unknown["code"] == "no_such_message"
    assert said["message"]["text"] == "fine" and said["message"]["preset"] is None
    assert Game.objects.get(pk=game.pk).version == game.version


def test_hostile_names_and_messages_leave_no_unescaped_character_in_frames_or_pages(fixed):
    game, white, black = signed_in_game(HOSTILE[0], HOSTILE[1], fixed=fixed)
    game.refresh_from_db()
    cookies = [signed_in_cookie(game.white_user), signed_in_cookie(game.black_user)]

    async def scenario():
        mine, theirs = await readers(game.pk, cookies, ["en", "bg"])
        for text in HOSTILE:
            await theirs.send({"type": "chat", "text": text})
            assert (await mine.next("chat"))["message"]["text"] == text
        await mine.send({"type": "snapshot"})
        snapshot = await mine.next("snapshot")
        await theirs.drain()
        for reader in (mine, theirs):
            await reader.comm.disconnect()
        return snapshot, mine.raw + theirs.raw

    snapshot, raw = run(scenario)
    assert [m["text"] for m in snapshot["game"]["chat"]["messages"]] == list(HOSTILE)
    assert [p["name"] for p in snapshot["game"]["players"].values()] == list(HOSTILE[:2])
    unescaped = sum(text.count(ch) for text in raw for ch in "<>&")
    assert len(raw) > 5 and unescaped == 0

    client = Client()
    client.force_login(game.white_user)
    page = client.get(f"/en/game/{game.pk}/").content.decode()
    data = re.search(
        r'<script id="initial-snapshot" type="application/json">(.*?)</script>', page, re.S
    )
    assert data and sum(data.group(1).count(ch) for ch in "<>&") == 0
    shown = json.loads(data.group(1))
    assert [m["text"] for m in shown["chat"]["messages"]] == list(HOSTILE)
    replay = client.get(f"/en/game/{game.pk}/replay/").content.decode()
    for html in (page, replay):
        assert HOSTILE[0] not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in replay and "&amp;amp;" in replay
    assert ChatMessage.objects.count() == 3


def test_a_surrogate_invisible_text_and_a_message_after_the_end_are_answered_as_errors(
    fixed, caplog
):
    game, white, _black = signed_in_game(fixed=fixed)
    cookie = signed_in_cookie(Game.objects.get(pk=game.pk).white_user)

    async def scenario():
        (player,) = await readers(game.pk, [cookie], ["en"])
        await player.comm.send_to(text_data='{"type": "chat", "text": "ab\\ud800cd"}')
        kept = await player.next("chat")
        await player.send({"type": "chat", "text": "\u200b\u202e\u2066"})
        empty = await player.next("error")
        await sync_to_async(end_long_ago)()
        await player.send({"type": "chat", "preset": "bye"})
        over = await player.next("error")
        await player.drain()
        await player.comm.disconnect()
        return kept, empty, over, player.raw

    def end_long_ago():
        services.resign(game.pk, white, Game.objects.get(pk=game.pk).version)
        GameEvent.objects.filter(game=game).update(created=timezone.now() - AFTER_END)

    kept, empty, over, raw = run(scenario)
    assert kept["message"]["text"] == "abcd"
    assert empty["code"] == "bad_frame" and empty["message"] == "The message is empty."
    assert over["code"] == "chat_over"
    assert not any('"server_error"' in text for text in raw)
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]
    assert ChatMessage.objects.get().text == "abcd"


async def play_turns(mover_of, turns, timings, timeout=TIMEOUT):
    """Play ``turns`` turns over the sockets (``mover_of(side)``: the Reader of that side; the
    other side's Reader is its opponent's), timing each play from its frame to the
    opponent's event of it."""
    for _ in range(turns):
        game = await sync_to_async(Game.objects.get)()
        side = game.awaiting
        mover, opponent = mover_of[side], mover_of["black" if side == "white" else "white"]
        if game.phase == "roll":
            await mover.send({"type": "roll", "version": game.version})
            await mover.past(game.version, timeout)
            game = await sync_to_async(Game.objects.get)()
        play = await sync_to_async(random_legal_play)(game, RNG)
        started = time.perf_counter()
        await mover.send({"type": "play", "version": game.version, "play": play})
        await opponent.past(game.version, timeout)
        timings.append(time.perf_counter() - started)
        await mover.past(game.version, timeout)


def test_a_chat_flood_slows_no_ones_moves_more_than_a_flood_of_plain_frames(fixed):
    game = people_game(fixed)
    cookies = [session_cookie(WHITE_GUEST), session_cookie(BLACK_GUEST)]
    phases = {"quiet": [], "frame flood": [], "chat flood": []}

    async def flood(reader, frame, stop):
        # 8 a second: under the frame limit (20 a second), so moves go through, and no more
        # snapshots than a loaded CI machine builds in a second (a backlog would time out)
        while not stop.is_set():
            await reader.send(frame)
            await asyncio.sleep(1 / 8)

    async def scenario():
        white, black = await readers(game.pk, cookies, ["en", "en"])
        sides = {"white": white, "black": black}
        await play_turns(sides, 6, phases["quiet"])
        for name, frame in (
            ("frame flood", {"type": "snapshot"}),
            ("chat flood", {"type": "chat", "preset": "oops"}),
        ):
            stop = asyncio.Event()
            flooding = asyncio.ensure_future(flood(white, frame, stop))
            await play_turns(sides, 6, phases[name], timeout=20)
            stop.set()
            await flooding
            await white.drain()
            await black.drain()
        for reader in (white, black):
            await reader.comm.disconnect()

    run(scenario)
    medians = {name: statistics.median(times) * 1000 for name, times in phases.items()}
    print(
        "move to the opponent's event, median ms: "
        + ", ".join(f"{k} {v:.1f}" for k, v in medians.items())
    )
    # the chat limit lets 5 messages through, the rest cost a Redis call each and no query
    assert ChatMessage.objects.count() <= 10
    assert medians["chat flood"] <= max(2 * medians["frame flood"], medians["quiet"] + 100)
