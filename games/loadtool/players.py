"""The load tool's players: one ``Table`` per game, one ``Player`` per guest's game socket
(docs/protocol.md). On each snapshot where it is their turn a player waits a think time, then
rolls or sends a legal play picked at random from ``games.engine.legal_plays``; the table
times the round trips into the run's ``client.Stats`` and counts what went wrong."""

import asyncio
import contextlib
import json
import time

from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

from games.engine import Position, legal_plays
from games.loadtool.gameview import GAP, GameView
from games.loadtool.http_setup import LANG

#: how long a socket may take to open, seconds
OPEN_TIMEOUT = 60
#: largest frame accepted from the server (a late snapshot holds the whole history)
MAX_FRAME = 4 * 1024 * 1024
#: how long the end of a run waits for a resigned game to be over, seconds
FINISH_TIMEOUT = 30
#: ways a game may end without counting as an error
CLEAN_ENDS = ("bore_off", "resign")
#: a player resigns only once it has made this many plays: before its first the server would
#: abort the game instead (docs/protocol.md "Aborts"), and an arena scores a win only against
#: a loser with ``ARENA_MIN_PLAYS`` (games/tournaments/rules.py MIN_LOSER_PLAYS; the client
#: imports no Django, a test checks the two agree)
MIN_PLAYS = 1
ARENA_MIN_PLAYS = 5


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
