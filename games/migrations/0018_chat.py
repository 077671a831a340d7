# Chat in a game (games.chat): its rows, and a tournament's "no chat in its games".

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0017_quick_pairing"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="chat_off",
            field=models.BooleanField(default=False, verbose_name="no chat in its games"),
        ),
        migrations.CreateModel(
            name="ChatMessage",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("version", models.PositiveIntegerField()),
                (
                    "sender",
                    models.CharField(
                        choices=[
                            ("white", "White"),
                            ("black", "Black"),
                            ("spectator", "Spectator"),
                        ],
                        max_length=9,
                    ),
                ),
                ("guest", models.CharField(blank=True, max_length=64)),
                ("preset", models.CharField(blank=True, max_length=16)),
                ("text", models.CharField(blank=True, max_length=140)),
                ("created", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "game",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="chat_messages",
                        to="games.game",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["game", "pk"],
            },
        ),
        migrations.CreateModel(
            name="ChatMute",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "side",
                    models.CharField(
                        choices=[("white", "White"), ("black", "Black")], max_length=8
                    ),
                ),
                ("created", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "game",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="games.game",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="ChatReport",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("created", models.DateTimeField(default=django.utils.timezone.now)),
                ("handled", models.BooleanField(default=False, verbose_name="handled")),
                (
                    "message",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="reports",
                        to="games.chatmessage",
                    ),
                ),
                (
                    "reporter",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["handled", "-created"],
            },
        ),
        migrations.AddConstraint(
            model_name="chatmessage",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("preset", ""), models.Q(("text", ""), _negated=True)),
                    models.Q(models.Q(("preset", ""), _negated=True), ("text", "")),
                    _connector="OR",
                ),
                name="games_chatmessage_preset_or_text",
            ),
        ),
        migrations.AddConstraint(
            model_name="chatmessage",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("sender", "spectator"), _negated=True), ("text", ""), _connector="OR"
                ),
                name="games_chatmessage_spectators_send_presets",
            ),
        ),
        migrations.AddConstraint(
            model_name="chatmute",
            constraint=models.UniqueConstraint(
                fields=("game", "side"), name="games_chatmute_once_per_side"
            ),
        ),
        migrations.AddConstraint(
            model_name="chatreport",
            constraint=models.UniqueConstraint(
                fields=("message", "reporter"), name="games_chatreport_once_per_reporter"
            ),
        ),
    ]
