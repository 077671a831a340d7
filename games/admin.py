"""Read-only admin for games: games change only through ``games.services``."""

from django.contrib import admin

from games.models import Game, GameEvent, ImportedRecord, Match


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
