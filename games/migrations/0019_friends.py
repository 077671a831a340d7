# Friends (games.friends): its rows.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("games", "0018_chat")]

    operations = []
