"""Scripted guests for the load tool: one asyncio event loop drives many sockets.

A game: guest A opens the challenge form and makes a casual challenge link (``/en/friend/``),
guest B opens the link and accepts it (``/en/challenge/<id>/accept/``), as two browsers would;
each keeps its session cookie. Both then open the game socket (docs/protocol.md) and play:
on each snapshot where it is their turn they wait a think time, then roll or send a legal
play picked at random from ``games.engine.legal_plays`` (so the server's and the engine's
rules are checked against each other on every move). The HTTP part runs in a thread pool
(``requests``); it is set-up only and is not timed.

Measured (``time.monotonic``, seconds; reported in ms):

- play round trip: a ``play`` frame sent by one side -> the first snapshot of a newer version
  received by the *opponent's* socket;
- roll round trip: a ``roll`` frame sent -> the first newer snapshot on the roller's socket;
- echo round trip (baseline, ``echo_pair``): a frame the size of a play frame sent to
  ``ws/echo/`` -> the same frame back.

Everything unexpected is counted in ``Stats.errors``: an ``error`` frame, a refused socket or
HTTP step, a socket closed by the server, a game ended by anything but bearing off or our own
resignation at the end of a run (a clock running out means the server fell that far behind),
and a game whose version did not change for ``stall`` seconds.
"""

import asyncio
import contextlib
import json
import random
import re
import time
from dataclasses import dataclass, field

import requests
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

from games.engine import Position, legal_plays
from games.loadtool.gameview import GAP, GameView

#: the page language the guests use (the snapshots' messages come in it)
LANG = "en"
#: HTTP timeout of a set-up step, seconds
HTTP_TIMEOUT = 60
#: how long a socket may take to open, seconds
OPEN_TIMEOUT = 60
#: largest frame accepted from the server (a late snapshot holds the whole history)
MAX_FRAME = 4 * 1024 * 1024
#: how long the end of a run waits for a resigned game to be over, seconds
FINISH_TIMEOUT = 30
#: how long an echo may take before it counts as lost, seconds
ECHO_TIMEOUT = 60
#: ways a game may end without counting as an error
CLEAN_ENDS = ("bore_off", "resign")
#: a player resigns only once it has made this many plays: before its first the server would
#: abort the game instead (docs/protocol.md "Aborts"), and an arena scores a win only against
#: a loser with ``ARENA_MIN_PLAYS`` (games/tournaments/rules.py MIN_LOSER_PLAYS; the client
#: imports no Django, a test checks the two agree)
MIN_PLAYS = 1
ARENA_MIN_PLAYS = 5

_CHALLENGE = re.compile(r"/challenge/([0-9a-f-]{36})/$")
_GAME = re.compile(r"/game/([0-9a-f-]{36})/$")


class SetupError(Exception):
    """An HTTP step of a game's set-up failed (its message says which and why)."""


class SiteFull(Exception):
    """The site refused the new game because it is full (HTTP 503 with ``Retry-After`` and
    the reason on the page, games.admission): not an error. ``retry_after`` in seconds;
    ``challenge``: the link whose acceptance was refused, to accept again later."""

    def __init__(self, retry_after, challenge=None):
        super().__init__(f"site full, retry after {retry_after} s")
        self.retry_after = retry_after
        self.challenge = challenge


@dataclass
class Challenge:
    """A challenge link made by guest A on ``base_a`` (``link``: its path) and not yet
    accepted by guest B on ``base_b``; ``a`` and ``b`` are the guests' HTTP sessions (their
    cookies); ``token``: B's CSRF token once B has opened the link."""

    a: requests.Session
    b: requests.Session
    link: str
    base_a: str
    base_b: str
    token: str = ""

    def close(self):
        """Close both guests' HTTP sessions."""
        self.a.close()
        self.b.close()


@dataclass
class Stats:
    """What one client process measured. Samples are ``(t_sent, ms)``, ``t_sent`` from
    ``time.monotonic()`` (one clock for every process of the machine); errors are
    ``(t, text)``. ``games_over`` counts finished games by end reason (``result.reason``);
    ``rate_limited`` the frames refused with ``rate_limited`` (not errors: the player waits
    ``retry_after`` and sends again, as the game page does); ``gaps`` the events that did not
    build on the game a player held (it asked for a snapshot, as the game page does)."""

    play: list = field(default_factory=list)
    roll: list = field(default_factory=list)
    echo: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    games_started: int = 0
    games_over: dict = field(default_factory=dict)
    actions: list = field(default_factory=list)  # t of each action frame sent
    rate_limited: int = 0  # frames the server refused as too quick (sent again after the wait)
    gaps: int = 0  # events that did not follow the version held (a snapshot was asked for)
    refused: int = 0  # new games the site refused as full (503 with its reason; not errors)

    def error(self, text):
        self.errors.append((time.monotonic(), str(text)[:300]))

    def merge(self, other):
        """Add ``other``'s samples and counts to these."""
        self.play += other.play
        self.roll += other.roll
        self.echo += other.echo
        self.errors += other.errors
        self.actions += other.actions
        self.games_started += other.games_started
        self.rate_limited += other.rate_limited
        self.gaps += other.gaps
        self.refused += other.refused
        for reason, count in other.games_over.items():
            self.games_over[reason] = self.games_over.get(reason, 0) + count


def open_socket(path, base, cookie):
    """``websockets.connect`` of the socket ``path`` (``/ws/…``) on the server ``base``, as a
    page of that origin holding ``cookie`` (a Cookie header value) opens it."""
    return connect(
        f"{ws_base(base)}{path}",
        origin=base,
        additional_headers={"Cookie": cookie},
        open_timeout=OPEN_TIMEOUT,
        ping_interval=None,
        max_size=MAX_FRAME,
        max_queue=None,
    )


def ws_base(base):
    """``http://host:port`` -> ``ws://host:port`` (``https`` -> ``wss``)."""
    return "ws" + base[len("http") :] if base.startswith("http") else base


# --- set-up over HTTP (sync, run in a thread pool) ------------------------------------------


def form_token(session, url):
    """GET ``url`` with ``session`` and return the CSRF token its cookie holds. Raises
    SetupError for another answer than 200 or no token."""
    response = session.get(url, timeout=HTTP_TIMEOUT)
    if response.status_code != 200:
        raise SetupError(f"GET {url}: HTTP {response.status_code}")
    token = session.cookies.get("csrftoken")
    if not token:
        raise SetupError(f"GET {url} set no CSRF cookie")
    return token


def _redirect_id(response, pattern, what):
    location = response.headers.get("Location", "")
    found = pattern.search(location)
    if response.status_code != 302 or not found:
        raise SetupError(
            f"{what}: HTTP {response.status_code} to {location!r}, "
            f"expected a redirect to the {what.split()[0]}"
        )
    return location, found.group(1)


def cookie_header(session):
    """The Cookie header a browser holding ``session``'s cookies would send."""
    return "; ".join(f"{cookie.name}={cookie.value}" for cookie in session.cookies)


def create_game(base_a, base_b, preset="sport", challenge=None):
    """Two new guests get a casual game of ``preset`` between them through a challenge link:
    A makes it on ``base_a`` (colour random, the preset's clock), B opens it on ``base_b``
    and accepts it. With ``challenge`` (a ``Challenge`` whose acceptance a full site refused)
    B presses accept again on the page it was refused on, as a person told to come back
    later does.
    Returns ``(game_id, cookie_a, cookie_b)``, the cookies as Cookie header values.
    Raises SiteFull (the site refused the game, with its reason, Retry-After and the
    challenge to accept later), SetupError (an unexpected answer) or
    ``requests.RequestException``."""
    if challenge is None:
        a, b = requests.Session(), requests.Session()
        try:
            form = f"{base_a}/{LANG}/friend/"
            token = form_token(a, form)
            response = a.post(
                form,
                data={"csrfmiddlewaretoken": token, "preset": preset, "colour": "random"},
                allow_redirects=False,
                timeout=HTTP_TIMEOUT,
            )
            link, _challenge = _redirect_id(response, _CHALLENGE, "challenge POST")
        except BaseException:
            a.close()
            b.close()
            raise
        challenge = Challenge(a, b, link, base_a, base_b)
    try:
        b = challenge.b
        # a refused guest still has the link's page, its form and token: it presses again
        if not challenge.token:
            challenge.token = form_token(b, f"{challenge.base_b}{challenge.link}")
        response = b.post(
            f"{challenge.base_b}{challenge.link}accept/",
            data={"csrfmiddlewaretoken": challenge.token},
            allow_redirects=False,
            timeout=HTTP_TIMEOUT,
        )
        if response.status_code == 503:
            retry = response.headers.get("Retry-After", "")
            if not retry.isdigit() or 'id="challenge-error"' not in response.text:
                raise SetupError("game accept POST: HTTP 503 without Retry-After or reason")
            full = SiteFull(int(retry), challenge)
            challenge = None  # kept open for the retry
            raise full
        _page, game_id = _redirect_id(response, _GAME, "game accept POST")
        return game_id, cookie_header(challenge.a), cookie_header(b)
    finally:
        if challenge is not None:
            challenge.close()


# --- the game sockets -------------------------------------------------------------------------


def pick_play(game, rng):
    """A legal play (RULES.md notation, ``""`` for a pass) for the side to move in the
    ``game`` object (a snapshot's, events applied), chosen at random among
    ``games.engine.legal_plays``."""
    position = Position.from_json(game["position"])
    plays = legal_plays(position, game["dice"], game["preset"])
    return rng.choice(plays).notation


class Table:
    """One game between two scripted guests: its players, timing and end.

    ``think`` is the mean pause before each action in seconds (each pause uniform in
    0.5-1.5 times it); ``stall`` the seconds without a new version after which the game is
    counted as an error and dropped; ``min_plays`` the plays a side makes before it may
    resign (until then a game asked to end is played on)."""

    def __init__(self, game_id, stats, rng, think, stall, min_plays=MIN_PLAYS):
        self.game_id = game_id
        self.stats = stats
        self.rng = rng
        self.think = think
        self.stall = stall
        self.min_plays = min_plays
        self.players = []
        self.pending_play = None  # (version sent at, t sent, side)
        self.pending_roll = None
        self.top_version = -1
        self.changed_at = time.monotonic()
        self.stopping = False
        self.result = None
        self.over = asyncio.Event()

    def pause(self):
        """A think time, seconds."""
        return self.think * (0.5 + self.rng.random()) if self.think > 0 else 0.0

    def seen(self, player, game, now):
        """Bookkeeping of a newer snapshot ``game`` received by ``player`` at ``now``."""
        version = game["version"]
        pending = self.pending_play
        if pending and version > pending[0] and player.side != pending[2]:
            self.stats.play.append((pending[1], (now - pending[1]) * 1000))
            self.pending_play = None
        pending = self.pending_roll
        if pending and version > pending[0] and player.side == pending[2]:
            self.stats.roll.append((pending[1], (now - pending[1]) * 1000))
            self.pending_roll = None
        if version > self.top_version:
            self.top_version = version
            self.changed_at = now
        if game["status"] != "active" and self.result is None:
            self.result = game.get("result") or {"reason": game["status"]}
            reason = self.result.get("reason") or game["status"]
            self.stats.games_over[reason] = self.stats.games_over.get(reason, 0) + 1
            if reason not in CLEAN_ENDS or (reason == "resign" and not self.stopping):
                self.stats.error(f"game {self.game_id} ended: {reason}")
            self.over.set()

    async def play(self, stop, bases, cookies):
        """Open both sockets and play until the game is over; once ``stop`` is set, the side
        to act resigns (it is not an error). Returns when the game is over, stalled or its
        sockets failed; both sockets are closed then."""
        self.players = [Player(self, base, cookie) for base, cookie in zip(bases, cookies)]
        tasks = [asyncio.ensure_future(player.run()) for player in self.players]
        stopper = asyncio.ensure_future(stop.wait())
        try:
            while not self.over.is_set():
                done = await _first(self.over.wait(), stopper, *tasks, timeout=1.0)
                if stopper in done and not self.stopping:
                    self.stopping = True
                    await self._resign_and_wait()
                    break
                if any(task in done for task in tasks) and not self.over.is_set():
                    break  # a socket ended before the game did (its error is counted)
                if time.monotonic() - self.changed_at > self.stall:
                    self.stats.error(
                        f"game {self.game_id} stalled at version {self.top_version} "
                        f"for {self.stall:.0f} s"
                    )
                    break
        finally:
            stopper.cancel()
            for player in self.players:
                player.closing = True
            await asyncio.gather(*(player.close() for player in self.players))
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _resign_and_wait(self):
        # The first side to act that has made its plays resigns (the other plays on until
        # then); a stale version is retried on the next snapshot.
        for player in self.players:
            player.resign_wanted = True
            player.wake.set()
        # the plays still to make before a side may resign take their think times too
        wait = FINISH_TIMEOUT + 2 * self.min_plays * 1.5 * self.think
        try:
            await asyncio.wait_for(self.over.wait(), wait)
        except TimeoutError:
            self.stats.error(f"game {self.game_id}: resignation not answered in {wait:.0f} s")


async def _first(*awaitables, timeout):
    """The set of those of ``awaitables`` (tasks or coroutines) done within ``timeout``;
    coroutines wrapped here are cancelled afterwards, tasks are left running."""
    wrapped = [a if isinstance(a, asyncio.Future) else asyncio.ensure_future(a) for a in awaitables]
    try:
        done, _pending = await asyncio.wait(
            wrapped, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        for original, task in zip(awaitables, wrapped):
            if task is not original:
                task.cancel()
    return done


class Player:
    """One guest's game socket: a reader (snapshots, timing) and an actor (decisions).
    ``side`` is what the snapshots say it plays; ``version`` the newest version seen."""

    def __init__(self, table, base, cookie):
        self.table = table
        self.base = base
        self.cookie = cookie
        self.side = None
        self.version = -1
        self.latest = None
        self.acted = -1  # the version this player last sent an action at
        self.retry_at = 0.0  # no frame before this (time.monotonic) after a rate_limited
        self.resign_wanted = False
        self.closing = False
        self.ws = None
        self.wake = asyncio.Event()
        self.view = GameView()  # the game as the snapshot and the events since make it

    async def run(self):
        table, stats = self.table, self.table.stats
        path = f"/ws/game/{table.game_id}/?lang={LANG}"
        try:
            async with open_socket(path, self.base, self.cookie) as ws:
                self.ws = ws
                actor = asyncio.ensure_future(self._act())
                try:
                    async for message in ws:
                        self._receive(message)
                finally:
                    actor.cancel()
                if not self.closing and not table.over.is_set():
                    stats.error(
                        f"game {table.game_id}: socket closed by the server ({ws.close_code})"
                    )
        except (TimeoutError, OSError, WebSocketException) as exc:
            if not self.closing:
                stats.error(f"game {table.game_id}: socket failed: {exc!r}")

    async def close(self):
        if self.ws is not None:
            with contextlib.suppress(OSError, WebSocketException):
                await self.ws.close()

    def _receive(self, message):
        now = time.monotonic()
        table = self.table
        frame = json.loads(message)
        kind = frame.get("type")
        if kind == "error" and frame.get("code") == "rate_limited":
            # the frame was not handled: send it again once the wait is over
            table.stats.rate_limited += 1
            self.retry_at = now + float(frame.get("retry_after") or 1.0)
            self.acted = -1
            self.wake.set()
            return
        if kind == "error":
            # at the end of a run our resignation may race a move in flight: not an error
            if not (table.stopping and frame.get("code") in ("stale_version", "game_over")):
                table.stats.error(
                    f"game {table.game_id} error frame: {frame.get('code')}: {frame.get('message')}"
                )
            return
        if kind == "touch":
            if self.view.game is not None and frame["version"] > self.view.game["version"]:
                self._ask_snapshot()  # behind: an event went missing
            return
        taken = self.view.take(frame)
        if taken == GAP:
            table.stats.gaps += 1
            self._ask_snapshot()
            return
        if not taken:
            return  # old news or another frame (docs/protocol.md)
        game = self.view.game
        if game["you"] is None:
            table.stats.error(
                f"game {table.game_id}: the server does not see this guest as a player"
            )
        self.side = game["you"]
        self.version = game["version"]
        self.latest = game
        table.seen(self, game, now)
        self.wake.set()

    def _ask_snapshot(self):
        if self.ws is not None:
            asyncio.ensure_future(self._send_quietly({"type": "snapshot"}))

    async def _send_quietly(self, frame):
        """Send ``frame`` unless the socket has closed meanwhile (the game ended)."""
        with contextlib.suppress(OSError, WebSocketException):
            await self.ws.send(json.dumps(frame))

    def _decide(self, game):
        """The frame to send for ``game`` (a snapshot's game object), or None."""
        actions = game["actions"]
        version = game["version"]
        if version <= self.acted:
            return None  # acted on this version already (a stale action brings a newer one)
        if self.resign_wanted and self.plays_made(game) >= self.table.min_plays:
            return {"type": "resign", "version": version} if "resign" in actions else None
        if game["awaiting"] != self.side:
            return None
        if "roll" in actions:
            return {"type": "roll", "version": version}
        if "play" in actions:
            return {"type": "play", "version": version, "play": pick_play(game, self.table.rng)}
        if "take" in actions:  # no cube in the load tool's presets; answered all the same
            return {"type": "take", "version": version}
        return None

    def plays_made(self, game):
        """How many plays (not passes) this player's side has made in ``game``."""
        return sum(
            1
            for entry in game.get("history") or ()
            if entry.get("kind") == "play" and entry.get("side") == self.side and entry.get("play")
        )

    async def _act(self):
        table = self.table
        while True:
            await self.wake.wait()
            self.wake.clear()
            game = self.latest
            if game is None or game["status"] != "active":
                continue
            frame = self._decide(game)
            if frame is None:
                continue
            pause = table.pause() if frame["type"] != "resign" else 0.0
            pause = max(pause, self.retry_at - time.monotonic())
            if pause > 0:
                await asyncio.sleep(pause)
                if self.latest["version"] != game["version"]:
                    self.wake.set()  # things moved on meanwhile: decide again
                    continue
            self.acted = game["version"]
            sent = time.monotonic()
            if frame["type"] == "play":
                table.pending_play = (game["version"], sent, self.side)
            elif frame["type"] == "roll":
                table.pending_roll = (game["version"], sent, self.side)
            table.stats.actions.append(sent)
            await self.ws.send(json.dumps(frame))


# --- the echo baseline ------------------------------------------------------------------------


def echo_frame(version):
    """A frame the size of an ordinary play frame (about 55 characters)."""
    return json.dumps({"type": "play", "version": version, "play": "24/18 18/13"})


async def echo_pair(bases, stats, rng, think, stop, opened):
    """Two echo sockets (``ws/echo/`` on ``bases[0]`` and ``bases[1]``) taking turns like the
    two players of a game: one frame in flight per pair, a think time before each. Calls
    ``opened()`` once both are open; runs until ``stop`` is set."""
    table = Table("echo", stats, rng, think, stall=0)
    sockets = []
    try:
        for base in bases:
            sockets.append(
                await connect(
                    f"{ws_base(base)}/ws/echo/",
                    origin=base,
                    open_timeout=OPEN_TIMEOUT,
                    ping_interval=None,
                )
            )
        opened()
        version = 0
        while not stop.is_set():
            for ws in sockets:
                pause = table.pause()
                if pause:
                    await asyncio.sleep(pause)
                if stop.is_set():
                    break
                version += 1
                frame = echo_frame(version)
                sent = time.monotonic()
                await ws.send(frame)
                answer = await asyncio.wait_for(ws.recv(), ECHO_TIMEOUT)
                stats.echo.append((sent, (time.monotonic() - sent) * 1000))
                stats.actions.append(sent)
                if answer != frame:
                    stats.error(f"echo answered {answer[:80]!r} to {frame!r}")
    except (TimeoutError, OSError, WebSocketException) as exc:
        stats.error(f"echo socket failed: {exc!r}")
    finally:
        for ws in sockets:
            with contextlib.suppress(OSError, WebSocketException):
                await ws.close()


async def _sleep_unless(stop, seconds):
    """Sleep ``seconds``, or less if ``stop`` (an asyncio.Event) is set meanwhile."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


# --- one client process -----------------------------------------------------------------------


@dataclass
class ClientPlan:
    """What one client process runs: ``tables`` of the games (or echo pairs) of ``config``,
    a ``games.loadtool.runner.RunConfig`` (servers, think time, preset, echo or games, to the
    end or until told to stop, seed, stall, set-up threads, ramp rate, retry pause: see
    there), as client process number ``index`` of ``processes``. Its tables are numbers
    ``index``, ``index + processes``... of the run's ramp; its choices are seeded from
    ``config.seed`` and ``index``."""

    config: object
    tables: int
    index: int = 0
    processes: int = 1


async def run_client(plan, ready, should_stop):
    """Run ``plan`` in this event loop. ``ready()`` is called once every table has its
    first game (or echo pair) open; ``should_stop()`` (polled) ends the run. Returns Stats.

    Sockets are spread over the servers at random, as a balancer would. With ``to_end`` a
    table plays one game to its end, else it starts a new game when one ends until told to
    stop; a table whose game had an error waits ``retry_pause`` seconds before its next
    game, as a person reloading would, rather than piling on."""
    from concurrent.futures import ThreadPoolExecutor

    config = plan.config
    stats = Stats()
    rng = random.Random(config.seed * 1000 + plan.index)
    stop = asyncio.Event()
    opened = 0

    def one_open():
        nonlocal opened
        opened += 1
        if opened == plan.tables:
            ready()

    async def watch_stop():
        while not should_stop():
            await asyncio.sleep(0.2)
        stop.set()

    loop = asyncio.get_running_loop()
    pool = ThreadPoolExecutor(max_workers=config.setup_threads)

    def two_bases():
        return [rng.choice(config.bases), rng.choice(config.bases)]

    async def start_in_turn(index):
        if config.ramp_rate > 0:
            await _sleep_unless(stop, (plan.index + index * plan.processes) / config.ramp_rate)

    async def table_loop(index):
        first = True
        waiting = None  # the challenge a full site refused, accepted again after its wait
        await start_in_turn(index)
        while not stop.is_set():
            bases = two_bases() if waiting is None else [waiting.base_a, waiting.base_b]
            try:
                game_id, cookie_a, cookie_b = await loop.run_in_executor(
                    pool, create_game, bases[0], bases[1], config.preset, waiting
                )
                waiting = None
            except SiteFull as full:
                stats.refused += 1
                waiting = full.challenge
                if first:  # answered: the table is in, if only to wait for a place
                    first = False
                    one_open()
                if config.to_end:
                    break
                await _sleep_unless(stop, full.retry_after)  # as a player would
                continue
            except (SetupError, requests.RequestException) as exc:
                waiting = None  # closed by create_game
                stats.error(f"set-up failed: {exc!r}")
                if config.to_end:
                    break
                await _sleep_unless(stop, config.retry_pause)
                continue
            stats.games_started += 1
            if first:
                first = False
                one_open()
            table = Table(game_id, stats, random.Random(rng.random()), config.think, config.stall)
            errors = len(stats.errors)
            await table.play(stop, bases, [cookie_a, cookie_b])
            if config.to_end:
                break
            if len(stats.errors) > errors:
                await _sleep_unless(stop, config.retry_pause)
        if waiting is not None:
            waiting.close()
        if first:
            one_open()  # never opened: do not hold up the others' start

    async def pair_loop(index):
        called = False
        await start_in_turn(index)

        def opened_once():
            nonlocal called
            if not called:
                called = True
                one_open()

        await echo_pair(
            two_bases(), stats, random.Random(rng.random()), config.think, stop, opened_once
        )
        opened_once()

    watcher = asyncio.ensure_future(watch_stop())
    try:
        body = pair_loop if config.echo else table_loop
        await asyncio.gather(*(body(i) for i in range(plan.tables)))
    finally:
        watcher.cancel()
        pool.shutdown(wait=False)
    return stats
