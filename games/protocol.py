"""Names of the live protocol (docs/protocol.md) that the server and its clients share: the
server's read side (``games.services.reading``), the sockets (``games.live.sockets`` and each
area's consumer, ``games.live.echo``) and the load tool's clients, which import no Django
(``games.loadtool``)."""

#: largest frame a socket takes from a page, in characters or bytes
MAX_FRAME = 4096
#: the object fields of a game that an event gives as their changed keys only, for the client
#: to merge into the object it holds (``last`` is not sent: a client takes it from the
#: history's last play)
MERGED_FIELDS = ("position", "pips", "off", "cube", "clock", "presence", "fairness")
