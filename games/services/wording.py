"""What the service layer says to a player, in the active language: why a play was refused,
why a checker cannot move, why a game record was refused, how a game ended on time."""

from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext as _

from games.choices import EndReason, Status
from games.engine import EngineError, NotationError, explain, format_step
from games.engine.record import RecordError
from games.room.models import Game


def illegal_play_message(exc: EngineError) -> str:
    """A player-readable, translated reason why a submitted play was refused.

    ``exc`` is the engine's error: an ``IllegalPlay`` (its ``code`` names the rule of RULES.md
    R4-R8 that was broken, its ``step`` the offending step) or a ``NotationError``. A code
    without a translation here falls back to the engine's own English message.
    """
    if isinstance(exc, NotationError):
        return _('Write the play as steps such as "24/18 18/13" ("3/off" bears off).')
    code = getattr(exc, "code", "")
    step = getattr(exc, "step", None)
    params = {}
    if step:
        params = {"step": format_step(step), "from": step[0], "to": step[1]}
    messages = {
        # R4
        "no_checker": _("There is no checker of yours on point %(from)s."),
        "wrong_direction": _("%(step)s: checkers move towards lower point numbers only."),
        "no_die": _("No die of this roll plays %(step)s."),
        "blocked": _("%(step)s: point %(to)s is held by your opponent."),
        "too_many_steps": _("This roll does not give that many steps."),
        # R5
        "head": _(
            "Too many checkers leave the head: one per turn, or two on a first turn "
            "with 6-6, 4-4 or 3-3."
        ),
        # R6
        "cannot_pass": _("You have a legal move, so you cannot pass."),
        "must_play_more": _("You must play as many dice of this roll as the rules allow."),
        "must_play_larger": _("Only one die can be played, so it must be the larger one."),
        # R7
        "six_block": _("%(step)s would build six points in a row with no opponent checker ahead."),
        # R8
        "bear_off_not_home": _(
            "You may bear off only when all your checkers are in your home (points 1 to 6)."
        ),
        "bear_off_higher": _(
            "A die larger than %(from)s bears off only from your highest "
            "point; move inside your home instead."
        ),
        "not_legal": _("This play is not legal."),
        "not_next": _("%(step)s does not lead to a legal play here."),
    }
    template = messages.get(code)
    if template is None:
        return str(exc)
    try:
        return template % params if "%(" in template else template
    except KeyError:
        return str(exc)


def why_not_message(reasons: Iterable[tuple[int | None, str, int | None]]) -> str:
    """One translated text from an explanation's ``(die, code, target)`` triples: a reason
    shared by every die is said once, different reasons are said per die."""
    texts = [(die, _why_text(code, target)) for die, code, target in reasons]
    if len({text for _die, text in texts}) == 1 or any(die is None for die, _t in texts):
        return texts[0][1]
    # After "Die 6:" the reason goes on the sentence, so it starts in lower case.
    return " ".join(
        _("Die %(die)s: %(reason)s") % {"die": die, "reason": text[:1].lower() + text[1:]}
        for die, text in texts
    )


def _why_text(code: str, target: int | None) -> str:
    messages = {
        explain.BLOCKED: _("Point %(to)s is held by your opponent."),
        explain.HEAD_RULE: _(
            "No more checkers may leave the head this turn (one per turn; two "
            "on a first turn with 6-6, 4-4 or 3-3)."
        ),
        explain.SIX_BLOCK: _(
            "The step would build six points in a row with no opponent checker ahead."
        ),
        explain.BEAR_OFF_NOT_HOME: _(
            "You may bear off only when all your checkers are in your home (points 1 to 6)."
        ),
        explain.BEAR_OFF_HIGHER: _(
            "A checker stands on a higher point of your home, so this "
            "die must move a checker inside the home."
        ),
        explain.MUST_PLAY_MORE: _(
            "Then the rest of the roll could not be played, and you must "
            "play as many dice as the rules allow."
        ),
        explain.MUST_PLAY_LARGER: _("Only one die can be played, so it must be the larger one."),
        explain.NO_DICE_LEFT: _("Your move is complete: no dice are left to play."),
        explain.NO_CHECKER: _("You have no checker on that point."),
    }
    text = messages[code]
    return text % {"to": target} if "%(to)s" in text else text


def explanation_frame(explanation: explain.Explanation) -> dict[str, Any]:
    """The ``reasons``/``message`` part of a ``why_not`` entry or ``why`` frame for one
    ``games.engine.explain.Explanation``."""
    triples = [
        (die, code, explanation.point - die if die else None) for die, code in explanation.reasons
    ]
    return {
        "reasons": [{"die": die, "code": code} for die, code in explanation.reasons],
        "message": why_not_message(triples) if triples else _("This checker can move."),
    }


def record_error_reason(exc: RecordError) -> str:
    """The reason a record was refused (a ``games.engine.record.RecordError``), translated by
    its ``code`` and ``params``; a refused play is explained as for a live game (see
    ``illegal_play_message``). A code without a translation falls back to the engine's
    English reason."""
    if exc.cause is not None:
        return illegal_play_message(exc.cause)
    params = dict(exc.params)
    # Messages that name a side are written out for each side: the languages decline the
    # side's name differently in each sentence.
    by_side = {
        "answer_double": {
            "white": _("White must first take or drop the double."),
            "black": _("Black must first take or drop the double."),
        },
        "not_turn": {"white": _("It is white's turn."), "black": _("It is black's turn.")},
        "double_not_mover": {
            "white": _("Only white, the side to move, may double now."),
            "black": _("Only black, the side to move, may double now."),
        },
        "cube_owner": {
            "white": _("White owns the cube: only white may redouble (R10)."),
            "black": _("Black owns the cube: only black may redouble (R10)."),
        },
        "double_offered_to": {
            "white": _("The double was offered to white."),
            "black": _("The double was offered to black."),
        },
        "no_double": {
            "take": _("No double was offered, so there is nothing to take."),
            "drop": _("No double was offered, so there is nothing to drop."),
        },
        "timeout_side": {
            "white": _("Only white's clock was running: black cannot have run out of time."),
            "black": _("Only black's clock was running: white cannot have run out of time."),
        },
        "abort_after_play": {
            "white": _(
                "White has already moved: only a side that has not "
                "made its first move can be a no-show."
            ),
            "black": _(
                "Black has already moved: only a side that has not "
                "made its first move can be a no-show."
            ),
        },
    }
    if exc.code in by_side:
        key = params.get("action" if exc.code == "no_double" else "side")
        found = by_side[exc.code].get(key) if isinstance(key, str) else None
        return found if found is not None else exc.reason
    messages = {
        "not_text": _("A record is text."),
        "too_long": _("The record is longer than %(limit)s characters."),
        "too_many_lines": _("The record has more than %(limit)s lines."),
        "control_character": _(
            "A record is plain text: the control character %(char)s is not allowed."
        ),
        "after_result": _("Nothing may follow the result line."),
        "header_after_turns": _("Headers must come before the first turn line."),
        "header_format": _('A header is written [Name "value"].'),
        "result_format": _(
            "The result line is written 'result <winner> <oin|mars|koks> "
            "<points> <bore_off|resign|drop|timeout|abandon>', or 'result "
            "aborted'."
        ),
        "play_missing": _("A turn line ends with the play or 'pass'."),
        "turn_format": _(
            "A turn line is written '<number> <white|black> <die>-<die> "
            "<play|pass>' (or 'double <value>', 'take', 'drop', 'resign', "
            "'timeout', 'abandon', 'abort')."
        ),
        "on_off": _('%(name)s is "on" or "off", not "%(value)s".'),
        "opening_missing": _('The record needs an Opening header ("6-5", or "white starts").'),
        "opening_starts": _(
            '"%(side)s starts" is only for a match game after the first (R11): '
            "this game begins with the roll-off (R3)."
        ),
        "opening_format": _(
            "The Opening header lists the roll-off as white-black dice, e.g. "
            '"3-3 6-5", or says "white starts".'
        ),
        "opening_empty": _("The Opening header is empty."),
        "opening_reroll": _("Only equal dice are rolled again in the opening (R3)."),
        "opening_unequal": _("The opening ends with unequal dice (R3)."),
        "preset_missing": _('The record needs a Preset header ("sport", "classic" or "match").'),
        "unknown_preset": _(
            'Unknown rules "%(preset)s": the Preset is "sport", "classic" or "match".'
        ),
        "preset_option": _(
            "Only the classic rules have koks and the doubling cube to switch on (R12)."
        ),
        "match_length": _(
            'In the "%(preset)s" rules the match length is %(lengths)s, not "%(value)s".'
        ),
        "game_over": _("The game is already over."),
        "turn_number": _("This is turn %(expected)s, not %(got)s."),
        "dice": _("Dice are two numbers from 1 to 6."),
        "opening_dice": _("The first player plays the opening dice %(dice)s (R3)."),
        "no_cube": _("This table has no doubling cube (R10)."),
        "cube_limit": _("The cube stops at %(limit)s: no double offers %(value)s (R10)."),
        "double_pending": _("A double is already offered."),
        "cube_at_limit": _("The cube is at 64 and cannot be turned again (R10)."),
        "cube_value": _("The cube stands at %(cube)s; a double offers %(offer)s (R10)."),
        "seed_format": _("The Seed header is written in hexadecimal."),
        "seed_hash": _("The SHA-256 of the Seed is not the Seed hash: the dice cannot be checked."),
        "result_early": _("The result line comes before the game is over."),
        "result_differs": _("The game ends %(result)s, not %(stated)s."),
        "result_header_early": _("The Result header names a result, but the game is not over."),
        "no_clock": _(
            "Only a game with a clock (a Clock header) can be lost on time, lost by "
            "leaving or aborted."
        ),
    }
    template = messages.get(exc.code)
    if template is None:
        return exc.reason
    try:
        return template % params if "%(" in template else template
    except (KeyError, TypeError, ValueError):
        return exc.reason


def record_error_message(exc: RecordError) -> str:
    """A readable, translated message for a refused record: the line number and the reason
    (``record_error_reason``)."""
    reason = record_error_reason(exc)
    if exc.line:
        return _("Line %(line)s: %(reason)s") % {"line": exc.line, "reason": reason}
    return reason


def ran_out_message(game: Game) -> str:
    """Why an action came too late: the game was aborted, abandoned or lost on time."""
    if game.status == Status.ABORTED:
        return _("The game was aborted: a player did not make a first move in time.")
    if game.end_reason == EndReason.ABANDON:
        return _("The game is over: a player left and did not come back in time.")
    return _("Time ran out: the game is over.")
