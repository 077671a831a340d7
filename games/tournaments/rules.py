"""The rules of the events, pure (no Django, no I/O): arena points, arena pairing and the
seeded knockout bracket. The tournaments service applies them to the database."""

from dataclasses import dataclass

#: arena points: a win, a win by mars or koks (RULES.md R9), and the streak that doubles
WIN_POINTS = 2
BIG_WIN_POINTS = 3
#: wins in a row after which every further win counts double (until a game is lost)
STREAK_FOR_DOUBLE = 2
#: an arena win scores only if the loser made at least this many plays (a game resigned at
#: once is no game: it gives no points, no win and no streak; issue #30)
MIN_LOSER_PLAYS = 5
#: arena games aborted or lost in fewer than MIN_LOSER_PLAYS plays after which an entrant is
#: withdrawn from pairing
QUICK_LOSS_LIMIT = 3
#: the sizes of a knockout cup and the lengths of its matches (RULES.md R11)
CUP_SIZES = (4, 8, 16)
CUP_MATCH_LENGTHS = (3, 5, 7)
#: the arena lengths offered (minutes); staff may set any length from 1 to ARENA_MAX_MINUTES
ARENA_MINUTES = (15, 30, 60)
ARENA_MAX_MINUTES = 24 * 60


def arena_points(result_kind, streak_before):
    """The points of an arena win: ``WIN_POINTS`` for oin, ``BIG_WIN_POINTS`` for mars or
    koks (``result_kind`` as ``Game.result_kind``), doubled when the winner had won
    ``STREAK_FOR_DOUBLE`` or more games in a row before this one. A loss scores 0."""
    points = WIN_POINTS if result_kind == "oin" else BIG_WIN_POINTS
    return points * 2 if streak_before >= STREAK_FOR_DOUBLE else points


def scores(loser_plays):
    """Whether an arena win counts: the loser made at least ``MIN_LOSER_PLAYS`` plays."""
    return loser_plays >= MIN_LOSER_PLAYS


def withdraws(quick_losses):
    """Whether an entrant with ``quick_losses`` games aborted or lost at once is withdrawn."""
    return quick_losses >= QUICK_LOSS_LIMIT


def on_fire(streak):
    """True when the next win counts double (``streak`` wins in a row so far)."""
    return streak >= STREAK_FOR_DOUBLE


@dataclass(frozen=True)
class Free:
    """An arena entrant free to play: ``key`` (any id), ``score`` (points), ``rating``,
    ``last_opponent`` (the key of their previous opponent, or None) and ``free_since`` (ms:
    who has waited longest is paired first among equals)."""

    key: object
    score: int
    rating: float
    last_opponent: object = None
    free_since: int = 0


def arena_pairs(free):
    """Pair the free entrants ``free`` (``Free`` items): ranked by score, then rating, each in
    turn is paired with the nearest one below it in that ranking who was not their last
    opponent (nor they theirs), so players meet others of close score and rating and never
    the same opponent twice in a row. Two left over who have just met swap partners with a
    pair already made when that seats everyone; a player left without a partner waits.
    Returns ``[(a, b)]`` (``Free`` items, a ranked above b)."""
    ranked = sorted(free, key=lambda p: (-p.score, -p.rating, p.free_since, str(p.key)))
    order = {player.key: n for n, player in enumerate(ranked)}
    taken: set[object] = set()
    pairs = []
    for i, player in enumerate(ranked):
        if player.key in taken:
            continue
        for other in ranked[i + 1 :]:
            if other.key not in taken and _may_meet(player, other):
                taken.update((player.key, other.key))
                pairs.append((player, other))
                break
    # Two left over who just met each other: swap partners with a pair made, if that seats
    # all four (A-B and C-D, C and D just played: A-C and B-D), rather than keep two waiting.
    left = [player for player in ranked if player.key not in taken]
    while len(left) >= 2:
        c, d = left[0], left[1]
        for n, (a, b) in enumerate(pairs):
            swapped = [(a, c), (b, d)] if _may_meet(a, c) and _may_meet(b, d) else None
            if swapped is None and _may_meet(a, d) and _may_meet(b, c):
                swapped = [(a, d), (b, c)]
            if swapped is not None:
                pairs[n : n + 1] = [
                    (x, y) if order[x.key] < order[y.key] else (y, x) for x, y in swapped
                ]
                break
        else:
            break
        left = left[2:]
    return pairs


def _may_meet(a, b):
    """Whether ``a`` and ``b`` (``Free``) may be paired: neither was the other's last opponent."""
    return a.key != b.last_opponent and b.key != a.last_opponent


def rounds_of(size):
    """The number of rounds of a cup of ``size`` (4 -> 2, 8 -> 3, 16 -> 4). Raises
    ValueError for a size that is not a power of two from 2 on."""
    if size < 2 or size & (size - 1):
        raise ValueError(f"a bracket has a power of two of places, not {size}")
    return size.bit_length() - 1


def bracket_seeds(size):
    """The seeds in bracket order for a cup of ``size`` places: the first round's pairs are
    consecutive items, and the best seeds meet as late as possible (4 -> [1, 4, 2, 3],
    8 -> [1, 8, 4, 5, 2, 7, 3, 6]). Raises ValueError as ``rounds_of``."""
    rounds_of(size)
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


def elimination_place(size, round_number):
    """The place of a player knocked out in ``round_number`` (1 = the first) of a cup of
    ``size`` before the semi-finals: they share it with the others out in that round (a cup
    of 8: 5th, for the quarter-final losers)."""
    return 2 ** (rounds_of(size) - round_number) + 1


def feeders(round_number, slot, rounds):
    """Where the players of bracket slot (``round_number``, ``slot``) come from, in a cup of
    ``rounds`` rounds: ``[(round, slot, "winner"|"loser"), (…)]`` for white and black, or
    None in the first round (drawn). In the last round slot 0 is the final (the winners of
    the semi-finals) and slot 1 the match for third place (their losers)."""
    if round_number == 1:
        return None
    if round_number == rounds and slot == 1:
        return [(rounds - 1, 0, "loser"), (rounds - 1, 1, "loser")]
    return [(round_number - 1, 2 * slot, "winner"), (round_number - 1, 2 * slot + 1, "winner")]
