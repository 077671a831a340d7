"""Read-only admin for games: games change only through ``games.services``."""
from django.contrib import admin

from games.models import Game, GameEvent


class GameEventInline(admin.TabularInline):
    model = GameEvent
    fields = ("seq", "kind", "side", "dice", "play", "created")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "preset", "status", "phase", "version", "winner", "result_kind",
                    "result_points", "created")
    list_filter = ("status", "preset", "bot_level")
    search_fields = ("id", "white_guest", "black_guest")
    inlines = [GameEventInline]

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]

    def has_add_permission(self, request):
        return False
