"""``manage.py telegram_setup``: point the bot at this site (games/telegram/setup.py): the
webhook, the menu button that opens the Mini App, the commands in every language.

    python manage.py telegram_setup                       # SITE_URL's origin
    python manage.py telegram_setup --origin https://nardy.example --menu-language ru
    python manage.py telegram_setup --remove              # delete the webhook

Needs ``TELEGRAM_BOT_TOKEN`` (README "Telegram").
"""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.http import Http404

from games.telegram import bot_api, setup


class Command(BaseCommand):
    help = "Set the Telegram bot's webhook, menu button and commands for this site."

    def add_arguments(self, parser):
        parser.add_argument("--origin", default="", help="https://host (default SITE_URL)")
        parser.add_argument(
            "--menu-language",
            default=None,
            choices=[code for code, _name in settings.LANGUAGES],
            help="language of the menu button's text (default LANGUAGE_CODE)",
        )
        parser.add_argument("--remove", action="store_true", help="delete the webhook")

    def handle(self, *args, origin, menu_language, remove, **options):
        try:
            if remove:
                done = setup.remove()
            else:
                done = setup.configure(origin or settings.SITE_URL, menu_language)
        except Http404:
            raise CommandError("TELEGRAM_BOT_TOKEN is not set: there is no bot to set up") from None
        except ValueError as error:
            raise CommandError(f"{error} (set SITE_URL or pass --origin)") from None
        except bot_api.BotApiError as error:
            raise CommandError(f"Telegram refused {error}") from None
        self.stdout.write("done: " + ", ".join(done))
