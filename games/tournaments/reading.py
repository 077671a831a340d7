"""A tournament as its pages and sockets show it (docs/protocol.md "Tournaments"): one
``state`` frame, built once per change for every socket, and the words for an event."""

from django.utils.translation import gettext as _

from games import clocks, profiles
from games.models import (
    Entrant,
    Pairing,
    PairingStatus,
    Preset,
    Tournament,
    TournamentKind,
    TournamentStatus,
)
from games.tournaments import rules


def title(tournament):
    """The event's name: its own, else made from its kind, rules and length or size
    ("Sport arena, 30 min", "Match cup of 8, to 5 points"), in the active language."""
    if tournament.name:
        return tournament.name
    preset = Preset(tournament.preset).label
    if tournament.kind == TournamentKind.ARENA:
        minutes = round((tournament.ends_at - tournament.starts_at).total_seconds() / 60)
        return _("%(rules)s arena, %(minutes)d min") % {"rules": preset, "minutes": minutes}
    return _("%(rules)s cup of %(size)d, to %(points)d points") % {
        "rules": preset,
        "size": tournament.size,
        "points": tournament.match_length,
    }


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

    ``{"type": "tournament", "id", "version", "kind", "status", "title", "preset", "clock",
    "match_length", "size", "rounds", "starts_at", "ends_at", "server_time" (ms since the
    epoch, or None), "entrants": n, "standings": [{"user", "name", "rating", "score",
    "games", "wins", "streak", "fire", "active", "away", "playing" (game id or None),
    "seed", "place"}], "games": [{"game", "white", "black"}] (games being played, users),
    "bracket": [{"round", "slot", "white", "black", "winner", "outcome", "status", "game",
    "score": [white, black] or None}] (cups), "podium": [{"user", "name", "place"}]}``.
    Raises Tournament.DoesNotExist."""
    now_ms = clocks.now_ms() if now_ms is None else now_ms
    tournament = Tournament.objects.get(pk=tournament_id)
    ranked = standings(tournament)
    pairings = list(
        Pairing.objects.filter(tournament=tournament)
        .select_related("white", "black", "winner", "match")
        .order_by("round", "slot", "created")
    )
    names = profiles.names_of([entrant.user_id for entrant in ranked])
    playing = {}
    games = []
    for pairing in pairings:
        if pairing.status == PairingStatus.PLAYING and pairing.game_id:
            for entrant in pairing.entrants():
                playing[entrant.pk] = str(pairing.game_id)
            games.append(
                {
                    "game": str(pairing.game_id),
                    "white": pairing.white.user_id,
                    "black": pairing.black.user_id,
                }
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
            "fire": rules.on_fire(entrant.streak),
            "active": entrant.active,
            "away": entrant.away,
            "playing": playing.get(entrant.pk),
            "seed": entrant.seed,
            "place": entrant.place,
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
        "title": title(tournament),
        "preset": tournament.preset,
        "clock": tournament.clock_kind,
        "match_length": tournament.match_length,
        "size": tournament.size,
        "rounds": tournament.rounds,
        "starts_at": clocks.to_ms(tournament.starts_at),
        "ends_at": clocks.to_ms(tournament.ends_at),
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
    """One slot of a cup's bracket as the ``state`` frame gives it."""
    match = pairing.match
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
        "score": [match.white_score, match.black_score] if match else None,
    }
