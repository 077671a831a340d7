"""Game.plays: the number of play events recorded, kept with the game so that an event's
history is numbered without counting the game's events after every change."""

from django.db import migrations, models
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce


def count_plays(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    GameEvent = apps.get_model("games", "GameEvent")
    counted = (
        GameEvent.objects.filter(game=OuterRef("pk"), kind="play")
        .order_by()
        .values("game")
        .annotate(n=Count("pk"))
        .values("n")
    )
    Game.objects.update(plays=Coalesce(Subquery(counted), 0))


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0006_hard_level"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="plays",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(count_plays, migrations.RunPython.noop),
    ]
