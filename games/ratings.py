"""Ratings of rated games (Glicko-2, ``games.glicko2``), per account and R12 preset.

Part of the service layer: ``rate_result`` runs inside the transaction of
``games.services`` that ends a rated game (or a rated match), with the game row locked, so a
result changes both ratings exactly once or not at all. Aborted games are never rated.
"""

from django.db import transaction

from games import glicko2
from games.accounts.models import PlayerRating, RatingChange, RatingRefund
from games.choices import Side


def rating_of(user_id, preset):
    """The PlayerRating of account ``user_id`` in ``preset`` (an unsaved 1500/350/0.06 one if
    the account has no rated result in it yet)."""
    found = PlayerRating.objects.filter(user_id=user_id, preset=preset).first()
    return found or PlayerRating(user_id=user_id, preset=preset)


def _locked(user_ids, preset):
    """The two PlayerRating rows, created if missing and locked in user-id order (two games
    ending at once lock them in the same order, so they cannot deadlock)."""
    rows = {}
    for user_id in sorted(set(user_ids)):
        PlayerRating.objects.get_or_create(user_id=user_id, preset=preset)
        rows[user_id] = PlayerRating.objects.select_for_update().get(user_id=user_id, preset=preset)
    return rows


def rate_result(game, winner, match=None):
    """Rate the finished rated ``game`` (for a match: its last game, with the ``match``) won
    by ``winner`` ("white"/"black"): both accounts' ratings in the game's preset move by
    Glicko-2 (one game = one rating period) and a RatingChange is recorded for each. Does
    nothing for an unrated game, a game without two different accounts, one already rated,
    or a result one side reached without making a single play (a match its accomplice let go
    by resigning or by the clock: no rating without a game, issue #30). Returns the list of
    RatingChange rows made."""
    white_id, black_id = game.white_user_id, game.black_user_id
    if not game.rated or not white_id or not black_id or white_id == black_id:
        return []
    if RatingChange.objects.filter(game=game).exists():
        return []
    if not played_by_both(game, match):
        return []
    rows = _locked((white_id, black_id), game.preset)
    white, black = rows[white_id], rows[black_id]
    before = {Side.WHITE: white, Side.BLACK: black}
    states = {
        side: glicko2.Rating(row.rating, row.deviation, row.volatility)
        for side, row in before.items()
    }
    new_white, new_black = glicko2.rate_game(
        states[Side.WHITE], states[Side.BLACK], 1 if winner == Side.WHITE else 0
    )
    changes = []
    for side, row, new in ((Side.WHITE, white, new_white), (Side.BLACK, black, new_black)):
        won = side == winner
        changes.append(
            RatingChange(
                user_id=row.user_id,
                preset=game.preset,
                game=game,
                match=match,
                rating_before=row.rating,
                rating_after=new.rating,
                deviation_before=row.deviation,
                deviation_after=new.deviation,
                won=won,
            )
        )
        row.rating, row.deviation, row.volatility = new.rating, new.deviation, new.volatility
        row.games += 1
        row.wins += int(won)
        row.save()
    return RatingChange.objects.bulk_create(changes)


def played_by_both(game, match=None):
    """Whether each side made at least one play in ``game`` or, with its ``match``, in any game
    of the match."""
    return all(game.plays_by_side(whole_match=match is not None).values())


def refund_game(game_id, reason):
    """Give back the rating points rated result ``game_id`` moved (a boosted or thrown game
    found by staff, ``games.accounts.collusion``): each account's rating in the game's preset moves
    back by what the result changed it by (the winner loses what they gained, the loser
    regains what they lost), recorded as a ``RatingRefund``. The games played and won, the
    deviation and the volatility stay as they are. In one transaction; an account already
    refunded for the game is skipped, so running it twice changes nothing. Returns the
    RatingRefund rows made (empty for a game that was never rated)."""
    with transaction.atomic():
        changes = list(RatingChange.objects.filter(game_id=game_id))
        done = set(RatingRefund.objects.filter(game_id=game_id).values_list("user_id", flat=True))
        changes = [change for change in changes if change.user_id not in done]
        if not changes:
            return []
        preset = changes[0].preset
        rows = _locked([change.user_id for change in changes], preset)
        refunds = []
        for change in changes:
            row = rows[change.user_id]
            row.rating -= change.delta
            row.save(update_fields=["rating", "updated"])
            refunds.append(
                RatingRefund.objects.create(
                    user_id=change.user_id,
                    game_id=game_id,
                    preset=preset,
                    points=-change.delta,
                    reason=reason,
                )
            )
        return refunds


def changes_of(game):
    """The snapshot's ``result.rating``: ``{side: {"before", "after", "delta"}}`` (points,
    rounded) of a rated result that ended with this game, or None."""
    found = {change.user_id: change for change in game.rating_changes.all()}
    if not found:
        return None
    out = {}
    for side in Side.values:
        change = found.get(game.user_of(side))
        if change is not None:
            out[side] = {
                "before": round(change.rating_before),
                "after": round(change.rating_after),
                "delta": round(change.rating_after) - round(change.rating_before),
                "provisional": change.deviation_after > PlayerRating.PROVISIONAL_DEVIATION,
            }
    return out
