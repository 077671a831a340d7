"""Replays: a finished game's replay page and its record download, and the import of a record
from elsewhere. Read-only: games.room.replays reads, nothing here changes a game."""

from django import forms
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from games import services
from games.accounts.guests import GUEST_SESSION_KEY
from games.engine import record as rec
from games.pages import form_errors, import_refused, viewer_of, with_retry_after
from games.room import analysis, replays
from games.room.models import Game, ImportedRecord


def viewable_game(request, game_id):
    """The game if this visitor may see its replay: a player at any time, anyone once it is
    over; else 404."""
    game = get_object_or_404(Game.objects.select_related("match"), pk=game_id)
    if not game.is_over and game.side_of(viewer_of(request, create=False)) is None:
        raise Http404(_("The replay opens to onlookers when the game is over."))
    return game


def share_urls(position_id):
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
        "share_urls": share_urls(last_id),
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
    viewer = viewer_of(request, create=False)
    # the chat with each frame, to the game's two players only
    replays.attach_chat(game, context["frames"], game.side_of(viewer), viewer)
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
                refusal = import_refused(request)
                if refusal is not None:
                    return with_retry_after(
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
            error = form_errors(form)
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
