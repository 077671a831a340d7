# Chat in a game (games.chat): its rows.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("games", "0017_quick_pairing")]

    operations = []
