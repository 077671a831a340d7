"""Table options (RULES.md R12) stored with the game and shown in the snapshot, the opening
(R3) as shown, and every scoring case of the shared cases through the services' scoring path
(a real bear-off of the last checker, RULES.md R9, R10)."""

import json
from pathlib import Path

import pytest

from games import services
from games.choices import Phase
from games.engine.position import mirror
from games.room.models import Game, Match
from games.tests.factories import HUMAN, FixedDice, new_bot_game, set_position

pytestmark = pytest.mark.django_db

SCORING = json.loads(
    (Path(__file__).resolve().parents[2] / "tests" / "data" / "engine" / "scoring.json").read_text()
)


@pytest.fixture
def fixed(monkeypatch):
    return FixedDice(monkeypatch)


@pytest.mark.parametrize(
    "preset, options, table, length, koks, cube",
    [
        ("sport", {}, {}, 1, False, False),
        ("classic", {}, {"koks": True, "cube": False}, 1, True, False),
        ("classic", {"koks": False, "cube": True}, {"koks": False, "cube": True}, 1, False, True),
        ("match", {}, {}, 3, False, False),
        ("match", {"match_length": 7}, {}, 7, False, False),
        ("match", {"match_length": 1}, {}, 1, False, False),
    ],
)
def test_options_are_stored_with_the_game_and_shown_in_the_snapshot(
    fixed, preset, options, table, length, koks, cube
):
    game = new_bot_game(fixed, preset=preset, level="easy", human_side="black", **options)
    game = Game.objects.get(pk=game.pk)
    assert game.table == table and game.colour == "black"
    assert (game.ruleset.koks, game.ruleset.cube) == (koks, cube)
    snap = services.snapshot(game, HUMAN)["game"]
    assert snap["options"] == {
        "preset": preset,
        "match_length": length,
        "koks": koks,
        "cube": cube,
        "bot_level": "easy",
        "colour": "black",
    }
    assert (snap["cube"] is not None) == cube
    assert (snap["match"] is not None) == (preset == "match")
    if preset == "match":
        assert Match.objects.get().length == length


def test_random_colour_is_remembered_as_asked(fixed):
    game = new_bot_game(fixed, human_side="random")
    assert game.colour == "random" and game.side_of_guest(HUMAN) in ("white", "black")
    assert services.snapshot(game, HUMAN)["game"]["options"]["colour"] == "random"


@pytest.mark.parametrize(
    "preset, options",
    [
        ("sport", {"cube": True}),
        ("sport", {"koks": True}),
        ("match", {"cube": True}),
        ("match", {"match_length": 2}),
        ("match", {"match_length": 9}),
        ("match", {"match_length": True}),
        ("match", {"match_length": 3.0}),
        ("match", {"match_length": "3"}),
        ("sport", {"match_length": 1.0}),
        ("classic", {"match_length": 3}),
        ("classic", {"koks": "yes"}),
        ("backgammon", {}),
    ],
)
def test_options_a_preset_does_not_have_are_refused_and_create_nothing(preset, options):
    with pytest.raises(services.BadFrame):
        services.create_bot_game(HUMAN, preset=preset, **options)
    assert not Game.objects.exists() and not Match.objects.exists()


def test_only_existing_computer_levels_are_accepted():
    with pytest.raises(services.BadFrame):
        services.create_bot_game(HUMAN, bot_level="grandmaster")
    for level in services.bot_levels():
        assert services.create_bot_game(HUMAN, bot_level=level).bot_level == level


def test_the_opening_shows_both_single_dice_and_who_starts(fixed):
    game = new_bot_game(fixed, opening=(2, 5))
    opening = services.snapshot(game, HUMAN)["game"]["opening"]
    assert opening == {"white": 2, "black": 5, "ties": [], "starter": "black", "roll_off": True}


def test_the_opening_roll_off_rerolls_ties_from_the_seed():
    for _ in range(40):
        game = services.create_bot_game(HUMAN, preset="match")
        opening = services.snapshot(game, HUMAN)["game"]["opening"]
        assert opening["white"] != opening["black"]
        assert game.rolls == len(opening["ties"]) + 1
        if opening["ties"]:
            break
    else:
        pytest.fail("no tie in 40 openings")  # (1/6 each: practically never)


def test_in_match_rules_the_opening_winner_rolls_afresh(fixed):
    game = new_bot_game(fixed, opening=(6, 1), preset="match")
    fixed.rolls.append([4, 4])
    snap = services.snapshot(game, HUMAN)["game"]
    assert (
        snap["phase"] == "roll" and snap["dice"] is None and snap["actions"] == ["roll", "resign"]
    )
    game = services.roll(game.id, services.Actor(guest_id=HUMAN), 1)
    snap = services.snapshot(game, HUMAN)["game"]
    assert snap["dice"] == [4, 4] and snap["opening"]["white"] == 6


def _scoring_cases():
    return [pytest.param(case, id=case["id"]) for case in SCORING["cases"]]


@pytest.mark.parametrize("case", _scoring_cases())
def test_every_shared_scoring_case_through_the_services(fixed, case):
    """The winner bears off its last checker with a real play; the service scores the game."""
    winner = case["winner"]
    loser = "black" if winner == "white" else "white"
    table = case.get("table") or {}
    options = {}
    if case["ruleset"] == "classic":
        options = {"koks": table.get("koks"), "cube": table.get("cube")}
    game = new_bot_game(fixed, preset=case["ruleset"], human_side=winner, **options)
    loser_board = case["loser"]
    # The winner's last checker stands on a home point the loser does not hold.
    last = next(p for p in range(1, 7) if str(mirror(p)) not in loser_board)
    position = {"turn": winner, winner: {str(last): 1}, loser: loser_board, "first_turn": False}
    set_position(game, position, phase=Phase.PLAY, dice_rolled=[6, 6])
    if case["cube"] > 1:
        assert case["cube_turned"]
        Game.objects.filter(pk=game.pk).update(cube_value=case["cube"], cube_owner=loser)
    else:
        assert not case["cube_turned"]
    game = services.play(game.id, services.Actor(guest_id=HUMAN), game.version, f"{last}/off")
    assert (game.winner, game.result_kind, game.result_points) == (
        winner,
        case["expected"]["result"],
        case["expected"]["points"],
    )
    result = services.snapshot(game, HUMAN)["game"]["result"]
    assert (result["kind"], result["points"], result["cube"]) == (
        case["expected"]["result"],
        case["expected"]["points"],
        case["cube"],
    )
