"""No points without a game (issue #30): in an arena, a game resigned or left before the loser's
first play is aborted (no points, no rating), a win against a loser who made fewer than
``rules.MIN_LOSER_PLAYS`` plays scores nothing, an entrant who does either
``rules.QUICK_LOSS_LIMIT`` times is withdrawn with the reason; and no event starts a game
while the site is full (docs/deploy.md "Capacity")."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape

from games import admission, clocks, tournaments
from games.accounts.models import RatingChange
from games.choices import Status
from games.room.models import Game
from games.tests.factories import new_bot_game
from games.tests.tournament_helpers import accounts, arena, enter, playing, resign
from games.tournaments import TournamentError, rules
from games.tournaments.models import Entrant, Tournament

pytestmark = pytest.mark.django_db


def entrant(event, user_id):
    return Entrant.objects.get(tournament=event, user_id=user_id)


def test_accomplices_resigning_at_once_give_the_third_no_points_and_no_rating():
    """The attack of issue #30: X, Y and Z in one arena; Y and Z resign as soon as each game
    is announced. X gets nothing, and the resigners are closed to rated games at once."""
    users = accounts("X", "Y", "Z")
    x = users["X"]
    event = arena()
    enter(event, users.values())
    (pairing,) = tournaments.advance(event.pk)
    loser = pairing.white.user_id if pairing.white.user_id != x else pairing.black.user_id
    accomplice = x if loser != x else pairing.black.user_id
    game = resign(pairing.game, loser, plays=0)
    assert game.status == Status.ABORTED
    pairing.refresh_from_db()
    assert (pairing.outcome, pairing.white_points, pairing.black_points) == ("none", 0, 0)
    for user_id in (loser, accomplice):
        row = entrant(event, user_id)
        assert (row.score, row.wins, row.streak) == (0, 0, 0)
    assert entrant(event, loser).quick_losses == 1
    assert not RatingChange.objects.exists()
    # the one who resigned is closed to rated games: the arena pairs the other two next
    (second,) = tournaments.advance(event.pk)
    assert loser not in (second.white.user_id, second.black.user_id)


def test_a_win_against_a_loser_with_too_few_plays_scores_nothing_but_is_rated():
    users = accounts("Ann", "Bob")
    event = arena()
    enter(event, users.values())
    (pairing,) = tournaments.advance(event.pk)
    loser, winner = pairing.black.user_id, pairing.white.user_id
    game = resign(pairing.game, loser, plays=rules.MIN_LOSER_PLAYS - 1)
    assert game.status == Status.FINISHED and game.winner
    assert RatingChange.objects.filter(game=game).count() == 2  # a real game: rated
    pairing.refresh_from_db()
    assert pairing.outcome == "short" and pairing.white_points == pairing.black_points == 0
    assert (entrant(event, winner).score, entrant(event, winner).wins) == (0, 0)
    assert entrant(event, loser).quick_losses == 1 and entrant(event, loser).active


def test_a_win_against_a_loser_who_played_enough_scores():
    users = accounts("Ann", "Bob")
    event = arena()
    enter(event, users.values())
    (pairing,) = tournaments.advance(event.pk)
    resign(pairing.game, pairing.black.user_id, plays=rules.MIN_LOSER_PLAYS)
    pairing.refresh_from_db()
    assert pairing.outcome == "played" and pairing.white_points >= rules.WIN_POINTS
    assert entrant(event, pairing.white.user_id).wins == 1


def test_quick_losses_again_and_again_withdraw_the_player_with_the_reason():
    users = accounts("Ann", "Bob", "Cid", "Quitter")
    quitter = users["Quitter"]
    event = arena()
    enter(event, users.values())
    for _round in range(rules.QUICK_LOSS_LIMIT):
        started = tournaments.advance(event.pk)
        assert len(started) == 2
        for pairing in playing(event):
            sides = (pairing.white.user_id, pairing.black.user_id)
            if quitter in sides:
                resign(pairing.game, quitter, plays=1)
            else:
                resign(pairing.game, sides[1])
    withdrawn = entrant(event, quitter)
    assert (withdrawn.quick_losses, withdrawn.active) == (rules.QUICK_LOSS_LIMIT, False)
    assert withdrawn.withdrawn == "quick_losses"
    tournaments.advance(event.pk)
    assert all(quitter not in (p.white.user_id, p.black.user_id) for p in playing(event))
    with pytest.raises(TournamentError) as refused:
        tournaments.join(event.pk, quitter)
    assert "withdrawn" in refused.value.message
    mine = next(row for row in tournaments.state(event.pk)["standings"] if row["user"] == quitter)
    assert mine["withdrawn"]
    # at the end the withdrawn player gets no place, so no podium (the tryout found one)
    for pairing in playing(event):
        resign(pairing.game, pairing.black.user_id)
    tournaments.advance(event.pk, clocks.to_ms(event.ends_at) + 1000)
    assert entrant(event, quitter).place is None
    assert sorted(
        e.place for e in Entrant.objects.filter(tournament=event).exclude(user_id=quitter)
    ) == [1, 2, 3]


def test_a_full_site_holds_arena_pairing_and_cup_matches_and_says_so(settings, monkeypatch):
    """Issue #30: with GAMES_MAX_ACTIVE games active, joining players were paired anyway."""
    settings.GAMES_MAX_ACTIVE = 1
    admission.clear()
    new_bot_game(guest="guest-busy")  # the one game the site has room for
    users = accounts("Ann", "Bob", "Cid", "Dan")
    event = arena()
    enter(event, [users["Ann"], users["Bob"]])
    assert tournaments.advance(event.pk) == []
    event.refresh_from_db()
    assert event.full_since is not None
    assert tournaments.state(event.pk)["full"]
    cup = tournaments.create("cup", "match", size=4, match_length=3)
    enter(cup, [users["Cid"], users["Dan"], *accounts("Eve", "Fay").values()])
    assert tournaments.advance(cup.pk) == []
    cup.refresh_from_db()
    assert cup.full_since is not None and Game.objects.filter(status="active").count() == 1
    # room again: both go on, and their pages no longer say the site is full
    settings.GAMES_MAX_ACTIVE = 10
    admission.clear()
    assert len(tournaments.advance(event.pk)) == 1
    assert len(tournaments.advance(cup.pk)) == 2
    for held in (event, cup):
        held.refresh_from_db()
        assert held.full_since is None


@pytest.mark.parametrize("lang", ["en", "ru", "bg"])
def test_the_arena_page_states_the_rule_the_withdrawal_and_a_full_site(lang, settings):
    users = accounts("Ann", "Quitter")
    event = arena()
    enter(event, users.values())
    Entrant.objects.filter(user_id=users["Quitter"]).update(
        active=False, withdrawn="quick_losses", quick_losses=rules.QUICK_LOSS_LIMIT
    )
    Tournament.objects.filter(pk=event.pk).update(full_since=event.starts_at)
    client = Client()
    client.force_login(get_user_model().objects.get(pk=users["Quitter"]))
    with translation.override(lang):
        url = reverse("games:tournament", kwargs={"tournament_id": event.pk})
        html = client.get(url).content.decode()
        rule = str(rules.MIN_LOSER_PLAYS)
        withdrawn = tournaments.withdrawal_message()
    fair = re.search(r'id="t-fair">([^<]*)<', html).group(1)
    assert rule in fair and str(rules.QUICK_LOSS_LIMIT) in fair
    you = re.search(r'id="t-you-text">([^<]*)<', html).group(1)
    assert you == escape(withdrawn) and rule in you
    assert re.search(r'<form[^>]*id="t-join-form" hidden', html)  # no way back in
    assert not re.search(r'id="t-full"[^>]*hidden', html)  # the site-full note is shown


def test_a_cup_won_only_through_accomplices_leaving_at_once_gives_no_podium():
    """The attack run after issue #30: Y, Z and W resign every game as soon as it is
    announced; X won every match without a play, so nobody gets a place."""
    users = accounts("X", "Y", "Z", "W")
    x = users["X"]
    cup = tournaments.create("cup", "match", size=4, match_length=3)
    enter(cup, users.values())
    for _match in range(4):
        started = tournaments.advance(cup.pk)
        for pairing in started or playing(cup):
            sides = (pairing.white.user_id, pairing.black.user_id)
            quitter = sides[1] if sides[0] == x else sides[0]
            resign(pairing.game, quitter, plays=0)
    cup.refresh_from_db()
    assert cup.status == "finished"
    assert not Entrant.objects.filter(tournament=cup, place__isnull=False).exists()
    assert tournaments.podiums_of(x) == []
