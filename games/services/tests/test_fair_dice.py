"""Verifiable dice through a whole game (docs/protocol.md "Dice"): the seed's hash is public
from the start, the seed itself never appears in what a player is sent while the game is on,
and once it is over every stored roll (the opening roll-off included) is recomputed from it.
The game's record replays to the same positions and its dice check out."""

import json
import random

import pytest

from games import services
from games.choices import EventKind, Phase, Status
from games.engine import fairdice
from games.engine import record as rec
from games.room import replays
from games.room.models import Game
from games.tests.factories import HUMAN, ONLOOKER

pytestmark = pytest.mark.django_db

ME = services.Actor(guest_id=HUMAN)


def play_whole_game(preset, rng, on_each_change):
    """A game of the human (random legal plays) against the bot (run in-process) with the real
    seeded dice, to the end; ``on_each_change(game)`` sees every state."""
    game = services.create_bot_game(HUMAN, preset=preset, human_side="white")
    on_each_change(game)
    for _ in range(2000):
        game = Game.objects.get(pk=game.pk)
        if game.status == Status.FINISHED:
            return game
        if game.is_bot_turn:
            game = services.bot_turn(game.id, game.version)
        elif game.phase == Phase.ROLL:
            game = services.roll(game.id, ME, game.version)
        else:
            snap = services.snapshot(game, HUMAN)["game"]
            play = rng.choice(snap["legal"]["plays"])["play"]
            game = services.play(game.id, ME, game.version, play)
        on_each_change(game)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("preset", ["sport", "match"])
def test_every_roll_is_recomputed_from_the_revealed_seed(preset):
    seen = []

    def check_no_seed_leaks(game):
        game = Game.objects.get(pk=game.pk)
        # The player every time; an onlooker and the record now and then (they cost time).
        viewers = (HUMAN, ONLOOKER) if len(seen) % 5 == 0 else (HUMAN,)
        text = json.dumps([services.snapshot(game, viewer) for viewer in viewers])
        if game.status != Status.FINISHED:
            assert game.seed not in text
            if len(seen) % 5 == 0:
                assert game.seed not in replays.record_text(game)
        assert game.seed_hash in text
        seen.append(game.version)

    game = play_whole_game(preset, random.Random(7), check_no_seed_leaks)
    assert len(seen) > 20
    seed = bytes.fromhex(game.seed)
    assert fairdice.seed_hash(seed) == game.seed_hash
    snap = services.snapshot(game, HUMAN)["game"]
    assert snap["fairness"]["seed"] == game.seed

    # Opening roll-off: rolls 0..k, the last one deciding.
    opening = game.opening
    pairs = [*opening["ties"], [opening["white"], opening["black"]]]
    assert [fairdice.roll(seed, n) for n in range(len(pairs))] == pairs
    # Every later roll: the next numbers, in order, each equal to the seed's.
    rolls = list(game.events.filter(kind=EventKind.ROLL).order_by("seq"))
    assert [e.roll_number for e in rolls] == list(range(len(pairs), len(pairs) + len(rolls)))
    assert all(fairdice.roll(seed, e.roll_number) == e.dice for e in rolls)
    assert game.rolls == len(pairs) + len(rolls)
    fairness = replays.fairness_of(game)
    assert fairness["verified"] is True and len(fairness["rolls"]) == game.rolls

    # The record reveals the seed now, replays to the final position and its dice check out.
    record = rec.parse(replays.record_text(game))
    assert record.header("Seed") == game.seed
    replay = rec.replay(record)
    assert replay.dice_verified is True
    assert replay.frames[-1].position.to_json() == game.position
    assert (
        replay.result.text() == f"{game.winner} {game.result_kind} {game.result_points} "
        f"{game.end_reason}"
    )


def test_a_changed_stored_roll_is_detected():
    game = play_whole_game("sport", random.Random(3), lambda game: None)
    event = game.events.filter(kind=EventKind.ROLL).order_by("seq").first()
    a, b = event.dice
    event.dice = [a % 6 + 1, b]
    event.save()
    assert replays.fairness_of(game)["verified"] is False


def test_the_replay_page_of_a_finished_game_says_its_dice_match_the_seed(client):
    from django.urls import reverse

    game = play_whole_game("sport", random.Random(5), lambda game: None)
    page = client.get(reverse("games:replay", kwargs={"game_id": game.id}))
    assert page.status_code == 200 and page.context["dice_verified"] is True
    assert "The dice match the revealed seed." in page.content.decode()
    page = client.get(reverse("games:replay", kwargs={"game_id": game.id}).replace("/en/", "/ru/"))
    assert "The dice match the revealed seed." not in page.content.decode()
    assert 'id="dice-check"' in page.content.decode()
