"""``manage.py create_tournament``: create an arena or a cup from the command line (the
admin does the same in a form), e.g. for a one-off event or the load tool.

    python manage.py create_tournament arena --preset sport --minutes 30 --starts-in 5
    python manage.py create_tournament cup --size 8 --match-length 5 [--starts-in 60]

Prints the event's id and its page's path; with ``--json`` one JSON object instead.
"""

import json
import math
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse
from django.utils import translation

from games import clocks, tournaments
from games.services import GameError

#: the latest start accepted (minutes from now)
YEAR = 366 * 24 * 60


class Command(BaseCommand):
    help = "Create a tournament: an arena or a knockout cup (games.tournaments.create)."

    def add_arguments(self, parser):
        parser.add_argument("kind", choices=("arena", "cup"))
        parser.add_argument("--preset", default=None, help="rules (a cup plays 'match')")
        parser.add_argument("--name", default="")
        parser.add_argument("--clock", default=None, help="clock kind (default: the rules')")
        parser.add_argument("--minutes", type=int, default=30, help="an arena's length")
        parser.add_argument(
            "--starts-in",
            type=float,
            default=None,
            help="minutes from now to the start (an arena: default 0; a cup: when full)",
        )
        parser.add_argument("--size", type=int, default=4, help="a cup's players")
        parser.add_argument("--match-length", type=int, default=3, help="a cup's match length")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **options):
        kind = options["kind"]
        now = clocks.from_ms(clocks.now_ms())
        starts_in = options["starts_in"]
        if starts_in is not None and not (math.isfinite(starts_in) and 0 <= starts_in <= YEAR):
            raise CommandError(f"--starts-in is minutes from now, from 0 to {YEAR} (a year)")
        starts_at = None if starts_in is None else now + timedelta(minutes=starts_in)
        if kind == "arena":
            extra = {"minutes": options["minutes"], "starts_at": starts_at or now}
            preset = options["preset"] or "sport"
        else:
            extra = {
                "size": options["size"],
                "match_length": options["match_length"],
                "starts_at": starts_at,
            }
            preset = options["preset"] or "match"
        try:
            event = tournaments.create(
                kind, preset, name=options["name"], clock_kind=options["clock"], **extra
            )
        except GameError as error:
            raise CommandError(error.message) from None
        with translation.override("en"):
            path = reverse("games:tournament", kwargs={"tournament_id": event.pk})
        if options["json"]:
            self.stdout.write(json.dumps({"id": str(event.pk), "path": path}))
        else:
            self.stdout.write(f"{event.pk} {path}")
