"""Post-game analysis: every play of a finished game judged by the strongest search.

For each play the mover had a choice in (more than one legal play), the plays of that roll are
ranked by the expert level's search (``games.bots.judge``, on ``games.bots.search``): every
play at 0-ply, the best through a move filter at 1-ply (the opponent's 21 rolls) and 2-ply,
and the play actually made at every ply the search reaches. The best at the deepest ply is
"the best play"; the difference between its equity and the played play's is the equity lost.
Equities are cubeless points per game for the mover (oin 1, mars 2, koks 3 where the table has
koks; a play that bears off the last checker counts its exact R9 value), whatever the cube and
the match score.

Marks (``games.bots.judge.mark_of``): ``best`` (nothing lost), ``ok`` (less than
``MISTAKE``), ``mistake`` (at least ``MISTAKE``, 0.05 points), ``blunder`` (at least
``BLUNDER``, 0.12 points). A play with a single legal choice (including a pass) is
``forced`` and not analysed. The summary per side: plays analysed, best plays, mistakes,
blunders, the equity lost in total and per analysed play (the error rate).

The pure part (``analyse_record``) needs no database; the service part stores one
``GameAnalysis`` per game: ``request_analysis`` (on request, any finished game, one queued at a
time), ``queue_after_commit`` (the ``games.signals.game_finished`` receiver: games against the
computer) and
``run_analysis`` (the Celery task ``games.analyse_game``). Docs: docs/protocol.md "Analysis".
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from celery import current_app
from django.db import transaction
from django.db.models import Q
from django.dispatch import receiver
from django.urls import reverse
from django.utils import timezone

from games.bots.judge import BLUNDER, MISTAKE, analyse_play
from games.choices import Status
from games.engine import get_ruleset
from games.engine import record as rec
from games.room.models import AnalysisStatus, Game, GameAnalysis
from games.room.replays import game_record
from games.signals import game_finished

#: the Celery task of one analysis (games/tasks.py registers it under this name)
ANALYSE_GAME = "games.analyse_game"

#: bump when the method changes: a stored analysis of an older version may be requested again
ANALYSIS_VERSION = 3  # 3: the expert search (1-ply and 2-ply); 2: blocking-term inputs
#: the method, stored with every analysis
METHOD = (
    "expert search: 0-ply for every legal play, 1-ply for the best 8 within 0.4 points, 2-ply "
    "for the best 2 within 0.1, the play made at every ply; cubeless"
)
#: a pending or running analysis older than this (a lost task, a killed worker) may be queued again
STALE_AFTER = timedelta(minutes=10)
#: analyses go to the default queue's name + this (``analysis_queue``)
QUEUE_SUFFIX = "-analysis"

logger = logging.getLogger("games.analysis")


def empty_summary() -> dict:
    """One side's summary before any play: every count 0, ``error_rate`` None."""
    return {
        "analysed": 0,
        "forced": 0,
        "best": 0,
        "mistakes": 0,
        "blunders": 0,
        "lost": 0.0,
        "error_rate": None,
    }


def summarise(rows) -> dict:
    """``{"white": {...}, "black": {...}}`` from the rows of ``analyse_record``: plays
    ``analysed`` and ``forced``, ``best`` plays, ``mistakes``, ``blunders`` (a blunder is not
    also counted a mistake), equity ``lost`` in total and ``error_rate`` (lost per analysed
    play; None with none analysed), in points per game."""
    summary = {"white": empty_summary(), "black": empty_summary()}
    for row in rows:
        side = summary[row["side"]]
        if row["mark"] == "forced":
            side["forced"] += 1
            continue
        side["analysed"] += 1
        side["lost"] += row["lost"]
        side["best"] += row["mark"] == "best"
        side["mistakes"] += row["mark"] == "mistake"
        side["blunders"] += row["mark"] == "blunder"
    for side in summary.values():
        side["lost"] = round(side["lost"], 4)
        if side["analysed"]:
            side["error_rate"] = round(side["lost"] / side["analysed"], 4)
    return summary


def analyse_record(record):
    """Analyse every play of an engine ``Record`` (games.engine.record). Returns
    ``(rows, summary)``: one row per play in order, ``{"n", "side", "dice", "played"}`` plus
    the fields of ``analyse_play``, and ``summarise(rows)``. Raises RecordError for a record
    that is not a legal game."""
    replay = rec.replay(record)
    ruleset = get_ruleset(replay.ruleset)
    rows = []
    before = None
    for frame in replay.frames:
        if frame.kind == "roll":
            before = frame.position
        elif frame.kind == rec.PLAY:
            row = {"n": frame.n, "side": frame.side, "dice": list(frame.dice), "played": frame.play}
            row.update(analyse_play(before, frame.dice, frame.position, ruleset))
            rows.append(row)
    return rows, summarise(rows)


# --- the stored analysis of a game -----------------------------------------------------------


class AnalysisRefused(Exception):
    """The analysis of this game cannot be requested; ``code``: ``not_finished``."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def _stale(analysis, now) -> bool:
    since = analysis.started or analysis.requested
    return since is None or now - since > STALE_AFTER


def request_analysis(game_id):
    """Ask for the analysis of finished game ``game_id``. Returns ``(analysis, queued)``:
    the game's ``GameAnalysis`` and whether a task was queued (after the commit). Nothing is
    queued while one is pending or running (unless stale, ``STALE_AFTER``) or when a done
    analysis of ``ANALYSIS_VERSION`` exists. Raises ``Game.DoesNotExist``, and
    ``AnalysisRefused`` (code ``not_finished``) for a game in play or aborted."""

    now = timezone.now()
    with transaction.atomic():
        game = Game.objects.get(pk=game_id)
        if game.status != Status.FINISHED:
            raise AnalysisRefused("only a finished game can be analysed", "not_finished")
        analysis, created = GameAnalysis.objects.select_for_update().get_or_create(
            game=game, defaults={"status": AnalysisStatus.PENDING, "requested": now}
        )
        if not created:
            busy = analysis.status in (
                AnalysisStatus.PENDING,
                AnalysisStatus.RUNNING,
            ) and not _stale(analysis, now)
            current = (
                analysis.status == AnalysisStatus.DONE and analysis.version == ANALYSIS_VERSION
            )
            if busy or current:
                return analysis, False
            analysis.status = AnalysisStatus.PENDING
            analysis.requested = now
            analysis.started = None
            analysis.error = ""
            analysis.save(update_fields=["status", "requested", "started", "error"])
        game_key = str(game.pk)
        transaction.on_commit(lambda: _queue(game_key), robust=True)
    return analysis, True


def analysis_queue(app) -> str:
    """The Celery queue of analyses: the default queue's name + ``QUEUE_SUFFIX`` (``celery-
    analysis``), read by a worker of its own (scripts/run) so that a long analysis never keeps
    a bot move or the clock sweep waiting."""
    return app.conf.task_default_queue + QUEUE_SUFFIX


def _queue(game_id):
    current_app.send_task(
        ANALYSE_GAME, (game_id,), queue=analysis_queue(current_app), ignore_result=True
    )


@receiver(game_finished)
def queue_after_commit(sender, game, **kwargs):
    """``game_finished`` receiver, inside the transaction that finishes ``game``: a game
    against the computer has its analysis requested once the transaction has committed
    (``request_analysis``; errors are logged, never raised)."""
    if not game.bot_side:
        return
    game_id = game.pk
    transaction.on_commit(lambda: request_analysis(game_id), robust=True)


def run_analysis(game_id):
    """The task's work: analyse finished game ``game_id`` if its analysis is pending (or
    stale) and store the result (status ``done``, or ``failed`` with the error). Returns the
    ``GameAnalysis``, or None when there was nothing to do (done already, or running
    elsewhere): running it twice gives one analysis."""

    now = timezone.now()
    claimable = GameAnalysis.objects.filter(game_id=game_id).filter(_claimable(now))
    if not claimable.update(status=AnalysisStatus.RUNNING, started=now):
        return None
    analysis = GameAnalysis.objects.select_related("game").get(game_id=game_id)
    started = time.perf_counter()
    try:
        rows, summary = analyse_record(game_record(analysis.game))
    except Exception as exc:  # stored for the page; the worker carries on
        logger.exception("analysis of game %s failed", game_id)
        analysis.status = AnalysisStatus.FAILED
        analysis.error = f"{type(exc).__name__}: {exc}"[:500]
        analysis.finished = timezone.now()
        analysis.save(update_fields=["status", "error", "finished"])
        return analysis
    analysis.duration_ms = round((time.perf_counter() - started) * 1000)
    analysis.plays = rows
    analysis.summary = summary
    analysis.version = ANALYSIS_VERSION
    analysis.method = METHOD
    analysis.game_version = analysis.game.version
    analysis.status = AnalysisStatus.DONE
    analysis.finished = timezone.now()
    analysis.error = ""
    analysis.save()
    logger.info("analysis game=%s plays=%d ms=%d", game_id, len(rows), analysis.duration_ms)
    return analysis


def _claimable(now):
    """The rows a task may claim: pending, or pending/running since before ``STALE_AFTER``."""

    return Q(status=AnalysisStatus.PENDING) | Q(
        status=AnalysisStatus.RUNNING, started__lt=now - STALE_AFTER
    )


# --- what the replay page and the status view show --------------------------------------------


def state_of(game) -> dict:
    """The analysis of ``game`` as the replay page and the status view give it
    (docs/protocol.md "Analysis"): ``status`` (``none``, ``pending``, ``running``, ``done``,
    ``failed``), ``can_request`` (a request would queue one), ``request_url``, ``status_url``,
    ``thresholds`` ``{"mistake", "blunder"}`` (points), and when done ``plays`` (rows keyed by
    the play's turn number ``n``, as a string), ``summary``, ``method`` and ``duration_ms``."""
    analysis = GameAnalysis.objects.filter(game=game).first()
    status = analysis.status if analysis else "none"
    now = timezone.now()
    state = {
        "status": status,
        "can_request": game.status == Status.FINISHED
        and (
            analysis is None
            or analysis.status == AnalysisStatus.FAILED
            or (analysis.status == AnalysisStatus.DONE and analysis.version != ANALYSIS_VERSION)
            or (analysis.status != AnalysisStatus.DONE and _stale(analysis, now))
        ),
        "request_url": reverse("games:analysis_request", kwargs={"game_id": game.id}),
        "status_url": reverse("games:analysis_status", kwargs={"game_id": game.id}),
        "thresholds": {"mistake": MISTAKE, "blunder": BLUNDER},
    }
    if analysis and analysis.status == AnalysisStatus.DONE:
        state.update(
            {
                "plays": {str(row["n"]): row for row in analysis.plays},
                "summary": analysis.summary,
                "method": analysis.method,
                "duration_ms": analysis.duration_ms,
            }
        )
    return state


def attach(game, frames) -> dict:
    """``state_of(game)`` without its ``plays``: instead each play frame of ``frames``
    (replays.replay_frames) is given its row under ``"analysis"`` when the analysis is done."""
    state = state_of(game)
    plays = state.pop("plays", None) or {}
    for frame in frames:
        if frame["kind"] == rec.PLAY:
            row = plays.get(str(frame["n"]))
            if row is not None:
                frame["analysis"] = row
    return state
