"""HTTP views of players' pages and the leaderboards (docs/protocol.md "HTTP pages"). Thin:
they read the request, ask ``games.accounts.profiles`` and render; the only change made here, a new
display name, goes through ``games.accounts.profiles.rename``."""

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from games import tournaments
from games.accounts import profiles
from games.accounts.models import PlayerRating
from games.choices import Preset
from games.services import playban
from games.telegram import pages as telegram_pages


class DisplayNameForm(forms.Form):
    """A new display name: 1 to ``profiles.DISPLAY_NAME_MAX`` characters once trimmed, no
    control characters (``profiles.clean_display_name``); it need not be unique."""

    display_name = forms.CharField(
        label=gettext_lazy("Display name"),
        error_messages={"required": gettext_lazy("Enter a name.")},
        widget=forms.TextInput(
            attrs={
                "maxlength": profiles.DISPLAY_NAME_MAX,
                "autocomplete": "nickname",
                "spellcheck": "false",
            }
        ),
    )

    def clean_display_name(self):
        return profiles.clean_display_name(self.cleaned_data["display_name"])


def _player_context(user):
    return {
        "card": profiles.player_card(user),
        "podiums": tournaments.podiums_of(user.pk),
        "provisional_deviation": round(PlayerRating.PROVISIONAL_DEVIATION),
    }


@require_GET
def player_page(request, user_id):
    """GET: the public page of account ``user_id``: display name, avatar, per preset the
    rating (provisional "?" mark), rated and all games played and won, the rating's history
    (a chart and the latest results), and the latest games with links to watch or replay
    them. 404 for an unknown or deactivated account.

    Context: ``card`` (``profiles.player_card``), ``podiums`` (``tournaments.podiums_of``:
    the events finished in the top three), ``provisional_deviation``, ``is_me``."""
    user = get_object_or_404(get_user_model(), pk=user_id, is_active=True)
    context = _player_context(user)
    context["is_me"] = request.user.is_authenticated and request.user.pk == user.pk
    return render(request, "games/player.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def own_profile(request):
    """GET: the signed-in player's own page (as ``player_page``) with a form to change the
    display name. POST (``display_name``, CSRF): a valid name is saved and the page shown again
    (redirect, with a message); an invalid one gets the form back with the reason (400) and
    changes nothing. Visitors who are not signed in are sent to the sign-in page, and back here
    after it.

    Context: as ``player_page`` plus ``form`` (a ``DisplayNameForm``), ``playban``
    (``services.playban.notice``: the wait before rated games, or None) and ``telegram``
    (``games.telegram.pages.notices_section``: the choice of Telegram notices, or None)."""
    user = request.user
    if request.method == "POST":
        form = DisplayNameForm(request.POST)
        if form.is_valid():
            try:
                profiles.rename(user.pk, form.cleaned_data["display_name"])
            except ValidationError as exc:
                form.add_error("display_name", exc)
            else:
                messages.success(request, _("Your display name is saved."))
                return redirect("games:profile")
    else:
        form = DisplayNameForm(initial={"display_name": profiles.names_of([user.pk])[user.pk]})
    context = _player_context(user)
    context.update(
        {
            "is_me": True,
            "form": form,
            "playban": playban.notice(user.pk),
            "telegram": telegram_pages.notices_section(user.pk),
        }
    )
    return render(request, "games/profile.html", context, status=400 if form.errors else 200)


@require_GET
def leaderboard_page(request):
    """GET: the leaderboard of one R12 preset (``?preset=sport|classic|match``, default
    sport; another value is 404), with a tab per preset: rank, name (linking to the player's
    page), rating and rated games of established ratings only.

    Context: ``preset``, ``tabs`` ([{"preset", "label", "current"}]), ``rows``
    (``profiles.leaderboard``), ``provisional_deviation``, ``me`` (the viewer's account id or
    None)."""
    preset = request.GET.get("preset") or Preset.SPORT.value
    if preset not in Preset.values:
        raise Http404(_("Unknown rules preset."))
    tabs = [
        {"preset": value, "label": label, "current": value == preset}
        for value, label in Preset.choices
    ]
    return render(
        request,
        "games/leaderboard.html",
        {
            "preset": preset,
            "preset_label": dict(Preset.choices)[preset],
            "tabs": tabs,
            "rows": profiles.leaderboard(preset),
            "provisional_deviation": round(PlayerRating.PROVISIONAL_DEVIATION),
            "me": request.user.pk if request.user.is_authenticated else None,
        },
    )
