"""The friends' rows: who follows whom, and when an account last had a page of the site open."""

from django.conf import settings
from django.db import models


class Follow(models.Model):
    """``follower`` follows ``followed``: the followed account is in the follower's friends
    list and may be challenged from it. One row per pair; nobody follows themselves (a check
    constraint, besides ``games.friends.following.follow``'s own check)."""

    follower = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="following"
    )
    followed = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="followers"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="games_follow_once"),
            models.CheckConstraint(
                condition=~models.Q(follower=models.F("followed")), name="games_follow_not_self"
            ),
        ]

    def __str__(self):
        return f"{self.follower_id} follows {self.followed_id}"


class LastSeen(models.Model):
    """When account ``user`` last had a page of the site open (its notices socket), for the
    friends list's "last seen". Written when a socket opens, while it stays open (at most
    every ``games.friends.presence.ONLINE_REFRESH_S``) and when it closes."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    seen = models.DateTimeField()

    def __str__(self):
        return f"{self.user_id} seen {self.seen:%Y-%m-%d %H:%M}"
