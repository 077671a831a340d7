"""The watch each Daphne process keeps over its game sockets (docs/protocol.md "Events").

Every ``WATCH_MS`` one query reads the version and who is away of every game this process
has sockets for; a socket still behind its game a second after the change committed, or
showing a player here who is away (or the other way round), has missed a group message (a
failed publish, a Redis that lost its data or its subscriptions): it is caught up with a
snapshot and joins its groups again. Every ``TOUCH_MS`` every socket joins its groups again
anyway, so a Redis that lost them loses no later message, and is sent ``{"type": "touch",
"version": V}`` (its game's version: a page that has less asks for a snapshot, and a page
that hears nothing at all for long takes its socket for dead). Every
``services.PRESENCE_TOUCH_MS`` one query marks all the players' sockets of the process as
still here. A process with no game socket runs no watch.
"""

import asyncio
import logging
import weakref

from channels.db import database_sync_to_async

from games import clocks, services
from games.room.models import Game

logger = logging.getLogger(__name__)

#: how often the versions are compared (ms)
WATCH_MS = 2_000
#: a socket behind its game for this long after the change committed is caught up (ms):
#: shorter and it would race the change's own message. A loaded process hears its group
#: messages late: the wait grows by twice the longest delay heard lately (``heard``), so a
#: backlog is not taken for lost messages and answered with snapshots, which would deepen it
BEHIND_MS = 1_000
#: how often the sockets are sent the game's version (ms)
TOUCH_MS = 15_000


class SocketWatch:
    """The game sockets of this process by game id, and the task watching them.

    A socket registers with ``add`` once it has sent its first snapshot and leaves with
    ``remove``; it must offer ``sent_version`` (int or None), ``shown`` (the snapshot fields
    it was last sent), ``side`` (None for an onlooker), ``channel_name``, ``async
    catch_up()``, ``async rejoin()`` and ``async send_touch(version)``."""

    def __init__(self):
        self.games = {}
        self.task = None
        self.delay_ms = 0  # the longest delay of a group message heard this round
        self.recent_delay_ms = 0  # ... over this round and the one before

    def heard(self, delay_ms):
        """A socket got a group message ``delay_ms`` after it was built."""
        if delay_ms > self.delay_ms:
            self.delay_ms = delay_ms

    def end_round(self):
        """A round is over: the delays heard in it become the previous round's."""
        self.recent_delay_ms, self.delay_ms = self.delay_ms, 0

    def behind_ms(self):
        """How long after a change a socket still behind it is taken to have lost it (ms)."""
        return BEHIND_MS + 2 * max(self.delay_ms, self.recent_delay_ms)

    def add(self, game_id, socket):
        """Watch ``socket`` of game ``game_id`` (from the watch's event loop)."""
        self.games.setdefault(game_id, set()).add(socket)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    def remove(self, game_id, socket):
        """Stop watching ``socket``."""
        sockets = self.games.get(game_id)
        if sockets is not None:
            sockets.discard(socket)
            if not sockets:
                del self.games[game_id]

    async def _run(self):
        since_touch = since_presence = 0
        while self.games:
            await asyncio.sleep(WATCH_MS / 1000)
            since_touch += WATCH_MS
            since_presence += WATCH_MS
            try:
                touch = since_touch >= TOUCH_MS
                if touch:
                    since_touch = 0
                await self.check(touch)
                self.end_round()
                if since_presence >= services.PRESENCE_TOUCH_MS:
                    since_presence = 0
                    await self.touch()
            except Exception:
                logger.warning("socket watch: round failed", exc_info=True)

    async def check(self, touch=False):
        """Catch up every socket left behind its game for ``behind_ms()`` (and, with ``touch``,
        send every socket its game's version); returns how many were behind."""
        if not self.games:
            return 0
        rows = await database_sync_to_async(_versions)(list(self.games))
        now = clocks.now_ms()
        wait = self.behind_ms()
        behind = []
        if touch:
            sockets = [(game_id, s) for game_id, group in list(self.games.items()) for s in group]
            await asyncio.gather(
                *(s.send_touch(rows[game_id][0]) for game_id, s in sockets if game_id in rows),
                *(s.rejoin() for _game_id, s in sockets),
                return_exceptions=True,
            )
        for game_id, (version, updated, away) in rows.items():
            if now - updated < wait:
                continue
            behind.extend(
                socket
                for socket in self.games.get(game_id, ())
                if socket.sent_version is not None
                and (socket.sent_version < version or _shown_away(socket) != away)
            )
        if behind:
            logger.warning(
                "socket watch: %d sockets behind their games, sending snapshots", len(behind)
            )
            await asyncio.gather(*(socket.catch_up() for socket in behind), return_exceptions=True)
        return len(behind)

    async def touch(self):
        """Mark every player's socket of this process as still here (one query)."""
        names = [
            socket.channel_name
            for sockets in self.games.values()
            for socket in sockets
            if socket.side is not None
        ]
        if names:
            await database_sync_to_async(services.player_still_here)(names)


def _shown_away(socket):
    """``{side: away_since ms}`` of the players a socket was last shown away."""
    presence = (socket.shown or {}).get("presence") or {}
    return {
        side: shown["away_since"]
        for side, shown in presence.items()
        if shown and shown.get("away_since") is not None
    }


def _versions(game_ids):
    """``{game_id: (version, updated ms, {side: away_since ms})}`` of the games that still
    exist (the sides away only)."""
    rows = Game.objects.filter(pk__in=game_ids).values_list(
        "pk", "version", "updated", "white_away_since", "black_away_since"
    )
    found = {}
    for pk, version, updated, white_away, black_away in rows:
        away = {"white": clocks.to_ms(white_away), "black": clocks.to_ms(black_away)}
        found[pk] = (
            version,
            clocks.to_ms(updated),
            {side: ms for side, ms in away.items() if ms is not None},
        )
    return found


_watches = weakref.WeakKeyDictionary()


def watch():
    """The watch of the running event loop: one per Daphne process (a test that runs several
    loops gets one for each, so no watch outlives its loop's sockets)."""
    loop = asyncio.get_running_loop()
    found = _watches.get(loop)
    if found is None:
        found = _watches[loop] = SocketWatch()
    return found
