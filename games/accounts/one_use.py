"""One-use credentials (a Telegram sign-in's signature, a Mini App's ``initData``),
remembered in the database (``UsedToken``) rather than the cache: a Redis that lost its data
(a restart without persistence, a FLUSHDB) must not make a captured sign-in usable again.

- ``claim(key, holder, ttl_seconds)``: mark ``key`` used, True if nobody had.
- ``holder_of(key)``: who used it (for "only the browser that used it may use it again").
- ``release(key)``: forget a claim whose sign-in did not happen.
- ``forget_expired(now)``: delete the rows past their time (the beat task
  ``games.forget_used_tokens``).

A key is a short text naming the kind and the credential, e.g. ``"init-data:<hash>"``; at
most ``KEY_MAX`` characters (longer keys raise ValueError: callers hash what they cannot
bound). A row lives ``ttl_seconds``: at least as long as the credential would be accepted
otherwise, so that forgetting it later frees nothing an attacker could use.
"""

from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from games.accounts.models import UsedToken

KEY_MAX = UsedToken._meta.get_field("key").max_length
HOLDER_MAX = UsedToken._meta.get_field("holder").max_length


def _checked(key, holder=""):
    if not isinstance(key, str) or not key or len(key) > KEY_MAX:
        raise ValueError(f"a one-use key is a text of 1 to {KEY_MAX} characters")
    if not isinstance(holder, str) or len(holder) > HOLDER_MAX:
        raise ValueError(f"a holder is a text of at most {HOLDER_MAX} characters")


def claim(key, holder, ttl_seconds, now=None):
    """Mark ``key`` (str) used by ``holder`` (str, "" for nobody in particular) for
    ``ttl_seconds`` (a positive number) from ``now`` (an aware datetime, default the clock).
    Returns True when this call claimed it: nobody had, or only a claim already past its
    time. False when it is used. Safe against two claims at once (the unique key decides),
    and inside a transaction it rolls back only its own savepoint. Raises ValueError for a
    key or holder out of bounds."""
    _checked(key, holder)
    now = timezone.now() if now is None else now
    expires = now + timedelta(seconds=ttl_seconds)
    try:
        with transaction.atomic():
            UsedToken.objects.create(key=key, holder=holder, expires=expires)
        return True
    except IntegrityError:
        # a row past its time that beat has not deleted yet no longer counts
        taken = UsedToken.objects.filter(key=key, expires__lte=now).update(
            holder=holder, expires=expires
        )
        return taken == 1


def holder_of(key, now=None):
    """The holder (str) recorded with ``key`` while its claim lasts (at ``now``, an aware
    datetime, default the clock); None when it is not used (or no longer)."""
    _checked(key)
    now = timezone.now() if now is None else now
    return (
        UsedToken.objects.filter(key=key, expires__gt=now).values_list("holder", flat=True).first()
    )


def release(key):
    """Forget the claim of ``key`` (the sign-in it was claimed for did not happen), so the
    credential may be tried again. Nothing happens if it was not claimed."""
    _checked(key)
    UsedToken.objects.filter(key=key).delete()


def forget_expired(now=None):
    """Delete every claim past its time at ``now`` (an aware datetime, default the clock).
    Returns how many were deleted."""
    now = timezone.now() if now is None else now
    deleted, _by_model = UsedToken.objects.filter(expires__lte=now).delete()
    return deleted
