"""A client's view of a live game (docs/protocol.md "Events"), as the game page keeps it:
the last snapshot's ``game`` with every ``event`` frame since applied on top. Used by the
load tool's scripted players and by the tests' socket clients."""

from games.protocol import MERGED_FIELDS

#: ``apply_event`` outcomes besides a new game dict
OLD_NEWS = "old_news"
GAP = "gap"

#: links whose path holds the position ID (replaced when ``position_id`` changes)
POSITION_LINKS = ("share", "image", "png")


def apply_event(game, frame):
    """The game after the ``event`` ``frame``, a new dict (``game`` is not changed): the
    changes merged, the history appended (its last play is the new ``last``), ``legal``
    unpacked to the snapshot's form.

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
        "legal": unpack_legal(frame.get("legal")),
    }
    if frame.get("history"):
        new["history"] = list(game.get("history") or []) + frame["history"]
        last = last_play(frame["history"])
        if last is not None:
            new["last"] = last
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


def last_play(entries):
    """The snapshot's ``last`` from the last play among ``history`` entries, or None."""
    for entry in reversed(entries):
        if entry.get("kind") == "play":
            return {key: entry[key] for key in ("side", "dice", "play", "version")}
    return None


def unpack_legal(legal):
    """An event's ``legal`` (plays as strings, the graph packed one list per node: ``[final,
    label, node, label, node, ...]``) in the snapshot's form (``{"plays": [{"play": ...}],
    "graph": {"nodes": [{"steps": {...}, "final": bool}]}, "pass": bool}``). None, and a
    ``legal`` already in that form, come back as they are."""
    if not legal or not isinstance(legal.get("graph"), list):
        return legal
    nodes = [
        {"steps": dict(zip(row[1::2], row[2::2], strict=True)), "final": row[0] == 1}
        for row in legal["graph"]
    ]
    return {
        "plays": [{"play": play} if isinstance(play, str) else play for play in legal["plays"]],
        "graph": {"nodes": nodes},
        "pass": bool(legal["pass"]),
    }


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
