"""Records and replays of games that a clock ended (docs/record-format.md): a game lost on
time or by leaving is written with its timeout/abandon line and scored like a resignation, an
aborted game with ``result aborted``; the replay page, the record download and the importer
take them all. The games are played through the services with short clocks and controlled
time (time-machine)."""

from datetime import UTC, datetime

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from games import services
from games.choices import EventKind, Status
from games.clocks import LOSES_MATCH, ClockSpec
from games.engine import record as rec
from games.room.models import Game, ImportedRecord
from games.room.replays import game_record, record_text
from games.tests.factories import FixedDice, new_bot_game

pytestmark = pytest.mark.django_db

START = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
#: standard-like: 1 s to roll, 1 s per move, 1 s reserve, claim after 1 s away, 2 s first move
STANDARD = ClockSpec(
    kind="standard",
    roll_ms=1000,
    move_ms=1000,
    reserve_ms=1000,
    claim_after_ms=1000,
    first_move_ms=2000,
)
#: match-like: automatic roll, 1 s per move, 1 s reserve, 60 s cap, 1 s to reconnect
MATCH = ClockSpec(
    kind="match",
    roll_ms=None,
    move_ms=1000,
    reserve_ms=1000,
    max_move_ms=60_000,
    reconnect_ms=1000,
    first_move_ms=2000,
    loses=LOSES_MATCH,
)


@pytest.fixture
def fixed(monkeypatch):
    return FixedDice(monkeypatch)


def player_client(guest_id):
    """A browser whose session is the guest ``guest_id``."""
    client = Client()
    session = client.session
    session["guest_id"] = guest_id
    session.save()
    return client


def play_first_legal(game_id, guest_id):
    """The guest plays the first legal play of the roll they have (rolling first if due)."""
    game = Game.objects.get(pk=game_id)
    actor = services.Actor(guest_id=guest_id)
    if game.phase == "roll":
        game = services.roll(game_id, actor, game.version)
    plays = services.snapshot(game, guest_id)["game"]["legal"]["plays"]
    return services.play(game_id, actor, game.version, plays[0]["play"])


def past_deadline(clock, game):
    """Move the frozen time to a second after the game's next deadline (well past any grace
    the timers allow) and apply what has expired; returns the game as it then is."""
    game = Game.objects.get(pk=game.pk)
    deadline = services.deadline_of(game)
    clock.move_to(datetime.fromtimestamp(deadline / 1000 + 1.0, tz=UTC))
    services.apply_timeouts(game.id)
    return Game.objects.get(pk=game.pk)


def assert_record_round_trips(game):
    """The game's record parses back to itself, replays to the game's result, and the replay
    page, the download and the importer all take it; returns the record text."""
    text = record_text(game)
    assert rec.write(rec.parse(text)) == text
    replay = rec.replay(rec.parse(text))
    assert replay.result == game_record(game).result
    guest = game.white_guest or game.black_guest
    client = player_client(guest)
    page = client.get(reverse("games:replay", kwargs={"game_id": game.id}))
    assert page.status_code == 200
    assert page.context["finished"] is True
    assert page.context["fairness"]["seed"] == game.seed  # revealed once over
    assert [f["kind"] for f in page.context["frames"]][-1] == "end"
    download = client.get(reverse("games:record", kwargs={"game_id": game.id}))
    assert download.status_code == 200 and download.content.decode() == text
    response = client.post(reverse("games:import"), {"text": text})
    assert response.status_code == 302
    assert ImportedRecord.objects.get().text == text
    imported = client.get(response["Location"])
    assert imported.status_code == 200
    assert [f["kind"] for f in imported.context["frames"]] == [
        f["kind"] for f in page.context["frames"]
    ]
    return text


def test_a_game_lost_on_time_is_recorded_with_a_timeout_scored_by_r9(fixed):
    with time_machine.travel(START, tick=False) as clock:
        game = new_bot_game(fixed, clock=STANDARD)
        game = play_first_legal(game.id, game.white_guest)
        game = services.bot_turn(game.id, game.version)
        assert game.awaiting == "white" and game.phase == "roll"
        # the roll's free second, then the whole reserve
        assert services.deadline_of(game) == START.timestamp() * 1000 + 2000
        game = past_deadline(clock, game)
    assert (game.status, game.end_reason, game.winner) == (Status.FINISHED, "timeout", "black")
    record = game_record(game)
    assert record.entries[-1] == rec.Entry(3, "white", rec.TIMEOUT)
    assert record.header("Clock") == "standard"
    # R9 on the loser's position: white has borne nothing off, so it is a mars
    assert record.result == rec.Result("black", "mars", 2, "timeout")
    assert (game.result_kind, game.result_points) == ("mars", 2)
    text = assert_record_round_trips(game)
    assert text.endswith("3 white timeout\nresult black mars 2 timeout\n")
    assert '[Result "black mars 2 timeout"]' in text


def test_a_match_game_lost_on_the_match_clock_is_recorded_with_its_match_headers(fixed):
    with time_machine.travel(START, tick=False) as clock:
        game = new_bot_game(fixed, preset="match", match_length=3, clock=MATCH)
        game = play_first_legal(game.id, game.white_guest)
        game = services.bot_turn(game.id, game.version)
        assert game.awaiting == "white" and game.phase == "play"  # the clock rolled
        game = past_deadline(clock, game)
    assert game.end_reason == "timeout" and game.match.status == Status.FINISHED
    record = game_record(game)
    assert [(name, record.header(name)) for name in ("Match length", "Game", "Clock")] == [
        ("Match length", "3"),
        ("Game", "1"),
        ("Clock", "match"),
    ]
    assert record.result.reason == "timeout" and record.result.winner == "black"
    assert_record_round_trips(game)


def test_a_player_who_leaves_and_is_claimed_against_is_recorded_with_an_abandon(fixed):
    fixed.openings.append((6, 5))
    challenge = services.create_challenge("guest-a", colour="white")
    with time_machine.travel(START, tick=False) as clock:
        game = services.accept_challenge(challenge.id, "guest-b", clock=STANDARD)
        game = play_first_legal(game.id, "guest-a")
        game = play_first_legal(game.id, "guest-b")
        services.player_here(game.id, "guest-b", "socket-b")
        services.player_left(game.id, "socket-b")
        clock.shift(1.001)
        game = services.claim(
            game.id, services.Actor(guest_id="guest-a"), Game.objects.get(pk=game.id).version
        )
    assert (game.end_reason, game.winner) == ("abandon", "white")
    assert game.events.filter(kind=EventKind.ABANDON, side="black").count() == 1
    record = game_record(game)
    assert record.entries[-1] == rec.Entry(3, "black", rec.ABANDON)
    assert record.result.reason == "abandon" and record.result.winner == "white"
    assert record.header("White") == record.header("Black") == "Guest"
    assert_record_round_trips(game)


def test_an_aborted_game_is_recorded_without_a_result(fixed):
    with time_machine.travel(START, tick=False) as clock:
        game = new_bot_game(fixed, clock=STANDARD)
        game = past_deadline(clock, game)  # white never makes its first move
    assert game.status == Status.ABORTED
    record = game_record(game)
    assert record.entries == [rec.Entry(1, "white", rec.ABORT)]
    assert record.result == rec.Result.aborted()
    text = assert_record_round_trips(game)
    assert '[Result "aborted"]' in text and text.endswith("\n1 white abort\nresult aborted\n")
    assert f'[Seed "{game.seed}"]' in text
    frames = (
        player_client(game.white_guest)
        .get(reverse("games:replay", kwargs={"game_id": game.id}))
        .context["frames"]
    )
    assert [f["kind"] for f in frames] == ["start", "abort", "end"]
    assert frames[1]["text"] == "Turn 1: White left before a first play: the game is aborted."
    assert frames[2]["text"] == "The game is aborted: it has no result."
