"""The read side of a game: snapshots and the parts of an event every socket shares
(docs/protocol.md), actions, history, names, ratings, clock and presence as a page shows
them (the legal plays: ``legal``). Nothing here changes a game."""

from collections.abc import Iterable
from typing import Any, NamedTuple

from django.urls import reverse
from django.utils.translation import gettext as _

from games import clocks, ratings
from games.accounts.models import Profile
from games.chat.reading import snapshot_chat
from games.choices import EndReason, EventKind, Phase, Side, Status, other_side
from games.clocks import ClockSpec
from games.engine.position_id import encode as encode_position
from games.room.models import Game, GameEvent, Match
from games.services import clockwork, outages
from games.services.actors import Actor
from games.services.legal import legal_of

ACTION_ORDER = ("roll", "double", "play", "take", "drop", "resign", "claim")


def actions_for(game: Game, side: str | None, now: int | None = None) -> list[str]:
    """The frame types (docs/protocol.md) ``side`` may send now (``now``: ms, default the
    current time), in ``ACTION_ORDER``; [] for an onlooker (``side`` None) or a game that is
    over. ``claim`` appears once the opponent has been away for the clock's grace period."""
    if side is None or game.is_over:
        return []
    allowed = {"resign"}
    spec = clockwork.clock_spec(game)
    opponent = other_side(side)
    if spec is not None and opponent != game.bot_side:
        allowed_from = clocks.claim_from(spec, clocks.to_ms(game.away_since(opponent)))
        if allowed_from is not None and (now or clocks.now_ms()) >= allowed_from:
            allowed.add("claim")
    if game.awaiting == side:
        if game.phase == Phase.ROLL:
            allowed.add("roll")
            if game.may_double(side):
                allowed.add("double")
        elif game.phase == Phase.PLAY:
            allowed.add("play")
        elif game.phase == Phase.CUBE:
            allowed.update(("take", "drop"))
    return [a for a in ACTION_ORDER if a in allowed]


#: the GameEvent fields ``history`` and a snapshot's ``last`` read (rows, not model
#: instances: a snapshot is built for every viewer after every change)
HISTORY_FIELDS = ("seq", "kind", "side", "dice", "play", "cube")


class EventRow(NamedTuple):
    """One event as ``history`` reads it (``event_rows``, the ``events`` of a ``game.changed``)."""

    seq: int
    kind: str
    side: str
    dice: list[int] | None
    play: str
    cube: int | None


#: the event kinds that make a ``history`` entry
HISTORY_KINDS = (
    EventKind.PLAY,
    EventKind.DOUBLE,
    EventKind.TAKE,
    EventKind.DROP,
    EventKind.RESIGN,
    EventKind.TIMEOUT,
    EventKind.ABANDON,
    EventKind.ABORT,
)


def history(events: Iterable[EventRow | GameEvent], first_n: int = 1) -> list[dict[str, Any]]:
    """The docs/protocol.md ``history`` of a game from its events (in ``seq`` order; GameEvents
    or rows with the ``HISTORY_FIELDS``): one entry per play (with its dice; ``""`` for a
    pass), cube action, resignation, loss on time (``timeout``), loss by leaving (``abandon``)
    and no-show (``abort``), each with the turn number ``n`` (the side of the last three is the
    side that lost or did not show). ``first_n``: the turn number of the first event (an
    event's entries continue a history that has ``first_n - 1`` plays)."""
    out = []
    n = first_n
    for event in events:
        if event.kind == EventKind.PLAY:
            out.append(
                {
                    "n": n,
                    "side": event.side,
                    "kind": "play",
                    "dice": event.dice,
                    "play": event.play,
                    "version": event.seq,
                }
            )
            n += 1
        elif event.kind in (EventKind.DOUBLE, EventKind.TAKE, EventKind.DROP):
            out.append(
                {
                    "n": n,
                    "side": event.side,
                    "kind": event.kind,
                    "cube": event.cube,
                    "version": event.seq,
                }
            )
        elif event.kind in HISTORY_KINDS:
            out.append({"n": n, "side": event.side, "kind": event.kind, "version": event.seq})
    return out


def last_of(play_event: EventRow | GameEvent) -> dict[str, Any]:
    """The snapshot's ``last`` from a play event (a GameEvent or an ``EventRow``)."""
    return {
        "side": play_event.side,
        "dice": play_event.dice,
        "play": play_event.play,
        "version": play_event.seq,
    }


def opening_of(game: Game) -> dict[str, Any]:
    """The snapshot's ``opening``: each side's roll-off die, the ties before, the starter and
    whether there was a roll-off (games made before these fields had only the two dice)."""
    opening = dict(game.opening or {})
    white, black = opening.get("white"), opening.get("black")
    starter = opening.get("starter")
    if starter is None and white is not None and black is not None:
        starter = Side.WHITE.value if white > black else Side.BLACK.value
    return {
        "white": white,
        "black": black,
        "ties": opening.get("ties", []),
        "starter": starter,
        "roll_off": white is not None,
    }


def options_of(game: Game) -> dict[str, Any]:
    """The snapshot's ``options``: the table options the game was created with."""
    ruleset = game.ruleset
    return {
        "preset": game.preset,
        "match_length": game.match.length if game.match is not None else 1,
        "koks": ruleset.koks,
        "cube": ruleset.cube,
        "bot_level": game.bot_level or None,
        "colour": game.colour or game.side_of_guest(game.white_guest or game.black_guest),
    }


def result_of(game: Game) -> dict[str, Any] | None:
    """The snapshot's ``result`` of a game that is over, else None (docs/protocol.md: an
    aborted game has ``reason`` "aborted" and ``aborted_by``, see "Aborts"; ``match_lost``: a
    ``match`` clock ran out and the loser lost the whole match, R11)."""
    if game.status == Status.ACTIVE:
        return None
    if game.status == Status.ABORTED:
        last = game.events.filter(kind=EventKind.ABORT).order_by("-seq").first()
        return {
            "winner": None,
            "kind": None,
            "points": 0,
            "reason": "aborted",
            "aborted_by": game.end_reason or EndReason.TIMEOUT,
            "cube": game.cube_value,
            "loser": last.side if last else None,
            "match_lost": False,
            "rating": None,
        }
    spec = clockwork.clock_spec(game)
    match_lost = (
        game.end_reason in (EndReason.TIMEOUT, EndReason.ABANDON)
        and spec is not None
        and spec.loses == clocks.LOSES_MATCH
        and bool(game.match_id)
    )
    return {
        "winner": game.winner,
        "kind": game.result_kind,
        "points": game.result_points,
        "reason": game.end_reason,
        "cube": game.cube_value,
        "loser": other_side(game.winner),
        "match_lost": match_lost,
        "rating": ratings.changes_of(game) if game.rated else None,
    }


def match_of(game: Game) -> dict[str, Any] | None:
    """The snapshot's ``match`` (docs/protocol.md "Matches"), or None outside a match."""
    match = game.match
    if match is None:
        return None
    games = list(match.games.order_by("match_number").values_list("pk", "match_number"))
    after = (game.match_number or 1) + 1
    next_game = next((str(pk) for pk, number in games if number == after), None)
    return {
        "id": str(match.pk),
        "length": match.length,
        "score": match.score(),
        "game_number": game.match_number,
        "games": [str(pk) for pk, _number in games],
        "status": match.status,
        "winner": match.winner or None,
        "next_game": next_game,
        "url": reverse("games:match", kwargs={"match_id": match.pk}),
    }


def event_rows(game: Game, after_seq: int = 0) -> list[EventRow]:
    """The game's events after ``after_seq`` up to the version of ``game`` as read, in ``seq``
    order (an event's ``seq`` is the version it made), as ``EventRow``s: events are only ever
    added, so a reader that keeps the rows it has asks only for the new ones. A change that
    commits between the read of the game row and this query is left out, so a snapshot never
    names version V with the play of V+1 in its history."""
    return [
        EventRow(*row)
        for row in game.events.filter(seq__gt=after_seq, seq__lte=game.version)
        .order_by("seq")
        .values_list(*HISTORY_FIELDS)
    ]


#: the snapshot fields an event may change: ``shared_state``'s (``last`` is not among them: a
#: client takes it from the history an event appends)
SHARED_FIELDS = (
    "status",
    "phase",
    "turn",
    "awaiting",
    "dice",
    "position",
    "position_id",
    "pips",
    "off",
    "cube",
    "clock",
    "presence",
    "fairness",
)


def shared_state(game: Game, now: int) -> dict[str, Any]:
    """The fields of a snapshot's ``game`` that every viewer shares and a change may touch
    (docs/protocol.md "Events": ``version``, ``status``, ``phase``, ``turn``, ``awaiting``,
    ``dice``, ``position``, ``position_id``, ``pips``, ``off``, ``cube``, ``clock``,
    ``presence``, ``fairness``), read from the game row alone: no query, no translation.
    ``now``: ms since the epoch (the clock's ``server_time``)."""
    position = game.get_position()
    finished = game.is_over
    turn = None if finished else position.turn
    spec = clockwork.clock_spec(game)
    cube = None
    if game.ruleset.cube:
        cube = {
            "value": game.cube_value,
            "owner": game.cube_owner or None,
            "offered_by": turn if game.phase == Phase.CUBE else None,
            "turned": game.cube_value > 1,
        }
    fairness = None
    if game.seed_hash:
        fairness = {
            "seed_hash": game.seed_hash,
            "seed": game.seed if finished else None,
            "rolls": game.rolls,
        }
    return {
        "version": game.version,
        "status": game.status,
        "phase": game.phase,
        "turn": turn,
        "awaiting": game.awaiting,
        "dice": game.dice if game.phase == Phase.PLAY else None,
        "position": game.position,
        "position_id": encode_position(position),
        "pips": {side: position.pip(side) for side in Side.values},
        "off": {side: position.off(side) for side in Side.values},
        "cube": cube,
        "clock": clock_of(game, now),
        "presence": {side: presence_of(game, side, spec) for side in Side.values},
        "fairness": fairness,
    }


def snapshot(
    game: Game, viewer: Actor | str | None = None, events: list[EventRow] | None = None
) -> dict[str, Any]:
    """The docs/protocol.md ``snapshot`` frame of ``game`` as seen by ``viewer``.

    ``viewer`` is an Actor, a guest id or None. ``you`` is the viewer's side or None for an
    onlooker; ``legal`` (plays, step graph, pass, why_not) is given only to the side to move,
    in phase "play"; ``actions`` lists what the viewer may send now. The seed is shown only
    once the game is finished. ``events``: the game's ``event_rows`` if the caller has them
    (else they are read). Reads the game as passed in and its record; changes nothing.
    """
    you = game.side_of(viewer)
    now = clocks.now_ms()
    if events is None:
        events = event_rows(game)
    last_play = next((e for e in reversed(events) if e.kind == EventKind.PLAY), None)
    shared = shared_state(game, now)
    position_id = shared["position_id"]
    links = {
        "game": reverse("games:game", kwargs={"game_id": game.pk}),
        "replay": reverse("games:replay", kwargs={"game_id": game.pk}),
        "record": reverse("games:record", kwargs={"game_id": game.pk}),
        "share": reverse("games:position", kwargs={"position_id": position_id}),
        "image": reverse("position_svg", kwargs={"position_id": position_id}),
        "png": reverse("position_png", kwargs={"position_id": position_id}),
    }
    return {
        "type": "snapshot",
        "game": {
            "id": str(game.id),
            "preset": game.preset,
            "options": options_of(game),
            "rated": game.rated,  # ratings are shown only where the result changes them
            **shared,
            "you": you,
            "players": {side: player_of(game, side) for side in Side.values},
            "actions": actions_for(game, you, now),
            "hints": game.offers_hints(you),
            "opening": opening_of(game),
            "match": match_of(game),
            "legal": legal_of(game, you),
            "last": last_of(last_play) if last_play is not None else None,
            "history": history(events),
            "links": links,
            "result": result_of(game),
            "rematch": rematch_state(game, you),
            "chat": snapshot_chat(game, you, viewer),  # the messages this viewer reads
        },
    }


def player_of(game: Game, side: str) -> dict[str, Any]:
    """The snapshot's ``players[side]``: ``name``, the bot's level (``bot``, None for a
    person), and for an account its ``rating`` in the game's preset (rounded points), whether
    it is ``provisional`` and its public ``profile`` URL (all None for a guest or the bot)."""
    if game.bot_side == side:
        return {
            "name": _("Computer"),
            "bot": game.bot_level,
            "rating": None,
            "provisional": None,
            "profile": None,
        }
    user_id = game.user_of(side)
    if not user_id:
        return {
            "name": _("Guest"),
            "bot": None,
            "rating": None,
            "provisional": None,
            "profile": None,
        }
    rating = ratings.rating_of(user_id, game.preset)
    return {
        "name": display_name(user_id),
        "bot": None,
        "rating": round(rating.rating),
        "provisional": rating.provisional,
        "profile": reverse("games:player", kwargs={"user_id": user_id}),
    }


def display_name(user_id: int) -> str:
    """The name an account shows to others: its profile's display name, else "Player <id>"."""
    name = Profile.objects.filter(user_id=user_id).values_list("display_name", flat=True).first()
    return name or _("Player %(id)s") % {"id": user_id}


def presence_of(game: Game, side: str, spec: ClockSpec | None) -> dict[str, Any] | None:
    """The snapshot's ``presence[side]``: whether the player is here, since when they are away
    (ms), when they lose for it (``match`` clock) and from when the opponent may claim the win
    (``standard``); None for the bot's side."""
    if side == game.bot_side:
        return None
    away = clocks.to_ms(game.away_since(side))
    return {
        "here": away is None,
        "away_since": away,
        "loses_at": clocks.away_deadline(spec, away) if spec else None,
        "claim_from": clocks.claim_from(spec, away) if spec else None,
    }


def clock_of(game: Game, now: int) -> dict[str, Any] | None:
    """The snapshot's ``clock`` (docs/protocol.md "Clocks"), or None without a clock: the
    spec, the server's time, the running side and period with when they began, each side's
    reserve at the start of the running period, the deadline, and the length of the outage
    the clocks were last paused for while no play has been made since, else None (all ms)."""
    spec = clockwork.clock_spec(game)
    if spec is None:
        return None
    _spec, side = clockwork.running(game)
    return {
        "kind": spec.kind,
        "spec": spec.to_json(),
        "server_time": now,
        "running": side,
        "period": game.clock_period or None,
        "period_started": clocks.to_ms(game.period_started) if side else None,
        "turn_started": clocks.to_ms(game.turn_started) if side else None,
        "first_move": bool(side) and clockwork.first_move(game),
        "free_ms": spec.free_ms(game.clock_period) if side else None,
        "deadline": clockwork.clock_deadline_ms(game),
        "reserve": {s: game.reserve_of(s) for s in Side.values},
        "paused_ms": outages.paused_note_ms(game),
    }


#: a rematch's states as its ``rematch`` frame names them (docs/protocol.md "Rematch")
REMATCH_OPEN, REMATCH_OFFERED, REMATCH_ASKED, REMATCH_DECLINED, REMATCH_STARTED = (
    "open",
    "offered",
    "asked",
    "declined",
    "started",
)


def rematch_possible(game: Game) -> bool:
    """True when the finished ``game`` may be followed by a rematch: it was between two people
    (not the computer), it is no tournament's (their pairing decides) and, in a match, the
    match is over (a match's next game starts by itself)."""
    if not game.is_over or game.bot_side or not (game.white_guest or game.white_user_id):
        return False
    if game.match_id is not None:
        # the match's status and its tournament pairing, if any, in one query
        match = Match.objects.filter(pk=game.match_id).values_list("status", "pairing").first()
        return match is not None and match[0] != Status.ACTIVE and match[1] is None
    return not Game.objects.filter(pk=game.pk, pairing__isnull=False).exists()


def game_url(game_id: Any) -> str | None:
    """The page of game ``game_id`` in the active language, or None for no game (a rematch
    not started, a game that is no rematch)."""
    return reverse("games:game", kwargs={"game_id": game_id}) if game_id else None


def rematch_view(
    offer: str, declined: str, url: str | None, you: str | None
) -> dict[str, Any] | None:
    """The ``rematch`` state one viewer is shown (``you``: their side, None for an onlooker),
    from the game's ``offer`` (the side whose offer waits, or ""), ``declined`` (the side that
    last declined or left, or "") and the new game's ``url`` once both pressed: ``started``
    (with the URL; onlookers too), else for a player ``offered`` (their own offer waits),
    ``asked`` (the opponent's does), ``declined`` (the opponent declined or left) or ``open``
    (they may offer). None: nothing to show."""
    if url:
        return {"state": REMATCH_STARTED, "game": url}
    if you is None:
        return None
    if offer == you:
        state = REMATCH_OFFERED
    elif offer:
        state = REMATCH_ASKED
    elif declined and declined != you:
        state = REMATCH_DECLINED
    else:
        state = REMATCH_OPEN
    return {"state": state, "game": None}


def rematch_state(game: Game, you: str | None) -> dict[str, Any] | None:
    """The snapshot's ``rematch`` for the viewer playing ``you`` (None: an onlooker), or None
    when the game allows none (``rematch_possible``)."""
    if not rematch_possible(game):
        return None
    return rematch_view(game.rematch_offer, game.rematch_declined, game_url(game.rematch_id), you)
