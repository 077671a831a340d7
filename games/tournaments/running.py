"""Running the events: the results of their games (received inside the transaction that
decides them), and the work of the Celery task and the beat tick: start what is due, pair
the arenas, advance the cups, finish what is over. Every step locks the event, so a task run
twice, a tick beside a task, or a process restarted in between pairs nobody twice."""

import logging

from django.db.models import Q
from django.dispatch import receiver

from games import clocks
from games.signals import game_aborted, result_decided
from games.tournaments import arena, cup, presence
from games.tournaments.models import (
    Pairing,
    PairingStatus,
    Tournament,
    TournamentKind,
    TournamentStatus,
)
from games.tournaments.unit import changing

logger = logging.getLogger(__name__)


@receiver(result_decided)
def record_result(sender, game, match, winner, **kwargs):
    """``result_decided`` receiver: if the game (or the match) belongs to a tournament, its
    result counts there, in the same transaction (so the standings never miss a result)."""
    own = {"match": match} if match is not None else {"game": game}
    pairing = Pairing.objects.filter(**own).first()
    if pairing is None:
        return
    now = clocks.now_ms()
    with changing(pairing.tournament_id) as change:
        pairing = Pairing.objects.select_related("white", "black").get(pk=pairing.pk)
        if pairing.status != PairingStatus.PLAYING:
            return
        if change.tournament.kind == TournamentKind.ARENA:
            arena.record_result(change, pairing, game, winner, now)
        else:
            cup.record_result(change, pairing, game, winner, now)


@receiver(game_aborted)
def record_abort(sender, game, side, how, **kwargs):
    """``game_aborted`` receiver: a tournament game (or a game of its match) aborted because
    ``side`` left before its first play (``how``: an ``EndReason``). In an arena it scores
    nothing; in a cup the aborting side loses the match (a no-show)."""
    own = {"match_id": game.match_id} if game.match_id else {"game": game}
    pairing = Pairing.objects.filter(**own).first()
    if pairing is None:
        return
    now = clocks.now_ms()
    with changing(pairing.tournament_id) as change:
        pairing = Pairing.objects.select_related("white", "black", "game").get(pk=pairing.pk)
        if pairing.status != PairingStatus.PLAYING:
            return
        if change.tournament.kind == TournamentKind.ARENA:
            arena.record_abort(change, pairing, side, how, now)
        else:
            cup.record_no_show(change, pairing, side, now)


def advance(tournament_id, now_ms=None):
    """Bring event ``tournament_id`` up to date at ``now_ms`` (default now): start it if its
    time has come, pair a running arena's free players (or finish it after its end), move a
    running cup's bracket on. Returns the pairings started. Raises Tournament.DoesNotExist."""
    now_ms = clocks.now_ms() if now_ms is None else now_ms
    with changing(tournament_id) as change:
        tournament = change.tournament
        due = tournament.starts_at is not None and clocks.to_ms(tournament.starts_at) <= now_ms
        if tournament.status == TournamentStatus.UPCOMING:
            if not due:
                return []
            if tournament.kind == TournamentKind.ARENA:
                return arena.start(change, now_ms)
            if tournament.entrants.count() >= 2:
                cup.start(change, now_ms)
            else:
                tournament.status = TournamentStatus.CANCELLED
                tournament.finished = clocks.from_ms(now_ms)
                change.mark()
                return []
        if tournament.kind == TournamentKind.ARENA:
            return arena.pair(change, now_ms)
        return cup.advance(change, now_ms)


def tick(now_ms=None):
    """The beat task's work: ``advance`` every event that is due to start or running, and
    forget the sockets that died unseen. Returns how many pairings it started."""
    now_ms = clocks.now_ms() if now_ms is None else now_ms
    presence.forget_stale(now_ms)
    ids = list(
        Tournament.objects.filter(
            Q(status=TournamentStatus.RUNNING)
            | Q(status=TournamentStatus.UPCOMING, starts_at__lte=clocks.from_ms(now_ms))
        ).values_list("pk", flat=True)
    )
    started = 0
    for tournament_id in ids:
        try:
            started += len(advance(tournament_id, now_ms))
        except Exception:
            logger.exception("tournament %s: the tick failed", tournament_id)
    return started
