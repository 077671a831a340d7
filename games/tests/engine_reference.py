"""A deliberately naive, independent reading of RULES.md R4–R8 for cross-checking the engine.

It enumerates every ordering of every die over every checker with plain loops and checks R7 by
looking at all six-point windows, so it shares no code (and no cleverness) with games.engine.
"""

from games.engine import mirror

# The mover's points in the order the opponent walks them (RULES.md R7).
OPP_PATH = list(range(12, 0, -1)) + list(range(24, 12, -1))


def _has_forbidden_block(me, opp):
    for start in range(19):
        window = OPP_PATH[start : start + 6]
        if all(me[p] for p in window):
            # Opponent checkers on points it reaches after the window, or borne off.
            after = OPP_PATH[start + 6 :]
            ahead = opp[0] > 0 or any(opp[mirror(p)] for p in after)
            if not ahead:
                return True
    return False


def _single_steps(me, opp, die, head_moves, head_limit):
    for p in range(1, 25):
        if not me[p]:
            continue
        if p == 24 and head_moves >= head_limit:
            continue
        t = p - die
        nb = list(me)
        if t >= 1:
            if opp[mirror(t)]:
                continue
            nb[p] -= 1
            nb[t] += 1
            # Only a newly made run counts: a block standing before this step is the opponent's
            # concern (it cannot arise in play) and is not re-judged.
            if not me[t] and _has_forbidden_block(nb, opp) and not _has_forbidden_block(me, opp):
                continue
        else:
            if any(me[q] for q in range(7, 25)):
                continue
            if t < 0 and any(me[q] for q in range(p + 1, 7)):
                continue
            nb[p] -= 1
            nb[0] += 1
        yield (p, max(t, 0)), tuple(nb), head_moves + (p == 24)


def reference_results(me, opp, dice, first_turn):
    """The set of legal resulting boards of the mover (RULES.md R4–R8, R6 by brute force)."""
    a, b = dice
    head_limit = 2 if first_turn and a == b and a in (3, 4, 6) else 1
    orders = [[a] * 4] if a == b else [[a, b], [b, a]]
    found = []  # (dice used list, board)

    def walk(board, remaining, used, head_moves):
        found.append((tuple(used), board))
        if not remaining:
            return
        for _step, nb, hm in _single_steps(board, opp, remaining[0], head_moves, head_limit):
            walk(nb, remaining[1:], used + [remaining[0]], hm)

    for order in orders:
        walk(me, order, [], 0)
    most = max(len(u) for u, _ in found)
    best = [(u, bd) for u, bd in found if len(u) == most]
    if most == 1 and a != b:
        larger = [(u, bd) for u, bd in best if u[0] == max(a, b)]
        best = larger or best
    return {bd for _, bd in best}
