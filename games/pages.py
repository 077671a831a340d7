"""What every page view shares: who is asking (the account or the session's guest), the
sign-in link, and refusals (rate limits, a full site, a playban) as responses."""

from django.urls import reverse
from django.utils.http import urlencode

from games import admission, ratelimits, services
from games.accounts.guests import GUEST_SESSION_KEY, ensure_guest_id


def viewer_of(request, create=True):
    """Who is looking, as a ``services.Actor``: the session's guest id and, when signed in,
    the account's id. A person is recognised by account first, then by guest id
    (``Game.side_of``). ``create`` False leaves a session without a guest id as it is (the
    Actor's ``guest_id`` is then None), for pages that only read."""
    user = getattr(request, "user", None)
    user_id = user.pk if user is not None and user.is_authenticated else None
    guest_id = (
        ensure_guest_id(request) if create else request.session.get(GUEST_SESSION_KEY) or None
    )
    return services.Actor(guest_id=guest_id, user_id=user_id)


def login_url(next_path):
    """The sign-in page, coming back to ``next_path`` afterwards."""
    return f"{reverse('account_login')}?{urlencode({'next': next_path})}"


def form_errors(form):
    return " ".join(str(message) for messages in form.errors.values() for message in messages)


def creation_refused(request, starts_game=True):
    """Why this visitor may not start a game now, else None: ``admission.SiteFull`` when the
    site runs as many games as it can serve (``starts_game``: the request starts one now; a
    challenge link made starts none until it is accepted), ``ratelimits.RateLimited`` when
    the visitor (session or account, and address) has started too many games lately. A game
    allowed is counted."""
    if starts_game:
        try:
            admission.check()
        except admission.SiteFull as refusal:
            return refusal
    return rate_limited(request, ratelimits.check_create)


def import_refused(request):
    """``ratelimits.RateLimited`` when this visitor (session or account, and address) has
    imported too many records lately, else None; an import allowed is counted."""
    return rate_limited(request, ratelimits.check_import)


def rate_limited(request, check):
    """``check(identity, ip)`` (a ``ratelimits.check_*``) for this visitor: the refusal it
    raised (``ratelimits.RateLimited``), else None."""
    if not request.session.session_key:
        # a first visit: what it makes gives it a session anyway; count it under that one
        request.session.save()
    identity, ip = ratelimits.request_identity(request)
    try:
        check(identity, ip)
    except ratelimits.RateLimited as refusal:
        return refusal
    return None


def with_retry_after(response, refusal):
    response["Retry-After"] = str(ratelimits.seconds_text(refusal.retry_after))
    return response


def refusal_status(refusal):
    """The HTTP status of a ``creation_refused`` refusal: 503 for a full site, else 429."""
    return 503 if isinstance(refusal, admission.SiteFull) else 429
