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

The set-up over HTTP is ``http_setup``, the game sockets' players ``players``; this module
holds what a client process measures (``Stats``), the echo baseline and ``run_client``, and
gives the names of the other two as before (``from games.loadtool.client import Table``).
"""

import asyncio
import contextlib
import json
import random
import time
from dataclasses import dataclass, field

import requests
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

from games.loadtool.http_setup import (
    HTTP_TIMEOUT,
    LANG,
    Challenge,
    SetupError,
    SiteFull,
    cookie_header,
    create_game,
    form_token,
)
from games.loadtool.players import (
    ARENA_MIN_PLAYS,
    CLEAN_ENDS,
    FINISH_TIMEOUT,
    MAX_FRAME,
    MIN_PLAYS,
    OPEN_TIMEOUT,
    Player,
    Table,
    open_socket,
    pick_play,
    ws_base,
)

#: how long an echo may take before it counts as lost, seconds
ECHO_TIMEOUT = 60


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


__all__ = [
    "ARENA_MIN_PLAYS",
    "CLEAN_ENDS",
    "ECHO_TIMEOUT",
    "FINISH_TIMEOUT",
    "HTTP_TIMEOUT",
    "LANG",
    "MAX_FRAME",
    "MIN_PLAYS",
    "OPEN_TIMEOUT",
    "Challenge",
    "ClientPlan",
    "Player",
    "SetupError",
    "SiteFull",
    "Stats",
    "Table",
    "cookie_header",
    "create_game",
    "echo_frame",
    "echo_pair",
    "form_token",
    "open_socket",
    "pick_play",
    "run_client",
    "ws_base",
]
