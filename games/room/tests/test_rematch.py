"""Rematches (games/room/rematch.py): an offer waits for the opponent's press, both presses
start one new game with the colours swapped and the same settings, linked from the finished
one; declining or leaving withdraws the offer; no rematch after a game against the computer,
in a tournament or while a match goes on; two presses at once never make two games."""

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from games import admission, clocks, services
from games.choices import Status
from games.room import rematch
from games.room.models import Game
from games.services import NoRematch, playban
from games.tests.factories import (
    BLACK_GUEST,
    WHITE_GUEST,
    actor_of,
    new_bot_game,
    new_people_game,
    play_turns,
)
from games.tests.tournament_helpers import arena
from games.tournaments.models import Pairing

WHITE = services.Actor(guest_id=WHITE_GUEST)
BLACK = services.Actor(guest_id=BLACK_GUEST)


def finished(preset="sport", **options):
    """A game between WHITE_GUEST and BLACK_GUEST, two turns in, that white resigned (in a
    match: every game until the match is lost)."""
    game = new_people_game(True, preset=preset, **options)
    while True:
        game = play_turns(game.pk, 2)
        game = services.resign(game.pk, actor_of(game, "white"), game.version)
        if game.match_id is None:
            return game
        game.match.refresh_from_db()
        if game.match.status != Status.ACTIVE:
            return game
        game = game.match.latest_game()


def state_of(game, actor):
    game = Game.objects.get(pk=game.pk)
    return services.snapshot(game, actor)["game"]["rematch"]


@pytest.mark.django_db
def test_an_offer_waits_then_both_presses_start_one_swapped_game_with_the_same_settings():
    game = finished(koks=False)
    assert state_of(game, WHITE) == {"state": "open", "game": None}
    assert rematch.offer(game.pk, WHITE) is None
    assert state_of(game, WHITE)["state"] == "offered"
    assert state_of(game, BLACK)["state"] == "asked"
    assert state_of(game, None) is None  # an onlooker sees nothing until it starts
    new = rematch.offer(game.pk, BLACK)
    assert new is not None
    old = Game.objects.get(pk=game.pk)
    assert old.rematch_id == new.pk and new.rematch_of == old
    assert (new.white_guest, new.black_guest) == (BLACK_GUEST, WHITE_GUEST)
    for field in ("preset", "table", "rated", "clock"):
        assert getattr(new, field) == getattr(old, field), field
    assert new.bot_side == "" and new.status == Status.ACTIVE
    url = f"/game/{new.pk}/"
    for actor in (WHITE, BLACK, None):
        assert state_of(game, actor)["state"] == "started"
        assert state_of(game, actor)["game"].endswith(url)
    # a press after the start changes nothing and makes no other game
    assert rematch.offer(game.pk, WHITE) is None
    assert Game.objects.count() == 2


@pytest.mark.django_db
def test_declining_or_withdrawing_ends_the_offer_and_the_other_side_sees_it():
    game = finished()
    rematch.offer(game.pk, WHITE)
    rematch.decline(game.pk, BLACK)
    assert state_of(game, WHITE)["state"] == "declined"
    assert state_of(game, BLACK)["state"] == "open"
    with pytest.raises(NoRematch):  # asking again someone who said no
        rematch.offer(game.pk, WHITE)
    rematch.offer(game.pk, BLACK)  # the one who declined may offer: a fresh offer
    assert state_of(game, WHITE)["state"] == "asked"
    rematch.decline(game.pk, BLACK)  # and withdraw it
    assert state_of(game, WHITE)["state"] == "declined"
    assert Game.objects.get(pk=game.pk).rematch_id is None


@pytest.mark.django_db
def test_a_match_over_offers_a_new_match_of_the_same_length():
    game = finished(preset="match", match_length=3)
    rematch.offer(game.pk, BLACK)
    new = rematch.offer(game.pk, WHITE)
    assert new.match is not None and new.match.length == 3 and new.match_number == 1
    assert new.match_id != game.match_id
    assert (new.white_guest, new.black_guest) == (BLACK_GUEST, WHITE_GUEST)


@pytest.mark.django_db
def test_no_rematch_against_the_computer_in_a_tournament_during_a_match_or_for_onlookers(
    monkeypatch,
):
    bot = new_bot_game(None)
    bot = services.resign(bot.pk, services.Actor(guest_id=bot.white_guest), bot.version)
    with pytest.raises(NoRematch):
        rematch.offer(bot.pk, services.Actor(guest_id=bot.white_guest))
    game = finished()
    with pytest.raises(NoRematch):
        rematch.offer(game.pk, services.Actor(guest_id="someone-else"))
    Pairing.objects.create(tournament=arena(), game=game, created=clocks.from_ms(clocks.now_ms()))
    with pytest.raises(NoRematch):
        rematch.offer(game.pk, WHITE)
    assert state_of(game, WHITE) is None
    going = new_people_game(True, preset="match", match_length=3)
    going = play_turns(going.pk, 2)
    going = services.resign(going.pk, WHITE, going.version)
    with pytest.raises(NoRematch):
        rematch.offer(going.pk, WHITE)


@pytest.mark.django_db
def test_a_full_site_or_a_play_ban_refuses_the_start_and_keeps_the_offer(monkeypatch):
    game = finished()
    rematch.offer(game.pk, WHITE)

    def full():
        raise admission.SiteFull(5)

    monkeypatch.setattr(admission, "check", full)
    with pytest.raises(admission.SiteFull):
        rematch.offer(game.pk, BLACK)
    assert state_of(game, BLACK)["state"] == "asked" and Game.objects.count() == 1
    monkeypatch.undo()
    users = [get_user_model().objects.create_user(username=f"r-{n}") for n in "ab"]
    Game.objects.filter(pk=game.pk).update(
        rated=True, white_user_id=users[0].pk, black_user_id=users[1].pk
    )
    monkeypatch.setattr(
        playban, "current_wait", lambda user_id, now_ms=None: object() if user_id else None
    )
    with pytest.raises(NoRematch):
        rematch.offer(game.pk, BLACK)
    assert Game.objects.count() == 1


def press(game_id, actor, barrier, made, errors):
    """One player's press in a thread of its own, all threads let go at once."""
    try:
        barrier.wait()
        made.append(rematch.offer(game_id, actor))
    except Exception as error:  # noqa: BLE001 - reported by the test
        errors.append(error)
    finally:
        connection.close()


@pytest.mark.django_db(transaction=True)
def test_two_pairs_of_presses_at_once_make_one_game():
    game = finished()
    made, errors = [], []
    for _ in range(2):
        barrier = threading.Barrier(2)
        threads = [
            threading.Thread(target=press, args=(game.pk, actor, barrier, made, errors))
            for actor in (WHITE, BLACK)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not errors
    # under the row lock the first press offers and the second starts; the second pair
    # changes nothing: never two games
    assert len([new for new in made if new is not None]) == 1
    assert Game.objects.exclude(pk=game.pk).count() == 1
    assert Game.objects.get(pk=game.pk).rematch_id is not None


@pytest.mark.django_db
def test_the_pages_link_a_game_and_its_rematch(client):
    game = finished()
    rematch.offer(game.pk, WHITE)
    new = rematch.offer(game.pk, BLACK)
    session = client.session
    session["guest_id"] = WHITE_GUEST
    session.save()
    page = client.get(f"/en/game/{new.pk}/")
    assert f'id="rematch-of-link" href="/en/game/{game.pk}/"' in page.content.decode()
    history = client.get("/en/games/").content.decode()
    assert f'href="/en/game/{new.pk}/">Next: the rematch' in history
    assert f'href="/en/game/{game.pk}/">Rematch of the previous game' in history
