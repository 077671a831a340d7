"""The friends' pages (namespace "games"; docs/protocol.md "HTTP pages"): the friends list,
follow and unfollow, a challenge to a friend and declining one. Thin: they read the request,
check who asks and call ``games.friends``."""

from django.contrib.auth import get_user_model
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import services
from games.accounts import dev_sign_in, profiles, sign_in
from games.challenges.models import Challenge
from games.challenges.views import challenge_form_page
from games.friends import challenges, following, presence
from games.pages import (
    login_url,
    viewer_of,
)


def _account(request):
    """The signed-in account's id, or None for a guest."""
    user = getattr(request, "user", None)
    return user.pk if user is not None and user.is_authenticated else None


def _refused(message, status):
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


def _guest_refused():
    return _refused(_("Sign in to have friends: friends are accounts, not browsers."), 403)


def _back(request, default):
    """The ``next`` field of the form when it is a path of this site, else ``default``."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


def _active_account(user_id):
    return get_object_or_404(get_user_model(), pk=user_id, is_active=True)


@require_GET
def friends_page(request):
    """GET: the friends list of the signed-in player (``presence.friends_of``: in a game,
    with a link to watch it; and for those who follow back, online or away with when they
    were last seen, and "Challenge"; the others "not following you back"), each with
    "Unfollow", and the friends' challenges waiting for an answer. A guest is told why
    friends need an account, with the way to sign in (200).

    Context: ``signed_in``, ``friends`` (``presence.friends_of``), ``pending``
    (``challenges.challenge_notice`` of each waiting challenge), ``login_url``,
    ``can_sign_in``, ``sign_in_with`` (the configured providers, "" if none),
    ``dev_sign_in``."""
    user_id = _account(request)
    context = {
        "signed_in": user_id is not None,
        "friends": [],
        "pending": [],
        "login_url": login_url(reverse("games:friends")),
        "can_sign_in": sign_in.sign_in_available(request),
        "sign_in_with": "" if user_id else sign_in.sign_in_services(request),
        "dev_sign_in": dev_sign_in.enabled(),
    }
    if user_id is not None:
        context["friends"] = presence.friends_of(user_id)
        context["pending"] = [
            challenges.challenge_notice(challenge) for challenge in challenges.pending_for(user_id)
        ]
    return render(request, "games/friends.html", context)


@require_POST
def follow(request, user_id):
    """POST (CSRF): the signed-in player follows account ``user_id``, then goes back to
    ``next`` (a path of this site; default the player's page). A guest: 403; an unknown or
    deactivated account: 404; oneself: 400. Nothing changes on a refusal."""
    me = _account(request)
    if me is None:
        return _guest_refused()
    _active_account(user_id)
    try:
        following.follow(me, user_id)
    except following.FollowError as error:
        return _refused(error.message, 400)
    return redirect(_back(request, profiles.profile_url(user_id)))


@require_POST
def unfollow(request, user_id):
    """POST (CSRF): the signed-in player no longer follows account ``user_id`` (nothing to
    do when they did not) and the open challenges between the two are withdrawn
    (``challenges.unfollow``), then goes back to ``next`` (default the friends list). A
    guest: 403; an unknown account: 404."""
    me = _account(request)
    if me is None:
        return _guest_refused()
    get_object_or_404(get_user_model(), pk=user_id)
    challenges.unfollow(me, user_id)
    return redirect(_back(request, reverse("games:friends")))


@require_http_methods(["GET", "POST"])
def friend_challenge(request, user_id):
    """GET: the table for a challenge to the friend ``user_id`` (the challenge link's form:
    rules, match length, side, casual or rated, clock). POST (CSRF; fields of
    ``ChallengeForm``): the challenge is made for that friend alone
    (``challenges.challenge_friend``) and the player goes to its page, which moves to the game
    once the friend accepts. A guest is sent to sign in (GET) or refused (POST, 403); an
    unknown account: 404; a player the two do not follow each other with (not followed, or
    not following back): 404 on GET, 400 on POST with the reason; bad options or
    rated games closed to the player: the form again with the reason (400); too many new
    games lately: the form with the reason (429, ``Retry-After``).

    Context: ``friend`` (``{"id", "name", "profile"}``), ``form``, ``error``,
    ``clock_choices``, ``preset_clocks``."""
    me = _account(request)
    if me is None:
        if request.method == "POST":
            return _guest_refused()
        return redirect(login_url(request.get_full_path()))
    friend = _active_account(user_id)
    if not following.are_mutual(me, friend.pk):
        if request.method == "GET":
            raise Http404
        return _refused(challenges.not_mutual_error().message, 400)
    return challenge_form_page(
        request,
        "games/friend_challenge.html",
        {
            "friend": {
                "id": friend.pk,
                "name": services.display_name(friend.pk),
                "profile": profiles.profile_url(friend.pk),
            }
        },
        lambda options: challenges.challenge_friend(viewer_of(request), friend.pk, options),
        errors=(services.GameError, challenges.FriendChallengeError),
    )


@require_POST
def friend_decline(request, challenge_id):
    """POST (CSRF): the signed-in addressee declines the friend's challenge ``challenge_id``
    (``challenges.decline``): the challenger is told. Asked for JSON (``Accept:
    application/json``, the notices' Decline): ``{"status": "declined"}``; else back to
    ``next`` (default the friends list). A guest: 403; an unknown challenge: 404; one
    addressed to someone else: 403; one no longer open: 409 (with the reason; for JSON
    ``{"error": <reason>}``). Nothing changes on a refusal."""
    me = _account(request)
    if me is None:
        return _guest_refused()
    wants_json = "application/json" in request.headers.get("Accept", "")
    try:
        challenges.decline(challenge_id, me)
    except Challenge.DoesNotExist:
        raise Http404 from None
    except challenges.FriendChallengeError as error:
        status = 403 if error.code == "not_yours" else 409
        if wants_json:
            return JsonResponse({"error": error.message}, status=status)
        return _refused(error.message, status)
    if wants_json:
        return JsonResponse({"status": "declined"})
    return redirect(_back(request, reverse("games:friends")))
