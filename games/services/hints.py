"""Hints in casual games against the computer (docs/protocol.md "Hints", issue #17): the best
play of the roll the player is to play, and, after the player's play, how much equity it lost
against the best. Both come from the strongest search (the ``expert`` level's, the one the
post-game analysis uses: ``games.bots.judge``) and are read only: they change nothing.

Offered to the human player of a game against the computer that is not rated
(``Game.offers_hints``); never in games between people (rated or not) and never to onlookers.
A socket's question is checked at once (``ask``); the search, up to ``neural.EXPERT_CAP_S`` of
CPU, runs in a Celery worker (the task ``games.hint`` calls ``answer``), not in the web process,
and its answer goes to the asking socket's channel. An answer is kept in the cache for
``CACHE_SECONDS`` (a hint by game and version, a judgement by the play's event), so asking
again is answered at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from django.core.cache import cache
from django.utils import translation
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from games.bots import judge, neural
from games.bots.judge import PlayAnalysis
from games.choices import EventKind
from games.engine import Position, Ruleset, check_play, legal_plays
from games.room.models import Game
from games.services import dispatch
from games.services.actors import Actor
from games.services.errors import GameError
from games.services.legal import check_to_play, dice_to_play

#: how long an answer stays in the cache (seconds)
CACHE_SECONDS = 600
#: how long a question is taken as on its way (seconds): the task's own expiry
PENDING_SECONDS = dispatch.HINT_EXPIRES_S
#: plays listed in a hint, best first
LISTED = 3
#: the two questions: a hint for the roll to play, a judgement of the latest play
HINT, JUDGE = "hint", "judge"


class NoHints(GameError):
    """Hints are not offered to this viewer in this game (rated, between people, or an
    onlooker)."""

    code = "no_hints"


class TooManyHints(GameError):
    """The visitor asked for more hint searches than its limits allow lately
    (``GAMES_HINT_SESSION_LIMITS``, ``GAMES_HINT_IP_LIMITS``); the message says how long to
    wait, ``retry_after`` in how many seconds (a float > 0; the page counts it down on its
    Hint button). Unlike ``rate_limited`` it holds back no other frame."""

    code = "too_many_hints"

    def __init__(
        self, message: str, retry_after: float | None = None, version: int | None = None
    ) -> None:
        super().__init__(message, version)
        self.retry_after = retry_after


class NothingToJudge(GameError):
    """The viewer has made no play in this game yet."""

    code = "nothing_to_judge"


def two_decimals(value: float) -> str:
    """``value`` rounded to two decimals, in the active language's format (``0.15``,
    ``0,15``; Django's number_format alone would cut 0.148 to 0.14)."""
    return number_format(round(value, 2), 2)


def points(value: float) -> str:
    """An equity in points with its sign and two decimals, in the active language's format
    (``+0.23``, ``−0,12``, ``0.00``)."""
    shown = round(value, 2)
    sign = "+" if shown > 0 else ("\u2212" if shown < 0 else "")
    return sign + two_decimals(abs(value))


def hint(game: Game, viewer: Actor | str | None) -> dict[str, Any]:
    """The docs/protocol.md ``hint`` frame for ``viewer``, searched now (in this process): the
    best plays of the roll the viewer is to play. ``{"type": "hint", "version", "best"
    (notation, the mover's numbering), "plays": [{"play", "equity" (points per game,
    cubeless), "ply"}] (best first, at most ``LISTED``, measured at the deepest ply the search
    reached), "forced" (one legal play), "message"}``. Raises NoHints, GameOver, NotYourTurn
    or WrongPhase (roll first)."""
    return _hint_frame(game, _side_with_hints(game, viewer))


def judge_last_play(game: Game, viewer: Actor | str | None) -> dict[str, Any]:
    """The docs/protocol.md ``judged`` frame for ``viewer``, searched now (in this process):
    the viewer's latest play against the best play of that roll, as the post-game analysis
    judges it. ``{"type": "judged", "version", "seq" (the play's event), "played", "best",
    "lost" (points, >= 0), "mark" (games.room.analysis marks: forced, best, ok, mistake,
    blunder), "message"}``. Raises NoHints, or NothingToJudge before the viewer's first
    play."""
    return _judged_frame(game, _side_with_hints(game, viewer))


def ask(
    game: Game,
    viewer: Actor | str | None,
    kind: str,
    channel_name: str,
    language: str,
    count_search: Callable[[], object] | None = None,
) -> dict[str, Any] | None:
    """A socket's question ``kind`` (``HINT`` or ``JUDGE``) about ``game`` from ``viewer``:
    checked now (raises as ``hint`` and ``judge_last_play`` do). Returns the frame when the
    answer is in the cache; otherwise queues the task ``games.hint``, which sends the frame,
    worded in ``language``, to the socket's channel ``channel_name`` as a ``hint.answer``
    message, and returns None. The same question from the same socket while its search is
    queued or running queues nothing more (the answer comes once). ``count_search()`` is called
    before a search is queued (the consumer counts a hint against the hint limits, a
    judgement against its own); it may raise TooManyHints, and then nothing is queued."""
    side = _side_with_hints(game, viewer)
    if kind == HINT:
        check_to_play(game, side)
        key, frame = _hint_key(game), lambda: _hint_frame(game, side)
    else:
        last = _last_play(game, side)
        key, frame = _judge_key(game, last[0]), lambda: _judged_frame(game, side, last)
    if cache.get(key) is not None:
        return frame()
    if not cache.add(f"{key}:asked:{channel_name}", True, PENDING_SECONDS):
        return None  # asked already: its answer is on the way
    if count_search is not None:
        try:
            count_search()
        except TooManyHints:
            cache.delete(f"{key}:asked:{channel_name}")
            raise
    dispatch.send_hint_question(kind, game.pk, side, channel_name, language)
    return None


def answer(kind: str, game_id: UUID | str, side: str, channel_name: str, language: str) -> None:
    """The task ``games.hint``: search the answer to a question ``ask`` queued and send it to
    the socket's channel, worded in ``language`` (an ``error`` frame if the game moved on so
    that the question no longer applies: no longer the player's turn, the game over). A game
    that is gone gets no answer."""
    try:
        game = Game.objects.get(pk=game_id)
    except Game.DoesNotExist:
        return
    with translation.override(language):
        try:
            frame = (_hint_frame if kind == HINT else _judged_frame)(game, side)
        except GameError as error:
            frame = {
                "type": "error",
                "code": error.code,
                "message": str(error.message),
                "version": game.version,
            }
    dispatch.send_to_socket(channel_name, {"type": "hint.answer", "frame": frame})


def _side_with_hints(game: Game, viewer: Actor | str | None) -> str:
    side = game.side_of(viewer)
    if not game.offers_hints(side):
        raise NoHints(
            _("Hints are given only to the player of a casual game against the computer."),
            game.version,
        )
    return side


def _hint_key(game: Game) -> str:
    return f"nardy-hint:{game.pk}:{game.version}"


def _judge_key(game: Game, seq: int) -> str:
    return f"nardy-judged:{game.pk}:{seq}"


def _hint_frame(game: Game, side: str) -> dict[str, Any]:
    check_to_play(game, side)
    key = _hint_key(game)
    found = cache.get(key)
    if found is None:
        found = _best_plays(game.get_position(), dice_to_play(game), game.ruleset)
        cache.set(key, found, CACHE_SECONDS)
    best = found["plays"][0]
    if found["forced"]:
        message = _("Only one play is possible: %(play)s.") % {"play": best["play"] or "—"}
    else:
        message = _("The best play: %(play)s (equity %(equity)s).") % {
            "play": best["play"],
            "equity": points(best["equity"]),
        }
    return {
        "type": "hint",
        "version": game.version,
        "best": best["play"],
        **found,
        "message": message,
    }


def _best_plays(position: Position, dice: Sequence[int], ruleset: Ruleset) -> dict[str, Any]:
    plays = legal_plays(position, dice, ruleset)
    if len(plays) == 1:
        return {"forced": True, "plays": [{"play": plays[0].notation, "equity": None, "ply": 0}]}
    ranked = neural.rank_expert(position, plays, cap_s=neural.EXPERT_CAP_S)
    deepest = ranked.plies[ranked.index]
    order = sorted(
        (i for i, ply in enumerate(ranked.plies) if ply == deepest),
        key=lambda i: (i != ranked.index, -ranked.scores[i]),
    )
    listed = [
        {"play": plays[i].notation, "equity": round(ranked.scores[i], 3), "ply": deepest}
        for i in order[:LISTED]
    ]
    return {"forced": False, "plays": listed}


def _last_play(game: Game, side: str) -> tuple[int, Any, str]:
    """``(seq, dice, play)`` of ``side``'s latest play. Raises NothingToJudge before its
    first play."""
    last = (
        game.events.filter(kind=EventKind.PLAY, side=side)
        .order_by("-seq")
        .values_list("seq", "dice", "play")
        .first()
    )
    if last is None:
        raise NothingToJudge(_("You have not played yet."), game.version)
    return last


def _judged_frame(
    game: Game, side: str, last: tuple[int, Any, str] | None = None
) -> dict[str, Any]:
    seq, dice, played = last or _last_play(game, side)
    key = _judge_key(game, seq)
    found = cache.get(key)
    if found is None:
        before = game.replay(before_seq=seq)
        after = check_play(before, tuple(dice), played, game.ruleset).result
        found = judge.analyse_play(
            before, tuple(dice), after, game.ruleset, cap_s=neural.EXPERT_CAP_S
        )
        cache.set(key, found, CACHE_SECONDS)
    return {
        "type": "judged",
        "version": game.version,
        "seq": seq,
        "played": played,
        "best": found.get("best", played),
        "lost": found.get("lost", 0.0),
        "mark": found["mark"],
        "message": _judgement(found),
    }


def _judgement(found: PlayAnalysis) -> str:
    if found["mark"] == "forced":
        return _("That play was forced: there was no other.")
    if found["mark"] == "best":
        return _("That was the best play.")
    if found["lost"] < 0.005:
        return _("That play lost less than 0.01 points; the best was %(best)s.") % {
            "best": found["best"]
        }
    return _("That play lost %(lost)s points; the best was %(best)s.") % {
        "lost": two_decimals(found["lost"]),
        "best": found["best"],
    }
