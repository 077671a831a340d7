"""Helpers of the tournament tests: accounts with a page of the event open, and games of the
event ended through the services (a resignation after some plays, or a no-show abort)."""

from datetime import timedelta

from django.contrib.auth import get_user_model

from games import clocks, services, tournaments
from games.accounts.models import PlayerRating, Profile
from games.choices import Preset
from games.room.models import Game
from games.services import turns, unit
from games.tests.factories import play_turns
from games.tournaments import play, rules
from games.tournaments.models import Pairing, PairingStatus, TournamentSocket


def accounts(*names, ratings=None):
    """New accounts with these display names; ``ratings`` ({name: points}) sets their rating
    in every preset. Returns ``{name: user id}``."""
    made = {}
    for name in names:
        user = get_user_model().objects.create_user(username=f"t-{name.lower()}")
        Profile.objects.create(user=user, display_name=name)
        made[name] = user.pk
        if ratings and name in ratings:
            for preset in Preset.values:
                PlayerRating.objects.create(
                    user=user, preset=preset, rating=ratings[name], deviation=60
                )
    return made


def open_page(tournament, user_id, channel=None):
    """Account ``user_id`` has a page of the event open (a live socket row)."""
    TournamentSocket.objects.update_or_create(
        channel_name=channel or f"test-{tournament.pk}-{user_id}",
        defaults={
            "tournament": tournament,
            "user_id": user_id,
            "seen": clocks.from_ms(clocks.now_ms()),
        },
    )


def enter(event, user_ids, present=True):
    """The accounts ``user_ids`` enter the event; with ``present`` each has its page open
    (as when they press its form's button)."""
    for user_id in user_ids:
        if present:
            open_page(event, user_id)
        tournaments.join(event.pk, user_id)


def arena(minutes=30, preset="sport", started_ago_s=1):
    """A running-time arena (its start a second ago; the next ``advance`` starts it)."""
    start = clocks.from_ms(clocks.now_ms()) - timedelta(seconds=started_ago_s)
    return tournaments.create("arena", preset, starts_at=start, minutes=minutes)


def playing(tournament):
    """The pairings of the event being played, oldest first."""
    return list(
        Pairing.objects.filter(tournament=tournament, status=PairingStatus.PLAYING)
        .select_related("white", "black")
        .order_by("created", "pk")
    )


def resign(game_or_id, loser_user_id, plays=rules.MIN_LOSER_PLAYS):
    """Account ``loser_user_id`` resigns the game (in a match: its current game) once it has
    made ``plays`` plays in it (both sides play in turn until then: a win counts in an arena
    only against a loser who played, and a resignation before the first play aborts)."""
    game = Game.objects.get(pk=getattr(game_or_id, "pk", game_or_id))
    if game.match_id:
        game = game.match.latest_game()
    while play.plays_of(game, loser_user_id) < plays:
        game = play_turns(game.pk, 1)
    return services.resign(game.pk, services.Actor(user_id=loser_user_id), game.version)


def lose_match(pairing, loser_user_id):
    """Account ``loser_user_id`` resigns every game of the pairing's match until it is lost."""
    while True:
        game = resign(pairing.game_id, loser_user_id)
        game.match.refresh_from_db()
        if game.match.status != "active":
            return game


def no_show(game_id):
    """The game is aborted: the side to act never made its first move (the clock's no-show).
    Returns that side."""
    with unit.changing(game_id) as change:
        side = change.game.awaiting
        turns.abort(change, side)
    return side
