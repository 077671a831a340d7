"""Who follows whom: a signed-in player follows another account (from its card or after a
game) and it joins their friends list; unfollowing takes it out. Following asks nothing of
the one followed, and so gives nothing but a place in the list: online status, last seen and
challenges are only between two players who follow each other (``are_mutual``,
``mutual_ids``), so either of them ends them by unfollowing."""

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from games.friends.models import Follow


class FollowError(ValueError):
    """A follow that cannot be: oneself, or no such active account. ``message`` says why (in
    the active language); ``code`` is "self" or "not_found"."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def follow(follower_id, followed_id):
    """``follower_id`` follows ``followed_id`` (both account ids). Following someone already
    followed changes nothing. Raises FollowError ("self": one's own account; "not_found": no
    active account ``followed_id``). Returns True when the row is new."""
    if follower_id == followed_id:
        raise FollowError("self", _("You cannot follow yourself."))
    if not get_user_model().objects.filter(pk=followed_id, is_active=True).exists():
        raise FollowError("not_found", _("There is no such player."))
    try:
        with transaction.atomic():
            _row, created = Follow.objects.get_or_create(
                follower_id=follower_id, followed_id=followed_id
            )
    except IntegrityError:  # the same follow made at the same moment by another request
        return False
    return created


def unfollow(follower_id, followed_id):
    """``follower_id`` no longer follows ``followed_id``. Returns True when a row went."""
    deleted, _rows = Follow.objects.filter(
        follower_id=follower_id, followed_id=followed_id
    ).delete()
    return bool(deleted)


def is_following(follower_id, followed_id):
    """True when account ``follower_id`` follows ``followed_id`` (False for a guest: None)."""
    if not follower_id or not followed_id:
        return False
    return Follow.objects.filter(follower_id=follower_id, followed_id=followed_id).exists()


def followed_ids(user_id):
    """The ids of the active accounts ``user_id`` follows, the latest followed first."""
    return list(
        Follow.objects.filter(follower_id=user_id, followed__is_active=True).values_list(
            "followed_id", flat=True
        )
    )


def are_mutual(user_id, other_id, lock=False):
    """True when accounts ``user_id`` and ``other_id`` follow each other (False for a guest:
    None, or oneself). ``lock`` (inside a transaction): the two rows stay locked until it
    ends, so an unfollow at the same moment waits for it, or it sees the unfollow."""
    if not user_id or not other_id or user_id == other_id:
        return False
    rows = Follow.objects.filter(
        Q(follower_id=user_id, followed_id=other_id) | Q(follower_id=other_id, followed_id=user_id)
    )
    if lock:
        rows = rows.select_for_update()
    return len(list(rows.values_list("pk", flat=True))) == 2


def mutual_ids(user_id):
    """The ids of the active accounts that ``user_id`` follows and that follow it back."""
    if not user_id:
        return set()
    followers = Follow.objects.filter(followed_id=user_id).values("follower_id")
    return set(
        Follow.objects.filter(
            follower_id=user_id, followed__is_active=True, followed_id__in=followers
        ).values_list("followed_id", flat=True)
    )
