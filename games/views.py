"""HTTP views of the games app (docs/protocol.md "HTTP pages"). Thin: they read the session's
guest, call ``games.services`` (every change) or the read-only ``games.replays``, and render or
redirect."""

import hashlib
from datetime import timedelta
from importlib import metadata
from pathlib import Path

import ttf_opensans
from django import forms
from django.core.cache import cache
from django.core.exceptions import RequestDataTooBig
from django.db.models import Q
from django.http import Http404, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import (
    admission,
    analysis,
    app_settings,
    board_svg,
    clocks,
    dev_sign_in,
    profiles,
    ratelimits,
    ratings,
    replays,
    services,
    tournaments,
)
from games.accounts import sign_in
from games.board_svg import VIEW_H, VIEW_W, render_board
from games.challenges.models import Challenge, ChallengeStatus
from games.choices import Colour, Preset, Side, Status, other_side
from games.engine import PositionError
from games.engine import record as rec
from games.engine.position_id import decode as decode_position
from games.guests import GUEST_SESSION_KEY, ensure_guest_id
from games.lobby.models import QueueEntry
from games.room.models import Game, ImportedRecord, Match
from games.services import playban
from games.telegram import notices as telegram_notices
from games.telegram import pages as telegram_pages

#: the game room's ES modules (static/games/room/), preloaded together by the game page
ROOM_MODULES = tuple(
    f"games/room/{name}.js"
    for name in (
        "main",
        "announce",
        "board-view",
        "clocks",
        "coach",
        "controls",
        "panels",
        "protocol",
        "socket",
        "staging",
        "state",
        "texts",
    )
)

ON_OFF = [("on", gettext_lazy("On")), ("off", gettext_lazy("Off"))]
LEVEL_LABELS = {
    "easy": gettext_lazy("Easy"),
    "medium": gettext_lazy("Medium"),
    "hard": gettext_lazy("Hard"),
    "expert": gettext_lazy("Expert"),
}


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


def games_of(viewer):
    """The games ``viewer`` (a ``services.Actor``) plays: those of their account or of their
    session's guest id."""
    found = Q()
    if viewer.user_id:
        found |= Q(white_user_id=viewer.user_id) | Q(black_user_id=viewer.user_id)
    if viewer.guest_id:
        found |= Q(white_guest=viewer.guest_id) | Q(black_guest=viewer.guest_id)
    if not found:
        return Game.objects.none()
    return Game.objects.filter(found)


def _level_choices():
    return [(level, LEVEL_LABELS.get(level, level)) for level in services.bot_levels()]


def _seconds(ms):
    """A duration (ms) as a short text: "2 min" for whole minutes beyond one, else "60 s"."""
    if ms > 60_000 and ms % 60_000 == 0:
        return _("%(minutes)s min") % {"minutes": ms // 60_000}
    return _("%(seconds)s s") % {"seconds": ms // 1000}


def clock_summary(spec):
    """What the clock ``spec`` (a ``games.clocks.ClockSpec``) means for a player, in the active
    language: a list of short sentences (its times come from the spec)."""
    times = {
        "roll": _seconds(spec.roll_ms or 0),
        "move": _seconds(spec.move_ms),
        "reserve": _seconds(spec.reserve_ms),
        "first": _seconds(spec.first_move_ms),
    }
    lines = []
    if spec.auto_roll:
        lines.append(_("The dice are rolled for you; you have %(move)s for each move.") % times)
    else:
        lines.append(
            _("You have %(roll)s to roll and %(move)s for each move (and to answer a double).")
            % times
        )
    if spec.loses == clocks.LOSES_MATCH:
        lines.append(
            _("When that time is used up, a reserve of %(reserve)s for the whole match runs down.")
            % times
        )
    else:
        lines.append(
            _("When that time is used up, a reserve of %(reserve)s for the whole game runs down.")
            % times
        )
    if spec.max_move_ms is not None:
        lines.append(
            _("No move may take longer than %(cap)s.") % {"cap": _seconds(spec.max_move_ms)}
        )
    if spec.loses == clocks.LOSES_MATCH:
        lines.append(_("A player who runs out of time loses the whole match."))
    else:
        lines.append(_("A player who runs out of time loses the game."))
    if spec.reconnect_ms is not None:
        back = {"back": _seconds(spec.reconnect_ms)}
        if spec.loses == clocks.LOSES_MATCH:
            lines.append(
                _("A player who disconnects has %(back)s to come back, or loses the match.") % back
            )
        else:
            lines.append(
                _("A player who disconnects has %(back)s to come back, or loses the game.") % back
            )
    if spec.claim_after_ms is not None:
        lines.append(
            _("If a player leaves for more than %(away)s, the opponent may claim the win.")
            % {"away": _seconds(spec.claim_after_ms)}
        )
    lines.append(
        _("If a player makes no first move within %(first)s, the game is aborted with no result.")
        % times
    )
    return lines


def clock_name(kind):
    """The name of a clock kind ("standard" or "match") in the active language."""
    return {clocks.STANDARD: _("Standard clock"), clocks.MATCH: _("Match clock")}.get(kind, kind)


def preset_clocks():
    """``{preset: {"kind", "name", "summary"}}``: the clock each R12 preset plays with between
    people (and against the computer when the player asks for one)."""
    found = {}
    for preset, kind in clocks.PRESET_CLOCK.items():
        found[preset] = {
            "kind": kind,
            "name": clock_name(kind),
            "summary": clock_summary(clocks.CLOCKS[kind]),
        }
    return found


class TableForm(forms.Form):
    """The table options of a new game (RULES.md R12), every field optional: ``preset``
    sport/classic/match; ``match_length`` 1/3/5/7 (match only); ``koks`` and ``cube`` on/off
    (classic only). ``clean`` checks the combination with ``services.table_options``."""

    preset = forms.ChoiceField(label=gettext_lazy("Rules"), choices=Preset.choices, required=False)
    match_length = forms.TypedChoiceField(
        label=gettext_lazy("Match length"),
        required=False,
        coerce=int,
        empty_value=None,
        choices=[(str(n), str(n)) for n in services.MATCH_LENGTHS],
    )
    koks = forms.ChoiceField(label=gettext_lazy("Koks (3 points)"), choices=ON_OFF, required=False)
    cube = forms.ChoiceField(label=gettext_lazy("Doubling cube"), choices=ON_OFF, required=False)

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        preset = data.get("preset") or Preset.SPORT.value
        try:
            services.table_options(
                preset,
                data.get("match_length"),
                _on_off(data.get("koks")),
                _on_off(data.get("cube")),
            )
        except services.GameError as error:
            raise forms.ValidationError(error.message) from None
        return data

    def table(self):
        """The chosen table: ``{"preset", "match_length", "koks", "cube"}`` (None = the
        preset's default)."""
        data = self.cleaned_data
        return {
            "preset": data.get("preset") or Preset.SPORT.value,
            "match_length": data.get("match_length"),
            "koks": _on_off(data.get("koks")),
            "cube": _on_off(data.get("cube")),
        }

    def preset_clocks(self):
        """``preset_clocks()``, for the template's clock descriptions."""
        return preset_clocks()


class NewGameForm(TableForm):
    """Options of a new game against the computer (RULES.md R12); every field may be left out.

    The table options of ``TableForm``; ``level`` one of the computer levels that exist;
    ``side`` white/black/random; ``clock`` on/off (default off: on gives the player the
    preset's clock, the computer plays without one).
    """

    level = forms.ChoiceField(
        label=gettext_lazy("Computer level"), required=False, choices=_level_choices
    )
    side = forms.ChoiceField(
        label=gettext_lazy("Your side"),
        required=False,
        choices=[*Side.choices, ("random", gettext_lazy("Random"))],
    )
    clock = forms.ChoiceField(label=gettext_lazy("Clock"), choices=ON_OFF, required=False)

    def options(self):
        """The chosen options for ``services.create_bot_game`` (defaults: sport rules, the
        medium computer, white, no clock; the preset's table defaults)."""
        data = self.cleaned_data
        return {
            **self.table(),
            "bot_level": data.get("level") or "medium",
            "human_side": data.get("side") or Side.WHITE.value,
            "clock": data.get("clock") == "on",
        }

    @classmethod
    def for_game(cls, game, you):
        """An (unbound) form holding ``game``'s options, for "play again"."""
        options = services.options_of(game)
        initial = {
            "preset": game.preset,
            "level": game.bot_level or "medium",
            "side": game.colour or you or Side.WHITE.value,
            "clock": "on" if game.clock else "off",
        }
        if game.preset == Preset.MATCH:
            initial["match_length"] = str(options["match_length"])
        if game.preset == Preset.CLASSIC:
            initial["koks"] = "on" if options["koks"] else "off"
            initial["cube"] = "on" if options["cube"] else "off"
        return cls(initial=initial)


#: the clocks a game between people may run (RULES.md R11): "" in a form means the preset's
CLOCK_KINDS = [
    (clocks.STANDARD, gettext_lazy("Standard clock")),
    (clocks.MATCH, gettext_lazy("Match clock")),
]
RATED_CHOICES = [("casual", gettext_lazy("Casual")), ("rated", gettext_lazy("Rated"))]


class ChallengeForm(TableForm):
    """Options of a challenge link (a game with a friend, RULES.md R12): the table options of
    ``TableForm``, ``colour`` white/black/random (the creator's side; default random),
    ``rated`` casual/rated (default casual; rated only for a signed-in creator, which
    ``services.create_challenge`` checks) and ``clock`` standard/match (default: the
    preset's, R12)."""

    colour = forms.ChoiceField(
        label=gettext_lazy("Your side"), required=False, choices=Colour.choices
    )
    rated = forms.ChoiceField(label=gettext_lazy("Rating"), required=False, choices=RATED_CHOICES)
    clock = forms.ChoiceField(label=gettext_lazy("Clock"), required=False, choices=CLOCK_KINDS)

    def options(self):
        """The chosen options for ``services.create_challenge``."""
        data = self.cleaned_data
        return {
            **self.table(),
            "colour": data.get("colour") or Colour.RANDOM.value,
            "rated": data.get("rated") == "rated",
            "clock": data.get("clock") or None,
        }

    @classmethod
    def for_game(cls, game, you):
        """An (unbound) form holding the options of ``game`` (a game between people), for a
        new challenge with the same table, clock and rating; the creator's side is drawn."""
        options = services.options_of(game)
        initial = {
            "preset": game.preset,
            "colour": Colour.RANDOM.value,
            "rated": "rated" if game.rated else "casual",
        }
        if game.clock:
            initial["clock"] = game.clock.get("kind")
        if game.preset == Preset.MATCH:
            initial["match_length"] = str(options["match_length"])
        if game.preset == Preset.CLASSIC:
            initial["koks"] = "on" if options["koks"] else "off"
            initial["cube"] = "on" if options["cube"] else "off"
        return cls(initial=initial)


def clock_choices():
    """The clocks a player may choose for a game between people, each ``{"kind", "name",
    "summary", "presets"}`` (``presets``: the R12 presets whose own clock it is)."""
    return [
        {
            "kind": kind,
            "name": name,
            "summary": clock_summary(clocks.CLOCKS[kind]),
            "presets": [p for p, k in clocks.PRESET_CLOCK.items() if k == kind],
        }
        for kind, name in CLOCK_KINDS
    ]


def login_url(next_path):
    """The sign-in page, coming back to ``next_path`` afterwards."""
    return f"{reverse('account_login')}?{urlencode({'next': next_path})}"


def _on_off(value):
    return None if not value else value == "on"


def _form_errors(form):
    return " ".join(str(message) for messages in form.errors.values() for message in messages)


def _creation_refused(request, starts_game=True):
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
    return _rate_limited(request, ratelimits.check_create)


def _import_refused(request):
    """``ratelimits.RateLimited`` when this visitor (session or account, and address) has
    imported too many records lately, else None; an import allowed is counted."""
    return _rate_limited(request, ratelimits.check_import)


def _rate_limited(request, check):
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


def _with_retry_after(response, refusal):
    response["Retry-After"] = str(ratelimits.seconds_text(refusal.retry_after))
    return response


def _refusal_status(refusal):
    """The HTTP status of a ``_creation_refused`` refusal: 503 for a full site, else 429."""
    return 503 if isinstance(refusal, admission.SiteFull) else 429


@require_http_methods(["GET", "POST"])
def new_game(request):
    """POST: start a game against the computer for this session's guest; redirect to its page.
    GET (a bookmarked or typed address): redirect to the new-game form of "my games".

    Fields: see ``NewGameForm``. Bad values, or an option the preset does not have, get 400
    with the reason and create nothing. Too many new games lately (``ratelimits``): the 429
    page (templates/429.html: the reason and the new-game form, ``Retry-After`` header); the
    site full (``admission``): the 503 page (templates/503.html, the same with its reason).
    """
    if request.method == "GET":
        return redirect(reverse("games:my_games") + "#new")
    form = NewGameForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest(
            _("Unknown game options: %(reason)s") % {"reason": _form_errors(form)},
            content_type="text/plain; charset=utf-8",
        )
    refusal = _creation_refused(request)
    if refusal is not None:
        status = _refusal_status(refusal)
        return _with_retry_after(
            render(
                request,
                f"{status}.html",
                {"message": refusal.message, "new_game_form": NewGameForm()},
                status=status,
            ),
            refusal,
        )
    viewer = viewer_of(request)
    try:
        # a signed-in player's game is the account's too (theirs on any device)
        game = services.create_bot_game(viewer, **form.options())
    except services.GameError as error:
        return HttpResponseBadRequest(error.message, content_type="text/plain; charset=utf-8")
    return redirect("games:game", game_id=game.id)


@require_GET
def game_page(request, game_id):
    """GET: the page of one game. Its guest may play; anyone else sees it read-only.

    Context: ``game``, ``ws_path`` (the socket path, with the page's language), ``is_player``,
    ``initial_snapshot`` (the ``game`` object of this viewer's docs/protocol.md snapshot, to
    embed with ``json_script`` so the board shows before the socket connects),
    ``options_form`` (this game's options, for "play again": a ``NewGameForm`` against the
    computer, a ``ChallengeForm`` between people), ``again_url`` (where that form posts),
    ``between_people`` (bool), ``clock`` (None, or ``{"kind", "name", "summary"}``: the
    game's clock and what it means), ``lobby_url`` (the lobby, for a game the lobby paired:
    "play again" there finds another opponent; else None), ``tournament`` (``{"url",
    "title", "ws_path", "running", "arena", "result"}`` of the event the game belongs to,
    else None),
    ``new_game_form`` (a blank form: the computer levels that exist) and ``room_modules``
    (``ROOM_MODULES``, preloaded).
    """
    game = get_object_or_404(Game.objects.select_related("match"), pk=game_id)
    game = services.current(game)  # a deadline that has passed is applied before showing it
    viewer = viewer_of(request)
    you = game.side_of(viewer)
    spec = services.clock_spec(game)
    between_people = not game.bot_side
    context = {
        "game": game,
        "ws_path": f"/ws/game/{game.id}/?lang={get_language()}",
        "is_player": you is not None,
        "initial_snapshot": services.snapshot(game, viewer)["game"],
        "between_people": between_people,
        "options_form": (
            ChallengeForm.for_game(game, you) if between_people else NewGameForm.for_game(game, you)
        ),
        "again_url": reverse("games:challenge_new" if between_people else "games:new"),
        "clock": (
            {"kind": spec.kind, "name": clock_name(spec.kind), "summary": clock_summary(spec)}
            if spec
            else None
        ),
        "lobby_url": reverse("games:lobby") if _paired_by_lobby(game) else None,
        "tournament": tournaments.event_of_game(game, viewer.user_id),
        "new_game_form": NewGameForm(),
        "room_modules": ROOM_MODULES,
    }
    return render(request, "games/game.html", context)


def _paired_by_lobby(game):
    """True for a game (or a game of a match) that the lobby paired."""
    if not game.rated:
        return False
    if game.match_id:
        return QueueEntry.objects.filter(game__match_id=game.match_id).exists()
    return QueueEntry.objects.filter(game=game).exists()


@require_GET
def match_page(request, match_id):
    """GET: the room of a match: redirects to the match's latest game (R11)."""
    match = get_object_or_404(Match, pk=match_id)
    latest = match.latest_game()
    if latest is None:
        raise Http404
    return redirect("games:game", game_id=latest.id)


#: a change less than this old is shown as "just now", not "0 minutes ago"
JUST_NOW = timedelta(minutes=1)


def _game_row(game, viewer, names, from_challenge, now):
    """One row of "my games": ``game`` as ``viewer`` plays it. ``names`` holds the display
    names of the accounts in the list (``profiles.names_of``); ``from_challenge`` the ids of
    the games and matches a challenge link started (only those are "with a friend"); ``now``
    the time of the request. ``opponent`` is ``{"name", "url"}`` for an account, else None."""
    you = game.side_of(viewer)
    opponent = None
    if not game.bot_side and you is not None:
        user_id = game.user_of(other_side(you))
        if user_id:
            opponent = {"name": names[user_id], "url": profiles.profile_url(user_id)}
    match = None
    if game.match_id:
        match = {
            "id": str(game.match_id),
            "length": game.match.length,
            "score": game.match.score(),
            "game_number": game.match_number,
        }
    return {
        "id": str(game.id),
        "url": reverse("games:game", kwargs={"game_id": game.id}),
        "replay_url": reverse("games:replay", kwargs={"game_id": game.id}),
        "preset": game.preset,
        "options": services.options_of(game),
        "you": you,
        "against_bot": bool(game.bot_side),
        "rated": game.rated,
        "opponent": opponent,
        "with_friend": game.id in from_challenge or game.match_id in from_challenge,
        "clock": game.clock.get("kind") if game.clock else None,
        "status": game.status,
        "turn": game.turn,
        "your_turn": game.awaiting is not None and game.awaiting == you,
        "version": game.version,
        "result": services.result_of(game),
        "match": match,
        "created": game.created,
        "updated": game.updated,
        "just_now": now - game.updated < JUST_NOW,
    }


@require_GET
def my_games(request):
    """GET: "my games": the games of this visitor's account or session guest (against the
    computer and with friends), active ones first, then those that are over (finished or
    aborted), each list newest first, with links to resume or replay them; and their
    challenge links still waiting for a friend (``open_challenges``: rows of
    ``_challenge_context``, each with ``just_now``). ``signed_in``: the list is the account's,
    on any device, rather than this browser's."""
    viewer = viewer_of(request, create=False)
    now = timezone.now()
    games = list(games_of(viewer).select_related("match").order_by("-updated")[:200])
    names = profiles.names_of(
        [user_id for game in games for user_id in (game.white_user_id, game.black_user_id)]
    )
    started = Challenge.objects.filter(
        Q(game__in=games) | Q(game__match_id__in={g.match_id for g in games if g.match_id})
    )
    from_challenge = set()
    for game_id, match_id in started.values_list("game_id", "game__match_id"):
        from_challenge.update({game_id, match_id} - {None})
    rows = [_game_row(game, viewer, names, from_challenge, now) for game in games]
    mine = Q()
    if viewer.user_id:
        mine |= Q(creator_user_id=viewer.user_id)
    if viewer.guest_id:
        mine |= Q(creator_guest=viewer.guest_id)
    challenges = []
    if mine:
        challenges = Challenge.objects.filter(mine, status=ChallengeStatus.OPEN)[:20]
    return render(
        request,
        "games/my_games.html",
        {
            "active_games": [row for row in rows if row["status"] == Status.ACTIVE],
            "finished_games": [row for row in rows if row["status"] != Status.ACTIVE],
            "open_challenges": [
                dict(_challenge_context(request, c), just_now=now - c.created < JUST_NOW)
                for c in challenges
            ],
            "signed_in": bool(viewer.user_id),
            "new_game_form": NewGameForm(),
        },
    )


# --- games between people: challenge links ---------------------------------------------


def _without_language(path):
    """``path`` without the active language's prefix ("/ru/challenge/x/" -> "/challenge/x/")."""
    prefix = f"/{get_language()}/"
    return path[len(prefix) - 1 :] if path.startswith(prefix) else path


def _challenge_context(request, challenge):
    """What the challenge pages show of ``challenge``: ``id``, ``status``, ``preset``,
    ``options`` (``{"match_length", "koks", "cube"}`` of the table), ``colour`` (the
    creator's side), ``url`` and ``share_url`` (absolute, with no language: the friend gets
    the page in their own), ``status_url``, ``clock`` (``{"kind",
    "name", "summary"}`` of the game's clock), ``rated`` (bool), ``creator`` (None for a
    guest, else ``{"name", "rating", "provisional", "profile"}`` of the creator's account in
    the preset), ``game_url`` once accepted (else None), ``created``, ``telegram_share``
    (inside the Mini App: the link that sends the challenge to a Telegram chat, else "") and
    ``telegram_link`` (inside the Mini App: the link that opens it in Telegram, else "")."""
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
        "share_url": request.build_absolute_uri(_without_language(url)),
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
    form = ChallengeForm()
    error = refusal = None
    if request.method == "POST":
        form = ChallengeForm(request.POST)
        if not form.is_valid():
            error = _form_errors(form)
        elif (refusal := _creation_refused(request, starts_game=False)) is not None:
            error = refusal.message
        else:
            try:
                challenge = services.create_challenge(viewer_of(request), **form.options())
            except services.GameError as exc:
                error = exc.message
            else:
                return redirect("games:challenge", challenge_id=challenge.id)
    response = render(
        request,
        "games/challenge_new.html",
        {
            "form": form,
            "error": error,
            "signed_in": request.user.is_authenticated,
            "login_url": login_url(reverse("games:challenge_new")),
            "clock_choices": clock_choices(),
            "preset_clocks": clocks.PRESET_CLOCK,
        },
        status=429 if refusal else 400 if error else 200,
    )
    return _with_retry_after(response, refusal) if refusal else response


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
            "challenge": _challenge_context(request, challenge),
            "is_creator": _is_creator(challenge, viewer),
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

    Context: ``challenge`` (``_challenge_context``), ``is_creator``, ``signed_in``,
    ``login_url`` (sign in and come back here: a rated challenge needs an account), ``error``
    (None)."""
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
    refusal = _creation_refused(request)
    if refusal is not None:
        challenge = get_object_or_404(Challenge, pk=challenge_id)
        return _with_retry_after(
            _render_challenge(
                request, challenge, error=refusal.message, status=_refusal_status(refusal)
            ),
            refusal,
        )
    try:
        game = services.accept_challenge(challenge_id, viewer_of(request))
    except Challenge.DoesNotExist:
        raise Http404 from None
    except services.ChallengeError as exc:
        challenge = get_object_or_404(Challenge, pk=challenge_id)
        return _render_challenge(request, challenge, error=exc.message, status=409)
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


# --- rated play: the lobby ---------------------------------------------------------------


@require_GET
def lobby_page(request):
    """GET: the lobby of rated games. A signed-in player picks the rules, the match length
    and the clock and looks for an opponent over the lobby socket (static/games/lobby.js,
    docs/protocol.md "Lobby"); a guest is told why rated games need an account and how to
    sign in.

    Context: ``signed_in``, ``login_url`` (sign in and come back here), ``sign_in_with``
    (for a guest: the configured providers, "Google or Telegram"; "" if none), ``can_sign_in``
    (some way to sign in exists here), ``dev_sign_in`` (the development sign-in is on),
    ``ws_path`` (the
    lobby socket, with the page's language), ``ratings`` (``{preset: {"rating",
    "provisional", "games"}}``: the account's, 1500 provisional where it has none),
    ``clock_choices`` (``clock_choices()``), ``preset_clocks`` (``{preset: kind}``) and
    ``active_games`` (the account's rated games in progress, newest first: ``{"url",
    "preset", "match_length", "opponent"}``), ``playban`` (``services.playban.notice``)."""
    viewer = viewer_of(request, create=False)
    context = {
        "signed_in": bool(viewer.user_id),
        "login_url": login_url(reverse("games:lobby")),
        "sign_in_with": "" if viewer.user_id else sign_in.sign_in_services(request),
        "can_sign_in": bool(viewer.user_id) or sign_in.sign_in_available(request),
        "dev_sign_in": dev_sign_in.enabled(),
        "ws_path": f"/ws/lobby/?lang={get_language()}",
        "clock_choices": clock_choices(),
        "preset_clocks": clocks.PRESET_CLOCK,
        "ratings": {},
        "active_games": [],
        "playban": playban.notice(viewer.user_id),
    }
    if viewer.user_id:
        for preset in Preset.values:
            found = ratings.rating_of(viewer.user_id, preset)
            context["ratings"][preset] = {
                "rating": round(found.rating),
                "provisional": found.provisional,
                "games": found.games,
            }
        running = (
            Game.objects.filter(rated=True, status=Status.ACTIVE)
            .filter(Q(white_user_id=viewer.user_id) | Q(black_user_id=viewer.user_id))
            .select_related("match")
            .order_by("-created")[:20]
        )
        for game in running:
            opponent = game.user_of(other_side(game.side_of(viewer)))
            context["active_games"].append(
                {
                    "url": reverse("games:game", kwargs={"game_id": game.id}),
                    "preset": game.preset,
                    "match_length": game.match.length if game.match_id else None,
                    "opponent": services.display_name(opponent) if opponent else _("Guest"),
                }
            )
    return render(request, "games/lobby.html", context)


def viewable_game(request, game_id):
    """The game if this visitor may see its replay: a player at any time, anyone once it is
    over; else 404."""
    game = get_object_or_404(Game.objects.select_related("match"), pk=game_id)
    if not game.is_over and game.side_of(viewer_of(request, create=False)) is None:
        raise Http404(_("The replay opens to onlookers when the game is over."))
    return game


def _share_urls(position_id):
    return {
        "page": reverse("games:position", kwargs={"position_id": position_id}),
        "svg": reverse("position_svg", kwargs={"position_id": position_id}),
        "png": reverse("position_png", kwargs={"position_id": position_id}),
    }


def _replay_context(request, record, *, game=None, imported=False, title=""):
    # Replay the record as the text shown on the page, so the line numbers given (the dice
    # check's first mismatch) are those of that text.
    record_text = rec.write(record)
    record = rec.parse(record_text)
    replay, frames = replays.replay_frames(record)
    last_id = frames[-1]["position_id"]
    you = game.side_of(viewer_of(request, create=False)) if game else None
    return {
        "game": game,
        "you": you,
        "imported": imported,
        "title": title,
        "headers": list(record.headers),
        "frames": frames,
        "frames_json": frames,
        "record_text": record_text,
        "export_url": (reverse("games:record", kwargs={"game_id": game.id}) if game else None),
        "share_urls": _share_urls(last_id),
        "fairness": replays.fairness_of(game) if game else None,
        "dice_verified": replay.dice_verified,
        "dice_mismatch_line": replay.dice_mismatch_line,
        "result": (
            services.result_of(game)
            if game
            else (
                {
                    "winner": replay.result.winner,
                    "kind": replay.result.kind,
                    "points": replay.result.points,
                    "reason": replay.result.reason,
                    "cube": None,
                }
                if replay.result
                else None
            )
        ),
        "finished": replay.result is not None,
    }


@require_GET
def replay_page(request, game_id):
    """GET: the replay of a game (docs/protocol.md, replay page context): every roll and play
    to step through, the record, the export link and, once over, the revealed seed."""
    game = viewable_game(request, game_id)
    record = replays.game_record(game)
    title = replays.replay_title(game, game.side_of(viewer_of(request, create=False)))
    context = _replay_context(request, record, game=game, title=title)
    context["analysis"] = analysis.attach(game, context["frames"])  # marks on the play frames
    return render(request, "games/replay.html", context)


@require_GET
def record_download(request, game_id):
    """GET: the game's record as a text file (docs/record-format.md); same access as the
    replay. The seed is in it only once the game is over."""
    game = viewable_game(request, game_id)
    response = HttpResponse(replays.record_text(game), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="nardy-{str(game.id)[:8]}.txt"'
    return response


class ImportRecordForm(forms.Form):
    """A record to import: an uploaded text file or pasted text (one of them)."""

    record = forms.FileField(label=gettext_lazy("Record file"), required=False)
    text = forms.CharField(
        label=gettext_lazy("Or paste the record"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "false"}),
    )

    def record_text(self):
        """The record's text; raises ValidationError if there is none, it is too large or it
        is not UTF-8 text."""
        upload = self.cleaned_data.get("record")
        if upload:
            if upload.size > rec.MAX_CHARS * 4:
                raise forms.ValidationError(_("The file is too large to be a game record."))
            try:
                return upload.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                raise forms.ValidationError(_("The file is not UTF-8 text.")) from None
        text = self.cleaned_data.get("text") or ""
        if not text.strip():
            raise forms.ValidationError(_("Choose a record file or paste a record."))
        return text


@require_http_methods(["GET", "POST"])
def import_record(request):
    """GET: the import form. POST: replay the uploaded record through the engine; a legal one
    is saved and shown as a replay (redirect), an illegal one is refused with its line number
    and the reason (400, the form shown again)."""
    form = ImportRecordForm()
    error = None
    if request.method == "POST":
        try:
            form = ImportRecordForm(request.POST, request.FILES)
        except RequestDataTooBig:
            # pasted text over DATA_UPLOAD_MAX_MEMORY_SIZE: far over a record's length
            too_long = rec.RecordError(0, "too long", "too_long", params={"limit": rec.MAX_CHARS})
            return render(
                request,
                "records/import.html",
                {"form": ImportRecordForm(), "error": services.record_error_message(too_long)},
                status=400,
            )
        if form.is_valid():
            try:
                text = form.record_text()
            except forms.ValidationError as exc:
                error = " ".join(exc.messages)
            else:
                refusal = _import_refused(request)
                if refusal is not None:
                    return _with_retry_after(
                        render(
                            request,
                            "429.html",
                            {"message": refusal.message, "refused": "import", "form": form},
                            status=429,
                        ),
                        refusal,
                    )
                try:
                    imported = services.import_record(text, request.session.get(GUEST_SESSION_KEY))
                except rec.RecordError as exc:
                    error = services.record_error_message(exc)
                else:
                    return redirect("games:imported", record_id=imported.id)
        else:
            error = _form_errors(form)
    status = 400 if error else 200
    return render(request, "records/import.html", {"form": form, "error": error}, status=status)


@require_GET
def imported_replay(request, record_id):
    """GET: the replay of an imported record; 404 for one stored earlier that the importer now
    refuses."""
    imported = get_object_or_404(ImportedRecord, pk=record_id)
    services.import_opened(imported)
    try:
        record = rec.parse(imported.text)
        title = replays.imported_title(record)  # in the page's language, not the stored title
        context = _replay_context(request, record, imported=True, title=title)
    except rec.RecordError:
        # stored before the importer learned to refuse it (e.g. "white starts" in a sport game)
        raise Http404 from None
    return render(request, "games/replay.html", context)


def _position_or_404(position_id):
    try:
        return decode_position(position_id)
    except PositionError:
        raise Http404(_("This is not a position ID.")) from None


def describe_position(position):
    """A one-line description of a position in the active language (whose turn, pip counts,
    checkers off)."""
    params = {
        "white_pips": position.pip("white"),
        "black_pips": position.pip("black"),
        "white_off": position.off("white"),
        "black_off": position.off("black"),
    }
    if position.turn == "white":
        text = _(
            "White to move. Pip count: white %(white_pips)s, black %(black_pips)s. "
            "Borne off: white %(white_off)s, black %(black_off)s."
        )
    else:
        text = _(
            "Black to move. Pip count: white %(white_pips)s, black %(black_pips)s. "
            "Borne off: white %(white_off)s, black %(black_off)s."
        )
    return text % params


def _board_svg(position, size=None):
    return render_board(
        position,
        title=_("Long nardy position"),
        desc=describe_position(position),
        size=size,
        id_prefix="position",
    )


@require_GET
def position_page(request, position_id):
    """GET: the share page of one position (``/<lang>/position/<id>/``): the board, its
    description, the image links and Open Graph tags with the PNG for link previews."""
    position = _position_or_404(position_id)
    origin = request.build_absolute_uri("/").rstrip("/")
    urls = _share_urls(position_id)
    return render(
        request,
        "positions/share.html",
        {
            "position_id": position_id,
            "position": position.to_json(),
            "description": describe_position(position),
            "board_svg": _board_svg(position),
            "share_urls": urls,
            "page_url": origin + urls["page"],
            "image_url": origin + urls["png"],
        },
    )


#: the size of the PNG preview (Open Graph's recommended 1.91:1)
PNG_WIDTH, PNG_HEIGHT = 1200, 630


#: how long a drawn position image stays in the server cache and in browsers (seconds)
IMAGE_CACHE_SECONDS = 86400

#: a fingerprint of what draws the images (the board code, the PNG size, resvg's version), so a
#: changed renderer never serves an image cached by the one before
RENDERER_VERSION = hashlib.sha256(
    Path(board_svg.__file__).read_bytes()
    + f"{PNG_WIDTH}x{PNG_HEIGHT}:{metadata.version('resvg_py')}".encode()
).hexdigest()[:16]


def _image_cache_key(kind, position_id, *extra):
    return ":".join(("position-image", kind, RENDERER_VERSION, position_id, *map(str, extra)))


def position_svg(request, position_id):
    """GET ``/position/<id>.svg``: the position drawn by ``games.board_svg``; 404 for a bad ID.
    Cached by browsers for a day (an ID always shows the same position), and on the server
    (Django's cache, Redis) per ID, language (the title and description) and renderer."""
    position = _position_or_404(position_id)
    return _cached_image(
        request,
        _image_cache_key("svg", position_id, get_language()),
        lambda: _board_svg(position),
        "image/svg+xml; charset=utf-8",
    )


_PNG_FONTS = Path(ttf_opensans.__file__).with_name("ttf")


def position_png(request, position_id):
    """GET ``/position/<id>.png``: the same board as a 1200×630 PNG for link previews (the SVG
    centred on the site's background, rasterized with resvg); 404 for a bad ID. Drawing one
    takes about 0.1 s, so the bytes are kept in Django's cache (Redis) per ID and renderer: a
    repeated request costs a cache read."""
    position = _position_or_404(position_id)
    return _cached_image(
        request,
        _image_cache_key("png", position_id, _PNG_FONTS),
        lambda: _render_png(position),
        "image/png",
    )


def _cached_image(request, key, render, content_type):
    """The image under ``key`` in Django's cache, drawn by ``render()`` on a miss, as a response
    that browsers may also keep for IMAGE_CACHE_SECONDS; a miss beyond the address's
    ``IMAGE_RENDER_IP_LIMITS`` gets 429 with Retry-After instead."""
    body = cache.get(key)
    if body is None:
        wait = ratelimits.hit(
            app_settings.IMAGE_RENDER_IP_LIMITS,
            "image",
            "ip",
            request.META.get("REMOTE_ADDR") or "unknown",
        )
        if wait is not None:
            seconds = ratelimits.seconds_text(wait)
            refused = HttpResponse(
                _("Too many new images in a short time: try again later."),
                status=429,
                content_type="text/plain; charset=utf-8",
            )
            refused["Retry-After"] = str(seconds)
            return refused
        body = render()
        cache.set(key, body, IMAGE_CACHE_SECONDS)
    response = HttpResponse(body, content_type=content_type)
    response["Cache-Control"] = f"public, max-age={IMAGE_CACHE_SECONDS}"
    return response


def _render_png(position):
    """The PNG bytes of ``position`` (1200×630)."""
    import resvg_py  # a compiled wheel: loaded only when a PNG is drawn

    board = render_board(position, title="", desc="", id_prefix="png")
    board_h = PNG_HEIGHT - 40
    board_w = round(board_h * VIEW_W / VIEW_H)
    inner = board.replace(
        "<svg ",
        f'<svg x="{(PNG_WIDTH - board_w) // 2}" y="20" width="{board_w}" height="{board_h}" ',
        1,
    )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{PNG_WIDTH}" height="{PNG_HEIGHT}" '
        f'viewBox="0 0 {PNG_WIDTH} {PNG_HEIGHT}"><rect width="100%" height="100%" '
        f'fill="#f4ecdc"/>{inner}</svg>'
    )
    # The font comes with the project (ttf-opensans), so point numbers and counts are drawn
    # the same on every machine, with or without system fonts.
    png = resvg_py.svg_to_bytes(
        svg_string=svg,
        width=PNG_WIDTH,
        height=PNG_HEIGHT,
        skip_system_fonts=True,
        font_dirs=[str(_PNG_FONTS)],
        font_family="Open Sans",
        sans_serif_family="Open Sans",
    )
    return bytes(png)
