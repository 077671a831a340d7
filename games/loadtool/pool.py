"""Quick pairing load (issue #32): guests press "Play a person" on a running stack.

``guests`` guests arrive ``arrival_rate`` a second, spread over the stack's servers. Each one
opens the lobby page (``/en/lobby/?pool=casual``: its session gets a guest id, as a browser's
does), opens the lobby socket (``ws/lobby/``) with that session's cookie, and sends a casual
join for ``preset`` (docs/protocol.md "Lobby"), then waits for its ``paired`` frame. The
casual pool pairs the oldest waiter with the next, so each arrival after a lone waiter makes a
game.

Measured per game (``time.monotonic``, ms): from the later of its two players' join frames sent
to the later of their two ``paired`` frames received: what the second player to press waits
until both pages can open the game. Also the ``waiting`` frames (the counts) each socket got.
Errors: an ``error`` frame, a socket closed by the server, two players told of different
games, and a guest still unpaired ``timeout`` seconds after the last arrival (an odd guest out
is expected, not an error). The games made are left to their clocks (a no-show aborts, rating
nothing). Like the rest of the client it imports no Django.
"""

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor

import requests
from websockets.exceptions import WebSocketException

from games.loadtool.http_setup import HTTP_TIMEOUT, LANG, SetupError, cookie_header
from games.loadtool.players import open_socket
from games.loadtool.runner import CpuSampler, percentiles


def guest_session(base):
    """A new guest's HTTP session that has opened the lobby page on ``base`` (its cookie holds
    a guest id). Raises SetupError or ``requests.RequestException``."""
    session = requests.Session()
    answer = session.get(f"{base}/{LANG}/lobby/?pool=casual", timeout=HTTP_TIMEOUT)
    if answer.status_code != 200:
        session.close()
        raise SetupError(f"lobby page: HTTP {answer.status_code}")
    return session


class Guest:
    """One guest in the pool: its join sent at ``joined`` and its ``paired`` frame received at
    ``paired`` (monotonic seconds), the ``game`` named, the ``waiting`` frames counted."""

    def __init__(self, base, cookie, preset):
        self.base, self.cookie, self.preset = base, cookie, preset
        self.joined = self.paired = None
        self.game = None
        self.counts = 0
        self.error = None

    async def run(self, stop):
        """Join and wait for the pairing (or ``stop``); records an error instead of raising."""
        try:
            async with open_socket(f"/ws/lobby/?lang={LANG}", self.base, self.cookie) as ws:
                self.joined = time.monotonic()
                await ws.send(json.dumps({"type": "join", "pool": "casual", "preset": self.preset}))
                while self.paired is None:
                    receive = asyncio.ensure_future(ws.recv())
                    done, _ = await asyncio.wait(
                        {receive, stop}, return_when=asyncio.FIRST_COMPLETED
                    )
                    if receive not in done:
                        receive.cancel()
                        return
                    frame = json.loads(receive.result())
                    if frame["type"] == "paired":
                        self.paired, self.game = time.monotonic(), frame["game"]
                    elif frame["type"] == "waiting":
                        self.counts += 1
                    elif frame["type"] == "error":
                        self.error = f"error frame: {frame.get('code')} {frame.get('message')}"
                        return
        except (OSError, WebSocketException) as error:
            self.error = f"socket: {error!r}"


async def _run(bases, guests, arrival_rate, preset, timeout, log):
    loop = asyncio.get_running_loop()
    with ThreadPoolExecutor(max_workers=8) as pool:
        sessions = await asyncio.gather(
            *(
                loop.run_in_executor(pool, guest_session, bases[n % len(bases)])
                for n in range(guests)
            )
        )
    log(f"{guests} guests opened the lobby page")
    members = [
        Guest(bases[n % len(bases)], cookie_header(session), preset)
        for n, session in enumerate(sessions)
    ]
    stop = asyncio.ensure_future(asyncio.Event().wait())
    tasks = []
    started = time.monotonic()
    for member in members:
        tasks.append(asyncio.ensure_future(member.run(stop)))
        await asyncio.sleep(1 / arrival_rate)
    done, _ = await asyncio.wait(tasks, timeout=timeout)
    stop.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for session in sessions:
        session.close()
    return members, started


def run_pool(
    bases, guests, arrival_rate=10.0, preset="sport", timeout=30.0, server_pids=None, log=print
):
    """Run the quick pairing load and return its report: ``{"mode": "pool", "guests",
    "arrival_rate", "preset", "games", "pairing_ms": percentiles (second join sent -> both
    paired), "unpaired", "waiting_frames_per_guest", "errors", "first_errors", "cpu"}``."""
    sampler = CpuSampler(server_pids or {})
    sampler.start()
    try:
        members, started = asyncio.run(_run(bases, guests, arrival_rate, preset, timeout, log))
    finally:
        sampler.stop()
    errors = [member.error for member in members if member.error]
    games = {}
    for member in members:
        if member.game is not None:
            games.setdefault(member.game, []).append(member)
    samples = []
    for game, pair in games.items():
        if len(pair) != 2:
            errors.append(f"game {game}: {len(pair)} guests told of it")
            continue
        samples.append(1000 * (max(g.paired for g in pair) - max(g.joined for g in pair)))
    unpaired = sum(1 for member in members if member.game is None and not member.error)
    if unpaired > 1:
        errors.append(f"{unpaired} guests never paired within {timeout} s of the last arrival")
    return {
        "mode": "pool",
        "guests": guests,
        "arrival_rate": arrival_rate,
        "preset": preset,
        "games": len(samples),
        "pairing_ms": percentiles(samples),
        "unpaired": unpaired,
        "waiting_frames_per_guest": round(sum(m.counts for m in members) / max(1, guests), 2),
        "errors": len(errors),
        "first_errors": errors[:10],
        "cpu": sampler.summary(started, time.monotonic()),
    }
