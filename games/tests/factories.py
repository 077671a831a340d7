"""Helpers that set up games for the tests: fixed dice, games in a given state, and a
random-but-reproducible player that plays legal plays through the services."""

import random
from contextlib import contextmanager

from games import dice, services
from games.choices import Phase
from games.engine import Position, legal_plays
from games.room.models import Game, GameEvent

HUMAN = "guest-human"
ONLOOKER = "guest-onlooker"


class FixedDice:
    """Replaces the seeded dice with queued values (the tests' only stand-in: dice decide
    nothing the tests check except through these values). ``rolls`` are [a, b] lists taken
    in order; ``openings`` are (white, black) pairs. Running out falls back to the real,
    seeded dice. Games played with fixed dice do not match their seed: the dice-verification
    tests use the real dice."""

    def __init__(self, monkeypatch):
        self.rolls = []
        self.openings = []
        self._real_roll = dice.roll
        self._real_opening = dice.opening_roll
        monkeypatch.setattr(dice, "roll", self._roll)
        monkeypatch.setattr(dice, "opening_roll", self._opening)

    def _roll(self, seed, n):
        return list(self.rolls.pop(0)) if self.rolls else self._real_roll(seed, n)

    def _opening(self, seed, start=0):
        if self.openings:
            white, black = self.openings.pop(0)
            return white, black, [], start + 1
        return self._real_opening(seed, start)


def new_bot_game(
    fixed=None,
    opening=(6, 5),
    human_side="white",
    preset="sport",
    guest=HUMAN,
    level="medium",
    **options,
):
    """A game of ``guest`` against the bot with the opening dice ``opening`` (white, black)
    when ``fixed`` (a FixedDice) is given; ``options`` are more table options
    (``match_length``, ``koks``, ``cube``) for ``services.create_bot_game``."""
    if fixed is not None:
        fixed.openings.append(opening)
    return services.create_bot_game(
        guest, preset=preset, bot_level=level, human_side=human_side, **options
    )


def set_position(game, position, phase=Phase.ROLL, dice_rolled=None):
    """Put an existing game into ``position`` (RULES.md JSON) for a test: arranges the state
    directly, as a fixture would, without recording events."""
    Position.from_json(position)  # refuse impossible positions early
    game.position = position
    game.phase = phase
    game.dice = dice_rolled
    game.save()
    return game


#: fields that follow who has a socket open, not the game (a test's socket closing moves them)
PRESENCE_FIELDS = ("white_away_since", "black_away_since", "deadline", "updated")


def state(game_id):
    """Everything a request could change: the game row's fields (but who is connected) and its
    whole record."""
    game = Game.objects.get(pk=game_id)
    fields = {
        f.attname: getattr(game, f.attname)
        for f in Game._meta.fields
        if f.attname not in PRESENCE_FIELDS
    }
    events = list(
        GameEvent.objects.filter(game_id=game_id)
        .order_by("seq")
        .values_list("seq", "kind", "side", "dice", "play")
    )
    return fields, events


@contextmanager
def unchanged(game_id):
    """Assert that the block leaves the game and its record exactly as they were."""
    before = state(game_id)
    yield
    assert state(game_id) == before


def random_legal_play(game, rng):
    """A legal play (notation) for the side to move of ``game`` (in phase "play"), chosen by
    ``rng`` among the engine's legal plays."""
    plays = legal_plays(game.get_position(), tuple(game.dice), game.ruleset)
    return rng.choice(plays).notation


def play_human_turn(game_id, guest=HUMAN, rng=None):
    """The human rolls (if due) and plays a random legal play; returns the game after it."""
    rng = rng or random.Random(0)
    actor = services.Actor(guest_id=guest)
    game = Game.objects.get(pk=game_id)
    if game.phase == Phase.ROLL:
        game = services.roll(game_id, actor, game.version)
    return services.play(game_id, actor, game.version, random_legal_play(game, rng))


#: the two players of a game between people made by ``new_people_game`` (white is the creator)
WHITE_GUEST = "guest-white"
BLACK_GUEST = "guest-black"


def new_people_game(clock, preset="sport", fixed=None, opening=(6, 5), **options):
    """A game between WHITE_GUEST (who made the challenge) and BLACK_GUEST (who accepted it)
    with the clock ``clock`` (a ``games.clocks.ClockSpec``, or True for the preset's clock).
    With ``fixed`` (a FixedDice) the opening dice are ``opening`` (white, black); ``options``
    (``match_length``, ``koks``, ``cube``) go to ``services.create_challenge``."""
    if fixed is not None:
        fixed.openings.append(opening)
    challenge = services.create_challenge(WHITE_GUEST, preset=preset, colour="white", **options)
    return services.accept_challenge(challenge.pk, BLACK_GUEST, clock=clock)


def guest_to_act(game):
    """The Actor of the side that must act now in a game between people."""
    return services.Actor(guest_id=game.guest_of(game.awaiting))


def play_turn(game_id, rng=None, at=None):
    """The side that must act in a game between people rolls (if due) and plays a random legal
    play, each action received at ``at`` (ms; None: now); returns the game after it."""
    rng = rng or random.Random(0)
    game = Game.objects.get(pk=game_id)
    actor = guest_to_act(game)
    if game.phase == Phase.ROLL:
        game = services.roll(game_id, actor, game.version, at=at)
    # a game that is over has no dice: the service says so (GameOver)
    notation = random_legal_play(game, rng) if game.dice else ""
    return services.play(game_id, actor, game.version, notation, at=at)


def actor_of(game, side):
    """The Actor of the person playing ``side`` of ``game`` (an account, else a guest)."""
    user_id = game.user_of(side)
    if user_id:
        return services.Actor(user_id=user_id)
    return services.Actor(guest_id=game.guest_of(side))


def play_turns(game_id, count, rng=None):
    """``count`` turns are played, each by the side to act: a person rolls (if due) and plays
    a random legal play through the services, the computer makes its move. Two turns from the
    start and neither side can abort any more (``turns.aborts``): a resignation is then a
    result. Returns the game."""
    rng = rng or random.Random(0)
    game = Game.objects.get(pk=game_id)
    for _turn in range(count):
        if game.is_bot_turn:
            game = services.bot_turn(game_id, game.version)
            continue
        actor = actor_of(game, game.awaiting)
        if game.phase == Phase.ROLL:
            game = services.roll(game_id, actor, game.version)
        notation = random_legal_play(game, rng) if game.dice else ""
        game = services.play(game_id, actor, game.version, notation)
    return game
