"""The legal plays a page is given (docs/protocol.md "Snapshots", "Events"): the mover's plays
with their result boards, the step graph, the pass and why a checker cannot move, in the
snapshot's form and in an event's compact one; and the ``why`` answer. Nothing here changes a
game."""

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _

from games.choices import Phase
from games.engine import EngineError, Play, board_to_json, explain, legal_plays, step_graph
from games.engine.movegen import StepNode
from games.room.models import Game
from games.services import wording
from games.services.actors import Actor
from games.services.errors import BadFrame, GameOver, IllegalPlayError, NotYourTurn, WrongPhase


def dice_to_play(game: Game) -> tuple[int, ...]:
    """The dice of the roll ``game`` awaits a play of (phase "play": rolling set them)."""
    assert game.dice is not None, f"game {game.pk}: no dice to play"
    return tuple(game.dice)


def _to_play(game: Game, side: str | None) -> bool:
    """True when ``side`` is to move its checkers now (phase "play" of a game going on)."""
    return (
        not game.is_over and game.phase == Phase.PLAY and side is not None and side == game.awaiting
    )


def _is_pass(plays: Sequence[Play]) -> bool:
    return len(plays) == 1 and plays[0].notation == ""


def legal_of(game: Game, side: str | None) -> dict[str, Any] | None:
    """The snapshot's ``legal`` for ``side`` (plays with their result boards, step graph,
    pass, why_not), or None unless ``side`` is to move in phase "play"."""
    if side is None or not _to_play(game, side):
        return None
    position = game.get_position()
    rolled = dice_to_play(game)
    plays = legal_plays(position, rolled, game.ruleset)
    return {
        "plays": [
            {"play": p.notation, "result": board_to_json(p.result.board(side))} for p in plays
        ],
        "graph": step_graph(position, rolled, game.ruleset),
        "pass": _is_pass(plays),
        "why_not": {
            str(point): wording.explanation_frame(found)
            for point, found in explain.immovable_points(position, rolled, game.ruleset).items()
        },
    }


def shared_legal(game: Game) -> dict[str, Any] | None:
    """The mover's ``legal`` of an event (built once for every socket; docs/protocol.md
    "Events"): ``{"plays": [notation, ...], "graph": packed, "pass": bool}``, the plays as
    bare strings (no result boards), the step graph packed (``packed_graph``), no ``why_not``
    (a page asks with a ``why`` frame for the checker tapped). None when nobody is to play."""
    if not _to_play(game, game.awaiting):
        return None
    position = game.get_position()
    rolled = dice_to_play(game)
    plays = legal_plays(position, rolled, game.ruleset)
    return {
        "plays": [p.notation for p in plays],
        "graph": packed_graph(step_graph(position, rolled, game.ruleset)),
        "pass": _is_pass(plays),
    }


def packed_graph(graph: dict[str, list[StepNode]]) -> list[list[int | str]]:
    """A step graph (``{"nodes": [{"steps": {label: node}, "final": bool}]}``) as an event
    sends it: one list per node, ``[final, label, node, label, node, ...]`` with ``final`` 1 or
    0 (a finished play's leaf is ``[1]``): half the bytes of the snapshot's form."""
    packed = []
    for node in graph["nodes"]:
        row: list[int | str] = [1 if node["final"] else 0]
        for label, target in node["steps"].items():
            row += (label, target)
        packed.append(row)
    return packed


def check_to_play(game: Game, side: str | None) -> None:
    """Raise GameOver, NotYourTurn or WrongPhase (roll first) unless ``side`` is to play its
    roll in ``game`` now."""
    if game.is_over:
        raise GameOver(_("The game is over."), game.version)
    if game.awaiting != side:
        raise NotYourTurn(_("It is not your turn."), game.version)
    if game.phase != Phase.PLAY:
        raise WrongPhase(_("Roll the dice first."), game.version)


def explain_point(
    game: Game, viewer: Actor | str | None, point: object, staged: object
) -> dict[str, Any]:
    """The docs/protocol.md ``why`` answer: why the viewer's checker on ``point`` cannot move
    after the ``staged`` steps (a play string). Only for the side to move in phase "play".
    Raises BadFrame (ill-typed point or staged), NotYourTurn, WrongPhase, GameOver or
    IllegalPlayError (staged steps that begin no legal play). Changes nothing."""
    side = game.side_of(viewer)
    if isinstance(point, bool) or not isinstance(point, int) or not 1 <= point <= 24:
        raise BadFrame(_("The point must be a whole number from 1 to 24."), game.version)
    if not isinstance(staged, str):
        raise BadFrame(_('The staged steps must be a string such as "24/18".'), game.version)
    if side is None:
        raise NotYourTurn(_("You are not a player of this game."), game.version)
    check_to_play(game, side)
    try:
        found = explain.explain_point(
            game.get_position(), dice_to_play(game), point, staged, game.ruleset
        )
    except EngineError as exc:
        raise IllegalPlayError(wording.illegal_play_message(exc), game.version) from None
    return {
        "type": "why",
        "point": point,
        "staged": staged,
        "version": game.version,
        "movable": found.movable,
        **wording.explanation_frame(found),
    }
