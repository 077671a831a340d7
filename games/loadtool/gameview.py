"""A client's view of a live game (docs/protocol.md "Events"), as the game page keeps it:
the last snapshot's ``game`` with every ``event`` frame since applied on top. Used by the
load tool's scripted players and by the tests' socket clients."""

#: ``apply_event`` outcomes besides a new game dict
OLD_NEWS = "old_news"
GAP = "gap"

#: links whose path holds the position ID (replaced when ``position_id`` changes)
POSITION_LINKS = ("share", "image", "png")
#: object fields an event gives as their changed keys, merged into the held object (as
#: ``games.services.reading.MERGED_FIELDS`` sends them; this client imports no Django)
MERGED_FIELDS = ("position", "pips", "off", "cube", "last", "clock", "presence", "fairness")


def apply_event(game, frame):
    """The game after the ``event`` ``frame``, a new dict (``game`` is not changed).

    ``game`` is a snapshot's ``game`` (or a game an earlier event made). Returns ``OLD_NEWS``
    when the frame does not build on ``game``'s version and is not newer, ``GAP`` when it
    is newer but does not build on it (the client must ask for a snapshot)."""
    if frame["from"] != game["version"]:
        return OLD_NEWS if frame["version"] <= game["version"] else GAP
    changes = dict(frame.get("changes") or {})
    for field in MERGED_FIELDS:
        held, change = game.get(field), changes.get(field)
        if isinstance(held, dict) and isinstance(change, dict):
            changes[field] = {**held, **change}
    new = {
        **game,
        **changes,
        "version": frame["version"],
        "actions": frame.get("actions", []),
        "legal": frame.get("legal"),
    }
    if frame.get("history"):
        new["history"] = list(game.get("history") or []) + frame["history"]
    old_id, new_id = game.get("position_id"), changes.get("position_id")
    if new_id and old_id and new_id != old_id and game.get("links"):
        new["links"] = {
            key: (
                value.replace(old_id, new_id)
                if key in POSITION_LINKS and isinstance(value, str)
                else value
            )
            for key, value in game["links"].items()
        }
    return new


class GameView:
    """The game as the frames of one socket make it: ``game`` (None before the first
    snapshot), ``games`` (with ``keep``: every game it has held, in order; else empty: a load
    run's thousands of players need only the last) and ``gaps`` (events that did not build
    on it)."""

    def __init__(self, keep=False):
        self.game = None
        self.keep = keep
        self.games = []
        self.gaps = 0

    def take(self, frame):
        """Take one server frame; returns True when the game changed, False when the frame
        was old news or another type, and ``GAP`` when a snapshot must be asked for."""
        kind = frame.get("type")
        if kind == "snapshot":
            new = frame["game"]
            if self.game is not None and new["version"] < self.game["version"]:
                return False
        elif kind == "event" and self.game is not None:
            new = apply_event(self.game, frame)
            if new == OLD_NEWS:
                return False
            if new == GAP:
                self.gaps += 1
                return GAP
        else:
            return False
        self.game = new
        if self.keep:
            self.games.append(new)
        return True
