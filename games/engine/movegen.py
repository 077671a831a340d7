"""Legal plays (RULES.md R4–R8, Notation).

Everything here works from the side to move's point of view: ``me`` is its board and the
opponent is seen through ``opp_here`` (does the opponent hold my point p?) and ``opp_front``
(the opponent's most advanced point in its own numbering, 0 once it has borne off a checker),
which is all R7 needs to know.

The search expands the roll one die at a time, breadth first, merging partial plays that reach
the same board with the same dice left, so each distinct result is found once.
"""
from __future__ import annotations

from typing import NamedTuple

from .errors import DiceError, IllegalPlay, NotationError
from .notation import OFF, format_play, format_step, parse_play
from .position import CHECKERS, HEAD, Position, mirror, other
from .rules import get_ruleset

# R7: order of the mover's points along the opponent's path (opponent 24 -> 1), i.e.
# 12, 11, …, 1, 24, 23, …, 13. The mover's 1|24 joint is inside, its 13|12 joint is not.
PATH_POINT = tuple(12 - i if i < 12 else 36 - i for i in range(24))
PATH_INDEX = (None,) + tuple(12 - p if p <= 12 else 36 - p for p in range(1, 25))
EXCEPTION_DOUBLES = (3, 4, 6)  # R5: two head checkers on a first turn


class Play(NamedTuple):
    """One legal play: ``steps`` (tuple of ``(from, to)``, ``to == 0`` is off, in the order
    played) and ``result``, the Position after it with the turn passed to the opponent."""

    steps: tuple
    result: Position

    @property
    def notation(self) -> str:
        """The play in RULES.md notation, e.g. ``"24/18 18/13"``; ``""`` for a pass."""
        return format_play(self.steps)


def check_dice(dice) -> tuple:
    """Validate a roll: two integers from 1 to 6. Returns it as a tuple; raises DiceError."""
    try:
        a, b = dice
    except (TypeError, ValueError):
        raise DiceError("dice must be two numbers from 1 to 6") from None
    for d in (a, b):
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
            raise DiceError(f"a die shows 1 to 6, not {d!r}")
    return (a, b)


def _context(pos: Position):
    """``(opp_here, front)`` for the side to move: ``opp_here[p]`` is the opponent's checker
    count on the mover's point p (R1: the opponent's p+12, or p-12), ``front`` the opponent's
    lowest occupied point in its own numbering, 0 once it has borne off a checker (R7)."""
    opp = pos.board(other(pos.turn))
    opp_here = (0,) + opp[13:25] + opp[1:13]
    front = 0
    if not opp[0]:
        for q in range(1, 25):
            if opp[q]:
                front = q
                break
    return opp_here, front


def _makes_block(board, t: int, opp_front: int) -> bool:
    """R7: after landing on the newly taken point ``t``, does ``board`` hold six or more points
    in a row along the opponent's path with no opponent checker ahead of them?"""
    k = PATH_INDEX[t]
    lo = k
    while lo > 0 and board[PATH_POINT[lo - 1]]:
        lo -= 1
    hi = k
    while hi < 23 and board[PATH_POINT[hi + 1]]:
        hi += 1
    # An opponent checker on its point q < 24 - hi (or off, front 0) is past the run.
    return hi - lo >= 5 and opp_front >= 24 - hi


def head_limit(pos: Position, dice) -> int:
    """R5: how many checkers may leave the head this turn (2 on a first turn with 6-6, 4-4, 3-3)."""
    a, b = dice
    return 2 if pos.first_turn and a == b and a in EXCEPTION_DOUBLES else 1


def _moved(board, p: int, t: int) -> tuple:
    """``board`` after one checker goes from ``p`` to ``t`` (0 = off)."""
    nb = list(board)
    nb[p] -= 1
    nb[t] += 1
    return tuple(nb)


def _gen(b, die: int, opp_here, front: int, from_head: bool) -> list:
    """Every legal single step ``(from, to)`` with ``die`` from the mutable board ``b``: R4
    moving, R5 head (``from_head``: may a checker still leave point 24), R7 block, R8 bearing
    off. ``b`` is changed while checking R7 and restored before returning. This is the one place
    the single-step rules live: legal_plays walks it depth first on one board, _Search (for
    step_graph and check_play) breadth first."""
    out = []
    home = not any(b[7:])
    for p in range(6 if home else 24 if from_head else 23, die, -1):
        if b[p] and not opp_here[p - die]:
            t = p - die
            if b[t] or not front:
                out.append((p, t))
            else:
                b[p] -= 1
                blocked = _makes_block(b, t, front)
                b[p] += 1
                if not blocked:
                    out.append((p, t))
    if not home:
        return out
    if b[die]:
        out.append((die, OFF))
    elif not any(b[die + 1:7]):
        for p in range(die - 1, 0, -1):
            if b[p]:
                out.append((p, OFF))
                break
    return out


def _plays_mixed(me, a: int, b: int, opp_here, front: int) -> dict:
    """``{result board: steps}`` for a non-double roll (R6: both dice if possible, else the
    larger if possible, else the smaller). At most one head checker (R5)."""
    board = list(me)
    two = {}
    one = {a: {}, b: {}}
    for d1, d2 in ((a, b), (b, a)):
        for p1, t1 in _gen(board, d1, opp_here, front, True):
            board[p1] -= 1
            board[t1] += 1
            nxt = _gen(board, d2, opp_here, front, p1 != HEAD)
            for p2, t2 in nxt:
                board[p2] -= 1
                board[t2] += 1
                key = tuple(board)
                if key not in two:
                    two[key] = ((p1, t1), (p2, t2))
                board[p2] += 1
                board[t2] -= 1
            if not nxt and not two:
                key = tuple(board)
                if key not in one[d1]:
                    one[d1][key] = ((p1, t1),)
            board[p1] += 1
            board[t1] -= 1
    if two:
        return two
    return one[max(a, b)] or one[min(a, b)]


def _plays_double(me, die: int, opp_here, front: int, limit: int) -> dict:
    """``{result board: steps}`` for a double: as many of the four steps as possible (R6),
    merging partial plays that reach the same board."""
    board = list(me)
    head0 = board[HEAD]
    seen = (None, set(), set(), set(), set())
    best = [0, {}]

    def walk(depth, steps):
        moves = (_gen(board, die, opp_here, front, head0 - board[HEAD] < limit)
                 if depth < 4 else ())
        if not moves:
            if depth > best[0]:
                best[0] = depth
                best[1] = {}
            if depth == best[0]:
                best[1].setdefault(tuple(board), steps)
            return
        level = seen[depth + 1]
        for p, t in moves:
            board[p] -= 1
            board[t] += 1
            key = tuple(board)
            if key not in level:
                level.add(key)
                walk(depth + 1, steps + ((p, t),))
            board[p] += 1
            board[t] -= 1

    walk(0, ())
    return best[1]


class _Search:
    """The breadth-first expansion of one roll from one position.

    ``levels[k]`` maps each board reachable in exactly k steps to ``{dice_left: parent}``,
    ``parent`` being ``(board, dice_left, step)`` one level up (None at level 0).
    """

    __slots__ = ("pos", "dice", "me", "opp_here", "front", "limit", "levels", "_cache")

    def __init__(self, pos: Position, dice):
        self.pos = pos
        self.dice = check_dice(dice)
        a, b = self.dice
        self.me = pos.board(pos.turn)
        self.opp_here, self.front = _context(pos)
        self.limit = head_limit(pos, self.dice)
        self._cache = {}
        start = (a,) * 4 if a == b else (max(a, b), min(a, b))
        self.levels = [{self.me: {start: None}}]
        while True:
            nxt = {}
            for board, lefts in self.levels[-1].items():
                for left in lefts:
                    for die, rest in _spend(left):
                        for p, t, nb in self.steps(board, die):
                            slot = nxt.get(nb)
                            if slot is None:
                                nxt[nb] = {rest: (board, left, (p, t))}
                            elif rest not in slot:
                                slot[rest] = (board, left, (p, t))
            if not nxt:
                break
            self.levels.append(nxt)

    def steps(self, board, die):
        """Legal single steps with ``die`` from ``board`` (cached for this search)."""
        key = (board, die)
        got = self._cache.get(key)
        if got is None:
            can_head = self.me[HEAD] - board[HEAD] < self.limit
            got = self._cache[key] = [
                (p, t, _moved(board, p, t))
                for p, t in _gen(list(board), die, self.opp_here, self.front, can_head)]
        return got

    @property
    def depth(self) -> int:
        """The most dice that can be played (R6)."""
        return len(self.levels) - 1

    def results(self) -> dict:
        """``{board: dice_left}`` for every legal result (R6), with the dice left on the path
        chosen as its representative."""
        last = self.levels[self.depth]
        a, b = self.dice
        if self.depth == 1 and a != b:
            # R6: only one die can be played -> the larger when it can be.
            smaller_left = (min(a, b),)
            larger = {bd: smaller_left for bd, lefts in last.items() if smaller_left in lefts}
            if larger:
                return larger
        return {bd: next(iter(lefts)) for bd, lefts in last.items()}

    def path(self, board, left) -> tuple:
        """The steps of the first-found way to reach ``board`` with ``left`` dice left."""
        steps = []
        for k in range(self.depth, 0, -1):
            if board not in self.levels[k] or left not in self.levels[k][board]:
                break
            board, left, step = self.levels[k][board][left]
            steps.append(step)
        return tuple(reversed(steps))

    def position_after(self, board) -> Position:
        """The Position after the mover has played to ``board``."""
        return self.pos.with_boards(board, self.pos.board(other(self.pos.turn)))


def _spend(left: tuple):
    """The ways to use one die from ``left`` (sorted high to low): ``[(die, rest), …]``."""
    if len(left) <= 1:
        return ((left[0], ()),) if left else ()
    if left[0] == left[-1]:
        return ((left[0], left[1:]),)
    return ((left[0], left[1:]), (left[1], left[:1]))


def legal_plays(pos: Position, dice, ruleset="sport") -> list:
    """Every legal play of ``dice`` from ``pos``, one Play per distinct resulting position
    (RULES.md R4–R8, Notation), each with one legal step order.

    When no step is possible the only play is the pass (no steps, R6). ``ruleset`` is a preset
    name or Ruleset (R4–R8 are the same in every preset). Raises DiceError for a bad roll.
    """
    get_ruleset(ruleset)
    a, b = check_dice(dice)
    me = pos.board(pos.turn)
    opp_here, front = _context(pos)
    if a == b:
        found = _plays_double(me, a, opp_here, front, head_limit(pos, (a, b)))
    else:
        found = _plays_mixed(me, a, b, opp_here, front)
    if not found or me in found:
        return [Play((), pos.passed())]
    opp = pos.board(other(pos.turn))
    nxt = other(pos.turn)
    first = pos.first_turn and opp[HEAD] == CHECKERS  # as Position.with_boards, inlined: hot
    if pos.turn == "white":
        return [Play(steps, Position(nxt, board, opp, first)) for board, steps in found.items()]
    return [Play(steps, Position(nxt, opp, board, first)) for board, steps in found.items()]


def step_graph(pos: Position, dice, ruleset="sport") -> dict:
    """Every legal way to play ``dice`` one step at a time, for a user interface.

    Returns ``{"nodes": [{"steps": {"24/18": 1, …}, "final": bool}, …]}``: node 0 is the
    position before the play; ``steps`` maps each legal next step to the node it leads to;
    ``final`` marks nodes where a legal play (as listed by legal_plays) is complete. Only steps
    that can still end in a legal play are listed, so the graph and legal_plays never disagree.
    """
    get_ruleset(ruleset)
    search = _Search(pos, dice)
    depth = search.depth
    finals = set(search.results()) if depth else {search.me}
    # good[k]: boards at level k from which a legal result can still be reached.
    good = [set() for _ in range(depth + 1)]
    good[depth] = set(finals)
    edges = [dict() for _ in range(depth + 1)]
    for k in range(depth - 1, -1, -1):
        for board, lefts in search.levels[k].items():
            out = {}
            for left in lefts:
                for die, _rest in _spend(left):
                    for p, t, nb in search.steps(board, die):
                        if nb in good[k + 1]:
                            out[format_step((p, t))] = nb
            if out:
                good[k].add(board)
                edges[k][board] = out
    ids = {(0, search.me): 0}
    nodes = [{"steps": {}, "final": depth == 0}]
    queue = [(0, search.me)]
    for k, board in queue:
        node = nodes[ids[(k, board)]]
        for label, nb in edges[k].get(board, {}).items():
            key = (k + 1, nb)
            if key not in ids:
                ids[key] = len(nodes)
                nodes.append({"steps": {}, "final": k + 1 == depth and nb in finals})
                queue.append(key)
            node["steps"][label] = ids[key]
    return {"nodes": nodes}


def legal_steps(pos: Position, dice, staged=(), ruleset="sport") -> list:
    """The single steps that may come next after the ``staged`` steps (a play string or a
    sequence of ``(from, to)``): each begins or continues some legal play (see step_graph).

    Returns a list of ``(from, to)``; empty once the staged steps form a complete play.
    Raises IllegalPlay (code ``not_next``) if a staged step leads to no legal play.
    """
    staged = parse_play(staged) if isinstance(staged, str) else tuple(staged)
    nodes = step_graph(pos, dice, ruleset)["nodes"]
    node = nodes[0]
    for step in staged:
        label = format_step(step)
        if label not in node["steps"]:
            raise IllegalPlay("not_next", f"{label} does not lead to a legal play here.", step)
        node = nodes[node["steps"][label]]
    out = []
    for label in node["steps"]:
        frm, to = label.split("/")
        out.append((int(frm), 0 if to == "off" else int(to)))
    return out


def _dice_text(dice) -> str:
    return f"{dice[0]}-{dice[1]}"


def _apply(search: _Search, steps) -> tuple:
    """Play ``steps`` checker by checker (R4, R8 mechanics; not R5/R6/R7, which the result set
    decides). Returns ``(board, dice_used)`` or raises IllegalPlay with the first fault."""
    a, b = search.dice
    pool = [a] * 4 if a == b else [a, b]
    opp_here = search.opp_here

    def go(board, i, pool):
        if i == len(steps):
            return board, ()
        p, t = steps[i]
        step = steps[i]
        label = format_step(step)
        if not board[p]:
            raise IllegalPlay("no_checker", f"There is no checker of yours on point {p}.", step)
        if t == OFF:
            if any(board[7:25]):
                raise IllegalPlay("bear_off_not_home", "You may bear off only when all your "
                                  "checkers are in your home (points 1 to 6).", step)
            higher = any(board[p + 1:7])
            choices = [d for d in sorted(set(pool)) if d == p or (d > p and not higher)]
            if not choices:
                if higher and any(d > p for d in pool):
                    raise IllegalPlay("bear_off_higher", f"A die larger than {p} may bear off "
                                      "only from your highest point; move inside your home "
                                      "instead.", step)
                raise IllegalPlay("no_die", f"No die left to play {label}.", step)
        else:
            if t >= p:
                raise IllegalPlay("wrong_direction", f"{label}: checkers move towards lower "
                                  "point numbers only.", step)
            if (p - t) not in pool:
                raise IllegalPlay("no_die", f"No die left to play {label}: the step is "
                                  f"{p - t} points.", step)
            if opp_here[t]:
                raise IllegalPlay("blocked", f"{label}: point {t} is held by your opponent.", step)
            choices = [p - t]
        nb = _moved(board, p, t)
        fault = None
        for d in choices:
            rest = list(pool)
            rest.remove(d)
            try:
                end, used = go(nb, i + 1, rest)
                return end, (d,) + used
            except IllegalPlay as exc:
                fault = fault or exc
        raise fault

    if len(steps) > len(pool):
        raise IllegalPlay("too_many_steps", f"A roll of {_dice_text(search.dice)} gives at most "
                          f"{len(pool)} steps.")
    return go(search.me, 0, pool)


def check_play(pos: Position, dice, play, ruleset="sport") -> Play:
    """Check a submitted play and return it as a Play (RULES.md Notation: a play is judged by the
    position it leads to, so any step order reaching a legal result is accepted).

    ``play`` is a notation string (``"24/18 18/13"``, ``""`` for a pass) or a sequence of
    ``(from, to)``. Raises NotationError for a malformed play and IllegalPlay otherwise, whose
    ``code`` names the rule: ``no_checker``, ``wrong_direction``, ``no_die``, ``blocked`` (R4),
    ``head`` (R5), ``must_play_more``, ``must_play_larger``, ``cannot_pass`` (R6),
    ``six_block`` (R7), ``bear_off_not_home``, ``bear_off_higher`` (R8), ``too_many_steps``.
    """
    get_ruleset(ruleset)
    steps = parse_play(play) if isinstance(play, str) else tuple(tuple(s) for s in play)
    for s in steps:
        if len(s) != 2 or not all(isinstance(x, int) for x in s):
            raise NotationError(f"bad step {s!r}")
    search = _Search(pos, dice)
    results = search.results() if search.depth else {search.me: ()}
    board = _board_after(search, steps)
    if board in results:
        if not steps:
            return Play((), pos.passed())
        if not _in_legal_order(search, steps):
            # Recorded in an order that could really be played (e.g. 21/18 18/13 for 21/16
            # 16/13 when 16 is the opponent's), so replays never show an impossible step.
            steps = search.path(board, results[board])
        return Play(steps, search.position_after(board))
    board, used = _apply(search, steps)
    raise _diagnose(search, steps, used)


def _board_after(search: _Search, steps):
    """The mover's board after ``steps`` if the roll can account for them, else None.

    Only what makes the steps a play of these dice at all is required here: each step moves
    a checker towards lower numbers by one die, or bears one off with a die at least its point,
    and the checkers moved are there in the end. Whether the position is then reachable by a
    legal order of single steps (R4-R8) is decided by the result set (RULES.md Notation).
    """
    a, b = search.dice
    pool = [a] * 4 if a == b else [a, b]
    if len(steps) > len(pool):
        return None
    board = list(search.me)
    bear_offs = []
    for p, t in steps:
        if t == OFF:
            bear_offs.append(p)
        elif 0 < t < p and (p - t) in pool:
            pool.remove(p - t)
        else:
            return None
        board[p] -= 1
        board[t] += 1
    for p in sorted(bear_offs, reverse=True):
        fits = [d for d in pool if d >= p]
        if not fits:
            return None
        pool.remove(min(fits))
    return tuple(board) if min(board) >= 0 else None


def _in_legal_order(search: _Search, steps) -> bool:
    """Can ``steps`` be played one by one in this order (R4, R5, R7, R8)?"""
    try:
        _apply(search, steps)
    except IllegalPlay:
        return False
    return _step_rule_broken(search, steps) is None


def _step_rule_broken(search: _Search, steps):
    """The first step of ``steps`` (already known to be mechanically playable) that breaks
    the head rule (R5) or builds a forbidden six-point block (R7), as an IllegalPlay; or None."""
    board = search.me
    for step in steps:
        p, t = step
        nb = list(board)
        nb[p] -= 1
        nb[t] += 1
        if search.me[HEAD] - nb[HEAD] > search.limit:
            if search.limit == 2:
                return IllegalPlay("head", "At most two checkers may leave the head on this "
                                   "first turn.", step)
            return IllegalPlay("head", "Only one checker may leave the head this turn.", step)
        if t != OFF and not board[t] and _makes_block(nb, t, search.front):
            return IllegalPlay("six_block", f"{format_step(step)} would build six points in a "
                               "row with no opponent checker ahead.", step)
        board = tuple(nb)
    return None


def _diagnose(search: _Search, steps, used) -> IllegalPlay:
    """Why a mechanically possible play is not legal: the first rule it breaks."""
    dice, depth = search.dice, search.depth
    broken = _step_rule_broken(search, steps)
    if broken is not None:
        return broken
    if not steps:
        return IllegalPlay("cannot_pass", "You have a legal move, so you cannot pass.")
    if len(steps) < depth:
        many = {2: "both dice", 3: "three dice", 4: "all four dice"}[depth]
        return IllegalPlay("must_play_more", f"You must play {many} of this roll: the rules "
                           "require as many dice as can be played.")
    a, b = dice
    if depth == 1 and a != b and used and used[0] != max(a, b):
        return IllegalPlay("must_play_larger", f"Only one die can be played, so it must be the "
                           f"larger one ({max(a, b)}).")
    return IllegalPlay("not_legal", "This play is not legal.")
