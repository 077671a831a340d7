"""Read-only admin for games: games change only through ``games.services``."""

from datetime import timedelta

from django import forms
from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from games import clocks, tournaments
from games.accounts import collusion
from games.accounts.models import RatingRefund
from games.chat.models import ChatReport
from games.room.models import Game, GameEvent, ImportedRecord, Match
from games.services import GameError
from games.tournaments import rules as tournament_rules
from games.tournaments.models import Tournament


class GameEventInline(admin.TabularInline):
    model = GameEvent
    fields = ("seq", "kind", "side", "dice", "play", "roll_number", "cube", "created")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "preset",
        "status",
        "phase",
        "version",
        "winner",
        "result_kind",
        "result_points",
        "created",
    )
    list_filter = ("status", "preset", "bot_level")
    search_fields = ("id", "white_guest", "black_guest")
    inlines = [GameEventInline]

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]

    def has_add_permission(self, request):
        return False


class ReadOnlyAdmin(admin.ModelAdmin):
    """Matches and imported records change only through ``games.services`` too."""

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ("id", "length", "white_score", "black_score", "status", "winner", "created")
    list_filter = ("status", "length")


@admin.register(ImportedRecord)
class ImportedRecordAdmin(ReadOnlyAdmin):
    list_display = ("id", "title", "created")


class TournamentForm(forms.ModelForm):
    """A new event: staff choose its name, kind, rules, clock, start and length (an arena) or
    size and match length (a cup); ``games.tournaments.create`` checks the combination."""

    minutes = forms.IntegerField(
        label=_("Length of an arena (minutes)"),
        required=False,
        min_value=1,
        max_value=tournament_rules.ARENA_MAX_MINUTES,
        initial=30,
    )
    clock_kind = forms.ChoiceField(
        label=_("Clock"),
        choices=[("", _("The rules' own"))] + [(kind, kind) for kind in clocks.CLOCKS],
        required=False,
    )

    class Meta:
        model = Tournament
        fields = (
            "name",
            "kind",
            "preset",
            "clock_kind",
            "starts_at",
            "size",
            "match_length",
            "chat_off",
        )
        help_texts = {
            "chat_off": _("The players of its games cannot chat, not even with the ready phrases."),
            "starts_at": _(
                "An arena starts then; a cup starts then with whoever entered, or "
                "as soon as it is full (leave empty for a sit-and-go cup)."
            ),
            "size": _("A cup: 4, 8 or 16 players."),
            "match_length": _("A cup: matches to 3, 5 or 7 points (an arena plays single games)."),
        }

    def clean(self):
        data = super().clean()
        options = {
            "name": data.get("name") or "",
            "clock_kind": data.get("clock_kind") or None,
            "starts_at": data.get("starts_at"),
            "chat_off": bool(data.get("chat_off")),
        }
        if data.get("kind") == "arena":
            options["minutes"] = data.get("minutes")
        else:
            options.update(size=data.get("size"), match_length=data.get("match_length"))
        self.tournament_options = options
        try:
            tournaments.check_options(data.get("kind"), data.get("preset"), **options)
        except GameError as error:
            raise forms.ValidationError(error.message) from None
        return data


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    """Events: staff create them here (``games.tournaments.create``) and may call off one that
    has not started; everything else changes through the tournaments service."""

    form = TournamentForm
    list_display = ("__str__", "kind", "preset", "status", "starts_at", "ends_at", "size")
    list_filter = ("kind", "status", "preset")
    actions = ["call_off"]

    def has_change_permission(self, request, obj=None):
        # an event is never edited here (its changes go through the service): it is shown
        # read-only, and the list's action calls off those not started
        return obj is None and super().has_change_permission(request)

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        return [field.name for field in self.model._meta.fields]

    def get_fields(self, request, obj=None):
        if obj is None:
            return (
                "name",
                "kind",
                "preset",
                "clock_kind",
                "starts_at",
                "minutes",
                "size",
                "match_length",
                "chat_off",
            )
        return [field.name for field in self.model._meta.fields]

    def save_model(self, request, obj, form, change):
        if change:
            return  # nothing is edited here
        created = tournaments.create(
            form.cleaned_data["kind"],
            form.cleaned_data["preset"],
            created_by=request.user,
            **form.tournament_options,
        )
        obj.pk = created.pk
        obj.refresh_from_db()

    @admin.action(description=_("Call off the selected events (not yet started)"))
    def call_off(self, request, queryset):
        for tournament in queryset:
            try:
                tournaments.cancel(tournament.pk)
            except GameError as error:
                self.message_user(request, f"{tournament}: {error.message}", level=messages.ERROR)


@admin.register(ChatReport)
class ChatReportAdmin(admin.ModelAdmin):
    """Chat messages players reported (``games.chat``): the message, its game (a link to the
    game's page) and the game's whole chat; staff mark a report handled, nothing else changes."""

    list_display = ("created", "reported_text", "sender", "reporter", "game_link", "handled")
    list_filter = ("handled",)
    list_select_related = ("message", "reporter")
    fields = ("created", "reporter", "reported_text", "sender", "game_link", "history", "handled")
    readonly_fields = ("created", "reporter", "reported_text", "sender", "game_link", "history")
    actions = ["mark_handled"]

    def has_add_permission(self, request):
        return False

    @admin.display(description=_("message"))
    def reported_text(self, report):
        return report.message.text or report.message.preset

    @admin.display(description=_("sent by"))
    def sender(self, report):
        message = report.message
        who = f"account {message.user_id}" if message.user_id else "guest"
        return f"{message.get_sender_display()} ({who})"

    @admin.display(description=_("game"))
    def game_link(self, report):
        game_id = report.message.game_id
        return format_html(
            '<a href="{}">{}</a>', reverse("games:game", kwargs={"game_id": game_id}), game_id
        )

    @admin.display(description=_("the game's chat"))
    def history(self, report):
        rows = report.message.game.chat_messages.order_by("pk")
        lines = format_html_join(
            "",
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    format_html(' style="{}"', "font-weight:bold")
                    if row.pk == report.message_id
                    else "",
                    row.created.strftime("%Y-%m-%d %H:%M:%S"),
                    row.version,
                    row.get_sender_display(),
                    row.text or row.preset,
                )
                for row in rows
            ),
        )
        return format_html("<table>{}</table>", lines)

    @admin.action(description=_("Mark the selected reports handled"))
    def mark_handled(self, request, queryset):
        queryset.update(handled=True)


@admin.register(RatingRefund)
class RatingRefundAdmin(ReadOnlyAdmin):
    """Rating points given back (``manage.py refund_ratings``), never deleted so a refund is
    never applied twice; its list links to the report of pairs of accounts with many quick
    decisive rated games between them (``games.accounts.collusion``)."""

    list_display = ("created", "user", "game", "preset", "points", "reason")
    list_filter = ("preset",)
    search_fields = ("user__username", "reason")
    change_list_template = "admin/games/ratingrefund/change_list.html"

    #: the report's window: days back, default and most
    DAYS, MAX_DAYS = 30, 365

    def has_delete_permission(self, request, obj=None):
        return False

    def get_urls(self):
        pairs = self.admin_site.admin_view(self.pairs_view)
        return [path("pairs/", pairs, name="games_account_pairs"), *super().get_urls()]

    def pairs_view(self, request):
        """The pairs of accounts with at least ``collusion.MIN_QUICK_GAMES`` quick decisive
        rated games between them in the last ``days`` (1 to MAX_DAYS, GET)."""
        try:
            days = min(max(int(request.GET.get("days", self.DAYS)), 1), self.MAX_DAYS)
        except (TypeError, ValueError):
            days = self.DAYS
        since = clocks.from_ms(clocks.now_ms()) - timedelta(days=days)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Pairs of accounts with quick decisive rated games"),
            "pairs": collusion.quick_pairs(since=since),
            "days": days,
            "quick_plays": collusion.QUICK_PLAYS,
            "min_quick": collusion.MIN_QUICK_GAMES,
        }
        return TemplateResponse(request, "admin/games/account_pairs.html", context)
