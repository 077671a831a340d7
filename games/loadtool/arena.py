"""Arena load (issue #18): signed-in players fill one arena on a running stack and play it.

Each player signs in with the development sign-in (``/en/accounts/dev/``, a name per player;
the stack runs with ``DJANGO_ENV=development``), enters the arena with its page's form and
keeps the event's socket open (``ws/tournament/<uuid>/``; ``ramp_rate`` pages open a second). On
each ``paired`` frame it opens
the game with its opponent and both play random legal moves (``client.Table``, with the think
time of the game runs) until, after about ``game_seconds``, the first side to act that has made
``ARENA_MIN_PLAYS`` plays resigns (a shorter loss scores nothing in an arena); then they
wait for their next pairing. After ``duration`` seconds every player leaves the arena and
every game still going is resigned.

Measured: the time from a game's end (the final snapshot as the player saw it) to that
player's next ``paired`` frame (ms), the most games under way at once, games started and
finished, the play round trip, errors, and the CPU of the stack's processes. Like the rest of
the client it imports no Django.
"""

import asyncio
import json
import random
import time
from concurrent.futures import ThreadPoolExecutor

import requests
from websockets.exceptions import WebSocketException

from games.loadtool.client import (
    ARENA_MIN_PLAYS,
    HTTP_TIMEOUT,
    LANG,
    SetupError,
    Stats,
    Table,
    cookie_header,
    form_token,
    open_socket,
)
from games.loadtool.runner import CpuSampler, percentiles


def sign_in_and_join(base, name, event_id):
    """Sign in as the development account ``name`` on ``base`` and enter the arena
    ``event_id`` through its page's form. Returns the HTTP session (its cookies are the
    player's; the caller closes it). Raises SetupError (an unexpected answer) or
    ``requests.RequestException``."""
    session = requests.Session()
    try:
        token = form_token(session, f"{base}/{LANG}/accounts/login/")
        answer = session.post(
            f"{base}/{LANG}/accounts/dev/",
            data={"csrfmiddlewaretoken": token, "name": name, "next": f"/{LANG}/"},
            allow_redirects=False,
            timeout=HTTP_TIMEOUT,
        )
        if answer.status_code != 302:
            raise SetupError(f"dev sign-in of {name}: HTTP {answer.status_code}")
        page = f"{base}/{LANG}/tournaments/{event_id}/"
        answer = post_event_form(session, page, "join")
        if answer.status_code != 302 or f"/tournaments/{event_id}/" not in answer.headers.get(
            "Location", ""
        ):
            raise SetupError(f"join of {name}: HTTP {answer.status_code}")
        # a refused entry comes back to the page too, with the reason
        shown = session.get(page, timeout=HTTP_TIMEOUT)
        if shown.status_code != 200 or 'class="t-messages"' in shown.text:
            raise SetupError(f"join of {name} refused (HTTP {shown.status_code})")
        return session
    except BaseException:
        session.close()
        raise


def post_event_form(session, page, action):
    """Post the event page ``page``'s form ``action`` ("join" or "leave") with the CSRF token
    of a fresh copy of the page; the answer (not followed). Raises SetupError or
    ``requests.RequestException``."""
    return session.post(
        f"{page}{action}/",
        data={"csrfmiddlewaretoken": form_token(session, page)},
        allow_redirects=False,
        timeout=HTTP_TIMEOUT,
    )


def leave(base, session, event_id):
    """The player of ``session`` leaves the arena with its page's form (at the end of a run,
    before the games still going are resigned: nobody is paired into a game that no one will
    play). Raises SetupError or ``requests.RequestException``."""
    answer = post_event_form(session, f"{base}/{LANG}/tournaments/{event_id}/", "leave")
    if answer.status_code != 302:
        raise SetupError(f"leave: HTTP {answer.status_code}")


class Arena:
    """The players of one run and their games."""

    def __init__(self, bases, event_id, game_seconds, think, stall, seed):
        self.bases = bases
        self.event_id = event_id
        self.game_seconds = game_seconds
        self.think = think
        self.stall = stall
        self.rng = random.Random(seed)
        self.stats = Stats()
        self.gaps = []  # ms from a game's end to the player's next "paired" frame
        self.waiting = {}  # game id -> the players who heard of it so far
        self.tables = set()
        self.live = {}  # the Tables whose play has begun and whose tasks have not ended: players
        self.most = 0
        self.finished = 0
        self.stop = asyncio.Event()

    def paired(self, player, game_id):
        """``player`` heard that game ``game_id`` is theirs: once both have, it is played."""
        now = time.monotonic()
        if game_id in player.games:
            return
        player.games.add(game_id)
        player.current = game_id
        if player.free_since is not None:
            self.gaps.append((now - player.free_since) * 1000)
            player.free_since = None
        heard = self.waiting.setdefault(game_id, [])
        heard.append(player)
        if len(heard) == 2:
            del self.waiting[game_id]
            task = asyncio.ensure_future(self._play(game_id, heard))
            self.tables.add(task)
            task.add_done_callback(self.tables.discard)

    async def _play(self, game_id, players):
        self.stats.games_started += 1
        table = Table(
            game_id, self.stats, self.rng, self.think, self.stall, min_plays=ARENA_MIN_PLAYS
        )
        self.live[table] = players
        self.most = max(self.most, self.under_way())
        resign = asyncio.Event()
        timer = asyncio.get_running_loop().call_later(
            self.game_seconds * (0.5 + self.rng.random()), resign.set
        )
        relay = asyncio.ensure_future(self._relay(resign))
        try:
            await table.play(resign, [p.base for p in players], [p.cookie for p in players])
        finally:
            timer.cancel()
            relay.cancel()
            del self.live[table]
        ended = time.monotonic()
        self.finished += table.over.is_set()
        for player in players:
            player.free_since = ended

    def under_way(self):
        """The games under way as their players see them: not over, and neither player has
        heard of a later game. The server pairs a player again once their game has ended, and
        that ``paired`` frame (on the event's socket) may come before the game's last frame (on
        the game's own). So this never exceeds half the players: that the server pairs nobody who
        is still playing is for its records to tell (games/tests/test_tournament_*.py)."""
        return sum(
            not table.over.is_set() and all(p.current == table.game_id for p in players)
            for table, players in self.live.items()
        )

    async def _relay(self, resign):
        await self.stop.wait()
        resign.set()


class ArenaPlayer:
    """One signed-in player's socket on the event."""

    def __init__(self, arena, base, session):
        self.arena = arena
        self.base = base
        self.session = session
        self.cookie = cookie_header(session)
        self.games = set()
        self.current = None  # the last game this player heard it was paired into
        self.free_since = None

    async def run(self):
        arena = self.arena
        path = f"/ws/tournament/{arena.event_id}/?lang={LANG}"
        while not arena.stop.is_set():
            try:
                async with open_socket(path, self.base, self.cookie) as ws:
                    stopper = asyncio.ensure_future(arena.stop.wait())
                    try:
                        async for message in _until(ws, stopper):
                            frame = json.loads(message)
                            if frame.get("type") == "paired":
                                arena.paired(self, frame["game"])
                    finally:
                        stopper.cancel()
            except (TimeoutError, OSError, WebSocketException) as exc:
                arena.stats.error(f"tournament socket failed: {exc!r}")
                await asyncio.sleep(1.0)


async def _until(ws, stopper):
    """The socket's messages until ``stopper`` is done."""
    while True:
        receive = asyncio.ensure_future(ws.recv())
        done, _ = await asyncio.wait({receive, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if receive not in done:
            receive.cancel()
            return
        yield receive.result()


async def _run(
    bases, event_id, players, duration, game_seconds, think, stall, seed, ramp_rate, log
):
    arena = Arena(bases, event_id, game_seconds, think, stall, seed)
    loop = asyncio.get_running_loop()
    run_id = f"{seed}-{int(time.time()) % 100000}"
    with ThreadPoolExecutor(max_workers=8) as pool:
        sessions = await asyncio.gather(
            *(
                loop.run_in_executor(
                    pool,
                    sign_in_and_join,
                    bases[n % len(bases)],
                    f"load {run_id} {n}",
                    event_id,
                )
                for n in range(players)
            )
        )
    log(f"{players} players signed in and entered the arena")
    members = [ArenaPlayer(arena, bases[n % len(bases)], s) for n, s in enumerate(sessions)]
    sockets = []
    for player in members:  # as pages open: a few at a time, not all in one instant
        sockets.append(asyncio.ensure_future(player.run()))
        await asyncio.sleep(1 / ramp_rate)
    started = time.monotonic()
    while time.monotonic() - started < duration:
        await asyncio.sleep(min(5.0, duration - (time.monotonic() - started)))
        log(
            f"  {time.monotonic() - started:5.0f} s: {len(arena.tables)} games under way, "
            f"{arena.stats.games_started} started, {len(arena.stats.errors)} errors"
        )
    with ThreadPoolExecutor(max_workers=8) as pool:
        left = await asyncio.gather(
            *(
                loop.run_in_executor(pool, leave, player.base, player.session, event_id)
                for player in members
            ),
            return_exceptions=True,
        )
    for failure in (x for x in left if isinstance(x, Exception)):
        arena.stats.error(f"leave failed: {failure!r}")
    arena.stop.set()
    if arena.tables:
        await asyncio.wait(set(arena.tables), timeout=60)
    await asyncio.gather(*sockets, return_exceptions=True)
    for player in members:
        player.session.close()
    return arena, started


def run_arena(
    bases,
    event_id,
    players,
    duration=120.0,
    game_seconds=30.0,
    think=1.5,
    stall=60.0,
    seed=1,
    ramp_rate=20.0,
    server_pids=None,
    log=print,
):
    """Run the arena load and return its report: ``{"players", "duration_s", "game_seconds",
    "think_s", "games_started", "games_finished", "most_games_at_once", "pairing_gap_ms":
    percentiles, "round_trip_ms": {"play": percentiles}, "errors", "first_errors", "cpu"}``."""
    sampler = CpuSampler(server_pids or {})
    sampler.start()
    try:
        arena, started = asyncio.run(
            _run(
                bases, event_id, players, duration, game_seconds, think, stall, seed, ramp_rate, log
            )
        )
    finally:
        sampler.stop()
    stats = arena.stats
    return {
        "mode": "arena",
        "event": event_id,
        "players": players,
        "duration_s": duration,
        "game_seconds": game_seconds,
        "think_s": think,
        "games_started": stats.games_started,
        "games_finished": arena.finished,
        "most_games_at_once": arena.most,
        "pairing_gap_ms": percentiles(arena.gaps),
        "round_trip_ms": {"play": percentiles([ms for _t, ms in stats.play])},
        "errors": len(stats.errors),
        "first_errors": [text for _t, text in stats.errors[:10]],
        "cpu": sampler.summary(started, started + duration),
    }
