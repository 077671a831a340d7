"""A challenge addressed to a friend: made from the friends list on an ordinary challenge link
(``games.challenges``) that names its addressee, so it is accepted through the link's own
path (``services.accept_challenge``, which lets only the addressee accept it). The addressee
hears of it on every open page (the notices socket) and by Telegram if they asked for its
notices; declining it closes it and tells the challenger, as accepting does.

Only two players who follow each other challenge each other this way (following asks nothing
of the one followed, so it must not be a way to send them notices unasked): a challenge is
made only between them, its notices are sent only while they still do, and unfollowing
(``unfollow``) withdraws the open challenges between the two at once, so its notices go and
a Telegram message not yet sent is not sent.

What the notices sockets are sent goes through the channel layer after the commit, as ids
only (``{"type": "notices.challenge" | "notices.answered" | "notices.closed", "challenge":
<uuid>}`` to ``group_name(user_id)``): each socket reads the challenge and words its frame in
its own page's language (``challenge_frame``, ``answer_frame``)."""

import logging
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.dispatch import receiver
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from games import services
from games.challenges.models import Challenge, ChallengeStatus
from games.friends import following
from games.services import dispatch
from games.signals import challenge_accepted, challenge_withdrawn
from games.tables import table_text
from games.telegram import notices as telegram_notices

logger = logging.getLogger(__name__)

#: an unanswered challenge stops popping up on its addressee's pages after this long; it can
#: still be accepted from its page until its maker withdraws it
PENDING_FOR = timedelta(minutes=15)


class FriendChallengeError(ValueError):
    """A friend's challenge that cannot be made or declined. ``message`` says why (in the
    active language); ``code``: "not_mutual" (the two do not follow each other), "not_yours",
    "closed"."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def group_name(user_id):
    """The channel group of an account's notices sockets: ``notices_user_<id>``."""
    return f"notices_user_{user_id}"


def _after_commit(user_id, kind, challenge_id):
    """After the commit, tell the notices sockets of ``user_id`` (a failure is logged: a page
    that missed it catches up when its socket opens again)."""
    dispatch.send_to_group_after_commit(
        group_name(user_id), {"type": kind, "challenge": str(challenge_id)}
    )


def not_mutual_error():
    """The FriendChallengeError of a challenge between two players who do not follow each
    other (in the active language)."""
    return FriendChallengeError(
        "not_mutual",
        _(
            "You can challenge a player from here once you follow each other. Until then, "
            "send them a challenge link."
        ),
    )


def challenge_friend(actor, friend_id, options):
    """The signed-in player ``actor`` (a ``services.Actor`` with an account and a guest id)
    challenges account ``friend_id`` to a game with ``options`` (the keyword arguments of
    ``services.create_challenge``: preset, colour, match_length, koks, cube, rated, clock);
    the two must follow each other (checked with their rows locked: an unfollow at the same
    moment either comes first and refuses it, or comes after and withdraws it). An open
    challenge of theirs to the same friend is withdrawn first (the new table replaces it).
    After the commit the friend's pages hear of it and, if they chose Telegram notices, a
    message is queued. Raises FriendChallengeError ("not_mutual"), ``services.BadFrame`` (a
    wrong option) or ``services.PlayBanned`` (rated games closed to the player for now).
    Returns the new Challenge."""
    with transaction.atomic():
        if not following.are_mutual(actor.user_id, friend_id, lock=True):
            raise not_mutual_error()
        earlier = list(
            Challenge.objects.select_for_update().filter(
                creator_user_id=actor.user_id, addressee_id=friend_id, status=ChallengeStatus.OPEN
            )
        )
        for old in earlier:
            old.status = ChallengeStatus.CANCELLED
            old.save(update_fields=["status"])
            _after_commit(friend_id, "notices.closed", old.pk)
        challenge = services.create_challenge(actor, **options)
        challenge.addressee_id = friend_id
        challenge.save(update_fields=["addressee"])
        _after_commit(friend_id, "notices.challenge", challenge.pk)
        telegram_notices.challenge_sent(challenge)
    return challenge


def unfollow(follower_id, followed_id):
    """``follower_id`` no longer follows ``followed_id`` (``following.unfollow``), and the open
    challenges between the two, made by either, are withdrawn in the same transaction: after
    the commit their notices go from the addressee's pages, a Telegram message still queued
    finds them closed and is not sent, and the challenger's page shows them withdrawn.
    Returns True when a follow went."""
    with transaction.atomic():
        gone = following.unfollow(follower_id, followed_id)
        between = Challenge.objects.select_for_update().filter(
            Q(creator_user_id=follower_id, addressee_id=followed_id)
            | Q(creator_user_id=followed_id, addressee_id=follower_id),
            status=ChallengeStatus.OPEN,
        )
        for challenge in between:
            challenge.status = ChallengeStatus.CANCELLED
            challenge.save(update_fields=["status"])
            _after_commit(challenge.addressee_id, "notices.closed", challenge.pk)
    return gone


def decline(challenge_id, user_id):
    """Account ``user_id`` declines the open challenge ``challenge_id`` addressed to it: the
    challenge closes (status "declined"), the challenger's pages are told (their challenge's
    page shows it), and the addressee's other pages drop its notice. Raises
    FriendChallengeError ("not_yours": not addressed to them; "closed": no longer open) or
    Challenge.DoesNotExist. Returns the Challenge."""
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
        if challenge.addressee_id is None or challenge.addressee_id != user_id:
            raise FriendChallengeError(
                "not_yours", _("This challenge is addressed to another player.")
            )
        if challenge.status != ChallengeStatus.OPEN:
            raise FriendChallengeError("closed", _("This challenge is no longer open."))
        challenge.status = ChallengeStatus.DECLINED
        challenge.save(update_fields=["status"])
        if challenge.creator_user_id:
            _after_commit(challenge.creator_user_id, "notices.answered", challenge.pk)
        _after_commit(user_id, "notices.closed", challenge.pk)
    return challenge


@receiver(challenge_accepted, dispatch_uid="games.friends.challenges.on_accept")
def on_accept(sender, challenge, game, **kwargs):
    """``challenge_accepted`` receiver: a friend's challenge was accepted; after the commit
    its maker's pages hear of it and the addressee's other pages drop its notice."""
    if challenge.addressee_id is None:
        return
    if challenge.creator_user_id:
        _after_commit(challenge.creator_user_id, "notices.answered", challenge.pk)
    _after_commit(challenge.addressee_id, "notices.closed", challenge.pk)


@receiver(challenge_withdrawn, dispatch_uid="games.friends.challenges.on_withdraw")
def on_withdraw(sender, challenge, **kwargs):
    """``challenge_withdrawn`` receiver: its maker withdrew a friend's challenge; after the
    commit its notice goes from the addressee's pages."""
    if challenge.addressee_id is not None:
        _after_commit(challenge.addressee_id, "notices.closed", challenge.pk)


def pending_for(user_id):
    """The open challenges addressed to account ``user_id`` made within PENDING_FOR by a
    player it follows and who follows it, the oldest first (each socket shows them when it
    opens)."""
    return list(
        Challenge.objects.filter(
            addressee_id=user_id,
            creator_user_id__in=following.mutual_ids(user_id),
            status=ChallengeStatus.OPEN,
            created__gte=timezone.now() - PENDING_FOR,
        ).order_by("created")
    )


def challenge_notice(challenge):
    """What the addressee's pages show of the open ``challenge`` (in the active language):
    ``{"id", "from": {"id", "name", "profile"}, "text", "table", "accept" (the accept form's
    URL, POST), "decline" (POST), "page" (the challenge's page)}``."""
    name = services.display_name(challenge.creator_user_id)
    table = table_text(
        challenge.preset,
        challenge.match_length,
        services.clock_kind_for(challenge.preset, challenge.clock_kind),
        challenge.rated,
    )
    ids = {"challenge_id": challenge.pk}
    return {
        "id": str(challenge.pk),
        "from": {
            "id": challenge.creator_user_id,
            "name": name,
            "profile": reverse("games:player", kwargs={"user_id": challenge.creator_user_id}),
        },
        "text": _("%(name)s challenges you to a game.") % {"name": name},
        "table": table,
        "accept": reverse("games:challenge_accept", kwargs=ids),
        "decline": reverse("games:friend_decline", kwargs=ids),
        "page": reverse("games:challenge", kwargs=ids),
    }


def challenge_frame(challenge_id, user_id):
    """The ``challenge`` frame for the notices socket of ``user_id`` (``{"type":
    "challenge", "challenge": challenge_notice(…)}``), or None when the challenge is no
    longer open, not addressed to them or its maker and they no longer follow each other."""
    challenge = Challenge.objects.filter(
        pk=challenge_id, addressee_id=user_id, status=ChallengeStatus.OPEN
    ).first()
    if challenge is None or not following.are_mutual(user_id, challenge.creator_user_id):
        return None
    return {"type": "challenge", "challenge": challenge_notice(challenge)}


def hello_frame(user_id):
    """The first frame of a notices socket of ``user_id``: ``{"type": "hello", "challenges":
    [challenge_notice(…) of pending_for(user_id)]}``."""
    return {
        "type": "hello",
        "challenges": [challenge_notice(challenge) for challenge in pending_for(user_id)],
    }


def answer_frame(challenge_id, user_id):
    """The ``answered`` frame for the notices socket of the challenger ``user_id``:
    ``{"type": "answered", "challenge": <uuid>, "status": "accepted"|"declined", "text",
    "game": <the game's page, or null>}``; None when ``user_id`` did not make it or it is
    not answered."""
    challenge = (
        Challenge.objects.filter(pk=challenge_id, creator_user_id=user_id)
        .exclude(addressee=None)
        .first()
    )
    if challenge is None or challenge.status not in (
        ChallengeStatus.ACCEPTED,
        ChallengeStatus.DECLINED,
    ):
        return None
    names = {"name": services.display_name(challenge.addressee_id)}
    accepted = challenge.status == ChallengeStatus.ACCEPTED
    return {
        "type": "answered",
        "challenge": str(challenge.pk),
        "status": challenge.status,
        "text": (
            _("%(name)s accepted your challenge: the game has begun.")
            if accepted
            else _("%(name)s declined your challenge.")
        )
        % names,
        "game": (
            reverse("games:game", kwargs={"game_id": challenge.game_id})
            if accepted and challenge.game_id
            else None
        ),
    }
