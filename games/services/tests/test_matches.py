"""Matches (RULES.md R11) through games.services with fixed dice: games follow one another,
the winner of a game starts the next and rolls both dice (no roll-off), the score adds the
games' values (R9) and the match ends at its length. Matches to 3 and to 7."""

import pytest
from django.urls import reverse

from games import services
from games.choices import Phase, Status
from games.room.models import Game, Match
from games.tests.factories import HUMAN, FixedDice, new_bot_game, set_position
from games.tests.fixtures import queued_tasks

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]

ME = services.Actor(guest_id=HUMAN)


@pytest.fixture
def fixed(monkeypatch):
    return FixedDice(monkeypatch)


def human_bears_off(game, loser_board):
    """Put ``game`` where the human (white) bears off its last checker with the rolled dice
    and play it; ``loser_board`` decides the value (R9). Returns the finished game."""
    set_position(
        game,
        {"turn": "white", "white": {"1": 1}, "black": loser_board, "first_turn": False},
        phase=Phase.PLAY,
        dice_rolled=[2, 1],
    )
    return services.play(game.id, ME, game.version, "1/off")


def bot_bears_off(game, loser_board, fixed):
    """Put ``game`` where the bot (black) is to roll and bear off its last checker; run its
    turn. Returns the finished game."""
    set_position(
        game, {"turn": "black", "black": {"1": 1}, "white": loser_board, "first_turn": False}
    )
    fixed.rolls.append([2, 1])
    return services.bot_turn(game.id, Game.objects.get(pk=game.pk).version)


def next_game(game):
    snap = services.snapshot(Game.objects.get(pk=game.pk), HUMAN)["game"]
    assert snap["match"]["next_game"]
    return Game.objects.get(pk=snap["match"]["next_game"])


def test_a_match_to_3(fixed, unattended_queue):
    first = new_bot_game(fixed, opening=(6, 5), preset="match", match_length=3)
    match = Match.objects.get()
    snap = services.snapshot(first, HUMAN)["game"]
    assert snap["match"] == {
        "id": str(match.id),
        "length": 3,
        "score": {"white": 0, "black": 0},
        "game_number": 1,
        "games": [str(first.id)],
        "status": "active",
        "winner": None,
        "next_game": None,
        "url": reverse("games:match", kwargs={"match_id": match.id}),
    }

    # Game 1: white wins a mars (2 points).
    first = human_bears_off(first, {"24": 15})
    assert (first.result_kind, first.result_points) == ("mars", 2)
    second = next_game(first)
    snap = services.snapshot(second, HUMAN)["game"]
    assert snap["match"]["score"] == {"white": 2, "black": 0}
    assert snap["match"]["game_number"] == 2 and snap["match"]["games"] == [
        str(first.id),
        str(second.id),
    ]
    # The winner starts and rolls both dice: no roll-off, phase roll, a fresh game.
    assert snap["opening"] == {
        "white": None,
        "black": None,
        "ties": [],
        "starter": "white",
        "roll_off": False,
    }
    assert (snap["phase"], snap["turn"], snap["version"], snap["actions"]) == (
        "roll",
        "white",
        1,
        ["roll", "resign"],
    )
    assert snap["position"] == {
        "turn": "white",
        "white": {"24": 15},
        "black": {"24": 15},
        "first_turn": True,
    }
    assert second.seed != first.seed
    fixed.rolls.append([3, 3])
    second = services.roll(second.id, ME, 1)
    assert second.dice == [3, 3] and second.rolls == 1

    # Game 2: black (the computer) wins an oin; it starts game 3 and its move is queued.
    queued = queued_tasks(unattended_queue)
    second = bot_bears_off(second, {"1": 1}, fixed)
    assert (second.winner, second.result_kind, second.result_points) == ("black", "oin", 1)
    third = next_game(second)
    assert (third.turn, third.phase, third.is_bot_turn) == ("black", Phase.ROLL, True)
    assert queued_tasks(unattended_queue) == queued + 1
    assert services.snapshot(third, HUMAN)["game"]["match"]["score"] == {"white": 2, "black": 1}

    # Game 3: white resigns at the start: mars for black (2): 2-3, black wins the match.
    third = services.resign(third.id, ME, third.version)
    match.refresh_from_db()
    assert (match.status, match.winner, match.white_score, match.black_score) == (
        Status.FINISHED,
        "black",
        2,
        3,
    )
    snap = services.snapshot(third, HUMAN)["game"]
    assert snap["match"]["status"] == "finished" and snap["match"]["winner"] == "black"
    assert snap["match"]["next_game"] is None
    assert Game.objects.filter(match=match).count() == 3
    assert [g.match_number for g in match.games.order_by("match_number")] == [1, 2, 3]


def test_a_match_to_7(fixed):
    game = new_bot_game(fixed, opening=(2, 5), preset="match", match_length=7)
    match = Match.objects.get()
    # (winner, loser board) game after game: the score climbs to 7 by R9 values.
    plan = [
        ("black", {"24": 15}),  # mars 2: 0-2
        ("white", {"5": 1}),  # oin 1: 1-2
        ("white", {"24": 15}),  # mars 2: 3-2
        ("black", {"1": 1}),  # oin 1: 3-3
        ("black", {"20": 15}),  # mars 2: 3-5
        ("white", {"15": 15}),  # mars 2 (no koks in match rules): 5-5
        ("black", {"24": 15}),
    ]  # mars 2: 5-7: black wins the match
    expected = [(0, 2), (1, 2), (3, 2), (3, 3), (3, 5), (5, 5), (5, 7)]
    previous_winner = None
    for number, ((winner, loser_board), score) in enumerate(zip(plan, expected), start=1):
        game = Game.objects.get(pk=game.pk)
        assert game.match_number == number
        if previous_winner:
            assert game.turn == previous_winner and not game.opening["white"]
        if winner == "white":
            game = human_bears_off(game, loser_board)
        else:
            game = bot_bears_off(game, loser_board, fixed)
        assert game.winner == winner
        match.refresh_from_db()
        assert (match.white_score, match.black_score) == score
        previous_winner = winner
        if number < len(plan):
            game = next_game(game)
    assert (match.status, match.winner) == (Status.FINISHED, "black")
    assert match.games.count() == 7
    # Nothing more can be played in the last game; no eighth game appears.
    with pytest.raises(services.GameOver):
        services.roll(game.id, ME, game.version)
    assert Game.objects.count() == 7


def test_a_match_to_1_ends_with_its_first_game(fixed):
    game = new_bot_game(fixed, opening=(6, 5), preset="match", match_length=1)
    game = human_bears_off(game, {"1": 1})
    match = Match.objects.get()
    assert (match.status, match.winner, match.white_score) == (Status.FINISHED, "white", 1)
    assert services.snapshot(game, HUMAN)["game"]["match"]["next_game"] is None


def test_the_match_page_redirects_to_the_latest_game(fixed, client):
    game = new_bot_game(fixed, opening=(6, 5), preset="match", match_length=3)
    game = human_bears_off(game, {"1": 1})
    match = Match.objects.get()
    latest = match.latest_game()
    assert latest.match_number == 2
    response = client.get(reverse("games:match", kwargs={"match_id": match.id}))
    assert response.status_code == 302
    assert response["Location"] == reverse("games:game", kwargs={"game_id": latest.id})
