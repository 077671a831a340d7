"""Arena events through the service layer (games.tournaments): pairing rules, scoring with
streaks, leaving, no-shows, the end, and a pairing run twice."""

from datetime import timedelta

import pytest

from games import clocks, services, tournaments
from games.tests.tournament_helpers import (
    accounts,
    arena,
    enter,
    no_show,
    playing,
    resign,
)
from games.tournaments.models import Entrant, Pairing, PairingStatus, TournamentStatus

pytestmark = pytest.mark.django_db


def entrant(event, user_id):
    return Entrant.objects.get(tournament=event, user_id=user_id)


def test_an_arena_starts_on_time_and_pairs_only_players_with_its_page_open():
    users = accounts("Ann", "Bob", "Cid", "Dan", "Eve")
    event = arena()
    enter(event, [users[n] for n in ("Ann", "Bob", "Cid", "Dan")])
    tournaments.join(event.pk, users["Eve"])  # entered, but no page open
    started = tournaments.advance(event.pk)
    event.refresh_from_db()
    assert event.status == TournamentStatus.RUNNING and len(started) == 2
    assert entrant(event, users["Eve"]).away
    for pairing in started:
        game = pairing.game
        assert game.rated and game.preset == "sport" and game.clock["kind"] == "standard"
        assert {game.white_user_id, game.black_user_id} == {
            pairing.white.user_id,
            pairing.black.user_id,
        }
        assert game.white_user_id == pairing.white.user_id  # the pairing's sides are the game's
    # the clock waits for the players' pages to open the game
    assert clocks.to_ms(started[0].game.period_started) >= clocks.to_ms(started[0].created) + (
        tournaments.ANNOUNCE_MS
    )
    # run again (the task and the tick at once, or a restart): nobody is paired twice
    assert tournaments.advance(event.pk) == []
    assert Pairing.objects.filter(tournament=event).count() == 2
    # Eve opens the page: back, but alone
    tournaments.arrived(event.pk, users["Eve"], "eve-socket")
    assert not entrant(event, users["Eve"]).away
    assert tournaments.advance(event.pk) == []


def test_wins_score_two_or_three_and_a_streak_doubles_them():
    users = accounts("Ann", "Bob", "Cid")
    event = arena()
    enter(event, users.values())
    ann = users["Ann"]
    tournaments.advance(event.pk)
    expected = dict.fromkeys(users.values(), 0)
    streaks = dict.fromkeys(users.values(), 0)
    doubled = 0
    # Ann wins whenever she plays (sitting out does not break her streak); else black wins
    for _ in range(5):
        (pairing,) = playing(event)
        players = (pairing.white.user_id, pairing.black.user_id)
        loser = next(p for p in players if p != ann) if ann in players else players[0]
        game = resign(pairing.game, loser)
        winner = game.user_of(game.winner)
        base = 2 if game.result_kind == "oin" else 3
        points = base * 2 if streaks[winner] >= 2 else base
        doubled += streaks[winner] >= 2
        expected[winner] += points
        streaks[winner] += 1
        streaks[loser] = 0
        for user_id in users.values():
            row = entrant(event, user_id)
            assert (row.score, row.streak) == (expected[user_id], streaks[user_id])
        pairing.refresh_from_db()
        assert pairing.status == PairingStatus.DONE and pairing.winner.user_id == winner
        assert max(pairing.white_points, pairing.black_points) == points
        assert min(pairing.white_points, pairing.black_points) == 0
        tournaments.advance(event.pk)
    assert doubled >= 1
    state = tournaments.state(event.pk)
    assert state["standings"][0]["user"] == ann and state["standings"][0]["fire"]


def test_the_same_two_players_never_meet_twice_in_a_row():
    users = accounts("Ann", "Bob", "Cid")
    event = arena()
    enter(event, [users["Ann"], users["Bob"]])
    (first,) = tournaments.advance(event.pk)
    resign(first.game, users["Bob"])
    assert tournaments.advance(event.pk) == []  # only each other: they wait
    enter(event, [users["Cid"]])
    (second,) = tournaments.advance(event.pk)
    assert users["Cid"] in (second.white.user_id, second.black.user_id)


def test_a_player_who_leaves_keeps_their_points_and_is_not_paired_again():
    users = accounts("Ann", "Bob", "Cid")
    event = arena()
    enter(event, users.values())
    (pairing,) = tournaments.advance(event.pk)
    winner_id, loser_id = pairing.white.user_id, pairing.black.user_id
    resign(pairing.game, loser_id)
    score = entrant(event, winner_id).score
    tournaments.leave(event.pk, winner_id)
    (next_pairing,) = tournaments.advance(event.pk)  # the other two
    assert winner_id not in (next_pairing.white.user_id, next_pairing.black.user_id)
    row = entrant(event, winner_id)
    assert row.score == score and not row.active
    assert tournaments.state(event.pk)["standings"][0]["user"] == winner_id
    # coming back: paired again
    tournaments.join(event.pk, winner_id)
    assert entrant(event, winner_id).active


def test_a_no_show_scores_nothing_and_is_marked_away_until_back(time_machine):
    users = accounts("Ann", "Bob", "Cid")
    event = arena()
    enter(event, [users["Ann"], users["Bob"]])
    (pairing,) = tournaments.advance(event.pk)
    absent_side = no_show(pairing.game_id)
    absent = pairing.game.user_of(absent_side)
    present = ({users["Ann"], users["Bob"]} - {absent}).pop()
    pairing.refresh_from_db()
    assert pairing.status == PairingStatus.DONE and pairing.outcome == "none"
    assert entrant(event, absent).away and entrant(event, absent).score == 0
    assert entrant(event, present).score == 0 and not entrant(event, present).away
    enter(event, [users["Cid"]])
    (second,) = tournaments.advance(event.pk)
    assert {second.white.user_id, second.black.user_id} == {present, users["Cid"]}
    with pytest.raises(services.PlayBanned):  # an abort counts toward the waits
        tournaments.join(event.pk, absent)
    time_machine.move_to(clocks.from_ms(clocks.now_ms()) + timedelta(minutes=5, seconds=1))
    tournaments.join(event.pk, absent)  # "resume"
    assert not entrant(event, absent).away


def test_games_under_way_at_the_end_count_and_then_the_standings_freeze():
    users = accounts("Ann", "Bob", "Cid", "Dan")
    event = arena(minutes=1)
    enter(event, users.values())
    first, second = tournaments.advance(event.pk)
    resign(first.game, first.black.user_id)
    after_end = clocks.to_ms(event.ends_at) + 1000
    assert tournaments.advance(event.pk, after_end) == []  # time is up: nobody paired
    event.refresh_from_db()
    assert event.status == TournamentStatus.RUNNING  # a game is still under way
    resign(second.game, second.white.user_id)
    tournaments.advance(event.pk, after_end)
    event.refresh_from_db()
    assert event.status == TournamentStatus.FINISHED
    state = tournaments.state(event.pk)
    assert [row["place"] for row in state["standings"]] == [1, 2, 3, 4]
    assert {row["user"] for row in state["podium"]} == {
        first.white.user_id,
        second.black.user_id,
        state["standings"][2]["user"],
    }
    assert state["standings"][0]["score"] >= state["standings"][1]["score"] > 0


def test_a_match_arena_plays_one_point_matches_and_a_player_busy_elsewhere_waits():
    users = accounts("Ann", "Bob", "Cid")
    event = arena(preset="match")
    enter(event, users.values())
    (pairing,) = tournaments.advance(event.pk)
    assert pairing.match is not None and pairing.match.length == 1
    assert pairing.game.clock["kind"] == "match"
    resign(pairing.game, pairing.white.user_id)
    assert entrant(event, pairing.black.user_id).score in (2, 3)
    # Cid and the white player start a game in another arena: busy while it runs
    event2 = arena(preset="sport")
    enter(event2, [users["Cid"], pairing.white.user_id])
    (elsewhere,) = tournaments.advance(event2.pk)
    assert not elsewhere.game.is_over
    assert tournaments.advance(event.pk) == []  # only the black player is free
    # a game against the computer left open does not keep a player out
    services.create_bot_game(services.Actor(user_id=pairing.black.user_id, guest_id="g-b"))
    third = accounts("Dan")["Dan"]
    services.create_bot_game(services.Actor(user_id=third, guest_id="g-d"))
    enter(event, [third])
    (again,) = tournaments.advance(event.pk)
    assert {again.white.user_id, again.black.user_id} == {third, pairing.black.user_id}


def test_an_arena_nobody_can_join_after_its_end_and_a_finished_event_refuses_entries():
    users = accounts("Ann")
    event = arena(minutes=1, started_ago_s=120)
    with pytest.raises(tournaments.TournamentError):
        tournaments.join(event.pk, users["Ann"])
    tournaments.advance(event.pk)
    event.refresh_from_db()
    assert event.status == TournamentStatus.FINISHED
    assert event.finished - event.started < timedelta(seconds=5)


def test_only_players_who_played_get_a_place_or_a_podium():
    users = accounts("Ann", "Bob", "Cid", "Lone")
    event = arena(minutes=1)
    enter(event, [users["Ann"], users["Bob"], users["Cid"]])
    (pairing,) = tournaments.advance(event.pk)
    resign(pairing.game, pairing.black.user_id)
    idle = (
        {users["Ann"], users["Bob"], users["Cid"]}
        - {
            pairing.white.user_id,
            pairing.black.user_id,
        }
    ).pop()
    tournaments.leave(event.pk, idle)
    tournaments.advance(event.pk, clocks.to_ms(event.ends_at) + 1)
    assert entrant(event, pairing.white.user_id).place == 1
    assert entrant(event, pairing.black.user_id).place == 2
    assert entrant(event, idle).place is None  # entered and left without a game
    podium = tournaments.state(event.pk)["podium"]
    assert [row["user"] for row in podium] == [pairing.white.user_id, pairing.black.user_id]
    # a lone entrant of an arena nobody else came to wins nothing
    lonely = arena(minutes=1)
    enter(lonely, [users["Lone"]])
    tournaments.advance(lonely.pk, clocks.to_ms(lonely.ends_at) + 1)
    assert entrant(lonely, users["Lone"]).place is None
    assert tournaments.podiums_of(users["Lone"]) == []


def test_a_cup_match_waits_for_a_player_busy_in_an_arena_who_is_then_not_paired_again():
    users = accounts("Ann", "Bob", "Cid", "Dan", "Eve")
    event = arena()
    enter(event, [users["Ann"], users["Eve"]])
    (arena_game,) = tournaments.advance(event.pk)
    cup = tournaments.create("cup", "match", size=4, match_length=3)
    for name in ("Ann", "Bob", "Cid", "Dan"):
        tournaments.join(cup.pk, users[name])
    started = tournaments.advance(cup.pk)
    assert len(started) == 1  # Ann's semi-final waits: she is playing in the arena
    waiting = Pairing.objects.get(tournament=cup, round=1, status=PairingStatus.WAITING)
    assert users["Ann"] in (waiting.white.user_id, waiting.black.user_id)
    resign(arena_game.game, users["Eve"])
    enter(event, [users["Bob"]])  # someone new to play in the arena...
    again = tournaments.advance(event.pk)
    assert all(users["Ann"] not in (p.white.user_id, p.black.user_id) for p in again)
    (semi,) = tournaments.advance(cup.pk)  # ...but Ann's cup match goes first
    assert users["Ann"] in (semi.white.user_id, semi.black.user_id)
