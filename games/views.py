"""HTTP views of the games app. Thin: they read the session's guest, call ``games.services``
and render or redirect."""
import secrets

from django import forms
from django.http import HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_POST

from games import services
from games.models import BotLevel, Game, Preset, Side

#: session key holding the visitor's guest id (a random, URL-safe token)
GUEST_SESSION_KEY = "guest_id"


def ensure_guest_id(request):
    """The guest id of this browser's session; created with ``secrets.token_urlsafe(16)``
    if the session has none."""
    guest_id = request.session.get(GUEST_SESSION_KEY)
    if not guest_id:
        guest_id = secrets.token_urlsafe(16)
        request.session[GUEST_SESSION_KEY] = guest_id
    return guest_id


class NewGameForm(forms.Form):
    """Options of a new game against the computer; every field may be left out."""

    preset = forms.ChoiceField(label=_("Rules"), choices=Preset.choices, required=False)
    level = forms.ChoiceField(label=_("Computer level"), choices=BotLevel.choices, required=False)
    side = forms.ChoiceField(
        label=_("Your side"), required=False,
        choices=[*Side.choices, ("random", _("Random"))],
    )

    def options(self):
        """The chosen options with defaults: sport rules, medium computer, white."""
        data = self.cleaned_data
        return {
            "preset": data.get("preset") or Preset.SPORT.value,
            "bot_level": data.get("level") or BotLevel.MEDIUM.value,
            "human_side": data.get("side") or Side.WHITE.value,
        }


@require_POST
def new_game(request):
    """POST: start a game against the computer for this session's guest; redirect to its page.

    Form fields (all optional): ``preset`` (sport/classic/match), ``level`` (easy/medium),
    ``side`` (white/black/random). Unknown values get 400 and create nothing.
    """
    form = NewGameForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest(_("Unknown game options."))
    guest_id = ensure_guest_id(request)
    game = services.create_bot_game(guest_id, **form.options())
    return redirect("games:game", game_id=game.id)


@require_GET
def game_page(request, game_id):
    """GET: the page of one game. Its guest may play; anyone else sees it read-only.

    Context: ``game``, ``ws_path`` (the socket path, with the page's language), ``is_player``
    and ``initial_snapshot`` (the ``game`` object of this viewer's docs/protocol.md snapshot,
    to embed with ``json_script`` so the board shows before the socket connects).
    """
    game = get_object_or_404(Game, pk=game_id)
    guest_id = ensure_guest_id(request)
    context = {
        "game": game,
        "ws_path": f"/ws/game/{game.id}/?lang={get_language()}",
        "is_player": game.side_of_guest(guest_id) is not None,
        "initial_snapshot": services.snapshot(game, guest_id)["game"],
    }
    return render(request, "games/game.html", context)
