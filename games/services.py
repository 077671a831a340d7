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
from collections import namedtuple
from dataclasses import dataclass
from datetime import datetime, timezone as dt_timezone

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models import F, Q
from django.db.models.fields.json import KeyTextTransform
from django.utils.translation import gettext as _

from django.urls import reverse

from games import bots, clocks, ratings
from games import dice as dice_rolls
from games.bots import cube as cube_decisions
from games.engine import (
    OIN, EngineError, NotationError, Position, board_to_json, check_play, explain, fairdice,
    format_step, game_value, legal_plays, step_graph,
)
from games.engine import record as rec
from games.engine.position_id import encode as encode_position
from games.engine.rules import PLAY_OPENING_DICE
from games.models import (
    BotLevel, Challenge, ChallengeStatus, Colour, EndReason, EventKind, Game, GameEvent,
    ImportedRecord, Match, Phase, Preset, Presence, Profile, Side, Status, other_side,
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


class CubeNotAllowed(GameError):
    """A double that RULES.md R10 does not allow here: no cube at the table, the opponent owns
    it, or it is at 64 (``cube_not_allowed``)."""

    code = "cube_not_allowed"


class GameOver(GameError):
    """The game has finished; nothing more can be done in it (``game_over``)."""

    code = "game_over"


class TimeRanOut(GameOver):
    """The request came after a deadline of the game's clock (RULES.md R11): the timeout was
    applied instead and the game is over (``game_over``)."""


class CannotClaim(GameError):
    """A claim of the win that the rules do not allow now: the opponent is here, or has not
    been away for the grace period, or the clock has no claim (``cannot_claim``)."""

    code = "cannot_claim"


class ChallengeError(GameError):
    """A challenge link that cannot be accepted or withdrawn: taken, withdrawn, or one's own
    (``challenge``)."""

    code = "challenge"


# --- who acts ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Actor:
    """Who asks for a change or looks: a person, known by the guest id in their session and,
    once signed in, by their account (``user_id``), or the bot. A signed-in person plays the
    games of their account on any device, and the games of their session's guest id."""

    guest_id: str | None = None
    bot: bool = False
    user_id: int | None = None

    def side_in(self, game):
        """The side this actor plays in ``game``, or None if it plays no side."""
        return game.side_of(self)


BOT = Actor(bot=True)


def group_name(game_id):
    """The channel group of a game's open sockets: ``game_<uuid>``."""
    return f"game_{game_id}"


# --- table options ----------------------------------------------------------------------

#: R11 match lengths and the default one for a new ``match`` game
MATCH_LENGTHS = (1, 3, 5, 7)
DEFAULT_MATCH_LENGTH = 3


def bot_levels():
    """The computer levels that exist now (``games.bots.LEVELS``)."""
    return tuple(level for level in bots.LEVELS if level)


def table_options(preset, match_length=None, koks=None, cube=None):
    """Check the table options of a new game (RULES.md R12) and fill in the preset's defaults.

    ``match_length`` (1/3/5/7) is for ``match`` only (default 3; other presets play one game),
    ``koks`` and ``cube`` (bools) for ``classic`` only (defaults: koks on, cube off); None means
    "the default". Returns ``(table, length)``: the engine's table overrides (``{"koks": …,
    "cube": …}`` for classic, else ``{}``) and the match length (None outside ``match``).
    Raises BadFrame naming the wrong option.
    """
    if preset not in Preset.values:
        raise BadFrame(_("Unknown rules preset."))
    if preset == Preset.MATCH:
        length = DEFAULT_MATCH_LENGTH if match_length is None else match_length
        if type(length) is not int or length not in MATCH_LENGTHS:  # not True, not 3.0
            raise BadFrame(_("A match is played to 1, 3, 5 or 7 points."))
    else:
        if match_length is not None and (type(match_length) is not int or match_length != 1):
            raise BadFrame(_("Only the match rules play a match of several games."))
        length = None
    for value in (koks, cube):
        if value is not None and not isinstance(value, bool):
            raise BadFrame(_("Table options are on or off."))
    if preset == Preset.CLASSIC:
        table = {"koks": True if koks is None else koks, "cube": bool(cube)}
    else:
        if koks:
            raise BadFrame(_("Koks counts only in the classic rules."))
        if cube:
            raise BadFrame(_("The doubling cube is used only in the classic rules."))
        table = {}
    return table, length


# --- creating a game --------------------------------------------------------------------

def clock_for(preset, wanted):
    """The clock spec a new game gets (RULES.md R12): the preset's clock when ``wanted`` is
    true (games between people always; against the computer only if the player asks), None
    when false, or ``wanted`` itself when it is a ``games.clocks.ClockSpec``. Raises BadFrame
    for an unknown preset or a ``wanted`` of another type."""
    if preset not in clocks.PRESET_CLOCK:
        raise BadFrame(_("Unknown rules preset."))
    if isinstance(wanted, clocks.ClockSpec):  # a given clock (tests, events with other times)
        return wanted
    if isinstance(wanted, str) or not isinstance(wanted, (bool, type(None))):
        raise BadFrame(_("The clock is on or off."))
    return clocks.CLOCKS[clocks.PRESET_CLOCK[preset]] if wanted else None


def create_bot_game(who, preset=Preset.SPORT, bot_level=BotLevel.MEDIUM, human_side="white",
                    match_length=None, koks=None, cube=None, clock=False):
    """Create a game between ``who`` (an Actor, or a guest id: the guest and, if signed in,
    the account) and the bot, and play the opening (R3).

    ``preset`` is an R12 preset name, ``bot_level`` one of ``bot_levels()``, ``human_side`` is
    "white", "black" or "random"; ``match_length``, ``koks`` and ``cube`` as in
    ``table_options``; ``clock`` True gives the player the preset's clock (``clock_for``; the
    bot never runs a clock). A ``match`` game starts a Match of that length. The game gets a
    secret dice seed; each side rolls one die from it (ties rolled again); with the preset's
    opening ``play_opening_dice`` the higher die's side is to play those two dice (phase
    "play"), with ``reroll`` it is to roll (phase "roll"). The game starts at version 1, its
    record holding the opening event. If the bot moves first, its move is queued after the
    commit. Raises ``BadFrame`` for an unknown preset, level, side or option, or an empty
    guest id. Returns the new ``Game``.
    """
    actor = _person(who)
    table, length = table_options(preset, match_length, koks, cube)
    spec = clock_for(preset, clock)
    if bot_level not in bot_levels():
        raise BadFrame(_("Unknown computer level."))
    colour = human_side
    if human_side == "random":
        human_side = secrets.choice(Side.values)
    if human_side not in Side.values:
        raise BadFrame(_("Unknown side."))
    players = {**_seat(human_side, actor), "bot_side": other_side(human_side),
               "bot_level": bot_level}
    return _new_game(preset, table, length, colour, spec, players)


def _new_game(preset, table, length, colour, spec, players):
    """Create the game (and its Match for a ``match`` length) in one transaction."""
    with transaction.atomic():
        match = None
        if length is not None:
            match = Match.objects.create(
                preset=preset, length=length, rated=players.get("rated", False),
                **{key: value for key, value in players.items()
                   if key in ("white_guest", "black_guest", "bot_side", "bot_level")})
        reserves = None
        if spec is not None:
            reserves = {side: spec.reserve_ms for side in Side.values}
        game = _start_game(preset=preset, table=table, colour=colour, match=match,
                           match_number=1 if match else None, starter=None, clock=spec,
                           reserves=reserves, clock_from=_now_ms(), **players)
    return game


#: after a game of a match, the next game's clock starts this much later (ms), so the
#: players can see the result and their pages move to the next game (room.js waits 5 s)
BETWEEN_GAMES_MS = 6_000


def _start_game(*, preset, table, colour, match, match_number, starter, clock=None,
                reserves=None, clock_from=None, **players):
    """Create and save a game at version 1 with its opening (inside the caller's transaction).

    ``starter`` None: the R3 roll-off from the game's seed; else that side starts and rolls
    both dice (a match game after the first, R11). ``clock`` (a ClockSpec or None) with each
    side's ``reserves`` (ms) starts the first turn's clock at ``clock_from`` (ms)."""
    seed = dice_rolls.new_seed()
    game = Game(preset=preset, table=table, colour=colour, match=match,
                match_number=match_number, seed=seed.hex(), seed_hash=fairdice.seed_hash(seed),
                version=0, clock=clock.to_json() if clock else {}, **players)
    if clock is not None:
        for side in Side.values:
            game.set_reserve(side, reserves[side])
    if starter is None:
        white_die, black_die, ties, next_roll = dice_rolls.opening_roll(seed, 0)
        starter = Side.WHITE.value if white_die > black_die else Side.BLACK.value
        game.opening = {"white": white_die, "black": black_die, "ties": ties,
                        "starter": starter}
        game.rolls = next_roll
        opening_dice = [white_die, black_die]
    else:
        game.opening = {"white": None, "black": None, "ties": [], "starter": starter}
        game.rolls = 0
        opening_dice = None
    game.position = Position.initial(starter).to_json()
    if opening_dice and game.ruleset.opening == PLAY_OPENING_DICE:
        game.phase = Phase.PLAY
        game.dice = sorted(opening_dice, reverse=True)
    else:
        game.phase = Phase.ROLL
        game.dice = None
    game.save()
    _record(game, EventKind.OPENING, starter, dice=opening_dice)
    _clock_after_change(game, None, clock_from if clock_from is not None else _now_ms())
    _save(game)
    return game


# --- accounts ---------------------------------------------------------------------------

def adopt_guest_games(guest_id, user_id):
    """A guest signed in: the games and open challenges of their session's ``guest_id`` now
    belong to account ``user_id`` too (seats nobody else holds), so they keep them on every
    device. Returns how many games moved."""
    if not guest_id or not user_id:
        return 0
    moved = 0
    with transaction.atomic():
        for side in Side.values:
            # never both seats of one game: an account does not play itself
            moved += Game.objects.filter(**{f"{side}_guest": guest_id,
                                            f"{side}_user__isnull": True}).exclude(
                **{f"{other_side(side)}_user_id": user_id}).update(
                **{f"{side}_user_id": user_id})
        Challenge.objects.filter(creator_guest=guest_id, creator_user__isnull=True).update(
            creator_user_id=user_id)
    return moved


# --- games between people: challenge links ----------------------------------------------

def _person(who):
    """``who`` (a guest id string or an Actor) as an Actor with a guest id; raises BadFrame
    when there is none."""
    actor = Actor(guest_id=who) if isinstance(who, str) or who is None else who
    if not actor.guest_id or not isinstance(actor.guest_id, str) or actor.bot:
        raise BadFrame(_("A game needs a guest to play it."))
    return actor


def _seat(side, actor):
    """The Game fields that put ``actor`` on ``side``."""
    return {f"{side}_guest": actor.guest_id, f"{side}_user_id": actor.user_id}


def create_challenge(who, preset=Preset.SPORT, colour=Colour.RANDOM, match_length=None,
                     koks=None, cube=None, rated=False, clock=None):
    """Open a challenge link for a game between people.

    ``who`` is the creator (an Actor, or a guest id). ``colour`` is the side they want
    ("white", "black" or "random"), the table options as in ``table_options``, ``clock`` a
    clock kind of ``games.clocks.CLOCKS`` (None: the preset's, RULES.md R12). ``rated`` (only
    for a signed-in creator) makes the game count for both ratings; a guest's challenge is
    always casual. Raises BadFrame for no guest id, a wrong option, or a rated challenge from
    a guest. Returns the new ``Challenge``.
    """
    actor = _person(who)
    table, length = table_options(preset, match_length, koks, cube)
    if colour not in Colour.values:
        raise BadFrame(_("Unknown side."))
    if not isinstance(rated, bool):
        raise BadFrame(_("A game is rated or casual."))
    if rated and not actor.user_id:
        raise BadFrame(_("Sign in to play rated games."))
    kind = clock_kind_for(preset, clock)
    with transaction.atomic():
        return Challenge.objects.create(preset=preset, table=table, match_length=length,
                                        colour=colour, creator_guest=actor.guest_id,
                                        creator_user_id=actor.user_id, rated=rated,
                                        clock_kind=kind)


def clock_kind_for(preset, kind):
    """The clock kind a game between people runs: ``kind`` if it names one of
    ``games.clocks.CLOCKS``, the preset's (RULES.md R12) when None. Raises BadFrame."""
    if preset not in clocks.PRESET_CLOCK:
        raise BadFrame(_("Unknown rules preset."))
    if kind in (None, ""):
        return clocks.PRESET_CLOCK[preset]
    if kind not in clocks.CLOCKS:
        raise BadFrame(_("Unknown clock."))
    return kind


def accept_challenge(challenge_id, who, clock=None):
    """``who`` (an Actor or a guest id) accepts the open challenge ``challenge_id``: the game
    between the creator and them starts now with the challenge's clock (the creator gets the
    side they asked for; "random" is drawn by the server). A rated challenge needs a signed-in
    acceptor with another account. ``clock`` may give another ``games.clocks.ClockSpec``
    (tests use short ones). Raises ChallengeError (taken, withdrawn, one's own link, or rated
    and not signed in), BadFrame (no guest) or Challenge.DoesNotExist. Returns the new Game."""
    actor = _person(who)
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
        if challenge.status == ChallengeStatus.CANCELLED:
            raise ChallengeError(_("This challenge was withdrawn."))
        if challenge.status == ChallengeStatus.ACCEPTED:
            raise ChallengeError(_("Someone has already accepted this challenge."))
        creator = Actor(guest_id=challenge.creator_guest, user_id=challenge.creator_user_id)
        if challenge.creator_guest == actor.guest_id or (
                creator.user_id and creator.user_id == actor.user_id):
            raise ChallengeError(_("This is your own challenge: send the link to a friend."))
        if challenge.rated and not actor.user_id:
            raise ChallengeError(_("This is a rated game: sign in to accept it."))
        creator_side = challenge.colour
        if creator_side == Colour.RANDOM:
            creator_side = secrets.choice(Side.values)
        players = {**_seat(creator_side, creator), **_seat(other_side(creator_side), actor),
                   "rated": challenge.rated}
        spec = clock if isinstance(clock, clocks.ClockSpec) else clocks.CLOCKS[
            clock_kind_for(challenge.preset, challenge.clock_kind)]
        game = _new_game(challenge.preset, challenge.table, challenge.match_length,
                         challenge.colour, spec, players)
        challenge.status = ChallengeStatus.ACCEPTED
        challenge.game = game
        challenge.save()
    return game


def cancel_challenge(challenge_id, who):
    """Withdraw an open challenge; only its creator may (``who``: an Actor or a guest id).
    Raises ChallengeError (not theirs, or no longer open) or Challenge.DoesNotExist. Returns
    the Challenge."""
    actor = Actor(guest_id=who) if isinstance(who, str) or who is None else who
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
        mine = (bool(actor.guest_id) and challenge.creator_guest == actor.guest_id) or (
            bool(actor.user_id) and challenge.creator_user_id == actor.user_id)
        if not mine:
            raise ChallengeError(_("Only the player who made this challenge may withdraw it."))
        if challenge.status != ChallengeStatus.OPEN:
            raise ChallengeError(_("This challenge is no longer open."))
        challenge.status = ChallengeStatus.CANCELLED
        challenge.save()
    return challenge


# --- actions ----------------------------------------------------------------------------

def roll(game_id, actor, version, at=None):
    """The side to move rolls both dice (phase "roll" -> "play").

    The dice are derived from the game's seed and the roll's number (``games.dice``), stored
    and recorded as a roll event before any socket hears of them. If no step is possible
    with them, the game stays in phase "play" and the snapshot offers only the pass
    (``legal.pass``), which the player confirms with the play "". ``at`` (ms since the epoch,
    default now) is when the server received the request: the clock is judged at that instant
    (see ``_act``). Raises NotYourTurn, StaleVersion, GameOver (TimeRanOut) or WrongPhase.
    Returns the game.
    """
    def change(game):
        side = _check(game, actor, version, Phase.ROLL)
        _apply_roll(game, side)
    return _act(game_id, at, change)


def play(game_id, actor, version, notation, at=None):
    """The side to move plays its dice: ``notation`` is the whole play (RULES.md Notation).

    The play is judged by the position it leads to (Notation); "" is the pass, legal only
    when no step is possible (R6). If the mover bears off its 15th checker the game ends and
    is scored by R9 on the loser's board (with the cube, R10). ``at`` as for ``roll``. Raises
    BadFrame (notation not a string), NotYourTurn, StaleVersion, GameOver (TimeRanOut),
    WrongPhase or IllegalPlayError (with the engine's readable reason). Returns the game.
    """
    if not isinstance(notation, str):
        raise BadFrame(_("The play must be a string such as \"24/18 18/13\"."))

    def change(game):
        side = _check(game, actor, version, Phase.PLAY)
        _apply_play(game, side, notation)
    return _act(game_id, at, change)


def double(game_id, actor, version, at=None):
    """The side to move offers to double the stake before rolling (RULES.md R10).

    Allowed only at a table with the cube, in phase "roll", when the cube is in the middle or
    owned by that side, and below 64. The game goes to phase "cube": the other side must take
    or drop. Raises NotYourTurn, StaleVersion, GameOver (TimeRanOut), WrongPhase (after
    rolling, or while an offer waits) or CubeNotAllowed. Returns the game.
    """
    def change(game):
        side = _check(game, actor, version, Phase.ROLL, action="double")
        _apply_double(game, side)
    return _act(game_id, at, change)


def take(game_id, actor, version, at=None):
    """The side offered a double accepts it (R10): the cube doubles and the taker owns it;
    the offerer then rolls (phase "roll"). Raises NotYourTurn, StaleVersion, GameOver
    (TimeRanOut) or WrongPhase (no offer waiting). Returns the game."""
    def change(game):
        side = _check(game, actor, version, Phase.CUBE)
        _apply_take(game, side)
    return _act(game_id, at, change)


def drop(game_id, actor, version, at=None):
    """The side offered a double declines it (R10): it loses the game at the stake before the
    double, counted as oin. Raises NotYourTurn, StaleVersion, GameOver (TimeRanOut) or
    WrongPhase (no offer waiting). Returns the game."""
    def change(game):
        side = _check(game, actor, version, Phase.CUBE)
        _apply_drop(game, side)
    return _act(game_id, at, change)


def resign(game_id, actor, version, at=None):
    """The actor resigns; the opponent wins, scored by R9 on the resigner's board (times the
    cube, R10). In a match the match goes on with the next game (R11).

    Allowed in any phase and on either side's turn while the game is on. Raises
    NotYourTurn (not a player), StaleVersion or GameOver (TimeRanOut). Returns the game.
    """
    def change(game):
        side = _check(game, actor, version, phase=None)
        _record(game, EventKind.RESIGN, side)
        _finish(game, winner=other_side(side), reason=EndReason.RESIGN)
    return _act(game_id, at, change)


def claim(game_id, actor, version, at=None):
    """Claim the win against an opponent who has been away (no open socket) for the clock's
    grace period (``standard``: ``claim_after_ms``, docs/protocol.md "Clocks"). The absent
    side loses by R9 on its position, as if it had resigned (reason ``abandon``).

    Raises NotYourTurn (not a player), StaleVersion, GameOver (TimeRanOut) or CannotClaim
    (the opponent is here, has not been away long enough, or the clock has no claim).
    Returns the game.
    """
    def change(game):
        side = _check(game, actor, version, phase=None)
        opponent = other_side(side)
        spec = clock_spec(game)
        away = _ms(game.away_since(opponent))
        allowed_from = clocks.claim_from(spec, away) if spec else None
        if opponent == game.bot_side:
            raise CannotClaim(_("The computer never leaves a game: there is no win to claim."),
                              game.version)
        if away is None:
            raise CannotClaim(_("Your opponent is here: there is no win to claim."),
                              game.version)
        if allowed_from is None:
            raise CannotClaim(_("This game's clock has no claim: a player who stays away "
                                "loses by the clock."), game.version)
        if _now_ms() < allowed_from:
            raise CannotClaim(_("Your opponent may still come back: wait until the grace "
                                "period is over."), game.version)
        _lose_by(game, opponent, EventKind.ABANDON, EndReason.ABANDON)
    return _act(game_id, at, change)


def bot_turn(game_id, version):
    """Act for the bot in game ``game_id`` if it is still due at ``version``.

    Does nothing (returns None) when the game is gone or finished, the version has moved on,
    or the bot is not the side that must act, so running it twice, late or for a reconnect is
    harmless. Otherwise: answers an offered double (``games.bots.cube``), or offers one when
    the cube is available and it is clearly ahead (the human then answers), or rolls (if due)
    and plays the move chosen by ``games.bots``, through the same checks as a human's
    actions, recording each. Returns the game.
    """
    now = _now_ms()
    with transaction.atomic():
        game = _lock_or_none(game_id)
        if game is None:
            logger.info("bot turn for missing game %s", game_id)
            return None
        if game.version != version or not game.is_bot_turn:
            return None
        if _apply_expired(game, now):  # the human's away time may have run out meanwhile
            _save(game)
            return game
        game = _bot_act(game, now)
    return game


def _bot_act(game, now):
    """The bot's action in the locked ``game`` (see ``bot_turn``); saves it."""
    before = game.awaiting
    side = BOT.side_in(game)
    position = game.get_position()
    if game.phase == Phase.CUBE:
        if cube_decisions.should_take(position, side, game.cube_value, game.ruleset,
                                        level=game.bot_level):
            _apply_take(game, side)
        else:
            _apply_drop(game, side)
    elif game.phase == Phase.ROLL and game.may_double(side) and (
            cube_decisions.should_double(position, side, game.cube_value, game.ruleset,
                                          level=game.bot_level)):
        _apply_double(game, side)
    else:
        if game.phase == Phase.ROLL:
            _apply_roll(game, side)
        choice = bots.choose_play(position, tuple(game.dice), game.ruleset,
                                  level=game.bot_level)
        _apply_play(game, side, choice.notation)
    _clock_after_change(game, before, now)
    _save(game)
    return game


#: a computer move still not made this long after it fell due is taken as lost (its task went
#: with a restarted Redis, or with a worker that was killed) and queued again by the beat sweep
#: (ms); a move takes well under a second
BOT_MOVE_LOST_MS = 10_000


def queue_lost_bot_moves():
    """Queue again the bot's move in every active game where the bot has had to act for more
    than BOT_MOVE_LOST_MS (since the game last changed); returns how many. Part of the beat
    sweep (``sweep_clocks``), so a lost move is made without a worker restart. Each copy
    expires after BOT_MOVE_LOST_MS, so copies do not pile up while no worker runs; a copy of
    a move that was not lost finds the version moved on (``bot_turn``) and does nothing."""
    from games.tasks import bot_move  # tasks imports this module

    turn = KeyTextTransform("turn", "position")
    bot_to_act = ((Q(phase=Phase.CUBE) & ~Q(turn_side=F("bot_side")))
                  | (~Q(phase=Phase.CUBE) & Q(turn_side=F("bot_side"))))
    lost = list(Game.objects.active().against_bot().annotate(turn_side=turn)
                .filter(bot_to_act, updated__lt=_dt(_now_ms() - BOT_MOVE_LOST_MS))
                .values_list("pk", "version"))
    for game_id, version in lost:
        bot_move.apply_async((str(game_id), version), expires=BOT_MOVE_LOST_MS / 1000)
    return len(lost)


def queue_due_bot_moves():
    """Queue the bot's move in every active game where the bot must act; returns how many.

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

ACTION_ORDER = ("roll", "double", "play", "take", "drop", "resign", "claim")


def actions_for(game, side, now=None):
    """The frame types (docs/protocol.md) ``side`` may send now (``now``: ms, default the
    current time), in ``ACTION_ORDER``; [] for an onlooker (``side`` None) or a game that is
    over. ``claim`` appears once the opponent has been away for the clock's grace period."""
    if side is None or game.is_over:
        return []
    allowed = {"resign"}
    spec = clock_spec(game)
    opponent = other_side(side)
    if spec is not None and opponent != game.bot_side:
        allowed_from = clocks.claim_from(spec, _ms(game.away_since(opponent)))
        if allowed_from is not None and (now or _now_ms()) >= allowed_from:
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
#: one event as ``history`` reads it (``event_rows``, and the ``events`` of a ``game.changed``)
EventRow = namedtuple("EventRow", HISTORY_FIELDS)


def history(events):
    """The docs/protocol.md ``history`` of a game from its events (in ``seq`` order; GameEvents
    or rows with the ``HISTORY_FIELDS``): one
    entry per play (with its dice; ``""`` for a pass), cube action, resignation, loss on time
    (``timeout``), loss by leaving (``abandon``) and no-show (``abort``), each with the turn
    number ``n`` (the side of the last three is the side that lost or did not show)."""
    out = []
    n = 1
    for event in events:
        if event.kind == EventKind.PLAY:
            out.append({"n": n, "side": event.side, "kind": "play", "dice": event.dice,
                        "play": event.play, "version": event.seq})
            n += 1
        elif event.kind in (EventKind.DOUBLE, EventKind.TAKE, EventKind.DROP):
            out.append({"n": n, "side": event.side, "kind": event.kind, "cube": event.cube,
                        "version": event.seq})
        elif event.kind in (EventKind.RESIGN, EventKind.TIMEOUT, EventKind.ABANDON,
                            EventKind.ABORT):
            out.append({"n": n, "side": event.side, "kind": event.kind, "version": event.seq})
    return out


def opening_of(game):
    """The snapshot's ``opening``: each side's roll-off die, the ties before, the starter and
    whether there was a roll-off (games made before these fields had only the two dice)."""
    opening = dict(game.opening or {})
    white, black = opening.get("white"), opening.get("black")
    starter = opening.get("starter")
    if starter is None and white is not None and black is not None:
        starter = Side.WHITE.value if white > black else Side.BLACK.value
    return {"white": white, "black": black, "ties": opening.get("ties", []),
            "starter": starter, "roll_off": white is not None}


def options_of(game):
    """The snapshot's ``options``: the table options the game was created with."""
    ruleset = game.ruleset
    return {
        "preset": game.preset,
        "match_length": game.match.length if game.match_id else 1,
        "koks": ruleset.koks,
        "cube": ruleset.cube,
        "bot_level": game.bot_level or None,
        "colour": game.colour or game.side_of_guest(game.white_guest or game.black_guest),
    }


def result_of(game):
    """The snapshot's ``result`` of a game that is over, else None. An aborted game (a no-show,
    docs/protocol.md "Clocks") has ``winner`` null, ``points`` 0 and ``reason`` "aborted";
    ``loser`` names the side that lost (or did not show up); ``match_lost`` is true when a
    ``match`` clock ran out and the loser lost the whole match (R11)."""
    if game.status == Status.ACTIVE:
        return None
    if game.status == Status.ABORTED:
        last = game.events.filter(kind=EventKind.ABORT).order_by("-seq").first()
        return {"winner": None, "kind": None, "points": 0, "reason": "aborted",
                "cube": game.cube_value, "loser": last.side if last else None,
                "match_lost": False, "rating": None}
    spec = clock_spec(game)
    match_lost = (game.end_reason in (EndReason.TIMEOUT, EndReason.ABANDON) and spec is not None
                  and spec.loses == clocks.LOSES_MATCH and bool(game.match_id))
    return {"winner": game.winner, "kind": game.result_kind, "points": game.result_points,
            "reason": game.end_reason, "cube": game.cube_value,
            "loser": other_side(game.winner), "match_lost": match_lost,
            "rating": ratings.changes_of(game) if game.rated else None}


def match_of(game):
    """The snapshot's ``match`` (docs/protocol.md "Matches"), or None outside a match."""
    if not game.match_id:
        return None
    match = game.match
    games = list(match.games.order_by("match_number").values_list("pk", "match_number"))
    next_game = next((str(pk) for pk, number in games if number == game.match_number + 1), None)
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


def why_not_message(reasons):
    """One translated text from an explanation's ``(die, code, target)`` triples: a reason
    shared by every die is said once, different reasons are said per die."""
    texts = [(die, _why_text(code, target)) for die, code, target in reasons]
    if len({text for _die, text in texts}) == 1 or any(die is None for die, _t in texts):
        return texts[0][1]
    # After "Die 6:" the reason goes on the sentence, so it starts in lower case.
    return " ".join(_("Die %(die)s: %(reason)s") % {"die": die, "reason": text[:1].lower() + text[1:]}
                    for die, text in texts)


def _why_text(code, target):
    messages = {
        explain.BLOCKED: _("Point %(to)s is held by your opponent."),
        explain.HEAD_RULE: _("No more checkers may leave the head this turn (one per turn; two "
                             "on a first turn with 6-6, 4-4 or 3-3)."),
        explain.SIX_BLOCK: _("The step would build six points in a row with no opponent "
                             "checker ahead."),
        explain.BEAR_OFF_NOT_HOME: _("You may bear off only when all your checkers are in your "
                                     "home (points 1 to 6)."),
        explain.BEAR_OFF_HIGHER: _("A checker stands on a higher point of your home, so this "
                                   "die must move a checker inside the home."),
        explain.MUST_PLAY_MORE: _("Then the rest of the roll could not be played, and you must "
                                  "play as many dice as the rules allow."),
        explain.MUST_PLAY_LARGER: _("Only one die can be played, so it must be the larger one."),
        explain.NO_DICE_LEFT: _("Your move is complete: no dice are left to play."),
        explain.NO_CHECKER: _("You have no checker on that point."),
    }
    text = messages[code]
    return text % {"to": target} if "%(to)s" in text else text


def explanation_frame(explanation):
    """The ``reasons``/``message`` part of a ``why_not`` entry or ``why`` frame for one
    ``games.engine.explain.Explanation``."""
    triples = [(die, code, explanation.point - die if die else None)
               for die, code in explanation.reasons]
    return {
        "reasons": [{"die": die, "code": code} for die, code in explanation.reasons],
        "message": (why_not_message(triples) if triples
                    else _("This checker can move.")),
    }


def event_rows(game, after_seq=0):
    """The game's events after ``after_seq`` in ``seq`` order, as ``EventRow``s: events are
    only ever added, so a reader that keeps the rows it has asks only for the new ones."""
    return [EventRow(*row) for row in game.events.filter(seq__gt=after_seq).order_by("seq")
            .values_list(*HISTORY_FIELDS)]


def snapshot(game, viewer=None, events=None):
    """The docs/protocol.md ``snapshot`` frame of ``game`` as seen by ``viewer``.

    ``viewer`` is an Actor, a guest id or None. ``you`` is the viewer's side or None for an
    onlooker;
    ``legal`` (plays, step graph, pass, why_not) is given only to the side to move, in phase
    "play"; ``actions`` lists what the viewer may send now. The seed is shown only once the
    game is finished. ``events``: the game's ``event_rows`` if the caller has them (else they
    are read). Reads the game as passed in and its record; changes nothing.
    """
    position = game.get_position()
    ruleset = game.ruleset
    you = game.side_of(viewer)
    finished = game.is_over
    turn = None if finished else position.turn
    now = _now_ms()
    spec = clock_spec(game)

    legal = None
    if not finished and game.phase == Phase.PLAY and you is not None and you == turn:
        rolled = tuple(game.dice)
        plays = legal_plays(position, rolled, ruleset)
        legal = {
            "plays": [{"play": p.notation, "result": board_to_json(p.result.board(turn))}
                      for p in plays],
            "graph": step_graph(position, rolled, ruleset),
            "pass": len(plays) == 1 and plays[0].notation == "",
            "why_not": {str(point): explanation_frame(found) for point, found in
                        explain.immovable_points(position, rolled, ruleset).items()},
        }

    if events is None:
        events = event_rows(game)
    last_play = next((e for e in reversed(events) if e.kind == EventKind.PLAY), None)
    last = None
    if last_play is not None:
        last = {"side": last_play.side, "dice": last_play.dice, "play": last_play.play,
                "version": last_play.seq}

    cube = None
    if ruleset.cube:
        cube = {"value": game.cube_value, "owner": game.cube_owner or None,
                "offered_by": turn if game.phase == Phase.CUBE else None,
                "turned": game.cube_value > 1}

    fairness = None
    if game.seed_hash:
        fairness = {"seed_hash": game.seed_hash, "seed": game.seed if finished else None,
                    "rolls": game.rolls}

    position_id = encode_position(position)
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
            "status": game.status,
            "version": game.version,
            "you": you,
            "players": {side: player_of(game, side) for side in Side.values},
            "position": game.position,
            "position_id": position_id,
            "turn": turn,
            "phase": game.phase,
            "awaiting": game.awaiting,
            "actions": actions_for(game, you, now),
            "dice": game.dice if game.phase == Phase.PLAY else None,
            "opening": opening_of(game),
            "cube": cube,
            "match": match_of(game),
            "pips": {side: position.pip(side) for side in Side.values},
            "off": {side: position.off(side) for side in Side.values},
            "legal": legal,
            "last": last,
            "history": history(events),
            "fairness": fairness,
            "links": links,
            "result": result_of(game),
            "clock": clock_of(game, now),
            "presence": {side: presence_of(game, side, spec) for side in Side.values},
        },
    }


def explain_point(game, viewer, point, staged):
    """The docs/protocol.md ``why`` answer: why the viewer's checker on ``point`` cannot move
    after the ``staged`` steps (a play string). Only for the side to move in phase "play".
    Raises BadFrame (ill-typed point or staged), NotYourTurn, WrongPhase, GameOver or
    IllegalPlayError (staged steps that begin no legal play). Changes nothing."""
    side = game.side_of(viewer)
    if isinstance(point, bool) or not isinstance(point, int) or not 1 <= point <= 24:
        raise BadFrame(_("The point must be a whole number from 1 to 24."), game.version)
    if not isinstance(staged, str):
        raise BadFrame(_("The staged steps must be a string such as \"24/18\"."), game.version)
    if side is None:
        raise NotYourTurn(_("You are not a player of this game."), game.version)
    if game.is_over:
        raise GameOver(_("The game is over."), game.version)
    if game.awaiting != side:
        raise NotYourTurn(_("It is not your turn."), game.version)
    if game.phase != Phase.PLAY:
        raise WrongPhase(_("Roll the dice first."), game.version)
    try:
        found = explain.explain_point(game.get_position(), tuple(game.dice), point, staged,
                                      game.ruleset)
    except EngineError as exc:
        raise IllegalPlayError(illegal_play_message(exc), game.version) from None
    return {"type": "why", "point": point, "staged": staged, "version": game.version,
            "movable": found.movable, **explanation_frame(found)}


def import_record(text, guest_id=None):
    """Check an uploaded game record (docs/record-format.md) by replaying it through the
    engine and save it as an ``ImportedRecord`` (normalised by the record writer).

    Raises ``games.engine.record.RecordError`` (with the line number and the reason) for a
    record that does not parse or is not a legal game; saves nothing then. Returns the
    ImportedRecord.
    """
    record = rec.parse(text)
    rec.replay(record)
    white, black = record.header("White", "?"), record.header("Black", "?")
    title = rec.clean_header_value(f"{record.header('Event', '')} · {white} – {black}")[:200]
    with transaction.atomic():
        return ImportedRecord.objects.create(text=rec.write(record), title=title,
                                             guest=guest_id or "")


def record_error_reason(exc):
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
        "answer_double": {"white": _("White must first take or drop the double."),
                          "black": _("Black must first take or drop the double.")},
        "not_turn": {"white": _("It is white's turn."), "black": _("It is black's turn.")},
        "double_not_mover": {"white": _("Only white, the side to move, may double now."),
                             "black": _("Only black, the side to move, may double now.")},
        "cube_owner": {"white": _("White owns the cube: only white may redouble (R10)."),
                       "black": _("Black owns the cube: only black may redouble (R10).")},
        "double_offered_to": {"white": _("The double was offered to white."),
                              "black": _("The double was offered to black.")},
        "no_double": {"take": _("No double was offered, so there is nothing to take."),
                      "drop": _("No double was offered, so there is nothing to drop.")},
        "timeout_side": {"white": _("Only white's clock was running: black cannot have run out "
                                    "of time."),
                         "black": _("Only black's clock was running: white cannot have run out "
                                    "of time.")},
        "abort_after_play": {"white": _("White has already moved: only a side that has not "
                                        "made its first move can be a no-show."),
                             "black": _("Black has already moved: only a side that has not "
                                        "made its first move can be a no-show.")},
    }
    if exc.code in by_side:
        found = by_side[exc.code].get(params.get("action" if exc.code == "no_double" else "side"))
        return found if found is not None else exc.reason
    messages = {
        "not_text": _("A record is text."),
        "too_long": _("The record is longer than %(limit)s characters."),
        "too_many_lines": _("The record has more than %(limit)s lines."),
        "control_character": _("A record is plain text: the control character %(char)s is not "
                               "allowed."),
        "after_result": _("Nothing may follow the result line."),
        "header_after_turns": _("Headers must come before the first turn line."),
        "header_format": _('A header is written [Name "value"].'),
        "result_format": _("The result line is written 'result <winner> <oin|mars|koks> "
                           "<points> <bore_off|resign|drop|timeout|abandon>', or 'result "
                           "aborted'."),
        "play_missing": _("A turn line ends with the play or 'pass'."),
        "turn_format": _("A turn line is written '<number> <white|black> <die>-<die> "
                         "<play|pass>' (or 'double <value>', 'take', 'drop', 'resign', "
                         "'timeout', 'abandon', 'abort')."),
        "on_off": _('%(name)s is "on" or "off", not "%(value)s".'),
        "opening_missing": _('The record needs an Opening header ("6-5", or "white starts").'),
        "opening_starts": _('"%(side)s starts" is only for a match game after the first (R11): '
                            "this game begins with the roll-off (R3)."),
        "opening_format": _('The Opening header lists the roll-off as white-black dice, e.g. '
                            '"3-3 6-5", or says "white starts".'),
        "opening_empty": _("The Opening header is empty."),
        "opening_reroll": _("Only equal dice are rolled again in the opening (R3)."),
        "opening_unequal": _("The opening ends with unequal dice (R3)."),
        "preset_missing": _('The record needs a Preset header ("sport", "classic" or '
                            '"match").'),
        "unknown_preset": _('Unknown rules "%(preset)s": the Preset is "sport", "classic" or '
                            '"match".'),
        "preset_option": _("Only the classic rules have koks and the doubling cube to switch "
                           "on (R12)."),
        "match_length": _('In the "%(preset)s" rules the match length is %(lengths)s, not '
                          '"%(value)s".'),
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
        "seed_hash": _("The SHA-256 of the Seed is not the Seed hash: the dice cannot be "
                       "checked."),
        "result_early": _("The result line comes before the game is over."),
        "result_differs": _("The game ends %(result)s, not %(stated)s."),
        "result_header_early": _("The Result header names a result, but the game is not "
                                 "over."),
        "no_clock": _("Only a game with a clock (a Clock header) can be lost on time, lost by "
                      "leaving or aborted."),
        "abort_later_game": _("Only a single game or the first game of a match is aborted for "
                              "a missing first move."),
    }
    template = messages.get(exc.code)
    if template is None:
        return exc.reason
    try:
        return template % params if "%(" in template else template
    except (KeyError, TypeError, ValueError):
        return exc.reason


def record_error_message(exc):
    """A readable, translated message for a refused record: the line number and the reason
    (``record_error_reason``)."""
    reason = record_error_reason(exc)
    if exc.line:
        return _("Line %(line)s: %(reason)s") % {"line": exc.line, "reason": reason}
    return reason


def player_of(game, side):
    """The snapshot's ``players[side]``: ``name``, the bot's level (``bot``, None for a
    person), and for an account its ``rating`` in the game's preset (rounded points), whether
    it is ``provisional`` and its public ``profile`` URL (all None for a guest or the bot)."""
    if game.bot_side == side:
        return {"name": _("Computer"), "bot": game.bot_level, "rating": None,
                "provisional": None, "profile": None}
    user_id = game.user_of(side)
    if not user_id:
        return {"name": _("Guest"), "bot": None, "rating": None, "provisional": None,
                "profile": None}
    rating = ratings.rating_of(user_id, game.preset)
    return {"name": display_name(user_id), "bot": None, "rating": round(rating.rating),
            "provisional": rating.provisional,
            "profile": reverse("games:player", kwargs={"user_id": user_id})}


def display_name(user_id):
    """The name an account shows to others: its profile's display name, else "Player <id>"."""
    name = Profile.objects.filter(user_id=user_id).values_list("display_name", flat=True).first()
    return name or _("Player %(id)s") % {"id": user_id}


# --- internals --------------------------------------------------------------------------

def _lock(game_id):
    return Game.objects.select_for_update().get(pk=game_id)


def _lock_or_none(game_id):
    """The locked game, or None if it no longer exists (a timer or a socket outlived it)."""
    return Game.objects.select_for_update().filter(pk=game_id).first()


def _check(game, actor, version, phase, action=None):
    """Who acts and whether the request is current; returns the actor's side.

    ``phase`` is the phase the action needs (``Phase.CUBE`` for take/drop); None means any
    phase and either side's turn (resignation). ``action`` "double" adds the cube's checks.
    """
    side = actor.side_in(game)
    if side is None:
        raise NotYourTurn(_("You are not a player of this game."), game.version)
    if isinstance(version, bool) or not isinstance(version, int):
        raise BadFrame(_("The version must be a whole number."), game.version)
    if game.is_over:
        raise GameOver(_("The game is over."), game.version)
    if version != game.version:
        raise StaleVersion(_("The game has changed since you last saw it."), game.version)
    if phase is None:
        return side
    if action == "double" and not game.ruleset.cube:
        # the table has no cube at all: that is the answer in every phase (R10)
        raise CubeNotAllowed(_("This table has no doubling cube."), game.version)
    if phase == Phase.CUBE:
        if game.phase != Phase.CUBE:
            raise WrongPhase(_("No double has been offered."), game.version)
        if game.awaiting != side:
            raise NotYourTurn(_("Your opponent must answer your double."), game.version)
        return side
    if game.awaiting != side:
        if game.phase == Phase.CUBE:
            raise NotYourTurn(_("Your opponent must answer your double first."), game.version)
        raise NotYourTurn(_("It is not your turn."), game.version)
    if game.phase != phase:
        if game.phase == Phase.CUBE:
            raise WrongPhase(_("Take or drop the double first."), game.version)
        if action == "double":
            raise WrongPhase(_("A double may be offered only before rolling."), game.version)
        if phase == Phase.ROLL:
            raise WrongPhase(_("The dice are already rolled: play them."), game.version)
        raise WrongPhase(_("Roll the dice first."), game.version)
    if action == "double" and not game.may_double(side):
        if not game.ruleset.cube:
            raise CubeNotAllowed(_("This table has no doubling cube."), game.version)
        if game.cube_value >= 64:
            raise CubeNotAllowed(_("The cube is at 64 and cannot be turned again."), game.version)
        raise CubeNotAllowed(_("Your opponent owns the cube: only they may double."),
                             game.version)
    return side

# --- clocks (RULES.md R11, games.clocks) ------------------------------------------------

#: a socket not seen for this long (ms) is taken for dead (its Daphne went away)
PRESENCE_STALE_MS = 60_000
#: how often an open socket tells the server it is still here (ms); well under the above
PRESENCE_TOUCH_MS = 20_000
#: the timers and the sweep apply a deadline only this long after it (ms): an action received
#: before the deadline but still waiting for the game's lock (Daphne runs the database work of
#: all its sockets in one thread) is then applied first, so a timer never beats an earlier move
TIMER_GRACE_MS = 250


def _now_ms():
    return clocks.now_ms()


def _ms(when):
    """A stored datetime as ms since the epoch (None stays None)."""
    if when is None:
        return None
    return int(when.timestamp() * 1000)


def _dt(ms):
    """ms since the epoch as an aware datetime (UTC)."""
    return datetime.fromtimestamp(ms / 1000, tz=dt_timezone.utc)


def clock_spec(game):
    """The game's ``games.clocks.ClockSpec``, or None for a game without a clock."""
    return clocks.ClockSpec.from_json(game.clock) if game.clock else None


def _first_move(game):
    """True while the side that must act has not made its first move in a game where a
    no-show aborts the game (a single game or a match's first game; not answering a double)."""
    return (game.phase in (Phase.ROLL, Phase.PLAY) and bool(game.position.get("first_turn"))
            and (game.match_number or 1) == 1)


def _has_moved(game, side):
    """Whether ``side`` has made a play in this game."""
    if game.awaiting == side and game.phase != Phase.CUBE:
        return not game.position.get("first_turn")
    return game.events.filter(kind=EventKind.PLAY, side=side).exists()


def _running(game):
    """``(spec, side)`` when a player's clock runs now (a clock, the game on, a person to
    act), else ``(spec, None)``."""
    spec = clock_spec(game)
    if spec is None or game.is_over or not game.clock_period:
        return spec, None
    side = game.awaiting
    if side is None or side == game.bot_side:
        return spec, None
    return spec, side


def _clock_deadline_ms(game):
    """When the running side's time runs out (ms), or None if no clock runs."""
    spec, side = _running(game)
    if side is None:
        return None
    return clocks.deadline(spec, game.clock_period, _ms(game.period_started),
                           _ms(game.turn_started), game.reserve_of(side), _first_move(game))


def _clock_stop(game, at):
    """End the running period at ``at`` (ms): the time beyond its free time comes off the
    side's reserve (RULES.md R11)."""
    spec, side = _running(game)
    if side is None:
        return
    game.set_reserve(side, clocks.reserve_after(spec, game.clock_period,
                                                _ms(game.period_started), game.reserve_of(side),
                                                at, _first_move(game)))


def _clock_after_change(game, before, now):
    """After a change of the locked game: roll for the side to move if the clock rolls by
    itself, start the period of the side that must act now at ``now`` (a new turn when that
    side changed since ``before``), and set the next deadline."""
    spec = clock_spec(game)
    if spec is None:
        return
    if game.is_over:
        _clock_over(game)
        return
    side = game.awaiting
    if spec.auto_roll and game.phase == Phase.ROLL and side != game.bot_side:
        _apply_roll(game, side)
    if side == game.bot_side:
        game.clock_period = ""
        game.period_started = game.turn_started = None
    else:
        game.clock_period = {Phase.ROLL: clocks.ROLL, Phase.PLAY: clocks.MOVE,
                             Phase.CUBE: clocks.ANSWER}[game.phase]
        game.period_started = _dt(now)
        if side != before or game.turn_started is None:
            game.turn_started = _dt(now)
    _refresh_deadline(game)


def _clock_over(game):
    """The game is over: no clock runs and nothing expires."""
    game.clock_period = ""
    game.period_started = game.turn_started = None
    game.deadline = None


def _away_deadlines(game, spec):
    """``[(ms, side)]``: when each absent person loses for not coming back (``match`` clock)."""
    found = []
    for side in game.human_sides():
        at = clocks.away_deadline(spec, _ms(game.away_since(side)))
        if at is not None:
            found.append((at, side))
    return found


def _refresh_deadline(game):
    """Set ``game.deadline``: the earliest instant at which the clock or an absence ends the
    game (None when nothing can expire)."""
    spec = clock_spec(game)
    if spec is None or game.is_over:
        game.deadline = None
        return
    moments = [at for at, _side in _away_deadlines(game, spec)]
    ends = _clock_deadline_ms(game)
    if ends is not None:
        moments.append(ends)
    game.deadline = _dt(min(moments)) if moments else None


def _expired(game, at):
    """What has run out at ``at`` (ms): ``(kind, side)`` with kind "timeout" (the side's
    clock), "abandon" (away too long) or "abort" (a no-show before its first move), the
    earliest first; None when nothing has."""
    spec = clock_spec(game)
    if spec is None or game.is_over:
        return None
    candidates = []
    ends = _clock_deadline_ms(game)
    if ends is not None and at >= ends:
        candidates.append((ends, "abort" if _first_move(game) else "timeout", game.awaiting))
    for away_ends, side in _away_deadlines(game, spec):
        if at >= away_ends:
            no_show = (game.match_number or 1) == 1 and not _has_moved(game, side)
            candidates.append((away_ends, "abort" if no_show else "abandon", side))
    if not candidates:
        return None
    _when, kind, side = min(candidates)
    return kind, side


def _apply_expired(game, at):
    """Apply what has run out at ``at`` (ms) to the locked game (not saved); returns True if
    the game ended so."""
    found = _expired(game, at)
    if found is None:
        return False
    kind, side = found
    if kind == "abort":
        _abort(game, side)
    elif kind == "timeout":
        _clock_stop(game, at)
        _lose_by(game, side, EventKind.TIMEOUT, EndReason.TIMEOUT)
    else:
        _clock_stop(game, at)
        _lose_by(game, side, EventKind.ABANDON, EndReason.ABANDON)
    return True


def _lose_by(game, side, event_kind, reason):
    """``side`` loses on time or by leaving: recorded, then scored by R9 on its position (a
    ``match`` clock loses the whole match, R11)."""
    _record(game, event_kind, side)
    spec = clock_spec(game)
    match_lost = spec is not None and spec.loses == clocks.LOSES_MATCH
    _finish(game, winner=other_side(side), reason=reason, match_lost=match_lost)


def _abort(game, side):
    """``side`` did not make its first move in time: the game (and its match) ends with no
    result and no winner."""
    _record(game, EventKind.ABORT, side)
    game.status = Status.ABORTED
    game.phase = Phase.OVER
    game.dice = None
    _clock_over(game)
    if game.match_id:
        Match.objects.filter(pk=game.match_id).update(status=Status.ABORTED)


def _act(game_id, at, change):
    """Run ``change(game)`` on the locked game as one action of a player.

    First applies anything that expired by ``at`` (ms since the epoch when the server got the
    request; None: now), so a move and a timer never both win: if time ran out, the timeout
    is saved and TimeRanOut raised instead. Otherwise stops the running clock at ``at``,
    applies the change (which raises GameError to refuse it, changing nothing), starts the
    next period and saves. Returns the game.
    """
    now = _now_ms()
    at = now if at is None else min(at, now)
    with transaction.atomic():
        game = _lock(game_id)
        if not _apply_expired(game, at):
            before = game.awaiting
            _clock_stop(game, at)
            change(game)
            _clock_after_change(game, before, now)
            _save(game)
            return game
        _save(game)
    raise TimeRanOut(_ran_out_message(game), game.version)


def _ran_out_message(game):
    if game.status == Status.ABORTED:
        return _("The game was aborted: a player did not make a first move in time.")
    if game.end_reason == EndReason.ABANDON:
        return _("The game is over: a player left and did not come back in time.")
    return _("Time ran out: the game is over.")


def apply_timeouts(game_id, version=None):
    """Apply whatever of game ``game_id``'s clock had expired ``TIMER_GRACE_MS`` ago (a Celery
    timer, the beat sweep or a snapshot request calls this; a player's own action is judged by
    when it arrived instead, see ``_act``). With ``version``, does nothing unless the game is
    still at that version (a later one has its own timer). Safe to run twice, late or after a
    restart: an expired deadline is applied once, since the game is then over. Returns the
    game if it changed, else None."""
    now = _now_ms()
    with transaction.atomic():
        game = _lock_or_none(game_id)
        if game is None or game.is_over or (version is not None and game.version != version):
            return None
        due = _ms(game.deadline)
        if not _apply_expired(game, now - TIMER_GRACE_MS):
            return None
        _save(game)
    logger.info("clock: game %s ended (%s) %s ms after its deadline", game_id,
                game.end_reason or game.status, "?" if due is None else now - due)
    return game


def sweep_clocks():
    """Apply every expired deadline and forget sockets that died unseen (the beat task); also
    queue again computer moves whose task was lost (``queue_lost_bot_moves``).
    Returns ``(games ended, sockets dropped)``."""
    requeued = queue_lost_bot_moves()
    if requeued:
        logger.info("sweep: queued %d lost bot moves again", requeued)
    now = _now_ms()
    dropped = 0
    stale = list(Presence.objects.filter(seen__lt=_dt(now - PRESENCE_STALE_MS))
                 .values_list("game_id", "channel_name"))
    for game_id, channel_name in stale:
        player_left(game_id, channel_name, stale=True)
        dropped += 1
    ended = 0
    for game_id in list(Game.objects.with_expired_deadline(_dt(now - TIMER_GRACE_MS))
                        .values_list("pk", flat=True)):
        if apply_timeouts(game_id) is not None:
            ended += 1
    return ended, dropped


def current(game):
    """``game`` as it stands now: if its deadline has passed (by ``TIMER_GRACE_MS``, as for the
    timers) before any timer applied it, the timeout is applied first (so a page or a snapshot never shows a clock past zero) and the
    fresh game returned; otherwise ``game`` itself. For readers: pages and socket snapshots."""
    if game.deadline is None or _ms(game.deadline) > _now_ms() - TIMER_GRACE_MS:
        return game
    return apply_timeouts(game.pk) or Game.objects.get(pk=game.pk)


def deadline_of(game):
    """The game's next clock deadline in ms since the epoch, or None."""
    return _ms(game.deadline)


# --- presence ---------------------------------------------------------------------------

def player_here(game_id, viewer, channel_name):
    """A socket of ``viewer`` (an Actor, or a guest id) opened on game ``game_id``: if they
    play a side,
    remember the socket and, if they were away, mark them back (the opponent hears of it).
    Like every message it first applies what has expired (a player back after their
    ``reconnect_ms`` has lost, even if no timer has run yet). If the player was away, or
    another socket of theirs is still listed (a second tab, or a socket of a Daphne that
    died), every socket of the game is sent a snapshot (``game.presence``). Onlookers and
    finished games change nothing.
    Returns the side or None."""
    now = _now_ms()
    with transaction.atomic():
        game = _lock(game_id)
        side = game.side_of(viewer)
        if side is None or game.is_over:
            return side
        if _apply_expired(game, now):  # back too late: what ran out meanwhile stands
            _save(game)
            return side
        other_socket = Presence.objects.filter(game=game, side=side).exclude(
            channel_name=channel_name).exists()
        Presence.objects.update_or_create(channel_name=channel_name,
                                          defaults={"game": game, "side": side,
                                                    "seen": _dt(now)})
        if game.away_since(side) is not None:
            game.set_away_since(side, None)
            _refresh_deadline(game)
            _save(game, presence=True)
        elif other_socket:
            # A player back while an older socket of theirs is still listed: perhaps its
            # Daphne died, maybe between committing their last change and sending its
            # notice. Every socket gets a fresh snapshot, so the opponent sees that change.
            game_id, version = game.pk, game.version
            transaction.on_commit(lambda: _notify(game_id, version, presence=True),
                                  robust=True)
    return side


def player_still_here(channel_name):
    """Mark the socket ``channel_name`` as seen now (sent every ``PRESENCE_TOUCH_MS``)."""
    Presence.objects.filter(channel_name=channel_name).update(seen=_dt(_now_ms()))


def player_left(game_id, channel_name, stale=False):
    """The socket ``channel_name`` of game ``game_id`` closed: forget it; if its player has no
    other socket left, they are away from now (their clock keeps running; with a ``match``
    clock they lose if not back within ``reconnect_ms``, with ``standard`` the opponent may
    claim the win after ``claim_after_ms``). ``stale``: the sweep found the socket dead (its
    Daphne went away), so the player is away since the touch it missed (last seen +
    ``PRESENCE_TOUCH_MS``). Returns the side that went away, or None."""
    now = _now_ms()
    with transaction.atomic():
        game = _lock_or_none(game_id)
        row = Presence.objects.filter(channel_name=channel_name).first()
        if game is None or row is None:
            return None
        side, last_seen = row.side, row.seen
        row.delete()
        fresh = _dt(now - PRESENCE_STALE_MS)
        if game.is_over or Presence.objects.filter(game=game, side=side,
                                                   seen__gte=fresh).exists():
            return None
        # a dead socket missed its next touch: the player was surely gone by then
        away = _ms(last_seen) + PRESENCE_TOUCH_MS if stale else now
        game.set_away_since(side, _dt(min(away, now)))
        _refresh_deadline(game)
        _save(game, presence=True)
        spec = clock_spec(game)
        claim_at = clocks.claim_from(spec, min(away, now)) if spec else None
        if claim_at is not None:
            # the opponent's snapshot lists "claim" once the grace period is over
            transaction.on_commit(lambda: _queue_presence_notice(game_id, claim_at),
                                  robust=True)
    return side


def _queue_presence_notice(game_id, at_ms):
    from games.tasks import presence_notice  # tasks imports this module

    presence_notice.apply_async((str(game_id),), eta=_dt(at_ms + TIMER_GRACE_MS))


def notify_presence(game_id):
    """Send every open socket of the game a fresh snapshot (``game.presence``) without
    changing anything: what a viewer may do changed with time (the grace period ended)."""
    game = Game.objects.filter(pk=game_id).only("version", "status").first()
    if game is not None and not game.is_over:
        _notify(game_id, game.version, presence=True)


def presence_of(game, side, spec):
    """The snapshot's ``presence[side]``: whether the player is here, since when they are away
    (ms), when they lose for it (``match`` clock) and from when the opponent may claim the win
    (``standard``); None for the bot's side."""
    if side == game.bot_side:
        return None
    away = _ms(game.away_since(side))
    return {"here": away is None, "away_since": away,
            "loses_at": clocks.away_deadline(spec, away) if spec else None,
            "claim_from": clocks.claim_from(spec, away) if spec else None}


def clock_of(game, now):
    """The snapshot's ``clock`` (docs/protocol.md "Clocks"), or None without a clock: the
    spec, the server's time, the running side and period with when they began, each side's
    reserve at the start of the running period, and the deadline (all ms)."""
    spec = clock_spec(game)
    if spec is None:
        return None
    _spec, side = _running(game)
    return {
        "kind": spec.kind,
        "spec": spec.to_json(),
        "server_time": now,
        "running": side,
        "period": game.clock_period or None,
        "period_started": _ms(game.period_started) if side else None,
        "turn_started": _ms(game.turn_started) if side else None,
        "first_move": bool(side) and _first_move(game),
        "free_ms": spec.free_ms(game.clock_period) if side else None,
        "deadline": _clock_deadline_ms(game),
        "reserve": {s: game.reserve_of(s) for s in Side.values},
    }



def _record(game, kind, side="", dice=None, play="", roll_number=None, cube=None):
    """Raise the version by one and record the event that made it."""
    game.version += 1
    GameEvent.objects.create(game=game, seq=game.version, kind=kind, side=side or "",
                             dice=dice, play=play, roll_number=roll_number, cube=cube)
    # sent with the change notice, so no socket reads the new events back (_save)
    game.__dict__.setdefault("recorded", []).append(
        EventRow(game.version, kind, side or "", list(dice) if dice is not None else None,
                 play, cube))


def _apply_roll(game, side):
    number = game.rolls
    rolled = dice_rolls.roll(bytes.fromhex(game.seed) if game.seed else None, number)
    game.rolls = number + 1
    game.dice = rolled
    game.phase = Phase.PLAY
    _record(game, EventKind.ROLL, side, dice=rolled, roll_number=number)


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


def _apply_double(game, side):
    game.phase = Phase.CUBE
    _record(game, EventKind.DOUBLE, side, cube=game.cube_value * 2)


def _apply_take(game, side):
    game.cube_value *= 2
    game.cube_owner = side
    game.phase = Phase.ROLL
    _record(game, EventKind.TAKE, side, cube=game.cube_value)


def _apply_drop(game, side):
    _record(game, EventKind.DROP, side, cube=game.cube_value)
    _finish(game, winner=other_side(side), reason=EndReason.DROP)


def _finish(game, winner, reason, match_lost=False):
    """End the game: R9 value from the loser's board of the current position, times the cube
    (R10; a dropped double is oin at the stake before it). In a match, score it and start the
    next game or end the match (R11); ``match_lost`` ends the match whatever the score (the
    loser ran out of a ``match`` clock)."""
    loser = other_side(winner)
    if reason == EndReason.DROP:
        kind, points = OIN, game.cube_value
    else:
        kind, points = game_value(game.get_position().board(loser), game.ruleset,
                                  cube=game.cube_value, cube_turned=game.cube_value > 1)
    game.status = Status.FINISHED
    game.phase = Phase.OVER
    game.dice = None
    game.winner = winner
    game.result_kind = kind
    game.result_points = points
    game.end_reason = reason
    _record(game, EventKind.END, winner)
    _clock_over(game)
    if game.bot_side:  # games against the computer are analysed once over (after the commit)
        from games.analysis import queue_after_commit  # it reads games.replays -> services

        queue_after_commit(game)
    if game.match_id:
        _score_match(game, winner, points, match_lost)
    else:
        ratings.rate_result(game, winner)


def _score_match(game, winner, points, match_lost=False):
    """Add a finished game to its match; start the next game (its winner starts, R11, with the
    match clock's reserves carried over) or end the match once a side reaches the length (or
    at once when ``match_lost``)."""
    match = Match.objects.select_for_update().get(pk=game.match_id)
    if winner == Side.WHITE:
        match.white_score += points
    else:
        match.black_score += points
    if match_lost or max(match.white_score, match.black_score) >= match.length:
        match.status = Status.FINISHED
        match.winner = winner
        match.save()
        if match.rated:  # a rated match changes the ratings once, when it is decided
            ratings.rate_result(game, winner, match=match)
    else:
        match.save()
        spec = clock_spec(game)
        reserves = None
        if spec is not None:
            per_match = spec.loses == clocks.LOSES_MATCH
            reserves = {side: game.reserve_of(side) if per_match else spec.reserve_ms
                        for side in Side.values}
        _start_game(preset=game.preset, table=game.table, colour=game.colour, match=match,
                    match_number=game.match_number + 1, starter=winner, clock=spec,
                    reserves=reserves, clock_from=_now_ms() + BETWEEN_GAMES_MS,
                    white_guest=game.white_guest, black_guest=game.black_guest,
                    white_user_id=game.white_user_id, black_user_id=game.black_user_id,
                    rated=game.rated, bot_side=game.bot_side, bot_level=game.bot_level)
    game.match = match


def _save(game, presence=False):
    """Save the locked game and, after the commit, notify its sockets, queue the bot's move and
    the clock's timer. ``presence``: only who is here changed (the sockets get a snapshot of
    the same version)."""
    game.save()
    game_id, version, bot_due = game.pk, game.version, game.is_bot_turn
    recorded = game.__dict__.pop("recorded", [])
    transaction.on_commit(lambda: _notify(game_id, version, presence, recorded), robust=True)
    if bot_due and not presence:  # the bot's move of this version is queued already
        transaction.on_commit(lambda: _queue_bot(game_id, version), robust=True)
    if game.deadline is not None:
        deadline_ms = _ms(game.deadline)
        transaction.on_commit(lambda: _queue_timer(game_id, version, deadline_ms), robust=True)


def _notify(game_id, version, presence=False, events=()):
    """Tell every open socket of the game that it changed (docs/protocol.md: a snapshot
    follows): ``{"type": "game.changed", "version": v, "events": [[seq, kind, side, dice,
    play, cube], ...]}`` with the events this change recorded (``EventRow`` fields);
    ``presence``: a player came or went (``game.presence``, no events)."""
    layer = get_channel_layer()
    message = {"type": "game.presence" if presence else "game.changed", "version": version}
    if events:
        message["events"] = events
    async_to_sync(layer.group_send)(group_name(game_id), message)


def _queue_timer(game_id, version, deadline_ms):
    from games.tasks import clock_timeout  # tasks imports this module

    clock_timeout.apply_async((str(game_id), version, deadline_ms),
                              eta=_dt(deadline_ms + TIMER_GRACE_MS))


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
        "not_next": _("%(step)s does not lead to a legal play here."),
    }
    template = messages.get(code)
    if template is None:
        return str(exc)
    try:
        return template % params if "%(" in template else template
    except KeyError:
        return str(exc)
