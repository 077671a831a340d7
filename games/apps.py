from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = _("Games")

    def ready(self):
        # connects the signal receivers: accounts (profile on sign-up, guest games on sign-in),
        # analysis (games against the computer are analysed once over), collusion (where a
        # player signs in from), tournaments (the results of their games), the friends'
        # notices (their challenges answered or withdrawn) and the Telegram notices
        from games import tournaments  # noqa: F401
        from games.accounts import collusion, sign_in  # noqa: F401
        from games.friends import challenges  # noqa: F401
        from games.room import analysis  # noqa: F401
        from games.telegram import notices  # noqa: F401
