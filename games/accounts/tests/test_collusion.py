"""Boosting shows and can be undone (issue #30, games/accounts/collusion.py): staff see pairs of accounts
with many quick decisive rated games between them (counts, rating moved, last seen address)
in the admin, and ``manage.py refund_ratings`` gives the points back once."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from games import services
from games.accounts import collusion
from games.accounts.models import PlayerRating, Profile, RatingChange, RatingRefund
from games.tests.factories import play_turns

pytestmark = pytest.mark.django_db


def account(name):
    user = get_user_model().objects.create_user(username=name)
    Profile.objects.create(user=user, display_name=name.title())
    return user


def thrown_game(winner, loser, turns=2):
    """A rated game ``loser`` resigns after ``turns`` turns in all (one play each at 2)."""
    challenge = services.create_challenge(
        services.Actor(guest_id=f"g-{winner.pk}", user_id=winner.pk), colour="white", rated=True
    )
    game = services.accept_challenge(
        challenge.pk, services.Actor(guest_id=f"g-{loser.pk}", user_id=loser.pk), clock=True
    )
    game = play_turns(game.pk, turns)
    return services.resign(game.pk, services.Actor(user_id=loser.pk), game.version)


def rating(user):
    return PlayerRating.objects.get(user=user, preset="sport").rating


def test_a_pair_feeding_rating_shows_in_the_admin_and_its_points_go_back_once():
    booster, fed, honest = account("booster"), account("fed"), account("honest")
    for user in (booster, fed):  # both sign in from one address
        Client(REMOTE_ADDR="203.0.113.7").force_login(user)
        assert collusion.note_seen(user.pk, "203.0.113.7")
    games = [thrown_game(fed, booster) for _n in range(3)]
    thrown_game(fed, honest, turns=12)  # a real game: not quick
    assert rating(fed) > 1500 > rating(booster)

    (pair,) = collusion.quick_pairs()
    assert pair.users == tuple(sorted((booster.pk, fed.pk)))
    fed_at = pair.users.index(fed.pk)
    assert (pair.quick, pair.games, pair.wins[fed_at]) == (3, 3, 3)
    assert pair.moved[fed_at] > 0 > pair.moved[1 - fed_at]
    assert pair.same_address and pair.refunded == 0

    staff = get_user_model().objects.create_user(username="staff", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(staff)
    page = client.get(reverse("admin:games_account_pairs"), {"days": "99999999999999999999"})
    assert page.status_code == 200
    text = page.content.decode()
    assert "Booster" in text and "Fed" in text and "203.0.113.7" in text
    assert f"--between {pair.users[0]} {pair.users[1]} --quick" in text
    refunds_list = client.get(reverse("admin:games_ratingrefund_changelist"))
    assert reverse("admin:games_account_pairs") in refunds_list.content.decode()

    gained = sum(change.delta for change in RatingChange.objects.filter(user=fed, game__in=games))
    fed_before = rating(fed)
    out = io.StringIO()
    call_command("refund_ratings", "--between", str(booster.pk), str(fed.pk), "--quick", stdout=out)
    assert "6 refund(s) made" in out.getvalue()
    assert rating(booster) == pytest.approx(1500)  # the booster only played these
    assert rating(fed) == pytest.approx(fed_before - gained)  # the honest game's points stay
    assert RatingRefund.objects.count() == 6
    assert {refund.game_id for refund in RatingRefund.objects.all()} == {g.pk for g in games}
    # never twice: a second run gives nothing back
    again = io.StringIO()
    call_command("refund_ratings", *[str(g.pk) for g in games], stdout=again)
    assert "0 refund(s) made" in again.getvalue()
    assert rating(fed) == pytest.approx(fed_before - gained)
    assert collusion.quick_pairs()[0].refunded == 3


def test_the_refund_command_refuses_what_it_cannot_do():
    with pytest.raises(CommandError):
        call_command("refund_ratings")
    with pytest.raises(CommandError):
        call_command("refund_ratings", "not-a-game")
    with pytest.raises(CommandError):
        call_command("refund_ratings", "00000000-0000-0000-0000-000000000000")
    with pytest.raises(CommandError):
        call_command("refund_ratings", "--quick")
    with pytest.raises(CommandError):  # past SQLite's and PostgreSQL's integers (attack run)
        call_command("refund_ratings", "--between", "1", "99999999999999999999")


def test_an_address_that_is_not_one_is_not_noted():
    user = account("someone")
    assert not collusion.note_seen(user.pk, "not an address")
    assert not collusion.note_seen(user.pk, None)
    assert Profile.objects.get(user=user).last_address is None
