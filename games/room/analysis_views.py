"""HTTP views of the post-game analysis (docs/protocol.md "Analysis"): the request button of
the replay page and the small status the page polls. Thin: ``games.room.analysis`` does the work;
access is that of the replay (``views.viewable_game``)."""

from django.http import JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games.room import analysis
from games.room.replay_views import viewable_game


def _wants_json(request):
    return "application/json" in request.headers.get("Accept", "")


@require_POST
def analysis_request(request, game_id):
    """POST (CSRF): ask for the analysis of a finished game. A page's form is sent back to the
    replay (303, to its analysis section); a script asking for JSON (``Accept``) gets the
    analysis state (``analysis.state_of``) with ``queued``. A game still in play or aborted:
    409 with ``{"error": "not_finished", "message"}`` (the page offers no button then). At
    most one analysis per game is queued at a time; asking again meanwhile changes nothing."""
    game = viewable_game(request, game_id)
    try:
        queued = analysis.request_analysis(game.pk)[1]
    except analysis.AnalysisRefused as exc:
        return JsonResponse(
            {"error": exc.code, "message": _("Only a finished game can be analysed.")}, status=409
        )
    if _wants_json(request):
        return JsonResponse(dict(analysis.state_of(game), queued=queued))
    response = redirect(reverse("games:replay", kwargs={"game_id": game.pk}) + "#analysis")
    response.status_code = 303  # See Other: the replay is read with GET
    return response


@require_GET
def analysis_status(request, game_id):
    """GET: the analysis state of a game (``analysis.state_of``) as JSON, never cached: the
    replay page polls it while the analysis is pending or running."""
    game = viewable_game(request, game_id)
    response = JsonResponse(analysis.state_of(game))
    response["Cache-Control"] = "no-store"
    return response
