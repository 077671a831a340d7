"""Knockout cups through the service layer (games.tournaments): the seeded bracket, matches
advancing by themselves, byes, no-shows, the final and the match for third place."""

from datetime import timedelta

import pytest

from games import clocks, tournaments
from games.services import BadFrame
from games.tests.tournament_helpers import accounts, lose_match, no_show, playing
from games.tournaments.models import Entrant, Pairing, PairingStatus, TournamentStatus

pytestmark = pytest.mark.django_db


def slot(event, round_number, number):
    return Pairing.objects.select_related("white", "black", "winner").get(
        tournament=event, round=round_number, slot=number
    )


def users_of(pairing):
    return {entrant.user_id for entrant in pairing.entrants()}


def places(event):
    return {row.user_id: row.place for row in Entrant.objects.filter(tournament=event)}


def test_a_full_cup_starts_seeded_and_plays_to_its_final_and_third_place():
    ratings = {"Ann": 1900, "Bob": 1800, "Cid": 1700, "Dan": 1600}
    users = accounts(*ratings, ratings=ratings)
    event = tournaments.create("cup", "match", size=4, match_length=3)
    for name in ("Dan", "Bob", "Cid"):
        tournaments.join(event.pk, users[name])
    event.refresh_from_db()
    assert event.status == TournamentStatus.UPCOMING
    tournaments.join(event.pk, users["Ann"])  # the fourth: the bracket is drawn at once
    event.refresh_from_db()
    assert event.status == TournamentStatus.RUNNING and event.rounds == 2
    with pytest.raises(tournaments.TournamentError):
        tournaments.leave(event.pk, users["Ann"])
    started = tournaments.advance(event.pk)  # the Celery task after the commit
    assert len(started) == 2
    # seeds by rating: 1 v 4 and 2 v 3
    assert users_of(slot(event, 1, 0)) == {users["Ann"], users["Dan"]}
    assert users_of(slot(event, 1, 1)) == {users["Bob"], users["Cid"]}
    for pairing in started:
        assert pairing.match.length == 3 and pairing.game.clock["kind"] == "match"
        assert pairing.game.rated
    assert tournaments.advance(event.pk) == []  # nothing new: no match started twice
    # the favourites win their semi-finals
    lose_match(slot(event, 1, 0), users["Dan"])
    lose_match(slot(event, 1, 1), users["Cid"])
    final_and_third = tournaments.advance(event.pk)
    assert len(final_and_third) == 2
    assert users_of(slot(event, 2, 0)) == {users["Ann"], users["Bob"]}
    assert users_of(slot(event, 2, 1)) == {users["Cid"], users["Dan"]}
    lose_match(slot(event, 2, 0), users["Ann"])  # Bob wins the cup
    lose_match(slot(event, 2, 1), users["Cid"])
    tournaments.advance(event.pk)
    event.refresh_from_db()
    assert event.status == TournamentStatus.FINISHED
    assert places(event) == {users["Bob"]: 1, users["Ann"]: 2, users["Dan"]: 3, users["Cid"]: 4}
    state = tournaments.state(event.pk)
    assert [row["name"] for row in state["podium"]] == ["Bob", "Ann", "Dan"]
    final = next(row for row in state["bracket"] if (row["round"], row["slot"]) == (2, 0))
    assert final["winner"] == users["Bob"]
    bob_score = final["score"][0 if final["white"] == users["Bob"] else 1]
    assert bob_score >= 3 and sum(final["score"]) == bob_score  # Ann resigned every game


def test_a_scheduled_cup_starts_on_time_with_byes_for_the_top_seeds():
    ratings = {"Ann": 1900, "Bob": 1800, "Cid": 1700}
    users = accounts(*ratings, ratings=ratings)
    start = clocks.from_ms(clocks.now_ms()) + timedelta(minutes=5)
    event = tournaments.create("cup", "match", size=8, match_length=5, starts_at=start)
    for user_id in users.values():
        tournaments.join(event.pk, user_id)
    assert tournaments.advance(event.pk) == []  # not yet time
    started = tournaments.advance(event.pk, clocks.to_ms(start) + 1)
    event.refresh_from_db()
    assert event.status == TournamentStatus.RUNNING and event.rounds == 3
    # 8 places, 3 players: seeds 1 and 2 and 3 all get byes in the first round; in the
    # second, seed 1 has a bye again (its side of the bracket is empty), 2 meets 3
    first_round = [slot(event, 1, n) for n in range(4)]
    assert [p.outcome for p in first_round] == ["bye", "none", "bye", "bye"]
    assert slot(event, 2, 0).outcome == "bye"
    (semi,) = started
    assert (semi.round, semi.slot) == (2, 1)
    assert users_of(semi) == {users["Bob"], users["Cid"]}
    lose_match(semi, users["Cid"])
    (final,) = tournaments.advance(event.pk)
    assert users_of(final) == {users["Ann"], users["Bob"]}
    third = slot(event, 3, 1)  # one semi-final loser only: Cid takes third place by a bye
    assert third.status == PairingStatus.DONE and third.winner.user_id == users["Cid"]
    lose_match(final, users["Bob"])
    tournaments.advance(event.pk)
    event.refresh_from_db()
    assert event.status == TournamentStatus.FINISHED
    assert places(event) == {users["Ann"]: 1, users["Bob"]: 2, users["Cid"]: 3}


def test_a_player_who_does_not_show_loses_the_match():
    users = accounts("Ann", "Bob", "Cid", "Dan")
    event = tournaments.create("cup", "match", size=4, match_length=3)
    for user_id in users.values():
        tournaments.join(event.pk, user_id)
    first, second = tournaments.advance(event.pk)
    absent_side = no_show(first.game_id)
    absent = first.game.user_of(absent_side)
    first.refresh_from_db()
    assert first.outcome == "no_show" and first.winner.user_id != absent
    assert first.winner.user_id in users_of(first)
    lose_match(second, second.white.user_id)
    (final, third) = tournaments.advance(event.pk)
    assert first.winner.user_id in users_of(final)
    assert absent in users_of(third)  # a no-show in the semi-final still plays for third


def test_a_scheduled_cup_with_one_entry_is_called_off_and_a_full_cup_refuses_more():
    users = accounts("Ann", "Bob", "Cid", "Dan", "Eve")
    start = clocks.from_ms(clocks.now_ms()) - timedelta(seconds=1)
    lonely = tournaments.create("cup", "match", size=4, match_length=3, starts_at=start)
    tournaments.join(lonely.pk, users["Ann"])
    tournaments.advance(lonely.pk)
    lonely.refresh_from_db()
    assert lonely.status == TournamentStatus.CANCELLED
    event = tournaments.create("cup", "match", size=4, match_length=3)
    for name in ("Ann", "Bob", "Cid", "Dan"):
        tournaments.join(event.pk, users[name])
    with pytest.raises(tournaments.TournamentError):
        tournaments.join(event.pk, users["Eve"])
    assert len(playing(event)) == 0  # matches start in the task, not in the join
    assert len(tournaments.advance(event.pk)) == 2


def test_entries_before_the_start_can_be_withdrawn():
    users = accounts("Ann", "Bob")
    event = tournaments.create("cup", "match", size=4, match_length=3)
    tournaments.join(event.pk, users["Ann"])
    tournaments.join(event.pk, users["Ann"])  # twice is once
    assert Entrant.objects.filter(tournament=event).count() == 1
    tournaments.leave(event.pk, users["Ann"])
    assert not Entrant.objects.filter(tournament=event).exists()
    with pytest.raises(tournaments.TournamentError):
        tournaments.leave(event.pk, users["Bob"])


@pytest.mark.parametrize(
    "options",
    [
        {"kind": "cup", "preset": "sport", "size": 4, "match_length": 3},
        {"kind": "cup", "preset": "match", "size": 6, "match_length": 3},
        {"kind": "cup", "preset": "match", "size": 4, "match_length": 2},
        {"kind": "arena", "preset": "sport", "minutes": 30},
        {"kind": "arena", "preset": "sport", "minutes": 0, "starts_at": "now"},
        {"kind": "arena", "preset": "chess", "minutes": 30, "starts_at": "now"},
        {"kind": "league", "preset": "sport"},
    ],
)
def test_an_event_with_a_wrong_option_is_refused(options):
    options = dict(options)
    if options.get("starts_at") == "now":
        options["starts_at"] = clocks.from_ms(clocks.now_ms())
    kind, preset = options.pop("kind"), options.pop("preset")
    with pytest.raises(BadFrame):
        tournaments.create(kind, preset, **options)
