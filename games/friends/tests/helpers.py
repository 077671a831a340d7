"""What the friends' tests share: accounts with a display name, a signed-in actor, two
players who follow each other."""

from django.contrib.auth import get_user_model

from games import services
from games.accounts.models import Profile
from games.friends import following


def account(name):
    """A new active account ``name`` with that display name."""
    user = get_user_model().objects.create_user(username=name.lower())
    Profile.objects.create(user=user, display_name=name)
    return user


def actor(user):
    """``user`` as the services see a signed-in player (an account and a guest id)."""
    return services.Actor(guest_id=f"guest-of-{user.pk}", user_id=user.pk)


def befriend(one, other):
    """``one`` and ``other`` follow each other: they may challenge each other and see each
    other online."""
    following.follow(one.pk, other.pk)
    following.follow(other.pk, one.pk)


#: the table of a challenge to a friend when the test does not care
SPORT = {"preset": "sport", "colour": "white"}
