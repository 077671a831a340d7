"""Rating boosted between accounts (issue #30): where the players were last seen, and the pairs
of accounts with many quick decisive rated games between them, for staff to look into in the
admin ("Pairs of accounts", ``games.admin``) and to undo with ``manage.py refund_ratings``
(``ratings.refund_game``). lichess finds boosting and refunds its victims the same way."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from ipaddress import ip_address

from django.contrib.auth.signals import user_logged_in
from django.db.models import Q
from django.dispatch import receiver

from games import clocks
from games.accounts import profiles
from games.accounts.models import Profile, RatingChange, RatingRefund
from games.choices import Status
from games.room.models import Game
from games.tournaments import rules

#: a rated game decided with at most this many plays in all (both sides) is "quick": fewer
#: than an arena asks of a loser on each side (``rules.MIN_LOSER_PLAYS``)
QUICK_PLAYS = 2 * rules.MIN_LOSER_PLAYS
#: the pairs shown have at least this many quick games between them
MIN_QUICK_GAMES = 3
#: how far back the report looks by default
LOOK_BACK = timedelta(days=30)


def note_seen(user_id, address):
    """Account ``user_id`` was seen now at ``address`` (a client IP address string; anything
    else is ignored): kept on its Profile for staff. Returns True if it was noted."""
    if not user_id or not address:
        return False
    try:
        address = str(ip_address(address))
    except ValueError:
        return False
    noted = Profile.objects.filter(user_id=user_id).update(
        last_address=address, last_seen=clocks.from_ms(clocks.now_ms())
    )
    return bool(noted)


@receiver(user_logged_in, dispatch_uid="games.accounts.collusion.seen_at_sign_in")
def seen_at_sign_in(sender, request, user, **kwargs):
    """Django's ``user_logged_in``: note where the player signed in from."""
    if request is not None:
        note_seen(user.pk, request.META.get("REMOTE_ADDR"))


@dataclass
class Pair:
    """Two accounts and their rated games against each other within the report's window:
    ``users`` (lower id first), ``names``, ``games`` (all decided), ``quick`` (decided within
    ``QUICK_PLAYS`` plays), ``wins`` (of each, in the quick games), ``moved`` (the rating
    points each gained (+) or lost (-) in the quick games, not counting refunds),
    ``refunded`` (quick games already refunded), ``addresses`` (each one's last seen
    address), ``last`` (when their latest quick game ended) and ``quick_games`` (their ids,
    newest first)."""

    users: tuple
    names: tuple = ()
    games: int = 0
    quick: int = 0
    wins: list = field(default_factory=lambda: [0, 0])
    moved: list = field(default_factory=lambda: [0.0, 0.0])
    refunded: int = 0
    addresses: tuple = (None, None)
    last: object = None
    quick_games: list = field(default_factory=list)

    @property
    def same_address(self):
        """Whether both were last seen at the same address."""
        return self.addresses[0] is not None and self.addresses[0] == self.addresses[1]

    @property
    def command(self):
        """The command that gives back the rating moved by their quick games."""
        return f"python manage.py refund_ratings --between {self.users[0]} {self.users[1]} --quick"


def quick_pairs(since=None, min_quick=MIN_QUICK_GAMES, limit=100):
    """The pairs of accounts with at least ``min_quick`` quick decisive rated games between
    them since ``since`` (aware datetime; default ``LOOK_BACK`` ago), most quick games first
    (at most ``limit``). Returns a list of ``Pair``."""
    since = since or clocks.from_ms(clocks.now_ms()) - LOOK_BACK
    pairs = {}
    for game_id, white, black, plays, winner, updated in (
        decided_rated_games()
        .filter(updated__gte=since)
        .order_by("-updated")
        .values_list("pk", "white_user_id", "black_user_id", "plays", "winner", "updated")
    ):
        key = tuple(sorted((white, black)))
        pair = pairs.setdefault(key, Pair(users=key))
        pair.games += 1
        if plays > QUICK_PLAYS:
            continue
        pair.quick += 1
        winner_id = white if winner == "white" else black
        pair.wins[key.index(winner_id)] += 1
        pair.quick_games.append(game_id)
        pair.last = pair.last or updated
    found = sorted(
        (pair for pair in pairs.values() if pair.quick >= min_quick),
        key=lambda pair: (-pair.quick, -clocks.to_ms(pair.last)),
    )[:limit]
    _complete(found)
    return found


def _complete(found):
    """Fill in the names, addresses, rating moved and refunds of the pairs ``found``."""
    users = {user for pair in found for user in pair.users}
    names = profiles.names_of(users)
    addresses = dict(
        Profile.objects.filter(user_id__in=users).values_list("user_id", "last_address")
    )
    games = [game for pair in found for game in pair.quick_games]
    moved = defaultdict(float)
    for user_id, game_id, before, after in RatingChange.objects.filter(
        game_id__in=games
    ).values_list("user_id", "game_id", "rating_before", "rating_after"):
        moved[(user_id, str(game_id))] += after - before
    refunded = {
        str(game_id)
        for game_id in RatingRefund.objects.filter(game_id__in=games).values_list(
            "game_id", flat=True
        )
    }
    for pair in found:
        pair.names = tuple(names[user] for user in pair.users)
        pair.addresses = tuple(addresses.get(user) for user in pair.users)
        for game_id in pair.quick_games:
            for n, user in enumerate(pair.users):
                pair.moved[n] += moved[(user, str(game_id))]
        pair.moved = [round(points, 1) for points in pair.moved]
        pair.refunded = sum(str(game_id) in refunded for game_id in pair.quick_games)


def decided_rated_games():
    """The rated games between two accounts that ended with a winner."""
    return Game.objects.filter(
        rated=True,
        status=Status.FINISHED,
        white_user_id__isnull=False,
        black_user_id__isnull=False,
    ).exclude(winner="")


def games_between(first, second, quick=False):
    """The ids of the rated games decided between accounts ``first`` and ``second`` (with
    ``quick``: only those within ``QUICK_PLAYS`` plays), oldest first."""
    found = decided_rated_games().filter(
        Q(white_user_id=first, black_user_id=second) | Q(white_user_id=second, black_user_id=first)
    )
    if quick:
        found = found.filter(plays__lte=QUICK_PLAYS)
    return list(found.order_by("updated").values_list("pk", flat=True))
