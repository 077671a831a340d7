"""The one module that changes games.

Every public function that changes a game runs inside ``transaction.atomic()`` with the game
row locked (``select_for_update``), checks who acts and whether the request is still current,
applies the rules engine, saves the game with a higher ``version``, records each change as a
``GameEvent`` and, only after the commit, tells the game's channel group and queues the bot's
move when it is the bot's turn. A request that fails a check raises a ``GameError`` whose
``code`` is a docs/protocol.md error code and changes nothing.
"""
import logging
import secrets
from dataclasses import dataclass

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils.translation import gettext as _

from games import bots
from games import dice as dice_rolls
from games.engine import (
    EngineError, NotationError, Position, board_to_json, check_play, format_step, game_value,
    legal_plays, step_graph,
)
from games.engine.rules import PLAY_OPENING_DICE
from games.models import (
    BotLevel, EndReason, EventKind, Game, GameEvent, Phase, Preset, Side, Status, other_side,
)

logger = logging.getLogger(__name__)


# --- errors -----------------------------------------------------------------------------

class GameError(Exception):
    """A request that cannot be carried out; the game is left unchanged.

    ``code`` is the docs/protocol.md error code, ``message`` a sentence a player can read,
    ``version`` the game's current version when it is known (else None).
    """

    code = "error"

    def __init__(self, message, version=None):
        super().__init__(message)
        self.message = str(message)
        self.version = version


class BadFrame(GameError):
    """A missing or ill-typed argument (protocol code ``bad_frame``)."""

    code = "bad_frame"


class StaleVersion(GameError):
    """The request names a version that is not the game's current one (``stale_version``)."""

    code = "stale_version"


class NotYourTurn(GameError):
    """The actor is not the side to move, or plays no side of this game (``not_your_turn``)."""

    code = "not_your_turn"


class WrongPhase(GameError):
    """The action does not fit the phase: play before rolling, roll after rolling
    (``wrong_phase``)."""

    code = "wrong_phase"


class IllegalPlayError(GameError):
    """The play breaks RULES.md; ``message`` names the rule (``illegal_play``)."""

    code = "illegal_play"


class GameOver(GameError):
    """The game has finished; nothing more can be done in it (``game_over``)."""

    code = "game_over"


# --- who acts ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Actor:
    """Who asks for a change: a guest (by the guest id in their session) or the bot."""

    guest_id: str | None = None
    bot: bool = False

    def side_in(self, game):
        """The side this actor plays in ``game``, or None if it plays no side."""
        if self.bot:
            return game.bot_side or None
        return game.side_of_guest(self.guest_id)


BOT = Actor(bot=True)


def group_name(game_id):
    """The channel group of a game's open sockets: ``game_<uuid>``."""
    return f"game_{game_id}"


# --- creating a game --------------------------------------------------------------------

def create_bot_game(guest_id, preset=Preset.SPORT, bot_level=BotLevel.MEDIUM, human_side="white"):
    """Create a game between the guest ``guest_id`` and the bot, and play the opening (R3).

    ``preset`` is an R12 preset name, ``bot_level`` a ``BotLevel`` value, ``human_side`` is
    "white", "black" or "random". Each side rolls one die (ties re-rolled, on the server);
    with the preset's opening ``play_opening_dice`` the higher die's side is to play those two
    dice (phase "play"), with ``reroll`` it is to roll (phase "roll"). The game starts at
    version 1, its record holding the opening event. If the bot moves first, its move is
    queued after the commit. Raises ``BadFrame`` for an unknown preset, level or side, or an
    empty guest id. Returns the new ``Game``.
    """
    if not guest_id or not isinstance(guest_id, str):
        raise BadFrame(_("A game needs a guest to play it."))
    if preset not in Preset.values:
        raise BadFrame(_("Unknown rules preset."))
    if bot_level not in BotLevel.values:
        raise BadFrame(_("Unknown computer level."))
    if human_side == "random":
        human_side = secrets.choice(Side.values)
    if human_side not in Side.values:
        raise BadFrame(_("Unknown side."))
    bot_side = other_side(human_side)

    white_die, black_die = dice_rolls.opening_roll()
    starter = Side.WHITE.value if white_die > black_die else Side.BLACK.value
    game = Game(
        preset=preset,
        white_guest=guest_id if human_side == Side.WHITE else "",
        black_guest=guest_id if human_side == Side.BLACK else "",
        bot_side=bot_side,
        bot_level=bot_level,
        opening={"white": white_die, "black": black_die},
        version=0,
    )
    game.position = Position.initial(starter).to_json()
    if game.ruleset.opening == PLAY_OPENING_DICE:
        game.phase = Phase.PLAY
        game.dice = sorted([white_die, black_die], reverse=True)
    else:
        game.phase = Phase.ROLL
        game.dice = None
    with transaction.atomic():
        game.save()
        _record(game, EventKind.OPENING, starter, dice=[white_die, black_die])
        _save(game)
    return game


# --- actions ----------------------------------------------------------------------------

def roll(game_id, actor, version):
    """The side to move rolls both dice (phase "roll" -> "play").

    The dice come from ``secrets`` and are stored (and recorded as a roll event) before any
    socket hears of them. If no step is possible with them, the game stays in phase "play"
    and the snapshot offers only the pass (``legal.pass``), which the player confirms with
    the play "". Raises NotYourTurn, StaleVersion, GameOver or WrongPhase. Returns the game.
    """
    with transaction.atomic():
        game = _lock(game_id)
        side = _check(game, actor, version, Phase.ROLL)
        _apply_roll(game, side)
        _save(game)
    return game


def play(game_id, actor, version, notation):
    """The side to move plays its dice: ``notation`` is the whole play (RULES.md Notation).

    The play is judged by the position it leads to (Notation); "" is the pass, legal only
    when no step is possible (R6). If the mover bears off its 15th checker the game ends and
    is scored by R9 on the loser's board. Raises BadFrame (notation not a string),
    NotYourTurn, StaleVersion, GameOver, WrongPhase or IllegalPlayError (with the engine's
    readable reason). Returns the game.
    """
    if not isinstance(notation, str):
        raise BadFrame(_("The play must be a string such as \"24/18 18/13\"."))
    with transaction.atomic():
        game = _lock(game_id)
        side = _check(game, actor, version, Phase.PLAY)
        _apply_play(game, side, notation)
        _save(game)
    return game


def resign(game_id, actor, version):
    """The actor resigns; the opponent wins, scored by R9 on the resigner's board.

    Allowed in either phase and on either side's turn while the game is on. Raises
    NotYourTurn (not a player), StaleVersion or GameOver. Returns the game.
    """
    with transaction.atomic():
        game = _lock(game_id)
        side = _check(game, actor, version, phase=None)
        _record(game, EventKind.RESIGN, side)
        _finish(game, winner=other_side(side), reason=EndReason.RESIGN)
        _save(game)
    return game


def bot_turn(game_id, version):
    """Play the bot's turn of game ``game_id`` if it is still due at ``version``.

    Does nothing (returns None) when the game is gone or finished, the version has moved on,
    or it is not the bot's turn, so running it twice, late or for a reconnect is harmless.
    Otherwise rolls (if the bot is to roll), picks a play with ``games.bots`` and applies it
    through the same checks as a human play, recording the roll and the play. Returns the game.
    """
    with transaction.atomic():
        try:
            game = Game.objects.select_for_update().get(pk=game_id)
        except Game.DoesNotExist:
            logger.info("bot turn for missing game %s", game_id)
            return None
        if game.version != version or not game.is_bot_turn:
            return None
        side = BOT.side_in(game)
        if game.phase == Phase.ROLL:
            _apply_roll(game, side)
        choice = bots.choose_play(game.get_position(), tuple(game.dice), game.ruleset,
                                  level=game.bot_level)
        _apply_play(game, side, choice.notation)
        _save(game)
    return game


def queue_due_bot_moves():
    """Queue the bot's move in every active game where the bot is to move; returns how many.

    Run when a worker starts: a move queued before a restart may be gone (the embedded Redis
    keeps nothing on disk, a killed worker may have held it). Harmless when the move is still
    queued too: ``bot_turn`` plays a given version once.
    """
    due = [(game.pk, game.version) for game in Game.objects.active().against_bot()
           if game.is_bot_turn]
    for game_id, version in due:
        _queue_bot(game_id, version)
    return len(due)


# --- snapshot ---------------------------------------------------------------------------

def snapshot(game, viewer=None):
    """The docs/protocol.md ``snapshot`` frame of ``game`` as seen by the guest ``viewer``.

    ``viewer`` is a guest id (or None). ``you`` is that guest's side or None for an onlooker;
    ``legal`` (plays, step graph, pass) is given only to the side to move, in phase "play".
    Reads the game as passed in and its last play from the record; changes nothing.
    """
    position = game.get_position()
    ruleset = game.ruleset
    you = game.side_of_guest(viewer)
    finished = game.status == Status.FINISHED
    turn = None if finished else position.turn

    legal = None
    if not finished and game.phase == Phase.PLAY and you is not None and you == turn:
        rolled = tuple(game.dice)
        plays = legal_plays(position, rolled, ruleset)
        legal = {
            "plays": [{"play": p.notation, "result": board_to_json(p.result.board(turn))}
                      for p in plays],
            "graph": step_graph(position, rolled, ruleset),
            "pass": len(plays) == 1 and plays[0].notation == "",
        }

    last_play = game.events.filter(kind=EventKind.PLAY).order_by("-seq").first()
    last = None
    if last_play is not None:
        last = {"side": last_play.side, "dice": last_play.dice, "play": last_play.play,
                "version": last_play.seq}

    result = None
    if finished:
        result = {"winner": game.winner, "kind": game.result_kind,
                  "points": game.result_points, "reason": game.end_reason}

    return {
        "type": "snapshot",
        "game": {
            "id": str(game.id),
            "preset": game.preset,
            "status": game.status,
            "version": game.version,
            "you": you,
            "players": {side: _player(game, side) for side in Side.values},
            "position": game.position,
            "turn": turn,
            "phase": game.phase,
            "dice": game.dice if game.phase == Phase.PLAY else None,
            "opening": game.opening,
            "pips": {side: position.pip(side) for side in Side.values},
            "off": {side: position.off(side) for side in Side.values},
            "legal": legal,
            "last": last,
            "result": result,
        },
    }


def _player(game, side):
    if game.bot_side == side:
        return {"name": _("Computer"), "bot": game.bot_level}
    return {"name": _("Guest"), "bot": None}


# --- internals --------------------------------------------------------------------------

def _lock(game_id):
    return Game.objects.select_for_update().get(pk=game_id)


def _check(game, actor, version, phase):
    """Who acts and whether the request is current; returns the actor's side.

    ``phase`` None means any phase and either side's turn (resignation).
    """
    side = actor.side_in(game)
    if side is None:
        raise NotYourTurn(_("You are not a player of this game."), game.version)
    if isinstance(version, bool) or not isinstance(version, int):
        raise BadFrame(_("The version must be a whole number."), game.version)
    if game.status == Status.FINISHED:
        raise GameOver(_("The game is over."), game.version)
    if version != game.version:
        raise StaleVersion(_("The game has changed since you last saw it."), game.version)
    if phase is None:
        return side
    if game.turn != side:
        raise NotYourTurn(_("It is not your turn."), game.version)
    if game.phase != phase:
        if phase == Phase.ROLL:
            raise WrongPhase(_("The dice are already rolled: play them."), game.version)
        raise WrongPhase(_("Roll the dice first."), game.version)
    return side


def _record(game, kind, side="", dice=None, play=""):
    """Raise the version by one and record the event that made it."""
    game.version += 1
    GameEvent.objects.create(game=game, seq=game.version, kind=kind, side=side or "",
                             dice=dice, play=play)


def _apply_roll(game, side):
    rolled = dice_rolls.roll()
    game.dice = rolled
    game.phase = Phase.PLAY
    _record(game, EventKind.ROLL, side, dice=rolled)


def _apply_play(game, side, notation):
    position = game.get_position()
    rolled = list(game.dice)
    try:
        chosen = check_play(position, tuple(rolled), notation, game.ruleset)
    except EngineError as exc:
        raise IllegalPlayError(illegal_play_message(exc), game.version) from None
    after = chosen.result
    game.position = after.to_json()
    game.dice = None
    _record(game, EventKind.PLAY, side, dice=rolled, play=chosen.notation)
    if after.winner:
        _finish(game, winner=after.winner, reason=EndReason.BORE_OFF)
    else:
        game.phase = Phase.ROLL


def _finish(game, winner, reason):
    """End the game: R9 value from the loser's board of the current position."""
    loser = other_side(winner)
    kind, points = game_value(game.get_position().board(loser), game.ruleset)
    game.status = Status.FINISHED
    game.phase = Phase.OVER
    game.dice = None
    game.winner = winner
    game.result_kind = kind
    game.result_points = points
    game.end_reason = reason
    _record(game, EventKind.END, winner)


def _save(game):
    """Save the locked game and, after the commit, notify its sockets and queue the bot."""
    game.save()
    game_id, version, bot_due = game.pk, game.version, game.is_bot_turn
    transaction.on_commit(lambda: _notify(game_id, version), robust=True)
    if bot_due:
        transaction.on_commit(lambda: _queue_bot(game_id, version), robust=True)


def _notify(game_id, version):
    """Tell every open socket of the game that it changed (docs/protocol.md: a snapshot follows)."""
    layer = get_channel_layer()
    async_to_sync(layer.group_send)(group_name(game_id),
                                    {"type": "game.changed", "version": version})


def _queue_bot(game_id, version):
    from games.tasks import bot_move  # tasks imports this module

    bot_move.delay(str(game_id), version)


def illegal_play_message(exc):
    """A player-readable, translated reason why a submitted play was refused.

    ``exc`` is the engine's error: an ``IllegalPlay`` (its ``code`` names the rule of RULES.md
    R4-R8 that was broken, its ``step`` the offending step) or a ``NotationError``. A code
    without a translation here falls back to the engine's own English message.
    """
    if isinstance(exc, NotationError):
        return _("Write the play as steps such as \"24/18 18/13\" (\"3/off\" bears off).")
    code = getattr(exc, "code", None)
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
        "head": _("Too many checkers leave the head: one per turn, or two on a first turn "
                  "with 6-6, 4-4 or 3-3."),
        # R6
        "cannot_pass": _("You have a legal move, so you cannot pass."),
        "must_play_more": _("You must play as many dice of this roll as the rules allow."),
        "must_play_larger": _("Only one die can be played, so it must be the larger one."),
        # R7
        "six_block": _("%(step)s would build six points in a row with no opponent checker "
                       "ahead."),
        # R8
        "bear_off_not_home": _("You may bear off only when all your checkers are in your home "
                               "(points 1 to 6)."),
        "bear_off_higher": _("A die larger than %(from)s bears off only from your highest "
                             "point; move inside your home instead."),
        "not_legal": _("This play is not legal."),
    }
    template = messages.get(code)
    if template is None:
        return str(exc)
    try:
        return template % params if "%(" in template else template
    except KeyError:
        return str(exc)
