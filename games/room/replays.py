"""Game records and replays (read only): a game's record in the text format of
docs/record-format.md, and the replay frames the replay page shows.

Nothing here changes a game. ``game_record`` turns a game's events into an engine ``Record``;
``replay_frames`` plays a record through the engine (``games.engine.record.replay``) and
describes every step in the reader's language.
"""

from bisect import bisect_right

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.chat.reading import is_muted, message_row, message_view, visible_to
from games.choices import EventKind, Preset, Side, Status
from games.engine import fairdice
from games.engine import record as rec
from games.engine.position_id import encode as encode_position
from games.services.clockwork import clock_spec
from games.services.reading import HISTORY_KINDS, display_name, opening_of

EVENT_NAME = "Long nardy game"


def _player_header(game, side):
    if game.bot_side == side:
        return f"Computer ({game.bot_level})" if game.bot_level else "Computer"
    user_id = game.user_of(side)
    # an account's public name, as the game page shows it; a guest stays anonymous
    return display_name(user_id) if user_id else "Guest"


def game_record(game):
    """The engine ``Record`` of ``game``: headers (Event, Date, White, Black, Preset, Koks and
    Cube for classic, Match length/score and Game for a match, Clock for a game with a clock,
    Opening, Seed hash, the Seed once the game is over, Result), one entry per play, cube
    action, resignation, loss on time (timeout), loss by leaving (abandon) and no-show
    (abort), and the result once over (``result aborted`` for an aborted game). The seed is
    never in the record of a game still going on."""
    opening = opening_of(game)
    if opening["roll_off"]:
        pairs = [tuple(t) for t in opening["ties"]] + [(opening["white"], opening["black"])]
    else:
        pairs = []
    headers = [
        ("Event", EVENT_NAME),
        ("Date", game.created.date().isoformat()),
        ("White", _player_header(game, Side.WHITE)),
        ("Black", _player_header(game, Side.BLACK)),
        ("Preset", game.preset),
    ]
    ruleset = game.ruleset
    if game.preset == Preset.CLASSIC:
        headers.append(("Koks", "on" if ruleset.koks else "off"))
        headers.append(("Cube", "on" if ruleset.cube else "off"))
    if game.match_id:
        match = game.match
        before = {Side.WHITE.value: 0, Side.BLACK.value: 0}
        for earlier in match.games.filter(
            match_number__lt=game.match_number, status=Status.FINISHED
        ):
            before[earlier.winner] += earlier.result_points or 0
        headers.append(("Match length", str(match.length)))
        headers.append(("Match score", f"{before['white']}-{before['black']}"))
        headers.append(("Game", str(game.match_number)))
    spec = clock_spec(game)
    if spec is not None:
        headers.append(("Clock", spec.kind))
    headers.append(("Opening", rec.opening_text(pairs, opening["starter"])))
    if game.seed_hash:
        headers.append(("Seed hash", game.seed_hash))
        if game.is_over:
            headers.append(("Seed", game.seed))

    entries = []
    n = 1
    for event in game.events.order_by("seq"):
        if event.kind == EventKind.PLAY:
            entries.append(
                rec.Entry(n, event.side, rec.PLAY, dice=tuple(event.dice), play=event.play)
            )
            n += 1
        elif event.kind == EventKind.DOUBLE:
            entries.append(rec.Entry(n, event.side, rec.DOUBLE, cube=event.cube))
        elif event.kind in HISTORY_KINDS:  # take, drop, resign and the clock's endings
            entries.append(rec.Entry(n, event.side, event.kind))
    result = None
    if game.status == Status.FINISHED:
        result = rec.Result(game.winner, game.result_kind, game.result_points, game.end_reason)
    elif game.status == Status.ABORTED:
        result = rec.Result.aborted()
    headers.append(("Result", result.text() if result else "*"))
    return rec.Record(headers=headers, entries=entries, result=result)


def record_text(game):
    """The record of ``game`` as text (docs/record-format.md)."""
    return rec.write(game_record(game))


def _side_name(side):
    return {"white": _("White"), "black": _("Black")}.get(side, side or "")


def frame_text(frame, result=None):
    """A one-line description of a replay frame in the active language."""
    params = {
        "side": _side_name(frame.side),
        "n": frame.n,
        "dice": f"{frame.dice[0]}-{frame.dice[1]}" if frame.dice else "",
        "play": frame.play or "",
        "cube": frame.cube_value,
    }
    if frame.kind == "start":
        return _("Start: %(side)s moves first.") % {"side": _side_name(frame.position.turn)}
    if frame.kind == "roll":
        return _("Turn %(n)s: %(side)s rolls %(dice)s.") % params
    if frame.kind == "play":
        if not frame.play:
            return _("Turn %(n)s: %(side)s cannot move with %(dice)s and passes.") % params
        return _("Turn %(n)s: %(side)s plays %(dice)s: %(play)s.") % params
    if frame.kind == "double":
        return _("Turn %(n)s: %(side)s offers a double.") % params
    if frame.kind == "take":
        return _("Turn %(n)s: %(side)s takes; the cube is now %(cube)s.") % params
    if frame.kind == "drop":
        return _("Turn %(n)s: %(side)s drops the double.") % params
    if frame.kind == "resign":
        return _("Turn %(n)s: %(side)s resigns.") % params
    if frame.kind == "timeout":
        return _("Turn %(n)s: %(side)s runs out of time.") % params
    if frame.kind == "abandon":
        return _("Turn %(n)s: %(side)s left the game and did not come back in time.") % params
    if frame.kind == "abort":
        return _("Turn %(n)s: %(side)s left before a first play: the game is aborted.") % params
    if result is not None and result.is_aborted:
        return _("The game is aborted: it has no result.")
    if result is not None:
        kinds = {"oin": _("oin"), "mars": _("mars"), "koks": _("koks")}
        return ngettext(
            "%(side)s wins: %(kind)s, %(points)s point.",
            "%(side)s wins: %(kind)s, %(points)s points.",
            result.points,
        ) % {
            "side": _side_name(result.winner),
            "kind": kinds.get(result.kind, result.kind),
            "points": result.points,
        }
    return _("The game is over.")


def replay_frames(record):
    """Play ``record`` through the engine and return ``(replay, frames)``: the engine's
    ``Replay`` and one dict per step (docs/protocol.md, replay page context). Raises
    ``games.engine.record.RecordError`` for a record that is not a legal game."""
    replay = rec.replay(record)
    with_cube = replay.ruleset.cube
    frames = []
    for index, frame in enumerate(replay.frames):
        position = frame.position
        frames.append(
            {
                "index": index,
                "kind": frame.kind,
                "n": frame.n,
                "side": frame.side,
                "dice": list(frame.dice) if frame.dice else None,
                "play": frame.play,
                "text": frame_text(frame, replay.result),
                "position": position.to_json(),
                "position_id": encode_position(position),
                "cube": (
                    {"value": frame.cube_value, "owner": frame.cube_owner} if with_cube else None
                ),
                "pips": {side: position.pip(side) for side in Side.values},
                "off": {side: position.off(side) for side in Side.values},
                "line": frame.line,
            }
        )
    return replay, frames


def frame_versions(game, frames):
    """The game version each replay frame of ``game`` stands at: the ``seq`` of the event the
    frame shows (a roll, a play, a cube action, a resignation, the clock's endings), taken in
    order per kind; the start the opening roll-off's (0 without one), the end the game's last
    version; a first turn's roll that is the opening roll-off's keeps the start's version."""
    pending = {}
    for kind, seq in game.events.order_by("seq").values_list("kind", "seq"):
        pending.setdefault(kind, []).append(seq)
    versions, current = [], 0
    for frame in frames:
        # the start frame stands at the opening roll-off's event
        seqs = pending.get(EventKind.OPENING.value if frame["kind"] == "start" else frame["kind"])
        plays = pending.get(EventKind.PLAY.value)
        if frame["kind"] == "roll" and seqs and plays and plays[0] < seqs[0]:
            pass  # the opening roll-off's dice: no roll event of its own, the version stands
        elif seqs:
            current = max(current, seqs.pop(0))
        elif frame["kind"] == "end":
            current = game.version
        versions.append(current)
    return versions


def attach_chat(game, frames, viewer_side, viewer):
    """Put on each replay frame its ``chat``: the messages sent while the game stood at that
    frame (by the version they were sent at), as a player of it reads them
    (``message_view`` with ``"who"``: "You" or "Your opponent"), in the active language.
    Only the game's two players (``viewer_side`` not None; ``viewer`` their Actor) read the
    chat in a replay: others get none. Returns how many messages were placed."""
    for frame in frames:
        frame["chat"] = []
    if viewer_side is None:
        return 0
    muted = is_muted(game, viewer_side)
    versions = frame_versions(game, frames)
    placed = 0
    for message in game.chat_messages.order_by("pk"):
        if not visible_to(message.sender, message.preset, viewer_side, muted):
            continue
        view = message_view(message_row(message), viewer_side, viewer)
        view["who"] = _("You") if view["mine"] else _("Your opponent")
        frames[max(0, bisect_right(versions, message.version) - 1)]["chat"].append(view)
        placed += 1
    return placed


def fairness_of(game):
    """The replay page's dice check: the seed hash, the seed once the game is over (else
    None), the one-line check command and every roll with its number; None for a game made
    before seeds existed."""
    if not game.seed_hash:
        return None
    rolls = []
    opening = opening_of(game)
    if opening["roll_off"]:
        for n, pair in enumerate([*opening["ties"], [opening["white"], opening["black"]]]):
            rolls.append({"n": n, "dice": list(pair), "opening": True})
    for event in game.events.filter(kind=EventKind.ROLL).order_by("seq"):
        rolls.append({"n": event.roll_number, "dice": event.dice, "opening": False})
    finished = game.is_over
    return {
        "seed_hash": game.seed_hash,
        "seed": game.seed if finished else None,
        "verify_command": fairdice.VERIFY_COMMAND,
        "rolls": rolls,
        "verified": (
            all(fairdice.roll(bytes.fromhex(game.seed), r["n"]) == list(r["dice"]) for r in rolls)
            if finished
            else None
        ),
    }


#: the computer's levels as the list of games names them (templates/games/_game_title.html)
COMPUTER_NAMES = {
    "easy": gettext_lazy("easy computer"),
    "medium": gettext_lazy("medium computer"),
    "hard": gettext_lazy("hard computer"),
    "expert": gettext_lazy("expert computer"),
}


def _name_in_title(game, side, viewer_side):
    # as the game page names the players: "you", an account's name, the computer, a guest
    if side == viewer_side:
        return _("you")
    if game.bot_side == side:
        return str(COMPUTER_NAMES.get(game.bot_level, _("Computer")))
    user_id = game.user_of(side)
    if user_id:
        return display_name(user_id)
    if not game.bot_side:  # two people, this one a guest: told apart by side
        return _("your opponent") if viewer_side else _side_name(side)
    return _("Guest")


def replay_title(game, viewer_side=None):
    """The replay page's title and heading, in the active language: the players white first,
    "you" for ``viewer_side`` ("Replay: you – hard computer", "Replay: Ann – Bob")."""
    return _("Replay: %(white)s – %(black)s") % {
        side: _name_in_title(game, side, viewer_side) for side in Side.values
    }


def _name_in_record(value):
    # the names this site writes in a record (``_player_header``) in the page's language;
    # any other name as the record gives it
    if value == "Guest":
        return _("Guest")
    if value == "Computer":
        return _("Computer")
    for level, name in COMPUTER_NAMES.items():
        if value == f"Computer ({level})":
            return str(name)
    return value


def imported_title(record):
    """An imported record's title and heading, in the active language: "Imported game: Guest
    – hard computer" from its White and Black headers (the stored English title is not
    shown), or "Imported game" without them."""
    white, black = record.header("White", ""), record.header("Black", "")
    if not white and not black:
        return _("Imported game")
    return _("Imported game: %(white)s – %(black)s") % {
        "white": _name_in_record(white or "?"),
        "black": _name_in_record(black or "?"),
    }
