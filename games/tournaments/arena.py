"""Arena events (lichess-style): during a fixed time, entrants who are free are paired at once
with a free entrant of close score and rating (``rules.arena_pairs``); a win scores 2 points,
a mars or koks 3, doubled after two wins in a row. A win against a loser who made fewer than
``rules.MIN_LOSER_PLAYS`` plays scores nothing, and an entrant who aborts or loses so
``rules.QUICK_LOSS_LIMIT`` times is withdrawn (no farming of points by accomplices). A player
away at pairing time is marked away and skipped. Games under way at the end still count; the
standings freeze when the last of them ends."""

from games import clocks, ratings
from games.choices import EndReason, other_side
from games.services import playban
from games.tournaments import play, presence, rules
from games.tournaments.models import (
    Entrant,
    Pairing,
    PairingOutcome,
    PairingStatus,
    TournamentStatus,
    Withdrawal,
)


def start(change, now_ms):
    """The arena's start time has come: it runs, and its first pairings are made at once.
    Returns them."""
    tournament = change.tournament
    tournament.status = TournamentStatus.RUNNING
    tournament.started = clocks.from_ms(now_ms)
    change.mark()
    return pair(change, now_ms)


def pair(change, now_ms):
    """Pair every free entrant of the running arena who can be paired now (``now_ms``): in
    it, not busy (``play.busy``: in a game between people, or awaited by a cup's match), not
    closed to rated games, and with a page of the event open; an entrant whose pages are all
    gone is marked away and skipped. While the site is full (``play.admitted``) nobody is
    paired and the page says so.
    After the end time nobody is paired and the arena finishes once its last game is over.
    Returns the new pairings."""
    tournament = change.tournament
    if tournament.status != TournamentStatus.RUNNING:
        return []
    if now_ms >= clocks.to_ms(tournament.ends_at):
        finish_if_done(change, now_ms)
        return []
    play.room_again(change)
    busy: set[int | None] = set()
    for white_id, black_id in Pairing.objects.filter(
        tournament=tournament, status=PairingStatus.PLAYING
    ).values_list("white_id", "black_id"):
        busy.update((white_id, black_id))
    candidates = [
        entrant
        for entrant in Entrant.objects.filter(tournament=tournament, active=True, away=False)
        if entrant.pk not in busy
    ]
    if not candidates:
        return []
    users = [entrant.user_id for entrant in candidates]
    here = presence.here(tournament.pk, users, now_ms)
    play.lock_players(users)  # then nobody is paired here and elsewhere at once
    playing_elsewhere = play.busy(users)
    closed = playban.closed_to(set(users))
    free = []
    for entrant in candidates:
        if entrant.user_id not in here:
            entrant.away = True
            entrant.save(update_fields=["away"])
            change.mark()
        elif entrant.user_id not in playing_elsewhere and entrant.user_id not in closed:
            free.append(entrant)
    by_key = {entrant.pk: entrant for entrant in free}
    pairs = rules.arena_pairs(
        rules.Free(
            key=entrant.pk,
            score=entrant.score,
            rating=entrant.rating,
            last_opponent=_last_opponent_entrant(entrant, by_key),
            free_since=clocks.to_ms(entrant.free_since or entrant.joined),
        )
        for entrant in free
    )
    made = []
    for a, b in pairs:
        if not play.admitted(change, now_ms):
            break  # the site is full: the rest wait for the next tick
        first, second = by_key[a.key], by_key[b.key]
        pairing = Pairing(
            tournament=tournament,
            white=first,
            black=second,
            created=clocks.from_ms(now_ms),
        )
        play.start_game(change, pairing, now_ms, seat_by_colour=True)
        for entrant, opponent in ((first, second), (second, first)):
            entrant.last_opponent_id = opponent.user_id
            entrant.save(update_fields=["last_opponent"])
        made.append(pairing)
    return made


def _last_opponent_entrant(entrant, by_key):
    """The key (entrant pk) of ``entrant``'s last opponent among the free ones, or None."""
    for key, other in by_key.items():
        if other.user_id == entrant.last_opponent_id:
            return key
    return None


def record_result(change, pairing, game, winner_side, now_ms):
    """Score the decided game (or 1-point match) of ``pairing``, whose deciding game is
    ``game``: the winner gets ``rules.arena_points`` and their streak grows, the loser's
    streak ends; both have their new rating and are free again. If the loser made fewer than
    ``rules.MIN_LOSER_PLAYS`` plays the win scores nothing (outcome "short": no points, no win,
    the winner's streak as it was) and counts as the loser's quick loss (``_quick_loss``)."""
    winner = play.entrant_of(pairing, game, winner_side)
    loser = play.entrant_of(pairing, game, other_side(winner_side))
    counts = rules.scores(play.plays_of(game, loser.user_id))
    points = rules.arena_points(game.result_kind, winner.streak) if counts else 0
    if counts:
        winner.score += points
        winner.wins += 1
        winner.streak += 1
    else:
        _quick_loss(loser)
    loser.streak = 0
    tournament = change.tournament
    for entrant in (winner, loser):
        entrant.games += 1
        entrant.rating = ratings.rating_of(entrant.user_id, tournament.preset).rating
        entrant.free_since = clocks.from_ms(now_ms)
        entrant.save()
    if pairing.white_id == winner.pk:
        pairing.white_points = points
    else:
        pairing.black_points = points
    pairing.winner = winner
    pairing.outcome = PairingOutcome.PLAYED if counts else PairingOutcome.SHORT
    _done(pairing, now_ms)
    change.mark()
    change.advance = True


def record_abort(change, pairing, side, how, now_ms):
    """The game of ``pairing`` was aborted because ``side`` left before its first play
    (``how``: an ``EndReason``; "timeout" is a no-show): no points. A no-show is marked away
    (until their page is back or they resume); every abort is the side's quick loss
    (``_quick_loss``). The other player is free again."""
    game = pairing.game
    absent = play.entrant_of(pairing, game, side)
    present = play.entrant_of(pairing, game, other_side(side))
    if how == EndReason.TIMEOUT:
        absent.away = True
    _quick_loss(absent)
    absent.free_since = present.free_since = clocks.from_ms(now_ms)
    absent.save()
    present.save()
    pairing.outcome = PairingOutcome.NONE
    _done(pairing, now_ms)
    change.mark()
    change.advance = True


def _quick_loss(entrant):
    """Count a game ``entrant`` aborted or lost at once; at ``rules.QUICK_LOSS_LIMIT`` they are
    withdrawn from pairing, with the reason their page shows (not saved here)."""
    entrant.quick_losses += 1
    if rules.withdraws(entrant.quick_losses):
        entrant.active = False
        entrant.withdrawn = Withdrawal.QUICK_LOSSES


def _done(pairing, now_ms):
    pairing.status = PairingStatus.DONE
    pairing.finished = clocks.from_ms(now_ms)
    pairing.save()


def finish_if_done(change, now_ms):
    """After the end time, once no game of the arena is under way: it is over, and every
    entrant who played (and was not withdrawn) gets their place (points, then wins, then
    rating; equal entries share nothing: the earlier entry ranks first; an entrant without a
    game has no place). Returns True if it finished now."""
    tournament = change.tournament
    if tournament.status != TournamentStatus.RUNNING:
        return False
    if Pairing.objects.filter(tournament=tournament, status=PairingStatus.PLAYING).exists():
        return False
    # only those who played a game are ranked: an entry without one has no place, nor has one
    # the arena withdrew for games left at once (no podium for a farmer's accomplice)
    ranked = sorted(
        Entrant.objects.filter(tournament=tournament, games__gt=0, withdrawn=""),
        key=lambda e: (-e.score, -e.wins, -e.rating, e.joined, e.pk),
    )
    for place, entrant in enumerate(ranked, start=1):
        entrant.place = place
        entrant.save(update_fields=["place"])
    tournament.status = TournamentStatus.FINISHED
    tournament.finished = clocks.from_ms(now_ms)
    change.mark()
    return True
