"""games.services: the only way a game changes. Bad requests change nothing."""

import random

import pytest

from games import services
from games.choices import Phase, Status
from games.engine import Position, game_value, legal_plays
from games.room.models import Game, GameEvent
from games.tests.factories import (
    HUMAN,
    ONLOOKER,
    FixedDice,
    guest_to_act,
    new_bot_game,
    new_people_game,
    play_human_turn,
    play_turn,
    set_position,
    state,
    unchanged,
)

pytestmark = pytest.mark.django_db

ME = services.Actor(guest_id=HUMAN)


@pytest.fixture
def fixed(monkeypatch):
    return FixedDice(monkeypatch)


def events(game):
    return list(
        GameEvent.objects.filter(game=game)
        .order_by("seq")
        .values_list("seq", "kind", "side", "dice", "play")
    )


# --- opening (R3) -----------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["sport", "classic"])
def test_opening_winner_plays_the_opening_dice(fixed, preset):
    game = new_bot_game(fixed, opening=(3, 5), preset=preset)
    assert game.opening == {"white": 3, "black": 5, "ties": [], "starter": "black"}
    assert game.position == Position.initial("black").to_json()
    assert game.phase == Phase.PLAY and game.dice == [5, 3]
    assert game.version == 1
    assert events(game) == [(1, "opening", "black", [3, 5], "")]


def test_opening_reroll_leaves_the_winner_to_roll(fixed):
    game = new_bot_game(fixed, opening=(6, 2), preset="match")
    assert game.position["turn"] == "white"
    assert game.phase == Phase.ROLL and game.dice is None
    assert events(game) == [(1, "opening", "white", [6, 2], "")]


def test_create_bot_game_sides_and_random_side():
    game = services.create_bot_game(HUMAN, human_side="black")
    assert (game.white_guest, game.black_guest, game.bot_side) == ("", HUMAN, "white")
    sides = {services.create_bot_game(HUMAN, human_side="random").bot_side for _ in range(40)}
    assert sides == {"white", "black"}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"who": ""},
        {"preset": "backgammon"},
        {"bot_level": "grandmaster"},
        {"human_side": "green"},
    ],
)
def test_create_bot_game_refuses_bad_options(kwargs):
    args = {"who": HUMAN, **kwargs}
    with pytest.raises(services.BadFrame):
        services.create_bot_game(**args)
    assert Game.objects.count() == 0


# --- rolling and playing ----------------------------------------------------------------


def test_roll_stores_and_records_the_dice(fixed):
    game = new_bot_game(fixed, opening=(2, 1), preset="match")
    fixed.rolls.append([4, 4])
    game = services.roll(game.id, ME, 1)
    assert (game.phase, game.dice, game.version) == (Phase.PLAY, [4, 4], 2)
    assert Game.objects.get(pk=game.id).dice == [4, 4]
    assert events(game)[-1] == (2, "roll", "white", [4, 4], "")


def test_play_moves_records_and_passes_the_turn(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    game = services.play(game.id, ME, 1, "24/18 18/13")
    assert game.position == {
        "turn": "black",
        "white": {"24": 14, "13": 1},
        "black": {"24": 15},
        "first_turn": True,
    }
    assert (game.phase, game.dice, game.version) == (Phase.ROLL, None, 2)
    assert events(game)[-1] == (2, "play", "white", [6, 5], "24/18 18/13")
    assert game.is_bot_turn


def test_play_is_judged_by_its_result(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    game = services.play(game.id, ME, 1, "24/19 19/13")  # the other order: same result
    assert game.position["white"] == {"24": 14, "13": 1}
    assert game.replay() == game.get_position()


def test_illegal_play_changes_nothing(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    with unchanged(game.id), pytest.raises(services.IllegalPlayError) as caught:
        services.play(game.id, ME, 1, "24/18 24/19")
    assert caught.value.code == "illegal_play"
    assert "head" in caught.value.message
    assert caught.value.version == 1


@pytest.mark.parametrize("notation", ["24/30", "hello", "24/18 18/13 13/7", ""])
def test_malformed_or_incomplete_plays_are_refused(fixed, notation):
    game = new_bot_game(fixed, opening=(6, 5))
    with unchanged(game.id), pytest.raises(services.IllegalPlayError) as caught:
        services.play(game.id, ME, 1, notation)
    assert caught.value.message


def test_play_out_of_turn_changes_nothing(fixed):
    game = new_bot_game(fixed, opening=(2, 6))  # black (the bot) won the opening
    with unchanged(game.id), pytest.raises(services.NotYourTurn):
        services.play(game.id, ME, 1, "24/18 18/16")
    with unchanged(game.id), pytest.raises(services.NotYourTurn):
        services.resign(game.id, services.Actor(guest_id=ONLOOKER), 1)


def test_stale_version_changes_nothing(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    for version in (0, 2, 99):
        with unchanged(game.id), pytest.raises(services.StaleVersion) as caught:
            services.play(game.id, ME, version, "24/18 18/13")
        assert caught.value.version == 1


def test_double_submit_plays_once(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    services.play(game.id, ME, 1, "24/18 18/13")
    with unchanged(game.id), pytest.raises(services.StaleVersion):
        services.play(game.id, ME, 1, "24/18 18/13")
    assert [e[1] for e in events(game)] == ["opening", "play"]


def test_wrong_phase_changes_nothing(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    with unchanged(game.id), pytest.raises(services.WrongPhase):
        services.roll(game.id, ME, 1)
    match = new_bot_game(fixed, opening=(6, 5), preset="match")
    with unchanged(match.id), pytest.raises(services.WrongPhase):
        services.play(match.id, ME, 1, "24/18 18/13")


def test_onlooker_cannot_act(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    stranger = services.Actor(guest_id=ONLOOKER)
    for call in (
        lambda: services.play(game.id, stranger, 1, "24/18 18/13"),
        lambda: services.resign(game.id, stranger, 1),
        lambda: services.roll(game.id, services.Actor(guest_id=None), 1),
    ):
        with unchanged(game.id), pytest.raises(services.NotYourTurn):
            call()


def test_ill_typed_version_is_a_bad_frame(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    for version in ("1", True, None, 1.0):
        with unchanged(game.id), pytest.raises(services.BadFrame):
            services.play(game.id, ME, version, "24/18 18/13")
    with unchanged(game.id), pytest.raises(services.BadFrame):
        services.play(game.id, ME, 1, ["24/18"])


# --- forced pass (R6) -------------------------------------------------------------------


def test_forced_pass_is_offered_and_confirmed_with_an_empty_play(fixed):
    game = new_bot_game(fixed, opening=(6, 5), preset="match")
    # Black holds white's 18 (black 6): with 6-6 white's head checkers cannot move.
    set_position(
        game,
        {"turn": "white", "white": {"24": 15}, "black": {"24": 14, "6": 1}, "first_turn": False},
    )
    fixed.rolls.append([6, 6])
    game = services.roll(game.id, ME, 1)
    legal = services.snapshot(game, HUMAN)["game"]["legal"]
    assert legal["pass"] is True and legal["plays"] == [{"play": "", "result": {"24": 15}}]
    with unchanged(game.id), pytest.raises(services.IllegalPlayError):
        services.play(game.id, ME, 2, "24/18")
    game = services.play(game.id, ME, 2, "")
    assert game.position["turn"] == "black" and game.position["white"] == {"24": 15}
    assert events(game)[-1] == (3, "play", "white", [6, 6], "")


def test_pass_is_refused_when_a_step_is_possible(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    with unchanged(game.id), pytest.raises(services.IllegalPlayError) as caught:
        services.play(game.id, ME, 1, "")
    assert "pass" in caught.value.message


# --- end of the game (R9) ---------------------------------------------------------------


@pytest.mark.parametrize(
    "preset, black, kind, points",
    [
        ("sport", {"24": 15}, "mars", 2),
        ("sport", {"1": 1}, "oin", 1),  # black bore off 14
        ("classic", {"24": 15}, "koks", 3),  # black still on its 13-24
        ("classic", {"6": 15}, "mars", 2),
    ],
)
def test_bearing_off_the_last_checker_ends_and_scores_the_game(fixed, preset, black, kind, points):
    game = new_bot_game(fixed, opening=(6, 5), preset=preset)
    set_position(
        game,
        {"turn": "white", "white": {"2": 1}, "black": black, "first_turn": False},
        phase=Phase.PLAY,
        dice_rolled=[2, 1],
    )
    game = services.play(game.id, ME, 1, "2/off")
    assert (game.status, game.phase, game.dice, game.turn) == (
        Status.FINISHED,
        Phase.OVER,
        None,
        None,
    )
    assert (game.winner, game.result_kind, game.result_points, game.end_reason) == (
        "white",
        kind,
        points,
        "bore_off",
    )
    assert [e[1] for e in events(game)][-2:] == ["play", "end"]
    assert game.version == 3 and not game.is_bot_turn
    result = services.snapshot(game, HUMAN)["game"]["result"]
    assert result == {
        "winner": "white",
        "kind": kind,
        "points": points,
        "reason": "bore_off",
        "cube": 1,
        "loser": "black",
        "match_lost": False,
        "rating": None,
    }
    with unchanged(game.id), pytest.raises(services.GameOver):
        services.roll(game.id, ME, 3)


def test_resignation_is_scored_on_the_resigners_board(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    game = services.play(game.id, ME, 1, "24/18 18/13")
    game = services.resign(game.id, ME, game.version)  # allowed on the opponent's turn too
    assert (game.status, game.winner, game.result_kind, game.result_points, game.end_reason) == (
        Status.FINISHED,
        "black",
        "mars",
        2,
        "resign",
    )
    assert [e[1] for e in events(game)] == ["opening", "play", "resign", "end"]
    with unchanged(game.id), pytest.raises(services.GameOver):
        services.resign(game.id, ME, game.version)
    with unchanged(game.id), pytest.raises(services.GameOver):
        services.play(game.id, ME, 1, "24/18 18/13")  # an old version: still "game over"


def test_resigning_before_the_first_play_aborts_the_game_without_a_result(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    game = services.resign(game.id, ME, 1)
    assert (game.status, game.winner, game.result_kind, game.end_reason) == (
        Status.ABORTED,
        "",
        "",
        "resign",
    )
    assert [e[1:3] for e in events(game)] == [("opening", "white"), ("abort", "white")]
    result = services.result_of(game)
    assert (result["reason"], result["aborted_by"], result["loser"]) == (
        "aborted",
        "resign",
        "white",
    )
    with unchanged(game.id), pytest.raises(services.GameOver):
        services.resign(game.id, ME, game.version)


def test_resigning_after_the_first_play_of_the_opponent_only_still_aborts(fixed):
    """The bot has played, the human not yet: the human's resignation is still an abort."""
    fixed.rolls.append([3, 1])
    game = new_bot_game(fixed, opening=(5, 6))  # black (the bot) starts
    game = services.bot_turn(game.id, game.version)
    assert game.awaiting == "white" and game.plays == 1
    game = services.resign(game.id, ME, game.version)
    assert game.status == Status.ABORTED and not game.winner


def test_resignation_after_bearing_off_some_is_oin(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    game = services.play(game.id, ME, 1, "24/18 18/13")
    set_position(game, {"turn": "black", "white": {"3": 2}, "black": {"1": 2}, "first_turn": False})
    game = services.resign(game.id, ME, game.version)  # allowed on the opponent's turn too
    assert (game.winner, game.result_kind, game.result_points) == ("black", "oin", 1)


# --- the bot's turn ---------------------------------------------------------------------


def test_bot_turn_does_nothing_when_not_due(fixed):
    game = new_bot_game(fixed, opening=(6, 5))  # the human is to play
    with unchanged(game.id):
        assert services.bot_turn(game.id, 1) is None
    game = services.play(game.id, ME, 1, "24/18 18/13")
    with unchanged(game.id):
        assert services.bot_turn(game.id, 1) is None  # stale version
    assert services.bot_turn("00000000-0000-0000-0000-000000000000", 1) is None


def test_bot_turn_rolls_plays_and_runs_once(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    game = services.play(game.id, ME, 1, "24/18 18/13")
    fixed.rolls.append([3, 1])
    game = services.bot_turn(game.id, 2)
    assert game.position["turn"] == "white" and game.phase == Phase.ROLL
    assert [e[1:4] for e in events(game)][-2:] == [
        ("roll", "black", [3, 1]),
        ("play", "black", [3, 1]),
    ]
    with unchanged(game.id):
        assert services.bot_turn(game.id, 2) is None


def test_bot_plays_the_opening_dice_when_it_wins_the_opening(fixed):
    game = new_bot_game(fixed, opening=(1, 4))
    game = services.bot_turn(game.id, 1)
    assert game.version == 2
    assert events(game)[-1][1:4] == ("play", "black", [4, 1])
    assert game.position["black"]["24"] == 14


# --- snapshot ---------------------------------------------------------------------------


def test_snapshot_gives_legal_plays_only_to_the_side_to_move(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    mine = services.snapshot(game, HUMAN)["game"]
    assert mine["you"] == "white" and mine["turn"] == "white" and mine["dice"] == [6, 5]
    assert mine["legal"]["pass"] is False
    assert [p["play"] for p in mine["legal"]["plays"]] == [
        p.notation for p in legal_plays(game.get_position(), (6, 5), "sport")
    ]
    assert mine["legal"]["plays"][0]["result"] == {"24": 14, "13": 1}
    assert mine["legal"]["graph"]["nodes"][0]["steps"]
    assert mine["pips"] == {"white": 360, "black": 360}
    assert mine["off"] == {"white": 0, "black": 0}
    assert mine["players"]["black"]["bot"] == "medium"
    assert mine["players"]["white"]["bot"] is None

    onlooker = services.snapshot(game, ONLOOKER)["game"]
    assert onlooker["you"] is None and onlooker["legal"] is None

    game = services.play(game.id, ME, 1, "24/18 18/13")
    after = services.snapshot(game, HUMAN)["game"]
    assert after["legal"] is None and after["dice"] is None and after["phase"] == "roll"
    assert after["last"] == {"side": "white", "dice": [6, 5], "play": "24/18 18/13", "version": 2}


# --- a whole game, and its record -------------------------------------------------------


@pytest.mark.parametrize("preset, seed", [("sport", 1), ("classic", 2), ("match", 3)])
def test_a_whole_game_through_the_services_ends_with_a_correct_result(preset, seed):
    rng = random.Random(seed)
    game = services.create_bot_game(HUMAN, preset=preset, human_side="random")
    for _turn in range(1000):
        if game.status == Status.FINISHED:
            break
        if game.is_bot_turn:
            game = services.bot_turn(game.id, game.version)
        else:
            game = play_human_turn(game.id, rng=rng)
    assert game.status == Status.FINISHED and game.end_reason == "bore_off"
    final = game.get_position()
    assert final.winner == game.winner and final.off(game.winner) == 15
    loser = "black" if game.winner == "white" else "white"
    assert (game.result_kind, game.result_points) == game_value(final.board(loser), preset)

    # The record replays to the stored position, with one event per version.
    assert game.replay() == final
    seqs = [e[0] for e in events(game)]
    assert seqs == list(range(1, game.version + 1))
    assert state(game.id)[0]["version"] == game.version


@pytest.mark.django_db(transaction=True)
def test_simultaneous_double_submit_plays_once(fixed, unattended_queue):
    """Two requests with the same version at the same moment (two sockets, two threads):
    the row lock lets one play; the other sees the new version and changes nothing."""
    import threading

    from django.db import connection

    game = new_bot_game(fixed, opening=(6, 5))
    barrier = threading.Barrier(2)
    outcomes = []

    def submit():
        try:
            barrier.wait(timeout=5)
            services.play(game.id, ME, 1, "24/18 18/13")
            outcomes.append("played")
        except services.GameError as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["played", "stale_version"]
    assert [e[1] for e in events(game)] == ["opening", "play"]
    assert Game.objects.get(pk=game.id).version == 2


def test_signing_in_never_seats_one_account_on_both_sides(django_user_model):
    # Two guests of one challenge game sign in to the same account, one after the other.
    user = django_user_model.objects.create(username="both")
    challenge = services.create_challenge("guest-one", colour="white")
    game = services.accept_challenge(challenge.pk, "guest-two")
    assert services.adopt_guest_games("guest-one", user.pk) == 1
    assert services.adopt_guest_games("guest-two", user.pk) == 0
    game.refresh_from_db()
    assert (game.white_user_id, game.black_user_id) == (user.pk, None)
    # each browser keeps the seat its session sat down on
    assert game.side_of(services.Actor(guest_id="guest-two", user_id=user.pk)) == "black"
    assert game.side_of(services.Actor(guest_id="guest-one", user_id=user.pk)) == "white"
    assert game.side_of(services.Actor(guest_id="elsewhere", user_id=user.pk)) == "white"


def test_a_snapshot_of_a_game_read_before_a_change_committed_leaves_that_change_out():
    # A socket reads the game row, another process's play commits, then the snapshot reads the
    # events: the history must stop at the version read, or a client that then gets the
    # change's event shows the play twice.
    game = new_people_game(True)
    read = Game.objects.get(pk=game.pk)  # the row as the socket read it
    play_turn(game.pk)  # committed meanwhile
    assert Game.objects.get(pk=game.pk).version > read.version
    snap = services.snapshot(read, guest_to_act(read))["game"]
    assert snap["version"] == read.version
    assert all(entry["version"] <= read.version for entry in snap["history"])
