"""``manage.py refund_ratings``: give back the rating points that chosen rated games moved (a
boosted or thrown game: issue #30, the admin's "Pairs of accounts"), each account once per
game (``ratings.refund_game``; a second run changes nothing).

    python manage.py refund_ratings GAME_ID [GAME_ID ...] --reason "boosting, ticket 12"
    python manage.py refund_ratings --between USER_ID USER_ID [--quick] [--dry-run]

Prints one line per account refunded; ``--dry-run`` lists the games and changes nothing.
"""

import uuid

from django.core.management.base import BaseCommand, CommandError

from games import ratings
from games.accounts import collusion
from games.accounts.models import RatingChange
from games.room.models import Game


class Command(BaseCommand):
    help = "Give back the rating points chosen rated games moved (games.ratings.refund_game)."

    def add_arguments(self, parser):
        parser.add_argument("games", nargs="*", help="ids of the rated games to refund")
        parser.add_argument(
            "--between",
            nargs=2,
            type=int,
            metavar="USER_ID",
            help="every rated game decided between these two accounts",
        )
        parser.add_argument(
            "--quick",
            action="store_true",
            help=f"with --between: only games decided within {collusion.QUICK_PLAYS} plays",
        )
        parser.add_argument("--reason", default="rating boosted between accounts")
        parser.add_argument("--dry-run", action="store_true", help="list, change nothing")

    def handle(self, *args, games, between, quick, reason, dry_run, **options):
        chosen = [self._game_id(text) for text in games]
        if between and not all(1 <= user_id < 2**63 for user_id in between):
            raise CommandError("an account id is a whole number from 1 to 2**63-1")
        if between:
            chosen += collusion.games_between(*between, quick=quick)
        elif quick:
            raise CommandError("--quick goes with --between")
        if not chosen:
            raise CommandError("no game chosen: give game ids or --between USER_ID USER_ID")
        if not reason.strip() or len(reason) > 200:
            raise CommandError("--reason is 1 to 200 characters")
        refunded = 0
        for game_id in dict.fromkeys(chosen):
            if dry_run:
                for change in RatingChange.objects.filter(game_id=game_id):
                    self.stdout.write(
                        f"game {game_id}: user {change.user_id} {change.delta:+.1f} "
                        f"(would give back {-change.delta:+.1f})"
                    )
                continue
            for refund in ratings.refund_game(game_id, reason.strip()):
                refunded += 1
                self.stdout.write(
                    f"game {game_id}: user {refund.user_id} {refund.points:+.1f} ({refund.preset})"
                )
        if not dry_run:
            self.stdout.write(f"{refunded} refund(s) made")

    def _game_id(self, text):
        try:
            game_id = uuid.UUID(text)
        except ValueError:
            raise CommandError(f"not a game id: {text!r}") from None
        if not Game.objects.filter(pk=game_id).exists():
            raise CommandError(f"no game {game_id}")
        return game_id
