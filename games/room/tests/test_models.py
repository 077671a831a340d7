"""Game models: domain queries and replaying a game from its record."""

import pytest

from games import services
from games.choices import EventKind
from games.engine import Position
from games.room.models import Game, GameEvent
from games.tests.factories import HUMAN, ONLOOKER, FixedDice, new_bot_game, play_turns

pytestmark = pytest.mark.django_db


def test_querysets_find_active_finished_and_a_guests_games(monkeypatch):
    fixed = FixedDice(monkeypatch)
    white = new_bot_game(fixed, opening=(6, 5))
    black = new_bot_game(fixed, opening=(6, 5), human_side="black")
    other = new_bot_game(fixed, opening=(6, 5), guest=ONLOOKER)
    other = play_turns(other.id, 1)  # a resignation before any play would abort the game
    services.resign(other.id, services.Actor(guest_id=ONLOOKER), other.version)

    assert set(Game.objects.for_guest(HUMAN)) == {white, black}
    assert set(Game.objects.for_guest(ONLOOKER)) == {other}
    assert not Game.objects.for_guest("").exists()
    assert set(Game.objects.active()) == {white, black}
    assert set(Game.objects.finished()) == {other}
    assert Game.objects.against_bot().count() == 3


def test_replay_follows_the_record_not_the_stored_position(monkeypatch):
    fixed = FixedDice(monkeypatch)
    game = new_bot_game(fixed, opening=(6, 5))
    game = services.play(game.id, services.Actor(guest_id=HUMAN), 1, "24/18 18/13")
    fixed.rolls.append([4, 4])
    game = services.bot_turn(game.id, 2)
    assert game.replay() == game.get_position()

    # A position changed behind the services' back no longer matches its record.
    game.position = Position.initial("white").to_json()
    assert game.replay() != game.get_position()


def test_replay_needs_an_opening(monkeypatch):
    game = new_bot_game(FixedDice(monkeypatch), opening=(6, 5))
    GameEvent.objects.filter(game=game, kind=EventKind.OPENING).delete()
    with pytest.raises(ValueError):
        game.replay()


def test_event_seq_is_unique_within_a_game(monkeypatch):
    from django.db import IntegrityError, transaction

    game = new_bot_game(FixedDice(monkeypatch), opening=(6, 5))
    with pytest.raises(IntegrityError), transaction.atomic():
        GameEvent.objects.create(game=game, seq=1, kind=EventKind.ROLL, side="white")
