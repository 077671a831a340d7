"""Real clients of a running site, for the multi-server and fault tests: a guest's browser
session over HTTP (``requests``: cookies, CSRF, the challenge-link flow) and game sockets
(the ``websockets`` library) against Daphne processes, plus a player that picks its plays with
the rules engine. Nothing here touches the database: the clients see only what the servers
send, as a browser would."""

import asyncio
import json
import re
import time

import requests
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from games.engine import Position, legal_plays
from games.engine.rules import get_ruleset
from games.loadtool.gameview import GAP, GameView

CHALLENGE_PATH = re.compile(r"/challenge/([0-9a-f-]{36})/$")
GAME_PATH = re.compile(r"/game/([0-9a-f-]{36})/$")
#: how long a client waits for a frame it expects (s); generous for a loaded 2-core machine
FRAME_TIMEOUT = 20


class Guest:
    """One browser: a ``requests`` session holding the site's cookies (session, CSRF). The
    cookies belong to the host, not the port, so the same guest is known to every Daphne
    process of the site (their sessions live in the shared database)."""

    def __init__(self, name="guest"):
        self.name = name
        self.http = requests.Session()

    def get(self, base, path, **kwargs):
        """GET ``base + path``; raises for an HTTP error. Returns the response."""
        response = self.http.get(base + path, timeout=30, **kwargs)
        response.raise_for_status()
        return response

    def post(self, base, path, data, form_page=None):
        """POST the form ``data`` to ``base + path`` with the CSRF token of this browser (taken
        from a GET of ``form_page``, default ``path``, when it has none yet); follows the
        redirect. Raises for an HTTP error. Returns the final response."""
        if "csrftoken" not in self.http.cookies:
            self.get(base, form_page or path)
        response = self.http.post(
            base + path,
            data=data,
            timeout=30,
            headers={"X-CSRFToken": self.http.cookies["csrftoken"]},
        )
        response.raise_for_status()
        return response

    def cookie_header(self):
        """The ``Cookie`` header a browser sends with its game socket."""
        return "; ".join(f"{name}={value}" for name, value in self.http.cookies.items())


def people_game(base, creator, friend, preset="sport", colour="white"):
    """A casual game between two guests made as people make one: ``creator`` fills in "Play a
    friend" (``/en/friend/``) and ``friend`` opens the link and accepts it. Returns the game
    id (str). The creator plays ``colour``."""
    page = creator.post(base, "/en/friend/", {"preset": preset, "colour": colour})
    challenge_id = CHALLENGE_PATH.search(page.url).group(1)
    friend.get(base, f"/en/challenge/{challenge_id}/")
    game_page = friend.post(base, f"/en/challenge/{challenge_id}/accept/", {})
    return GAME_PATH.search(game_page.url).group(1)


def bot_game(base, guest, level="easy", side="white"):
    """A game of ``guest`` against the computer started from the home page's form
    (``/en/new/``). Returns its id (str)."""
    page = guest.post(base, "/en/new/", {"level": level, "side": side}, form_page="/en/")
    return GAME_PATH.search(page.url).group(1)


class GameSocket:
    """One open game socket (``ws/game/<id>/``) of a viewer on one server, keeping
    the game as the page does (docs/protocol.md "Events": the snapshot, then each event
    applied; a gap or a touch above the version held asks for a snapshot). A background task
    reads every frame into ``frames``; ``snapshots`` holds each state of the game the socket
    held, in order. ``closed_at`` (time.monotonic) is set once the connection ends."""

    def __init__(self, name, server, ws):
        self.name = name
        self.server = server
        self.ws = ws
        self.view = GameView(keep=True)
        self.frames = []
        self.closed_at = None
        self._changed = asyncio.Condition()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, server, game_id, guest=None, name=None, timeout=FRAME_TIMEOUT):
        """Open the socket of ``guest`` (None: an onlooker without cookies) on ``server`` (a
        ``DaphneServer``), with the Origin of that server's pages, and wait for its first
        snapshot (at most ``timeout`` seconds; else the socket is closed and AssertionError
        raised). Returns the GameSocket."""
        headers = {"Cookie": guest.cookie_header()} if guest is not None else {}
        uri = f"ws://127.0.0.1:{server.port}/ws/game/{game_id}/?lang=en"
        ws = await connect(
            uri,
            origin=server.base,
            additional_headers=headers,
            open_timeout=timeout,
            max_size=2**22,
        )
        socket = cls(name or (guest.name if guest else "onlooker"), server, ws)
        try:
            await socket.wait_for(lambda: socket.snapshots, timeout, what="the first snapshot")
        except BaseException:
            await socket.close()
            raise
        return socket

    async def _read(self):
        try:
            async for message in self.ws:
                async with self._changed:
                    frame = json.loads(message)
                    self.frames.append(frame)
                    behind = (
                        frame.get("type") == "touch"
                        and self.view.game is not None
                        and (frame["version"] > self.view.game["version"])
                    )
                    if self.view.take(frame) == GAP or behind:
                        await self.send({"type": "snapshot"})
                    self._changed.notify_all()
        except ConnectionClosed:
            pass
        finally:
            async with self._changed:
                self.closed_at = time.monotonic()
                self._changed.notify_all()

    @property
    def snapshots(self):
        """Every state of the game this socket held (from a snapshot or an event), in order."""
        return self.view.games

    @property
    def latest(self):
        """The newest snapshot's game (by version), or None."""
        snaps = self.snapshots
        return max(snaps, key=lambda snap: snap["version"]) if snaps else None

    def errors(self):
        return [frame for frame in self.frames if frame["type"] == "error"]

    async def wait_for(self, predicate, timeout=FRAME_TIMEOUT, what="a frame"):
        """Wait until ``predicate()`` is true (checked after each frame); raises
        AssertionError after ``timeout`` seconds or if the socket closes first."""

        async def until():
            async with self._changed:
                while not predicate():
                    if self.closed_at is not None:
                        raise AssertionError(
                            f"{self.name}: the socket closed before {what}; "
                            f"last frames {self.frames[-3:]}"
                        )
                    await self._changed.wait()

        try:
            await asyncio.wait_for(until(), timeout)
        except TimeoutError:
            raise AssertionError(
                f"{self.name}: no {what} within {timeout} s; last frames {self.frames[-3:]}"
            ) from None

    async def wait_version(self, version, timeout=FRAME_TIMEOUT):
        """Wait for a snapshot of at least ``version``; returns the newest snapshot."""
        await self.wait_for(
            lambda: self.latest is not None and self.latest["version"] >= version,
            timeout,
            what=f"snapshot of version {version}",
        )
        return self.latest

    async def send(self, frame):
        await self.ws.send(json.dumps(frame))

    async def act(self, frame, timeout=FRAME_TIMEOUT):
        """Send the action ``frame`` (made at ``frame["version"]``) and wait for the snapshot
        of the next version; a ``rate_limited`` answer makes it wait ``retry_after`` and send
        the frame again, as the game page does. Returns the newest snapshot."""
        version = frame["version"] + 1
        deadline = time.monotonic() + timeout

        def refused(since):
            return next((f for f in self.frames[since:] if f.get("code") == "rate_limited"), None)

        while True:
            since = len(self.frames)
            await self.send(frame)
            await self.wait_for(
                lambda since=since: (
                    (self.latest["version"] >= version) or refused(since) is not None
                ),
                max(deadline - time.monotonic(), 0.1),
                what=f"snapshot of version {version}",
            )
            if self.latest["version"] >= version:
                return self.latest
            await asyncio.sleep(float(refused(since)["retry_after"]))

    async def close(self):
        await self.ws.close()
        await self._reader


async def reconnect(
    server, game_id, guest=None, name=None, give_up=60, pause=0.5, first_snapshot=5
):
    """Open a socket as the game page does after losing one: try again every ``pause``
    seconds until one opens and sends its snapshot within ``first_snapshot`` seconds (a
    socket that opens but stays silent is closed and tried again). Returns ``(socket,
    failures)``, ``failures`` the failed attempts in order: "refused" (no connection),
    "closed" (closed before its snapshot) or "silent" (open, no snapshot in time); raises
    AssertionError after ``give_up`` seconds."""
    deadline = time.monotonic() + give_up
    failures = []
    while True:
        try:
            socket = await GameSocket.open(server, game_id, guest, name, timeout=first_snapshot)
            return socket, failures
        except AssertionError as error:
            failures.append("closed" if "closed before" in str(error) else "silent")
        except (OSError, TimeoutError, ConnectionClosed, InvalidHandshake):
            failures.append("refused")
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{name or 'socket'}: no connection to {server.base} within "
                f"{give_up} s (failed attempts: {failures})"
            )
        await asyncio.sleep(pause)


async def wait_socket_closed(socket, timeout=FRAME_TIMEOUT):
    """Wait until ``socket``'s connection has ended (e.g. its server was killed)."""
    deadline = time.monotonic() + timeout
    while socket.closed_at is None:
        if time.monotonic() > deadline:
            raise AssertionError(f"{socket.name}: still open after {timeout} s")
        await asyncio.sleep(0.01)


def engine_play(snap, rng):
    """A legal play of the snapshot's roll for its side to move, chosen by ``rng`` among the
    rules engine's own legal plays (not the server's list)."""
    options = snap["options"]
    table = (
        {"koks": options["koks"], "cube": options["cube"]} if snap["preset"] == "classic" else None
    )
    plays = legal_plays(
        Position.from_json(snap["position"]),
        tuple(snap["dice"]),
        get_ruleset(snap["preset"], table),
    )
    return rng.choice(plays).notation


def next_frame(snap, rng):
    """The frame the side to act sends in ``snap`` (phase roll: roll; phase play: an engine
    play, "" for a pass)."""
    if snap["phase"] == "roll":
        return {"type": "roll", "version": snap["version"]}
    assert snap["phase"] == "play", snap["phase"]
    return {"type": "play", "version": snap["version"], "play": engine_play(snap, rng)}


async def in_step(sockets, version, timeout=FRAME_TIMEOUT):
    """Wait until every socket of ``sockets`` has a snapshot of ``version`` or later; returns
    their newest snapshots. Checks that they all show the same game state."""
    snaps = [await socket.wait_version(version, timeout) for socket in sockets]
    first = snaps[0]
    for socket, snap in zip(sockets, snaps):
        assert (snap["version"], snap["position"], snap["phase"], snap["dice"]) == (
            first["version"],
            first["position"],
            first["phase"],
            first["dice"],
        ), f"{socket.name} sees version {snap['version']}, {sockets[0].name} {first['version']}"
    return snaps


async def take_step(players, watchers, rng, log):
    """One action of the side to act: its socket (``players[side]``) sends the engine's frame,
    then every socket (players and ``watchers``) must receive the resulting snapshot. Appends
    ``(side, frame, ms)`` to ``log``, ``ms`` the time from sending the frame until every
    socket had the new snapshot. Returns the new snapshot, or None if the game was already
    over."""
    snap = next(iter(players.values())).latest
    if snap["status"] != "active":
        return None
    side = snap["awaiting"]
    frame = next_frame(snap, rng)
    sent = time.monotonic()
    mine = await players[side].act(frame)
    await in_step(list(players.values()) + list(watchers), mine["version"])
    log.append((side, frame, (time.monotonic() - sent) * 1000))
    return mine


async def play_to_end(players, watchers, rng, log, max_steps=2000):
    """``take_step`` until the game is over; returns the last snapshot."""
    for _step in range(max_steps):
        snap = await take_step(players, watchers, rng, log)
        if snap is None:
            return next(iter(players.values())).latest
    raise AssertionError(f"the game did not end within {max_steps} actions")
