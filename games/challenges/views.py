"""Challenge links between people: make one, open it, accept it, withdraw it, and the status
its page polls while waiting. Thin: games.services makes the game."""

from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import clocks, ratings, services
from games.challenges.forms import ChallengeForm, clock_choices
from games.challenges.models import Challenge, ChallengeStatus
from games.pages import (
    creation_refused,
    form_errors,
    login_url,
    refusal_status,
    viewer_of,
    with_retry_after,
)
from games.tables import clock_name, clock_summary
from games.telegram import notices as telegram_notices
from games.telegram import pages as telegram_pages


def without_language(path):
    """``path`` without the active language's prefix ("/ru/challenge/x/" -> "/challenge/x/")."""
    prefix = f"/{get_language()}/"
    return path[len(prefix) - 1 :] if path.startswith(prefix) else path


def challenge_context(request, challenge):
    """What the challenge pages show of ``challenge``: ``id``, ``status``, ``preset``,
    ``options`` (``{"match_length", "koks", "cube"}`` of the table), ``colour`` (the
    creator's side), ``url`` and ``share_url`` (absolute, with no language: the friend gets
    the page in their own), ``status_url``, ``clock`` (``{"kind",
    "name", "summary"}`` of the game's clock), ``rated`` (bool), ``creator`` (None for a
    guest, else ``{"name", "rating", "provisional", "profile"}`` of the creator's account in
    the preset), ``game_url`` once accepted (else None), ``created``, ``telegram_share``
    (inside the Mini App: the link that sends the challenge to a Telegram chat, else "") and
    ``telegram_link`` (inside the Mini App: the link that opens it in Telegram, else ""),
    ``addressee`` (a friend's challenge, from the friends list: ``{"id", "name"}`` of the one
    account that may accept it, else None) and ``decline_url`` (for an addressee, else "")."""
    table = challenge.table or {}
    kind = services.clock_kind_for(challenge.preset, challenge.clock_kind)
    creator = None
    if challenge.creator_user_id:
        rating = ratings.rating_of(challenge.creator_user_id, challenge.preset)
        creator = {
            "name": services.display_name(challenge.creator_user_id),
            "rating": round(rating.rating),
            "provisional": rating.provisional,
            "profile": reverse("games:player", kwargs={"user_id": challenge.creator_user_id}),
        }
    url = reverse("games:challenge", kwargs={"challenge_id": challenge.id})
    return {
        "id": str(challenge.id),
        "status": challenge.status,
        "preset": challenge.preset,
        "options": {
            "match_length": challenge.match_length or 1,
            "koks": table.get("koks", False),
            "cube": table.get("cube", False),
        },
        "colour": challenge.colour,
        "url": url,
        # no language in the link: it opens in the friend's own (LocaleMiddleware redirects
        # by their language cookie or Accept-Language)
        "share_url": request.build_absolute_uri(without_language(url)),
        # inside the Mini App: Telegram's share page, with a link that opens the challenge
        # inside Telegram for the friend
        "telegram_share": telegram_pages.challenge_share_link(request, challenge.id),
        "telegram_link": telegram_pages.challenge_link(request, challenge.id),
        "status_url": reverse("games:challenge_status", kwargs={"challenge_id": challenge.id}),
        "clock": {
            "kind": kind,
            "name": clock_name(kind),
            "summary": clock_summary(clocks.CLOCKS[kind]),
        },
        "rated": challenge.rated,
        "creator": creator,
        "game_url": (
            reverse("games:game", kwargs={"game_id": challenge.game_id})
            if challenge.game_id
            else None
        ),
        "created": challenge.created,
        "addressee": (
            {
                "id": challenge.addressee_id,
                "name": services.display_name(challenge.addressee_id),
            }
            if challenge.addressee_id
            else None
        ),
        "decline_url": (
            reverse("games:friend_decline", kwargs={"challenge_id": challenge.id})
            if challenge.addressee_id
            else ""
        ),
    }


@require_http_methods(["GET", "POST"])
def challenge_new(request):
    """GET: the form of a challenge link ("play a friend"). POST: create the challenge for
    this visitor (fields: see ``ChallengeForm``) and redirect to its page, where the link is
    shown to share; bad options, or a rated game asked for by a guest, get the form again
    with the reason (400); too many new games lately (``ratelimits``): the form with the
    reason (429, ``Retry-After`` header).

    Context: ``form``, ``error``, ``signed_in``, ``login_url`` (sign in and come back to the
    form), ``clock_choices`` (``clock_choices()``), ``preset_clocks`` (``{preset: kind}``)."""
    return challenge_form_page(
        request,
        "games/challenge_new.html",
        {
            "signed_in": request.user.is_authenticated,
            "login_url": login_url(reverse("games:challenge_new")),
        },
        lambda options: services.create_challenge(viewer_of(request), **options),
    )


def challenge_form_page(request, template, context, make, errors=(services.GameError,)):
    """A challenge form's page: GET shows ``template`` with ``context``; POST reads a
    ``ChallengeForm`` and makes the challenge with ``make(options)`` (``form.options()``),
    then redirects to its page. Bad options, or an error of ``errors`` raised by ``make``
    (each has ``message``), give the form again with the reason (400); too many new games
    lately (``ratelimits``) the form with the reason (429, ``Retry-After`` header). The
    template's context adds ``form``, ``error``, ``clock_choices`` and ``preset_clocks``."""
    form = ChallengeForm()
    error = refusal = None
    if request.method == "POST":
        form = ChallengeForm(request.POST)
        if not form.is_valid():
            error = form_errors(form)
        elif (refusal := creation_refused(request, starts_game=False)) is not None:
            error = refusal.message
        else:
            try:
                challenge = make(form.options())
            except errors as exc:
                error = exc.message
            else:
                return redirect("games:challenge", challenge_id=challenge.pk)
    response = render(
        request,
        template,
        {
            **context,
            "form": form,
            "error": error,
            "clock_choices": clock_choices(),
            "preset_clocks": clocks.PRESET_CLOCK,
        },
        status=429 if refusal else 400 if error else 200,
    )
    return with_retry_after(response, refusal) if refusal else response


def _is_creator(challenge, viewer):
    """True if ``viewer`` (an Actor) made ``challenge``: by account, or by session guest."""
    return (bool(viewer.user_id) and challenge.creator_user_id == viewer.user_id) or (
        bool(viewer.guest_id) and challenge.creator_guest == viewer.guest_id
    )


def _render_challenge(request, challenge, error=None, status=200):
    viewer = viewer_of(request, create=False)
    return render(
        request,
        "games/challenge.html",
        {
            "challenge": challenge_context(request, challenge),
            "is_creator": _is_creator(challenge, viewer),
            "is_addressee": bool(viewer.user_id) and challenge.addressee_id == viewer.user_id,
            "signed_in": bool(viewer.user_id),
            "login_url": login_url(
                reverse("games:challenge", kwargs={"challenge_id": challenge.id})
            ),
            "error": error,
        },
        status=status,
    )


@require_GET
def challenge_page(request, challenge_id):
    """GET: a challenge link's page. Its creator sees the link to share, the options and
    "waiting for your friend" (the page follows ``challenge_status`` and moves to the game
    once accepted) with a button to withdraw it; anyone else sees the options and "Accept and
    play", or why the link can no longer be accepted (taken, withdrawn). A player of the game
    a challenge started is sent to that game. 404 for an unknown id.

    A friend's challenge (with an addressee) is accepted or declined by its addressee alone;
    anyone else is told it is addressed to another player.

    Context: ``challenge`` (``challenge_context``), ``is_creator``, ``is_addressee``,
    ``signed_in``, ``login_url`` (sign in and come back here: a rated challenge needs an
    account), ``error`` (None)."""
    challenge = get_object_or_404(Challenge, pk=challenge_id)
    viewer = viewer_of(request, create=False)
    if challenge.game_id and challenge.game.side_of(viewer) is not None:
        return redirect("games:game", game_id=challenge.game_id)
    return _render_challenge(request, challenge)


@require_POST
def challenge_accept(request, challenge_id):
    """POST: accept the challenge for this visitor (``services.accept_challenge``): the game
    starts with the challenge's clock and the visitor is sent to it. A challenge that is
    taken, withdrawn or one's own, or rated while the visitor is not signed in, gets its page
    again with the reason (409); too many new games lately (``ratelimits``) or the site full
    (``admission``): the page with the reason (429 or 503, ``Retry-After`` header); 404 for an
    unknown id."""
    refusal = creation_refused(request)
    if refusal is not None:
        challenge = get_object_or_404(Challenge, pk=challenge_id)
        return with_retry_after(
            _render_challenge(
                request, challenge, error=refusal.message, status=refusal_status(refusal)
            ),
            refusal,
        )
    try:
        game = services.accept_challenge(challenge_id, viewer_of(request))
    except Challenge.DoesNotExist:
        raise Http404 from None
    except services.ChallengeError as exc:
        challenge = get_object_or_404(Challenge, pk=challenge_id)
        # a challenge no longer open says so itself (accepted, declined, withdrawn): once
        error = exc.message if challenge.status == ChallengeStatus.OPEN else None
        return _render_challenge(request, challenge, error=error, status=409)
    return redirect("games:game", game_id=game.id)


@require_POST
def challenge_cancel(request, challenge_id):
    """POST: withdraw the challenge (its creator only, while it is open;
    ``services.cancel_challenge``) and show its page, now saying it was withdrawn. Anyone
    else, or a challenge no longer open, gets the page with the reason (409; an accepted one
    sends its creator to the game); 404 for an unknown id."""
    viewer = viewer_of(request, create=False)
    try:
        services.cancel_challenge(challenge_id, viewer)
    except Challenge.DoesNotExist:
        raise Http404 from None
    except services.ChallengeError as exc:
        challenge = get_object_or_404(Challenge, pk=challenge_id)
        if challenge.game_id and challenge.game.side_of(viewer) is not None:
            return redirect("games:game", game_id=challenge.game_id)
        return _render_challenge(request, challenge, error=exc.message, status=409)
    return redirect("games:challenge", challenge_id=challenge_id)


@require_GET
def challenge_status(request, challenge_id):
    """GET: a challenge's state as JSON, for its page to follow: ``{"status":
    "open"|"accepted"|"cancelled", "game": <the game's page URL once accepted, else null>}``.
    Never cached; 404 for an unknown id. Polled by the creator's page, it tells the Telegram
    notices that the creator is watching (no "accepted" message needed then)."""
    challenge = get_object_or_404(Challenge, pk=challenge_id)
    if challenge.status == ChallengeStatus.OPEN and _is_creator(
        challenge, viewer_of(request, create=False)
    ):
        telegram_notices.creator_waiting(challenge.pk)  # they will see the answer here
    game_url = None
    if challenge.game_id:
        game_url = reverse("games:game", kwargs={"game_id": challenge.game_id})
    response = JsonResponse({"status": challenge.status, "game": game_url})
    response["Cache-Control"] = "no-store"
    return response
