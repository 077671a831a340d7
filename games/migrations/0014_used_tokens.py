from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0013_telegram_links"),
    ]

    operations = [
        migrations.CreateModel(
            name="UsedToken",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.CharField(max_length=200, unique=True)),
                ("holder", models.CharField(blank=True, default="", max_length=200)),
                ("expires", models.DateTimeField(db_index=True)),
            ],
        ),
    ]
