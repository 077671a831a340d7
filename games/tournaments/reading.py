"""A tournament as its pages and sockets show it (docs/protocol.md "Tournaments"): one
``state`` frame, built once per change for every socket, and the words for an event."""

from django.db import models
from django.urls import reverse
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from games import clocks
from games.accounts import profiles
from games.choices import Preset
from games.tournaments import play, rules
from games.tournaments.models import (
    Entrant,
    Pairing,
    PairingStatus,
    Tournament,
    TournamentKind,
    TournamentStatus,
)


def title(tournament):
    """The event's name: its own, else made from its kind, rules and length or size
    ("Sport arena, 30 min", "Cup of 8, matches to 5 points"), in the active language."""
    if tournament.name:
        return tournament.name
    if tournament.kind == TournamentKind.ARENA:
        minutes = round((tournament.ends_at - tournament.starts_at).total_seconds() / 60)
        arenas = {
            Preset.SPORT: _("Sport arena, %(minutes)d min"),
            Preset.CLASSIC: _("Classic arena, %(minutes)d min"),
            Preset.MATCH: _("Match arena, %(minutes)d min"),
        }
        return arenas[tournament.preset] % {"minutes": minutes}
    return ngettext(
        "Cup of %(size)d, matches to %(points)d points",
        "Cup of %(size)d, matches to %(points)d points",
        tournament.size,
    ) % {"size": tournament.size, "points": tournament.match_length}


def standings(tournament):
    """The entrants in standing order: by final place once the event is over; else an arena
    by points, wins and rating, a cup by seed (then rating)."""
    entrants = list(Entrant.objects.filter(tournament=tournament))
    if tournament.status == TournamentStatus.FINISHED:
        return sorted(entrants, key=lambda e: (e.place or 10**6, -e.score, -e.rating, e.pk))
    if tournament.kind == TournamentKind.ARENA:
        return sorted(entrants, key=lambda e: (-e.score, -e.wins, -e.rating, e.joined, e.pk))
    return sorted(entrants, key=lambda e: (e.seed or 10**6, -e.rating, e.joined, e.pk))


def state(tournament_id, now_ms=None):
    """The ``tournament`` frame of event ``tournament_id``:

    ``{"type": "tournament", "id", "version", "kind", "status", "preset", "clock",
    "match_length", "size", "rounds", "starts_at", "ends_at", "full" (pairing or the next
    match waits because the site is full), "server_time" (ms since the
    epoch, or None), "entrants": n, "standings": [{"user", "name", "rating", "score",
    "games", "wins", "streak", "fire" (the next win counts double: only while it runs),
    "active", "withdrawn" (by the event, for quick losses), "away",
    "playing" (game id or None), "seed", "place", "last" (``last_result``
    of their last arena game, or None)}], "games": [{"game", "white", "black"}] (games being
    played, users),
    "bracket": [{"round", "slot", "white", "black", "winner", "outcome", "status", "game",
    "score": [white, black] or None}] (cups), "podium": [{"user", "name", "place"}]}``.
    Names are the players' own; nothing in it depends on a page's language (one frame is
    built for every socket). Raises Tournament.DoesNotExist."""
    now_ms = clocks.now_ms() if now_ms is None else now_ms
    tournament = Tournament.objects.get(pk=tournament_id)
    ranked = standings(tournament)
    pairings = list(
        Pairing.objects.filter(tournament=tournament)
        .select_related("white", "black", "winner", "match", "game")
        .order_by("round", "slot", "created")
    )
    names = profiles.names_of([entrant.user_id for entrant in ranked])
    running = tournament.status == TournamentStatus.RUNNING
    playing = {}
    last = {}
    games = []
    for pairing in pairings:
        if tournament.kind == TournamentKind.ARENA and pairing.status == PairingStatus.DONE:
            for entrant in pairing.entrants():
                last[entrant.pk] = last_result(pairing)  # in order made: the latest stays
        if pairing.status == PairingStatus.PLAYING and pairing.game_id:
            for entrant in pairing.entrants():
                playing[entrant.pk] = str(pairing.game_id)
            white, black = pairing.white, pairing.black
            assert white is not None and black is not None, "a game has both its players"
            games.append(
                {"game": str(pairing.game_id), "white": white.user_id, "black": black.user_id}
            )
    rows = [
        {
            "user": entrant.user_id,
            "name": names[entrant.user_id],
            "rating": round(entrant.rating),
            "score": entrant.score,
            "games": entrant.games,
            "wins": entrant.wins,
            "streak": entrant.streak,
            # a streak doubles only the wins still to come: none once the arena is over
            "fire": running and rules.on_fire(entrant.streak),
            "active": entrant.active,
            "withdrawn": bool(entrant.withdrawn),
            "away": entrant.away,
            "playing": playing.get(entrant.pk),
            "seed": entrant.seed,
            "place": entrant.place,
            "last": last.get(entrant.pk),
        }
        for entrant in ranked
    ]
    bracket = []
    if tournament.kind == TournamentKind.CUP:
        bracket = [bracket_row(pairing) for pairing in pairings if pairing.round is not None]
    finished = tournament.status == TournamentStatus.FINISHED
    return {
        "type": "tournament",
        "id": str(tournament.pk),
        "version": tournament.version,
        "kind": tournament.kind,
        "status": tournament.status,
        "preset": tournament.preset,
        "clock": tournament.clock_kind,
        "match_length": tournament.match_length,
        "size": tournament.size,
        "rounds": tournament.rounds,
        "starts_at": clocks.to_ms(tournament.starts_at),
        "ends_at": clocks.to_ms(tournament.ends_at),
        "full": tournament.full_since is not None,
        "server_time": now_ms,
        "entrants": len(ranked),
        "standings": rows,
        "games": games,
        "bracket": bracket,
        "podium": [
            {"user": row["user"], "name": row["name"], "place": row["place"]}
            for row in rows
            if finished and row["place"] is not None and row["place"] <= 3
        ],
    }


def bracket_row(pairing):
    """One slot of a cup's bracket as the ``state`` frame gives it; ``score`` is the match's
    score of its white and black entrants (the bracket's places, not the games' colours)."""
    match = pairing.match
    score = None
    if match is not None:
        score = [match.white_score, match.black_score]
        if pairing.game.white_user_id != pairing.white.user_id:
            score.reverse()
    return {
        "round": pairing.round,
        "slot": pairing.slot,
        "white": pairing.white.user_id if pairing.white else None,
        "black": pairing.black.user_id if pairing.black else None,
        "winner": pairing.winner.user_id if pairing.winner else None,
        "outcome": pairing.outcome,
        "status": pairing.status,
        "game": str(pairing.game_id) if pairing.game_id else None,
        "match": str(pairing.match_id) if pairing.match_id else None,
        "score": score,
    }


def last_result(pairing):
    """What a decided arena game scored: ``{"game", "winner" (user id, or None when
    aborted), "points" (the winner's arena points), "kind" ("oin", "mars", "koks" or None),
    "doubled" (the win streak doubled them)}``, as the arena recorded it."""
    winner = pairing.winner
    points = 0
    if winner is not None:
        points = pairing.white_points if winner.pk == pairing.white_id else pairing.black_points
    kind = pairing.game.result_kind if pairing.game and winner is not None else None
    return {
        "game": str(pairing.game_id) if pairing.game_id else None,
        "winner": winner.user_id if winner is not None else None,
        "points": points,
        "kind": kind or None,
        "doubled": bool(points and kind) and points > rules.arena_points(kind, 0),
    }


def result_text(result, names, viewer_user_id=None):
    """The arena's words for ``result`` (``last_result``), in the active language: "You score
    3 arena points for this mars." (the game's own points, "mars, 2 points", are not the
    arena's); "" for an aborted game. ``names``: {user id: name}. static/games/tournament.js
    says the same from the socket's frame."""
    if result["winner"] is None:
        return ""
    if not result["points"]:
        return _("This win scores no arena points: the game was too short to count.")
    values = {
        "name": names.get(result["winner"], ""),
        "points": result["points"],
        "kind": KIND_WORDS[result["kind"]]() if result["kind"] in KIND_WORDS else "",
    }
    if result["winner"] == viewer_user_id:
        text = ngettext(
            "You score %(points)s arena point for this %(kind)s.",
            "You score %(points)s arena points for this %(kind)s.",
            result["points"],
        )
    else:
        text = ngettext(
            "%(name)s scores %(points)s arena point for this %(kind)s.",
            "%(name)s scores %(points)s arena points for this %(kind)s.",
            result["points"],
        )
    text %= values
    if result["doubled"]:
        text += " " + _("Doubled by the win streak.")
    return text


#: the result kinds as a game's result names them
KIND_WORDS = {
    "oin": lambda: _("oin"),
    "mars": lambda: _("mars"),
    "koks": lambda: _("koks"),
}


def event_of_game(game, viewer_user_id=None):
    """For a game's page: ``{"url", "title", "ws_path", "running", "arena", "result"}`` of
    the event the game (or its match) belongs to, in the active language, or None.
    ``result`` is what an arena game scored in the arena (``result_text``, for account
    ``viewer_user_id``), "" until it is decided."""
    pairing = (
        (
            Pairing.objects.filter(match_id=game.match_id)
            if game.match_id
            else Pairing.objects.filter(game_id=game.pk)
        )
        .select_related("tournament", "winner", "game")
        .first()
    )
    if pairing is None:
        return None
    tournament = pairing.tournament
    arena = tournament.kind == TournamentKind.ARENA
    result = ""
    if arena and pairing.status == PairingStatus.DONE:
        names = profiles.names_of([pairing.winner.user_id]) if pairing.winner else {}
        result = result_text(last_result(pairing), names, viewer_user_id)
    return {
        "url": reverse("games:tournament", kwargs={"tournament_id": tournament.pk}),
        "title": title(tournament),
        "ws_path": f"/ws/tournament/{tournament.pk}/?lang={get_language()}",
        "running": tournament.status == TournamentStatus.RUNNING,
        "arena": arena,
        "result": result,
    }


#: how many podium places a player's page lists
PODIUMS_SHOWN = 20


def podiums_of(user_id):
    """The events account ``user_id`` finished in the top three, newest first (at most
    ``PODIUMS_SHOWN``): ``[{"place", "title", "url", "finished" (datetime)}]``, in the active
    language."""
    found = (
        Entrant.objects.filter(
            user_id=user_id, place__lte=3, tournament__status=TournamentStatus.FINISHED
        )
        .select_related("tournament")
        .order_by("-tournament__finished")[:PODIUMS_SHOWN]
    )
    return [
        {
            "place": entrant.place,
            "title": title(entrant.tournament),
            "url": reverse("games:tournament", kwargs={"tournament_id": entrant.tournament_id}),
            "finished": entrant.tournament.finished,
        }
        for entrant in found
    ]


def announcement(tournament_id, user_id):
    """The game of account ``user_id`` in the event that has just started and is still to be
    opened (no play made yet): ``{"game": <uuid>, "starts_at": ms}`` (its clock runs from
    then), or None. A page that connects after the pairing's message went out (it was loading)
    announces it from this."""
    pairing = (
        Pairing.objects.filter(tournament_id=tournament_id, status=PairingStatus.PLAYING)
        .filter(models.Q(white__user_id=user_id) | models.Q(black__user_id=user_id))
        .select_related("game")
        .first()
    )
    if pairing is None or pairing.game is None:
        return None
    game = pairing.match.latest_game() if pairing.match is not None else pairing.game
    if game.is_over or game.plays or game.match_number not in (None, 1):
        return None
    return {"game": str(game.pk), "starts_at": clocks.to_ms(pairing.created) + play.ANNOUNCE_MS}
