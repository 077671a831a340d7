"""Knockout cups (sit-and-go): 4, 8 or 16 players, seeded by rating into a bracket
(``rules.bracket_seeds``); matches of the event's length with the ``match`` clock; the winner
of each match moves on, the losers of the semi-finals play for third place. A place nobody
holds gives its opponent a bye; a player who never makes their first move loses the match
(a no-show). The bracket advances by itself, in the Celery task (``advance``)."""

from games import clocks, ratings
from games.choices import other_side
from games.tournaments import play, rules
from games.tournaments.models import (
    Entrant,
    Pairing,
    PairingOutcome,
    PairingStatus,
    TournamentStatus,
)


def start(change, now_ms):
    """Draw the bracket of the cup from its entrants (seeds by rating, the earlier entry
    first among equals; missing players are byes for the top seeds), make every slot of every
    round, and mark it running; its first matches start in the next ``advance``."""
    tournament = change.tournament
    entrants = sorted(
        Entrant.objects.filter(tournament=tournament), key=lambda e: (-e.rating, e.joined, e.pk)
    )
    for seed, entrant in enumerate(entrants, start=1):
        entrant.seed = seed
        entrant.save(update_fields=["seed"])
    by_seed = {entrant.seed: entrant for entrant in entrants}
    size = tournament.size
    rounds = rules.rounds_of(size)
    order = rules.bracket_seeds(size)
    created = clocks.from_ms(now_ms)
    slots = []
    for slot in range(size // 2):
        slots.append(
            Pairing(
                tournament=tournament,
                round=1,
                slot=slot,
                white=by_seed.get(order[2 * slot]),
                black=by_seed.get(order[2 * slot + 1]),
                created=created,
            )
        )
    for round_number in range(2, rounds + 1):
        count = size // 2**round_number + (1 if round_number == rounds else 0)
        for slot in range(count):
            slots.append(
                Pairing(tournament=tournament, round=round_number, slot=slot, created=created)
            )
    Pairing.objects.bulk_create(slots)
    tournament.status = TournamentStatus.RUNNING
    tournament.started = created
    tournament.rounds = rounds
    change.mark()
    change.advance = True


def advance(change, now_ms):
    """Move the bracket on as far as it goes now: every waiting slot whose feeders are decided
    gets its players and starts its match, unless one of them is still in another game (it
    waits for them) or the site is full (``play.admitted``: it waits for room), or is decided
    at once (one player is a bye, none is an empty slot).
    Once the final and the match for third place are decided, the cup is over with its
    places. Returns the matches started."""
    tournament = change.tournament
    if tournament.status != TournamentStatus.RUNNING:
        return []
    play.room_again(change)
    slots = {
        (pairing.round, pairing.slot): pairing
        for pairing in Pairing.objects.filter(tournament=tournament).select_related(
            "white", "black", "winner"
        )
    }
    started = []
    for key in sorted(slots):
        pairing = slots[key]
        if pairing.status != PairingStatus.WAITING:
            continue
        sources = rules.feeders(pairing.round, pairing.slot, tournament.rounds)
        known = (pairing.white_id, pairing.black_id)
        if sources is not None:
            feeding = [slots[(r, s)] for r, s, _ in sources]
            if any(feeder.status != PairingStatus.DONE for feeder in feeding):
                continue
            pairing.white, pairing.black = (
                _winner(feeder) if which == "winner" else _loser(feeder)
                for feeder, (_r, _s, which) in zip(feeding, sources, strict=True)
            )
        present = pairing.entrants()
        if len(present) == 2:
            users = [entrant.user_id for entrant in present]
            play.lock_players(users)
            if play.busy(users, cup_matches=False) or not play.admitted(change, now_ms):
                # a player still in another game, or the site full: the match starts at a
                # later advance or tick; meanwhile no arena pairs them (``play.busy``)
                if (pairing.white_id, pairing.black_id) != known:
                    pairing.save(update_fields=["white", "black"])
                    change.mark()
                continue
            play.start_game(change, pairing, now_ms)
            started.append(pairing)
            continue
        pairing.winner = present[0] if present else None
        pairing.outcome = PairingOutcome.BYE if present else PairingOutcome.NONE
        pairing.status = PairingStatus.DONE
        pairing.finished = clocks.from_ms(now_ms)
        pairing.save()
        change.mark()
    final = slots[(tournament.rounds, 0)]
    third = slots[(tournament.rounds, 1)]
    if final.status == PairingStatus.DONE and third.status == PairingStatus.DONE:
        _finish(change, slots, now_ms)
    return started


def _winner(pairing):
    return pairing.winner


def _loser(pairing):
    """The player of a decided slot who did not win it (None after a bye or an empty slot)."""
    if pairing.outcome in (PairingOutcome.BYE, PairingOutcome.NONE):
        return None
    losers = [entrant for entrant in pairing.entrants() if entrant != pairing.winner]
    return losers[0] if losers else None


def record_result(change, pairing, game, winner_side, now_ms):
    """The match of ``pairing`` was decided in ``game``: its winner moves on (at the next
    ``advance``); both entrants have their new rating."""
    winner = play.entrant_of(pairing, game, winner_side)
    decide(change, pairing, winner, PairingOutcome.PLAYED, now_ms)


def record_no_show(change, pairing, side, now_ms):
    """The first game of ``pairing``'s match was aborted because ``side`` left it before its
    first play (never moved, resigned or left at once): that player loses the match, unrated
    (``turns.abort``)."""
    winner = play.entrant_of(pairing, pairing.game, other_side(side))
    decide(change, pairing, winner, PairingOutcome.NO_SHOW, now_ms)


def decide(change, pairing, winner, outcome, now_ms):
    """Mark ``pairing`` decided for ``winner`` by ``outcome`` and queue the bracket's advance."""
    pairing.winner = winner
    pairing.outcome = outcome
    pairing.status = PairingStatus.DONE
    pairing.finished = clocks.from_ms(now_ms)
    pairing.save()
    preset = change.tournament.preset
    for entrant in pairing.entrants():
        entrant.games += 1
        entrant.wins += int(entrant == winner)
        entrant.rating = ratings.rating_of(entrant.user_id, preset).rating
        entrant.save(update_fields=["games", "wins", "rating"])
    change.mark()
    change.advance = True


def _finish(change, slots, now_ms):
    """Every entrant's place: 1 and 2 from the final, 3 and 4 from the match for third place,
    then the players knocked out in each earlier round share the place after those still in
    (a cup of 8: 5th for the quarter-final losers). An entrant who made no play in the whole
    cup (every match won by byes and opponents who left at once) gets no place, so no podium
    can be handed over by accomplices (issue #30)."""
    tournament = change.tournament
    rounds = tournament.rounds
    places = {}
    for (round_number, slot), pairing in slots.items():
        if pairing.outcome != PairingOutcome.PLAYED and pairing.outcome != PairingOutcome.NO_SHOW:
            continue
        loser = _loser(pairing)
        if round_number == rounds:
            top = 1 if slot == 0 else 3
            places[pairing.winner.pk] = top
            places[loser.pk] = top + 1
        elif round_number < rounds - 1:
            places[loser.pk] = rules.elimination_place(tournament.size, round_number)
    for (round_number, slot), pairing in slots.items():
        # a bye in the last round: its player takes the place
        if round_number == rounds and pairing.outcome == PairingOutcome.BYE:
            places.setdefault(pairing.winner.pk, 1 if slot == 0 else 3)
    played = play.players_who_played(slots.values())
    for entrant in Entrant.objects.filter(tournament=tournament):
        entrant.place = places.get(entrant.pk) if entrant.user_id in played else None
        entrant.save(update_fields=["place"])
    tournament.status = TournamentStatus.FINISHED
    tournament.finished = clocks.from_ms(now_ms)
    change.mark()
