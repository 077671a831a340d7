"""Daphne as the site runs it: ``python -m nardy_site.serve`` takes Daphne's own command line
(``-b``, ``-p``, ``--proxy-headers``, the application path...) and adds four things
(docs/protocol.md "Faults", "Outages"):

- Every ``HEARTBEAT_S`` it checks Redis and the database and notes the site's heartbeat
  (``games.services.outages.keep_alive``): a silence of every web process is an outage, which
  the first one up again records, so that the clocks are credited with it.
- A socket that breaks the WebSocket protocol is closed with the standard code that says why,
  as RFC 6455 asks, instead of having its TCP connection dropped (which a browser reports as
  1006, the same as a crash): a message over ``MAX_MESSAGE_BYTES`` gets 1009 (message too
  big), text that is not UTF-8 gets 1007, any other violation 1002.
- On SIGTERM (a deploy, ``scripts/run`` stopping) every open socket is closed with 1012
  (service restart), so its page reconnects at once, and the consumers get their
  ``websocket.disconnect`` and up to ``CLOSE_WAIT_S`` to run it (a player's presence is
  forgotten at once, not when the sweep finds the socket stale a minute later); only then
  does Daphne cancel what is left.
- Each protocol close is logged at WARNING with the client, the code and the reason, and the
  stop at INFO with the number of sockets closed.

scripts/run, the Procfile and the tests' servers start it; plain ``daphne`` still serves the
site, without these.
"""

import asyncio
import logging
import os
import sys

import django
from channels.db import database_sync_to_async
from daphne.cli import CommandLineInterface
from daphne.server import Server
from daphne.ws_protocol import WebSocketProtocol
from django.core.cache import cache
from twisted.internet import defer, reactor

# The heartbeat needs the site's models: Django is set up before they are imported (Daphne's
# command line would load it only with the application).
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nardy_site.settings")
django.setup()

from games.services import outages  # noqa: E402

logger = logging.getLogger("nardy_site.serve")

#: the largest WebSocket message a client may send (bytes); a game frame is at most
#: ``games.protocol.MAX_FRAME`` characters, anything between that and this gets the protocol's
#: ``bad_frame`` error, anything larger close code 1009
MAX_MESSAGE_BYTES = 64 * 1024
#: the close code of every socket when the server stops (RFC 6455 "Service Restart")
CLOSE_SERVICE_RESTART = 1012
#: how long a stopping server waits for its consumers' disconnect handlers (s)
CLOSE_WAIT_S = 5.0
#: how often the heartbeat is noted (s)
HEARTBEAT_S = outages.HEARTBEAT_EVERY_MS / 1000


def check_redis():
    """Raise if the site's Redis (the cache's; the Channels layer's is the same by default)
    does not answer."""
    cache.get("nardy-serve-heartbeat")


#: the close codes of a client that broke the protocol (RFC 6455), logged when sent
PROTOCOL_CLOSES = {1002: "protocol error", 1007: "invalid payload", 1009: "message too big"}


class SiteWebSocketProtocol(WebSocketProtocol):
    """Daphne's WebSocket protocol; a socket this server failed for breaking the protocol is
    logged with its close code and reason."""

    def onClose(self, wasClean, code, reason):
        sent = self.localCloseCode
        if sent in PROTOCOL_CLOSES:
            logger.warning(
                "WebSocket %s from %s closed with %d (%s): %s",
                getattr(getattr(self, "request", None), "path", "?"),
                getattr(self, "client_addr", None),
                sent,
                PROTOCOL_CLOSES[sent],
                (self.localCloseReason or b"").decode("utf-8", "replace"),
            )
        super().onClose(wasClean, code, reason)


class SiteServer(Server):
    """Daphne's server with the protocol closes and the orderly stop described above."""

    def run(self):
        reactor.callWhenRunning(self.set_socket_options)
        reactor.callWhenRunning(self.start_heartbeat)
        super().run()

    def start_heartbeat(self):
        """Start noting the heartbeat (``keep_alive``) on the server's event loop."""
        outages.serve_here()
        self.heartbeat = asyncio.ensure_future(self.keep_alive())

    async def keep_alive(self):
        """Every ``HEARTBEAT_S``: ``outages.keep_alive`` in a thread. A failure (Redis or the
        database down) is logged once at WARNING, and its end once at INFO."""
        failing = False
        while True:
            try:
                await database_sync_to_async(outages.keep_alive)(check_redis)
            except Exception:
                if not failing:
                    logger.warning("heartbeat not noted: Redis or the database fails", exc_info=1)
                failing = True
            else:
                if failing:
                    logger.info("heartbeat noted again")
                failing = False
            await asyncio.sleep(HEARTBEAT_S)

    def set_socket_options(self):
        """Fail a broken socket with its close code (``failByDrop`` off) and cap messages at
        ``MAX_MESSAGE_BYTES``. Runs once the reactor (and Daphne's socket factory) is up."""
        self.ws_factory.protocol = SiteWebSocketProtocol
        self.ws_factory.setProtocolOptions(
            failByDrop=False,
            maxMessagePayloadSize=MAX_MESSAGE_BYTES,
            maxFramePayloadSize=MAX_MESSAGE_BYTES,
        )

    def kill_all_applications(self):
        """Daphne's "before shutdown" step: stop noting the heartbeat (this process no longer
        serves), close every open socket with 1012 and give the consumers ``CLOSE_WAIT_S`` to
        handle their disconnect, then cancel what is left (Daphne's own step). Returns a
        Deferred that Twisted waits for."""
        heartbeat = getattr(self, "heartbeat", None)
        if heartbeat is not None:
            heartbeat.cancel()
        closing = defer.Deferred.fromFuture(asyncio.ensure_future(self.close_for_restart()))
        closing.addErrback(lambda failure: logger.error("closing sockets failed: %s", failure))
        closing.addCallback(lambda _result: super(SiteServer, self).kill_all_applications())
        return closing

    async def close_for_restart(self):
        """Send every open WebSocket the close frame 1012 and wait (at most ``CLOSE_WAIT_S``)
        until the application of each has ended. Returns how many sockets were closed."""
        sockets = [
            protocol
            for protocol in list(self.connections)
            if isinstance(protocol, WebSocketProtocol)
            and protocol.state == WebSocketProtocol.STATE_OPEN
        ]
        for protocol in sockets:
            protocol.sendCloseFrame(
                code=CLOSE_SERVICE_RESTART, reasonUtf8=b"service restart", isReply=False
            )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CLOSE_WAIT_S
        while loop.time() < deadline:
            running = [
                details["application_instance"]
                for protocol, details in list(self.connections.items())
                if protocol in sockets
                and "application_instance" in details
                and not details["application_instance"].done()
            ]
            if not running:
                break
            await asyncio.sleep(0.05)
        logger.info(
            "stopping: closed %d sockets with %d (service restart)",
            len(sockets),
            CLOSE_SERVICE_RESTART,
        )
        return len(sockets)


class SiteCommandLine(CommandLineInterface):
    """Daphne's command line, serving with ``SiteServer``."""

    server_class = SiteServer


def main(argv=None):
    """Run the site's Daphne with ``argv`` (default: the process's arguments)."""
    SiteCommandLine().run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    main()
