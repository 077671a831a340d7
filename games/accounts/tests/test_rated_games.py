"""Rated games (issue #6): a rated game between two signed-in players over their sockets moves
both Glicko-2 ratings exactly once, also when the last move and the clock's timeout race;
aborted games and casual games change no rating; a guest can neither make nor accept a rated
challenge; the challenge form's rated/casual and clock choices."""

import json
import random
import threading
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.db import connections
from django.test import Client
from django.urls import reverse

from games import clocks, ratings, services
from games.accounts.models import Abandonment, PlayerRating, Profile, RatingChange
from games.challenges.models import Challenge, ChallengeStatus
from games.choices import EventKind, Phase, Status
from games.clocks import ClockSpec
from games.engine import record as rec
from games.loadtool.gameview import GameView
from games.lobby import pairing
from games.lobby.tests.test_lobby import signed_in_cookie
from games.room import replays
from games.room.models import Game
from games.room.tests.test_consumers import origin
from games.services import playban
from games.tests.factories import FixedDice, play_turns, random_legal_play, set_position
from games.tests.fixtures import TEST_SWEEP_SECONDS

TIMEOUT = 5
GRACE = services.TIMER_GRACE_MS
LONG = 600_000  # ms: a time no test waits for


def account(name):
    return get_user_model().objects.create_user(username=name)


def person(user, guest=None):
    """The Actor of ``user`` with a guest id of their session."""
    return services.Actor(guest_id=guest or f"guest-{user.username}", user_id=user.pk)


def rated_game(white, black, spec=True, preset="sport", **options):
    """A rated game of ``white`` (who made the challenge) against ``black`` with ``spec``."""
    challenge = services.create_challenge(
        person(white), preset=preset, colour="white", rated=True, **options
    )
    return services.accept_challenge(challenge.pk, person(black), clock=spec)


def mover(game):
    """The Actor (by account) of the side that must act."""
    return services.Actor(user_id=game.user_of(game.awaiting))


def play_turn(game_id, rng):
    """The side to act rolls (if due) and plays a random legal play, as its account."""
    game = Game.objects.get(pk=game_id)
    actor = mover(game)
    if game.phase == Phase.ROLL:
        game = services.roll(game_id, actor, game.version)
    return services.play(game_id, actor, game.version, random_legal_play(game, rng))


def ratings_of(*users, preset="sport"):
    """``[(rating, deviation, games, wins)]`` of each account in ``preset`` (None: no row)."""
    found = []
    for user in users:
        row = PlayerRating.objects.filter(user=user, preset=preset).first()
        found.append(None if row is None else (row.rating, row.deviation, row.games, row.wins))
    return found


#: white bears off its last checker with 2-1; black has borne off none (mars)
WHITE_LAST_CHECKER = {"turn": "white", "white": {"1": 1}, "black": {"24": 15}, "first_turn": False}


# --- over the sockets ----------------------------------------------------------------------


async def game_socket(game_id, user):
    from nardy_site.asgi import application

    cookie = await sync_to_async(signed_in_cookie)(user)
    comm = WebsocketCommunicator(
        application,
        f"/ws/game/{game_id}/?lang=en",
        headers=[(b"origin", origin().encode()), (b"cookie", cookie.encode())],
    )
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return comm


#: each socket's view of its game: its snapshot with the events since (docs/protocol.md)
VIEWS = {}


async def next_snapshot(comm, predicate=lambda game: True):
    """The game as ``comm``'s page holds it once a snapshot or event makes it satisfy
    ``predicate``; an error frame is returned as it is."""
    view = VIEWS.setdefault(comm, GameView())
    deadline = time.monotonic() + TIMEOUT
    while True:
        frame = json.loads(await comm.receive_from(timeout=max(0.1, deadline - time.monotonic())))
        if frame["type"] == "error":
            return frame
        if view.take(frame) is True and predicate(view.game):
            return view.game


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("unattended_queue")
def test_a_rated_game_over_two_sockets_moves_both_ratings_exactly_once(monkeypatch):
    fixed = FixedDice(monkeypatch)
    alice, bob = account("alice"), account("bob")
    fixed.openings.append((6, 5))  # white (alice) starts
    game = rated_game(
        alice,
        bob,
        spec=ClockSpec(
            kind=clocks.STANDARD, roll_ms=LONG, move_ms=LONG, reserve_ms=LONG, first_move_ms=LONG
        ),
    )
    rng = random.Random(6)

    async def scenario():
        white, black = await game_socket(game.pk, alice), await game_socket(game.pk, bob)
        first = await next_snapshot(white)
        assert (await next_snapshot(black))["you"] == "black"
        assert first["you"] == "white"
        assert first["players"]["white"]["name"] and first["players"]["white"]["rating"] == 1500
        # a few turns, each side playing from its own socket
        socks = {"white": white, "black": black}
        current = first
        for _turn in range(4):
            side = current["awaiting"]
            if current["phase"] == "roll":
                await socks[side].send_json_to({"type": "roll", "version": current["version"]})
                current = await next_snapshot(
                    socks[side], lambda g, v=current["version"]: g["version"] > v
                )
            play = rng.choice(current["legal"]["plays"])["play"]
            await socks[side].send_json_to(
                {"type": "play", "version": current["version"], "play": play}
            )
            current = await next_snapshot(
                socks[side], lambda g, v=current["version"]: g["version"] > v
            )
        # then white is to bear off its last checker
        await sync_to_async(arrange_last_checker)(game.pk, fixed)
        await white.send_json_to({"type": "snapshot"})
        current = await next_snapshot(
            white, lambda g: g["awaiting"] == "white" and g["phase"] == "play"
        )
        await white.send_json_to({"type": "play", "version": current["version"], "play": "1/off"})
        over = [
            await next_snapshot(comm, lambda g: g["status"] != "active") for comm in (white, black)
        ]
        # the loser's late frames change nothing
        await black.send_json_to({"type": "resign", "version": over[1]["version"]})
        refused = await next_snapshot(black)
        await white.disconnect()
        await black.disconnect()
        return over, refused

    over, refused = async_to_sync(scenario)()
    assert refused["type"] == "error" and refused["code"] == "game_over"
    for seen in over:
        assert seen["result"]["winner"] == "white" and seen["result"]["reason"] == "bore_off"
        rating = seen["result"]["rating"]
        assert rating["white"]["before"] == rating["black"]["before"] == 1500
        assert rating["white"]["delta"] > 0 > rating["black"]["delta"]
    assert over[0]["result"]["rating"] == over[1]["result"]["rating"]
    changes = RatingChange.objects.filter(game_id=game.pk)
    assert changes.count() == 2
    assert {c.user_id: c.won for c in changes} == {alice.pk: True, bob.pk: False}
    (white_rating, _, white_games, white_wins), (black_rating, _, black_games, black_wins) = (
        ratings_of(alice, bob)
    )
    assert white_rating > 1500 > black_rating
    assert (white_games, white_wins, black_games, black_wins) == (1, 1, 1, 0)
    assert over[0]["result"]["rating"]["white"]["after"] == round(white_rating)


def arrange_last_checker(game_id, fixed):
    """Put the game (after some turns) where white is to roll 2-1 and bear off its last
    checker; the clock keeps running as it was."""
    game = Game.objects.get(pk=game_id)
    if game.awaiting != "white" or game.phase != Phase.ROLL:
        # finish the turn under way so that white is to roll next
        rng = random.Random(1)
        while not (game.awaiting == "white" and game.phase == Phase.ROLL):
            game = play_turn(game_id, rng)
    set_position(game, WHITE_LAST_CHECKER, phase=Phase.ROLL)
    fixed.rolls.append([2, 1])
    services.roll(game_id, mover(game), Game.objects.get(pk=game_id).version)


# --- the last move against the clock -------------------------------------------------------

#: 1 s for each move and no reserve after the first moves (which have all the time they need)
ONE_SECOND = ClockSpec(
    kind=clocks.STANDARD, roll_ms=LONG, move_ms=1_000, reserve_ms=0, first_move_ms=LONG
)


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "received, offset_ms",
    [
        (-1, -20),  # received just before the deadline, handled as the timer fires
        (-1, 0),
        (0, 0),  # received at the deadline: too late
        (-1, 15),
    ],
)
def test_a_last_move_racing_the_timeout_rates_the_game_exactly_once(
    clock_queue, monkeypatch, received, offset_ms
):
    """White's bearing off of its last checker, received ``received`` ms from its deadline,
    is handled at the moment the sweep applies that deadline (``offset_ms`` from it) while
    another thread applies it too: whichever wins, the game ends once and both
    ratings move once."""
    fixed = FixedDice(monkeypatch)
    alice, bob = account("alice"), account("bob")
    fixed.openings.append((6, 5))
    game = rated_game(alice, bob, spec=ONE_SECOND)
    rng = random.Random(2)
    game = play_turn(game.pk, rng)  # white's first move
    game = play_turn(game.pk, rng)  # black's
    set_position(game, WHITE_LAST_CHECKER, phase=Phase.ROLL)
    fixed.rolls.append([2, 1])
    game = services.roll(game.pk, mover(game), Game.objects.get(pk=game.pk).version)
    deadline = services.deadline_of(game)
    version = game.version
    fires = deadline + GRACE + offset_ms  # when the sweep applies the deadline
    barrier = threading.Barrier(2)
    outcomes = {}

    def last_move():
        try:
            barrier.wait()
            time.sleep(max(0, fires - clocks.now_ms()) / 1000)
            services.play(
                game.pk, services.Actor(user_id=alice.pk), version, "1/off", at=deadline + received
            )
            outcomes["move"] = "played"
        except services.GameOver as exc:
            outcomes["move"] = type(exc).__name__
        finally:
            connections.close_all()

    def sweep():
        try:
            barrier.wait()
            time.sleep(max(0, fires - clocks.now_ms()) / 1000)
            outcomes["sweep"] = services.apply_timeouts(game.pk) is not None
        finally:
            connections.close_all()

    threads = [threading.Thread(target=last_move), threading.Thread(target=sweep)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # and beat's sweep has had its go too
    time.sleep(TEST_SWEEP_SECONDS * 2 + 0.2)
    game = Game.objects.get(pk=game.pk)
    assert game.status == Status.FINISHED
    if received < 0 and outcomes["move"] == "played":
        assert (game.winner, game.end_reason) == ("white", "bore_off")
    else:
        assert (game.winner, game.end_reason) == ("black", "timeout")
        assert outcomes["move"] in ("TimeRanOut", "GameOver")
    assert game.events.filter(kind=EventKind.END).count() == 1
    changes = RatingChange.objects.filter(game=game)
    assert changes.count() == 2
    assert {c.user_id for c in changes if c.won} == {game.user_of(game.winner)}
    assert [row[2] for row in ratings_of(alice, bob)] == [1, 1]
    assert services.result_of(game)["rating"][game.winner]["delta"] > 0
    print(
        f"race: received {received:+d} ms, handled {offset_ms:+d} ms: {outcomes} -> "
        f"{game.winner} by {game.end_reason}"
    )


# --- results that rate nothing -------------------------------------------------------------


@pytest.mark.django_db
def test_an_aborted_rated_game_changes_no_rating(time_machine):
    time_machine.move_to("2027-05-01 12:00:00+00:00", tick=False)
    alice, bob = account("alice"), account("bob")
    pairing.join(services.Actor(user_id=alice.pk), "match", 3)
    entry = pairing.join(services.Actor(user_id=bob.pk), "match", 3)
    game = entry.game
    assert game.rated and game.match.rated
    time_machine.shift(services.clock_spec(game).first_move_ms / 1000 + 1)
    game = services.apply_timeouts(game.pk)
    assert game.status == Status.ABORTED and game.match.status == Status.ABORTED
    assert services.result_of(game)["rating"] is None
    assert not RatingChange.objects.exists()
    assert ratings_of(alice, bob, preset="match") == [None, None]


@pytest.mark.django_db
def test_a_casual_game_between_accounts_changes_no_rating():
    alice, bob = account("alice"), account("bob")
    challenge = services.create_challenge(person(alice), colour="white")
    assert challenge.rated is False and challenge.creator_user_id == alice.pk
    game = services.accept_challenge(challenge.pk, person(bob))
    assert not game.rated and {game.white_user_id, game.black_user_id} == {alice.pk, bob.pk}
    game = play_turns(game.pk, 2)
    game = services.resign(game.pk, services.Actor(user_id=bob.pk), game.version)
    assert game.status == Status.FINISHED and game.winner == "white"
    assert services.result_of(game)["rating"] is None
    assert not RatingChange.objects.exists() and not PlayerRating.objects.exists()


@pytest.mark.django_db
def test_a_resigned_rated_game_rates_once_and_a_second_resign_is_refused():
    alice, bob = account("alice"), account("bob")
    game = play_turns(rated_game(alice, bob).pk, 2)
    game = services.resign(game.pk, services.Actor(user_id=bob.pk), game.version)
    with pytest.raises(services.GameOver):
        services.resign(game.pk, services.Actor(user_id=alice.pk), game.version)
    assert RatingChange.objects.filter(game=game).count() == 2
    assert [row[2:] for row in ratings_of(alice, bob)] == [(1, 1), (1, 0)]


@pytest.mark.django_db
@pytest.mark.parametrize("after_turns", [0, 1])
def test_a_rated_game_resigned_before_the_first_play_changes_no_rating(after_turns):
    """Issue #30's farming: an accomplice resigning at once (before their own first play, even
    after the opponent's) gives no result, no rating, and counts toward their waits."""
    alice, bob = account("alice"), account("bob")
    game = rated_game(alice, bob)
    if game.awaiting == "white":  # bob (black) must not have played
        game = play_turns(game.pk, after_turns)
    game = services.resign(game.pk, services.Actor(user_id=bob.pk), game.version)
    assert game.status == Status.ABORTED and not game.winner
    assert not RatingChange.objects.exists()
    assert ratings_of(alice, bob) == [None, None]
    assert services.result_of(game)["rating"] is None
    assert list(Abandonment.objects.values_list("user_id", "reason")) == [(bob.pk, "abort")]
    with pytest.raises(services.PlayBanned):
        playban.check(bob.pk)
    playban.check(alice.pk)  # the opponent who stayed is free to play on


@pytest.mark.django_db
def test_a_rated_match_the_loser_never_played_in_is_aborted_and_rates_nobody():
    """The attack run after issue #30: X plays once and resigns game 1, then Y resigns the
    later games at once. Y made no play in the whole match: its resignation aborts the match."""
    alice, bob = account("alice"), account("bob")
    game = rated_game(alice, bob, preset="match", match_length=3)
    x = mover(game)  # the side to move plays once and resigns: a real loss of game 1
    y = services.Actor(user_id=alice.pk if x.user_id == bob.pk else bob.pk)
    game = play_turns(game.pk, 1)
    game = services.resign(game.pk, x, game.version)
    assert game.status == Status.FINISHED  # x had played
    second = Game.objects.get(match_id=game.match_id, match_number=2)
    second = services.resign(second.pk, y, second.version)
    assert second.status == Status.ABORTED
    second.match.refresh_from_db()
    assert second.match.status == Status.ABORTED
    assert not RatingChange.objects.exists()
    assert ratings.played_by_both(game, second.match) is False


# --- challenges: rated or casual, and their clock ------------------------------------------


def signed_in_client(user):
    client = Client()
    client.force_login(user)
    return client


def make_challenge(client, **data):
    response = client.post(reverse("games:challenge_new"), data)
    if response.status_code != 302:
        return response, None
    return response, Challenge.objects.get(pk=response["Location"].rstrip("/").split("/")[-1])


def page_of(challenge, name="challenge"):
    return reverse(f"games:{name}", kwargs={"challenge_id": challenge.pk})


@pytest.mark.django_db
def test_the_form_offers_rated_games_to_signed_in_players_and_says_guests_play_casual():
    alice = account("alice")
    page = signed_in_client(alice).get(reverse("games:challenge_new")).content.decode()
    assert 'name="rated" value="casual" checked' in page and 'name="rated" value="rated"' in page
    assert 'id="casual-only"' not in page
    guest_page = Client().get(reverse("games:challenge_new")).content.decode()
    assert 'name="rated"' not in guest_page
    assert "As a guest you play casual games, with no rating." in guest_page
    login = f"{reverse('account_login')}?next=%2Fen%2Ffriend%2F"
    assert f'href="{login}"' in guest_page
    # both clocks may be chosen; none is checked, so the preset's own is the default
    for shown in (page, guest_page):
        assert 'name="clock" value="standard" data-presets="sport classic">' in shown
        assert 'name="clock" value="match" data-presets="match">' in shown


@pytest.mark.django_db
def test_a_guest_cannot_make_a_rated_challenge():
    guest = Client()
    response, challenge = make_challenge(guest, preset="sport", rated="rated")
    assert response.status_code == 400 and challenge is None
    assert "Sign in to play rated games." in response.content.decode()
    assert not Challenge.objects.exists()


@pytest.mark.django_db
def test_a_rated_challenge_is_accepted_only_by_a_signed_in_player():
    alice, bob = account("alice"), account("bob")
    PlayerRating.objects.create(user=alice, preset="classic", rating=1687, deviation=80)
    Profile.objects.create(user=alice, display_name="Alice <b>")
    creator = signed_in_client(alice)
    response, challenge = make_challenge(
        creator, preset="classic", rated="rated", clock="match", colour="white"
    )
    assert response.status_code == 302
    assert (challenge.rated, challenge.clock_kind, challenge.creator_user_id) == (
        True,
        "match",
        alice.pk,
    )
    own = creator.get(page_of(challenge)).content.decode()
    assert "This is a rated game: your friend must be signed in to accept it." in own

    # a guest sees why and how to sign in, and no accept button
    guest = Client()
    page = guest.get(page_of(challenge)).content.decode()
    assert "This is a rated game: sign in to accept it." in page
    login = f"{reverse('account_login')}?next=%2Fen%2Fchallenge%2F{challenge.pk}%2F"
    assert f'href="{login}"' in page and 'id="accept-challenge"' not in page
    assert "Alice &lt;b&gt; (rating 1687) invites you to a game of long nardy." in page
    assert "A rated game: the result changes both players' ratings." in page
    assert "Match clock" in page and "12 s for each move" in page
    response = guest.post(page_of(challenge, "challenge_accept"))
    assert response.status_code == 409
    assert "This is a rated game: sign in to accept it." in response.content.decode()
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.OPEN and challenge.game is None

    # a signed-in player accepts: a rated game with the chosen clock
    friend = signed_in_client(bob)
    page = friend.get(page_of(challenge)).content.decode()
    assert 'id="accept-challenge"' in page and 'id="rated-sign-in"' not in page
    response = friend.post(page_of(challenge, "challenge_accept"))
    assert response.status_code == 302
    game = Game.objects.get()
    assert (
        game.rated and game.clock["kind"] == "match" and game.table == {"koks": True, "cube": False}
    )
    assert (game.white_user_id, game.black_user_id) == (alice.pk, bob.pk)


@pytest.mark.django_db
def test_a_casual_challenge_with_the_other_clock():
    alice = account("alice")
    creator = signed_in_client(alice)
    response, challenge = make_challenge(
        creator, preset="match", match_length="5", clock="standard", rated="casual"
    )
    assert response.status_code == 302
    assert (challenge.rated, challenge.clock_kind, challenge.match_length) == (False, "standard", 5)
    page = Client().get(page_of(challenge)).content.decode()
    assert "A casual game: no rating changes." in page and 'id="accept-challenge"' in page
    assert "Standard clock" in page and "15 s to roll" in page
    # a guest's link is casual and plays the preset's clock unless another is chosen
    response, guest_challenge = make_challenge(Client(), preset="match")
    assert (guest_challenge.rated, guest_challenge.clock_kind) == (False, "match")
    response, bad = make_challenge(Client(), preset="sport", clock="bullet")
    assert response.status_code == 400 and bad is None


@pytest.mark.django_db
def test_play_again_after_a_rated_challenge_game_keeps_it_rated_with_its_clock():
    alice, bob = account("alice"), account("bob")
    challenge = services.create_challenge(person(alice), preset="sport", rated=True, clock="match")
    game = services.accept_challenge(challenge.pk, person(bob))
    page = signed_in_client(alice).get(reverse("games:game", kwargs={"game_id": game.pk}))
    form = page.context["options_form"]
    assert form.initial["rated"] == "rated" and form.initial["clock"] == "match"


@pytest.mark.django_db
def test_a_record_between_accounts_names_them_as_the_game_page_does():
    # the downloaded record said "Guest" for both accounts (the new-player tryout of issue #30)
    alice, bob = account("alice"), account("bob")
    Profile.objects.create(user=alice, display_name='Alice "A" Petrova')
    game = rated_game(alice, bob)
    record = replays.game_record(game)
    names = {record.header("White"), record.header("Black")}
    assert names == {'Alice "A" Petrova', f"Player {bob.pk}"}
    parsed = rec.parse(rec.write(record))  # the quotes a header cannot hold become apostrophes
    assert {parsed.header("White"), parsed.header("Black")} == {
        "Alice 'A' Petrova",
        f"Player {bob.pk}",
    }
