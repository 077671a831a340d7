"""Starting games: a game against the computer, challenge links between people (made,
accepted, withdrawn), and the guest's games an account takes over at sign-in. The lobby
starts its rated games with ``new_game``."""

import secrets
from typing import Any
from uuid import UUID

from django.db import transaction
from django.utils.translation import gettext as _

from games import clocks
from games.challenges.models import Challenge, ChallengeStatus
from games.choices import BotLevel, Colour, Preset, Side, other_side
from games.room.models import Game, Match
from games.services import playban, turns
from games.services.actors import Actor, person, seat
from games.services.errors import BadFrame, ChallengeError
from games.services.options import bot_levels, clock_for, clock_kind_for, table_options
from games.signals import challenge_accepted, challenge_withdrawn


def create_bot_game(
    who: Actor | str | None,
    preset: str = Preset.SPORT,
    bot_level: str = BotLevel.MEDIUM,
    human_side: str = "white",
    match_length: object = None,
    koks: object = None,
    cube: object = None,
    clock: object = False,
) -> Game:
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
    actor = person(who)
    table, length = table_options(preset, match_length, koks, cube)
    spec = clock_for(preset, clock)
    if bot_level not in bot_levels():
        raise BadFrame(_("Unknown computer level."))
    colour = human_side
    if human_side == "random":
        human_side = secrets.choice(Side.values)
    if human_side not in Side.values:
        raise BadFrame(_("Unknown side."))
    players = {
        **seat(human_side, actor),
        "bot_side": other_side(human_side),
        "bot_level": bot_level,
    }
    return new_game(preset, table, length, colour, spec, players)


def new_game(
    preset: str,
    table: dict[str, bool],
    length: int | None,
    colour: str,
    spec: clocks.ClockSpec | None,
    players: dict[str, Any],
    clock_from: int | None = None,
) -> Game:
    """Create a game at version 1 with its opening (and its Match for a ``match`` length) in one
    transaction: ``table`` and ``length`` as ``table_options`` returns them, ``colour`` what
    the players asked for, ``spec`` a ClockSpec or None, ``players`` the Game fields of the
    seats (``white_guest``, ``black_user_id``, ``bot_side``, ``rated``…). The first turn's
    clock starts at ``clock_from`` (ms; default now: a tournament gives its players a few
    seconds to open the game). Returns the Game."""
    with transaction.atomic():
        match = None
        if length is not None:
            match = Match.objects.create(
                preset=preset,
                length=length,
                rated=players.get("rated", False),
                **{
                    key: value
                    for key, value in players.items()
                    if key in ("white_guest", "black_guest", "bot_side", "bot_level")
                },
            )
        reserves = None
        if spec is not None:
            reserves = dict.fromkeys(Side.values, spec.reserve_ms)
        return turns.start_game(
            preset=preset,
            table=table,
            colour=colour,
            match=match,
            match_number=1 if match else None,
            starter=None,
            clock=spec,
            reserves=reserves,
            clock_from=clocks.now_ms() if clock_from is None else clock_from,
            **players,
        )


def adopt_guest_games(guest_id: str | None, user_id: int | None) -> int:
    """A guest signed in: the games and open challenges of their session's ``guest_id`` now
    belong to account ``user_id`` too (seats nobody else holds), so they keep them on every
    device. Returns how many games moved."""
    if not guest_id or not user_id:
        return 0
    moved = 0
    with transaction.atomic():
        for side in Side.values:
            # never both seats of one game: an account does not play itself
            moved += (
                Game.objects.filter(**{f"{side}_guest": guest_id, f"{side}_user__isnull": True})
                .exclude(**{f"{other_side(side)}_user_id": user_id})
                .update(**{f"{side}_user_id": user_id})
            )
        Challenge.objects.filter(creator_guest=guest_id, creator_user__isnull=True).update(
            creator_user_id=user_id
        )
    return moved


def create_challenge(
    who: Actor | str | None,
    preset: str = Preset.SPORT,
    colour: str = Colour.RANDOM,
    match_length: object = None,
    koks: object = None,
    cube: object = None,
    rated: object = False,
    clock: object = None,
) -> Challenge:
    """Open a challenge link for a game between people.

    ``who`` is the creator (an Actor, or a guest id). ``colour`` is the side they want
    ("white", "black" or "random"), the table options as in ``table_options``, ``clock`` a
    clock kind of ``games.clocks.CLOCKS`` (None: the preset's, RULES.md R12). ``rated`` (only
    for a signed-in creator) makes the game count for both ratings; a guest's challenge is
    always casual. Raises BadFrame for no guest id, a wrong option, or a rated challenge from
    a guest. Returns the new ``Challenge``.
    """
    actor = person(who)
    table, length = table_options(preset, match_length, koks, cube)
    if colour not in Colour.values:
        raise BadFrame(_("Unknown side."))
    if not isinstance(rated, bool):
        raise BadFrame(_("A game is rated or casual."))
    if rated and not actor.user_id:
        raise BadFrame(_("Sign in to play rated games."))
    if rated:
        playban.check(actor.user_id)
    kind = clock_kind_for(preset, clock)
    with transaction.atomic():
        return Challenge.objects.create(
            preset=preset,
            table=table,
            match_length=length,
            colour=colour,
            creator_guest=actor.guest_id or "",
            creator_user_id=actor.user_id,
            rated=rated,
            clock_kind=kind,
        )


def accept_challenge(
    challenge_id: UUID | str, who: Actor | str | None, clock: object = None
) -> Game:
    """``who`` (an Actor or a guest id) accepts the open challenge ``challenge_id``: the game
    between the creator and them starts now with the challenge's clock (the creator gets the
    side they asked for; "random" is drawn by the server). A rated challenge needs a signed-in
    acceptor with another account; a challenge with an addressee (from the friends list) is
    accepted by that account only. ``clock`` may give another ``games.clocks.ClockSpec``
    (tests use short ones). Raises ChallengeError (taken, withdrawn or declined, one's own
    link, addressed to someone else, or rated and not signed in), BadFrame (no guest) or
    Challenge.DoesNotExist. Returns the new Game."""
    actor = person(who)
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
        if challenge.status == ChallengeStatus.CANCELLED:
            raise ChallengeError(_("This challenge was withdrawn."))
        if challenge.status == ChallengeStatus.ACCEPTED:
            raise ChallengeError(_("Someone has already accepted this challenge."))
        if challenge.status == ChallengeStatus.DECLINED:
            raise ChallengeError(_("This challenge was declined."))
        if challenge.addressee_id is not None and challenge.addressee_id != actor.user_id:
            # a challenge from the friends list is for its addressee alone
            raise ChallengeError(_("This challenge is addressed to another player."))
        creator = Actor(guest_id=challenge.creator_guest, user_id=challenge.creator_user_id)
        if challenge.creator_guest == actor.guest_id or (
            creator.user_id and creator.user_id == actor.user_id
        ):
            raise ChallengeError(_("This is your own challenge: send the link to a friend."))
        if challenge.rated and not actor.user_id:
            raise ChallengeError(_("This is a rated game: sign in to accept it."))
        if challenge.rated and (wait := playban.current_wait(actor.user_id)) is not None:
            raise ChallengeError(wait.message())
        if challenge.rated and playban.current_wait(challenge.creator_user_id) is not None:
            raise ChallengeError(
                _("Rated games are closed to the player who made this challenge for now.")
            )
        creator_side = challenge.colour
        if creator_side == Colour.RANDOM:
            creator_side = secrets.choice(Side.values)
        players = {
            **seat(creator_side, creator),
            **seat(other_side(creator_side), actor),
            "rated": challenge.rated,
        }
        spec = (
            clock
            if isinstance(clock, clocks.ClockSpec)
            else clocks.CLOCKS[clock_kind_for(challenge.preset, challenge.clock_kind)]
        )
        game = new_game(
            challenge.preset,
            challenge.table,
            challenge.match_length,
            challenge.colour,
            spec,
            players,
        )
        challenge.status = ChallengeStatus.ACCEPTED
        challenge.game = game
        challenge.save()
        challenge_accepted.send(sender=Game, challenge=challenge, game=game)
    return game


def cancel_challenge(challenge_id: UUID | str, who: Actor | str | None) -> Challenge:
    """Withdraw an open challenge; only its creator may (``who``: an Actor or a guest id).
    Sends ``signals.challenge_withdrawn`` inside the transaction (the friends' notices take
    it back from its addressee's pages). Raises ChallengeError (not theirs, or no longer
    open) or Challenge.DoesNotExist. Returns the Challenge."""
    actor = Actor(guest_id=who) if isinstance(who, str) or who is None else who
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
        mine = (bool(actor.guest_id) and challenge.creator_guest == actor.guest_id) or (
            bool(actor.user_id) and challenge.creator_user_id == actor.user_id
        )
        if not mine:
            raise ChallengeError(_("Only the player who made this challenge may withdraw it."))
        if challenge.status != ChallengeStatus.OPEN:
            raise ChallengeError(_("This challenge is no longer open."))
        challenge.status = ChallengeStatus.CANCELLED
        challenge.save()
        challenge_withdrawn.send(sender=Challenge, challenge=challenge)
    return challenge
