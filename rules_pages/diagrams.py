"""Diagrams of the rules pages: positions declared as data and drawn by the engine's renderer.

A :class:`Diagram` is a RULES.md JSON position, an optional roll, an example play and whether
that play is legal. The diagrams themselves are declared in ``rules_pages/diagram_data.py``
(``DIAGRAMS = [Diagram(...), ...]``); ``rules_pages/tests/test_diagrams.py`` checks every one
with ``games.engine.check_play``, so a page can never show an illegal play as legal or the
reverse. Templates show one with ``{% load diagrams %}{% diagram "diagram-id" %}``.

The figure is an inline SVG (``games.room.board_svg.render_board``) with a ``<figcaption>``; its
``<title>`` is the caption and its ``<desc>`` an automatic description of the position for
screen readers (:func:`describe`), both in the active language.
"""

from __future__ import annotations

from functools import lru_cache

from django.core.exceptions import ImproperlyConfigured
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, ngettext
from django.utils.translation import gettext_lazy as _

from games.engine import (
    EngineError,
    IllegalPlay,
    Position,
    check_play,
    format_step,
    parse_play,
    step_graph,
)
from games.room.board_svg import render_board

from .diagram_data import DIAGRAMS
from .diagram_types import Diagram

# Why a refused play is refused, by IllegalPlay.code (games/engine/movegen.py check_play).
REFUSAL_REASONS = {
    "no_checker": _("there is no checker of the mover on the point it starts from"),
    "wrong_direction": _("a checker only moves forward, toward its home"),
    "no_die": _("no die of the roll gives that step"),
    "blocked": _("the point is held by the opponent"),
    "head": _("only one checker may leave the head in this turn"),
    "must_play_more": _("more dice of the roll can be played, and they must be"),
    "must_play_larger": _("only one die can be played, so it must be the larger one"),
    "cannot_pass": _("a move is possible, so the turn cannot be passed"),
    "six_block": _("it would build six points in a row with no opponent checker ahead"),
    "bear_off_not_home": _("not all checkers are home yet, so none may be borne off"),
    "bear_off_higher": _(
        "a checker stands on a higher point, so this die must move inside the home"
    ),
    "too_many_steps": _("the play has more steps than the roll gives"),
}


def registry() -> dict[str, Diagram]:
    """Every declared diagram by id (from ``rules_pages.diagram_data.DIAGRAMS``).

    Raises ImproperlyConfigured on a duplicate id or an entry that is not a Diagram.
    """
    return _registry()


@lru_cache(maxsize=1)
def _registry() -> dict[str, Diagram]:
    found: dict[str, Diagram] = {}
    for diagram in DIAGRAMS:
        if not isinstance(diagram, Diagram):
            raise ImproperlyConfigured(f"diagram_data.DIAGRAMS holds {diagram!r}, not a Diagram")
        if diagram.id in found:
            raise ImproperlyConfigured(f"diagram id {diagram.id!r} is declared twice")
        found[diagram.id] = diagram
    return found


def get_diagram(diagram_id: str) -> Diagram:
    """The diagram with this id; raises KeyError naming the id when it is not declared."""
    try:
        return registry()[diagram_id]
    except KeyError:
        raise KeyError(f"no diagram {diagram_id!r} in rules_pages/diagram_data.py") from None


def _side_name(side: str) -> str:
    return gettext("White") if side == "white" else gettext("Black")


def _side_text(position: Position, side: str) -> str:
    """ "White: 13 checkers on point 24, 2 checkers on point 18." (own numbering, head first)."""
    board = position.board(side)
    stacks = [
        ngettext(
            "%(count)s checker on point %(point)s",
            "%(count)s checkers on point %(point)s",
            board[p],
        )
        % {"count": board[p], "point": p}
        for p in range(24, 0, -1)
        if board[p]
    ]
    if side == "white":
        text = (
            gettext("White: %(stacks)s.") % {"stacks": ", ".join(stacks)}
            if stacks
            else gettext("White: no checkers left on the board.")
        )
    else:
        text = (
            gettext("Black: %(stacks)s.") % {"stacks": ", ".join(stacks)}
            if stacks
            else gettext("Black: no checkers left on the board.")
        )
    off = board[0]
    if off:
        if side == "white":
            text += " " + ngettext(
                "White has borne off %(count)s checker.",
                "White has borne off %(count)s checkers.",
                off,
            ) % {"count": off}
        else:
            text += " " + ngettext(
                "Black has borne off %(count)s checker.",
                "Black has borne off %(count)s checkers.",
                off,
            ) % {"count": off}
    return text


def _judge(diagram: Diagram, position: Position):
    """``(steps, refusal)``: the play's steps and, for a refused play, the engine's IllegalPlay
    (None for a legal play, a play not shown, or a play whose notation is malformed)."""
    if not diagram.play:
        return (), None
    steps = parse_play(diagram.play)
    if diagram.dice is None:
        return steps, None
    try:
        check_play(position, diagram.dice, steps, diagram.ruleset)
    except IllegalPlay as refusal:
        return steps, refusal
    except EngineError:
        return steps, None
    return steps, None


def describe(diagram: Diagram) -> str:
    """The position in words for screen readers, in the active language: each side's checkers
    by point (own numbering), borne-off counts, whose turn, the dice, and the play with whether
    it is legal and, if not, why."""
    position = Position.from_json(diagram.position)
    parts = [
        gettext("Each side numbers the points from its own head, point 24."),
        _side_text(position, "white"),
        _side_text(position, "black"),
    ]
    if diagram.dice is not None or diagram.play:
        parts.append(
            gettext("White to move.") if position.turn == "white" else gettext("Black to move.")
        )
        if position.first_turn:
            parts.append(gettext("It is this side's first turn of the game."))
    if diagram.dice is not None:
        parts.append(gettext("Dice: %(dice)s.") % {"dice": "-".join(str(d) for d in diagram.dice)})
    if diagram.play:
        _steps, refusal = _judge(diagram, position)
        if diagram.legal:
            parts.append(gettext("The play %(play)s is legal.") % {"play": diagram.play})
        elif refusal is not None and refusal.code in REFUSAL_REASONS:
            parts.append(
                gettext("The play %(play)s is not legal: %(reason)s.")
                % {"play": diagram.play, "reason": REFUSAL_REASONS[refusal.code]}
            )
        else:
            parts.append(gettext("The play %(play)s is not legal.") % {"play": diagram.play})
    return " ".join(parts)


def _first_refused_step(diagram: Diagram, position: Position):
    """Index of the first step of the play that no legal play continues with (the engine's
    step graph, RULES.md R4–R8), or None when every step does (e.g. too few dice played)."""
    try:
        nodes = step_graph(position, diagram.dice, diagram.ruleset)["nodes"]
    except EngineError:
        return None
    node = nodes[0]
    for index, step in enumerate(parse_play(diagram.play)):
        label = format_step(step)
        if label not in node["steps"]:
            return index
        node = nodes[node["steps"][label]]
    return None


def play_arrows(diagram: Diagram, position: Position) -> list:
    """Arrows ``(side, from, to, legal)`` of the example play, for ``render_board``: all legal
    (True) for a legal play. For a refused play, the first step that leads to no legal play is
    refused (False), the steps before it legal and the steps after it not judged (None, drawn
    neutral, so they cannot look accepted); when each step alone could start a legal play
    (the play as a whole breaks R6) every step is refused."""
    steps = parse_play(diagram.play) if diagram.play else ()
    side = position.turn
    if diagram.legal or diagram.dice is None:
        return [(side, frm, to, True) for frm, to in steps]
    bad = _first_refused_step(diagram, position)
    if bad is None:
        return [(side, frm, to, False) for frm, to in steps]
    return [
        (side, frm, to, True if index < bad else False if index == bad else None)
        for index, (frm, to) in enumerate(steps)
    ]


@lru_cache(maxsize=512)
def _render(diagram_id: str, language: str | None) -> str:
    diagram = get_diagram(diagram_id)
    position = Position.from_json(diagram.position)
    caption = str(diagram.caption)
    svg = render_board(
        diagram.position,
        arrows=play_arrows(diagram, position),
        marks=diagram.marks,
        dice=diagram.dice,
        title=caption,
        desc=describe(diagram),
        labels_for=position.turn,
        id_prefix=f"diagram-{diagram.id}",
    )
    verdict = ""
    if diagram.play:
        verdict = format_html(
            '<span class="diagram__verdict diagram__verdict--{}">{}</span> ',
            "legal" if diagram.legal else "illegal",
            gettext("Legal:") if diagram.legal else gettext("Not legal:"),
        )
    play = format_html("<code>{}</code> ", diagram.play) if diagram.play else ""
    dice = (
        format_html(
            '<span class="diagram__dice">{}</span> ',
            gettext("Dice %(dice)s.") % {"dice": "-".join(map(str, diagram.dice))},
        )
        if diagram.dice
        else ""
    )
    return format_html(
        '<figure class="diagram" id="diagram-{}">'
        '<div class="diagram__board">{}</div>'
        "<figcaption>{}{}{}{}</figcaption></figure>",
        diagram.id,
        mark_safe(svg),
        dice,
        verdict,
        play,
        escape(caption),
    )


def render_diagram(diagram_id: str) -> SafeString:
    """The ``<figure>`` of a diagram in the active language (SVG board + ``<figcaption>``).

    Raises KeyError for an id that is not declared.
    """
    return mark_safe(_render(diagram_id, get_language()))
