"""Legal plays (RULES.md R4–R8, Notation).

Everything here works from the side to move's point of view: ``me`` is its board and the
opponent is seen through ``opp_here`` (does the opponent hold my point p?) and ``opp_front``
(the opponent's most advanced point in its own numbering, 0 once it has borne off a checker),
which is all R7 needs to know.

Two searches share the single-step rules of _gen. legal_plays, the hot one, goes depth first on
one mutable board with the occupied points as bit masks (mask_steps, with its loop inlined in
_mixed and _double), merging partial plays that reach the same board, so each distinct result
is found once; the tests hold it to _gen's rules and to a naive reference. Search (step_graph,
check_play, explanations) expands the roll breadth first with _gen, keeping how each board was
reached.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple, TypeAlias, TypedDict, cast

from .errors import DiceError, IllegalPlay, NotationError
from .notation import OFF, Step, format_play, format_step, parse_play
from .position import CHECKERS, FLAGS, HEAD, Board, Position, mirrored, occupied, other
from .rules import Ruleset, get_ruleset

# R7: order of the mover's points along the opponent's path (opponent 24 -> 1), i.e.
# 12, 11, …, 1, 24, 23, …, 13. The mover's 1|24 joint is inside, its 13|12 joint is not.
PATH_POINT = tuple(12 - i if i < 12 else 36 - i for i in range(24))
# Index 0 (off) holds None but is never read, as no step lands on point 0 of the path: typed as
# ints so that the hot R7 walks need no None check.
PATH_INDEX: tuple[int, ...] = (None,) + tuple(  # type: ignore[assignment]
    12 - p if p <= 12 else 36 - p for p in range(1, 25)
)
EXCEPTION_DOUBLES = (3, 4, 6)  # R5: two head checkers on a first turn


class Play(NamedTuple):
    """One legal play: ``steps`` (tuple of ``(from, to)``, ``to == 0`` is off, in the order
    played) and ``result``, the Position after it with the turn passed to the opponent."""

    steps: tuple[Step, ...]
    result: Position

    @property
    def notation(self) -> str:
        """The play in RULES.md notation, e.g. ``"24/18 18/13"``; ``""`` for a pass."""
        return format_play(self.steps)


def check_dice(dice: Iterable[int]) -> tuple[int, int]:
    """Validate a roll: two integers from 1 to 6. Returns it as a tuple; raises DiceError."""
    try:
        a, b = dice
    except (TypeError, ValueError):
        raise DiceError("dice must be two numbers from 1 to 6") from None
    for d in (a, b):
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
            raise DiceError(f"a die shows 1 to 6, not {d!r}")
    return (a, b)


def _context(pos: Position) -> tuple[Board, int]:
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


def makes_block(board: Sequence[int], t: int, opp_front: int) -> bool:
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


def head_limit(pos: Position, dice: Sequence[int]) -> int:
    """R5: how many checkers may leave the head this turn (2 on a first turn with 6-6, 4-4, 3-3)."""
    a, b = dice
    return 2 if pos.first_turn and a == b and a in EXCEPTION_DOUBLES else 1


def _moved(board: Board, p: int, t: int) -> Board:
    """``board`` after one checker goes from ``p`` to ``t`` (0 = off)."""
    nb = list(board)
    nb[p] -= 1
    nb[t] += 1
    return tuple(nb)


def _gen(b: list[int], die: int, opp_here: Board, front: int, from_head: bool) -> list[Step]:
    """Every legal single step ``(from, to)`` with ``die`` from the mutable board ``b``: R4
    moving, R5 head (``from_head``: may a checker still leave point 24), R7 block, R8 bearing
    off. ``b`` is changed while checking R7 and restored before returning. The plain statement
    of the single-step rules: Search uses it, legal_plays a faster form (mask_steps) that
    lists the same steps in the same order."""
    out: list[Step] = []
    home = not any(b[7:])
    for p in range(6 if home else 24 if from_head else 23, die, -1):
        if b[p] and not opp_here[p - die]:
            t = p - die
            if b[t] or not front:
                out.append((p, t))
            else:
                b[p] -= 1
                blocked = makes_block(b, t, front)
                b[p] += 1
                if not blocked:
                    out.append((p, t))
    if not home:
        return out
    if b[die]:
        out.append((die, OFF))
    elif not any(b[die + 1 : 7]):
        for p in range(die - 1, 0, -1):
            if b[p]:
                out.append((p, OFF))
                break
    return out


#: the dice still to play, largest first, e.g. ``(6, 5)``, ``(4, 4, 4)``, ``(3,)``, ``()``
DiceLeft: TypeAlias = tuple[int, ...]
#: how Search reached a board: ``(board, dice_left, step)`` one level up
Parent: TypeAlias = tuple[Board, DiceLeft, Step]


class StepNode(TypedDict):
    """A node of step_graph: ``steps`` maps each next step (notation) to a node index."""

    steps: dict[str, int]
    final: bool


class Search:
    """The breadth-first expansion of one roll from one position.

    ``levels[k]`` maps each board reachable in exactly k steps to ``{dice_left: parent}``,
    ``parent`` being ``(board, dice_left, step)`` one level up (None at level 0).
    """

    __slots__ = ("pos", "dice", "me", "opp_here", "front", "limit", "levels", "_cache")

    def __init__(self, pos: Position, dice: Sequence[int]) -> None:
        self.pos = pos
        self.dice = check_dice(dice)
        a, b = self.dice
        self.me = pos.board(pos.turn)
        self.opp_here, self.front = _context(pos)
        self.limit = head_limit(pos, self.dice)
        self._cache: dict[tuple[Board, int], list[tuple[int, int, Board]]] = {}
        start: DiceLeft = (a,) * 4 if a == b else (max(a, b), min(a, b))
        self.levels: list[dict[Board, dict[DiceLeft, Parent | None]]] = [{self.me: {start: None}}]
        while True:
            nxt: dict[Board, dict[DiceLeft, Parent | None]] = {}
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

    def steps(self, board: Board, die: int) -> list[tuple[int, int, Board]]:
        """Legal single steps with ``die`` from ``board`` (cached for this search)."""
        key = (board, die)
        got = self._cache.get(key)
        if got is None:
            can_head = self.me[HEAD] - board[HEAD] < self.limit
            got = self._cache[key] = [
                (p, t, _moved(board, p, t))
                for p, t in _gen(list(board), die, self.opp_here, self.front, can_head)
            ]
        return got

    @property
    def depth(self) -> int:
        """The most dice that can be played (R6)."""
        return len(self.levels) - 1

    def results(self) -> dict[Board, DiceLeft]:
        """``{board: dice_left}`` for every legal result (R6), with the dice left on the path
        chosen as its representative."""
        last = self.levels[self.depth]
        a, b = self.dice
        if self.depth == 1 and a != b:
            # R6: only one die can be played -> the larger when it can be.
            smaller_left: DiceLeft = (min(a, b),)
            larger = {bd: smaller_left for bd, lefts in last.items() if smaller_left in lefts}
            if larger:
                return larger
        return {bd: next(iter(lefts)) for bd, lefts in last.items()}

    def path(self, board: Board, left: DiceLeft) -> tuple[Step, ...]:
        """The steps of the first-found way to reach ``board`` with ``left`` dice left."""
        steps = []
        for k in range(self.depth, 0, -1):
            if board not in self.levels[k] or left not in self.levels[k][board]:
                break
            parent = self.levels[k][board][left]
            assert parent is not None  # only level 0 has no parent
            board, left, step = parent
            steps.append(step)
        return tuple(reversed(steps))

    def position_after(self, board: Board) -> Position:
        """The Position after the mover has played to ``board``."""
        return self.pos.with_boards(board, self.pos.board(other(self.pos.turn)))


def _spend(left: DiceLeft) -> tuple[tuple[int, DiceLeft], ...]:
    """The ways to use one die from ``left`` (sorted high to low): ``[(die, rest), …]``."""
    if len(left) <= 1:
        return ((left[0], ()),) if left else ()
    if left[0] == left[-1]:
        return ((left[0], left[1:]),)
    return ((left[0], left[1:]), (left[1], left[:1]))


# Masks for legal_plays: a flag per point a byte apart (point p is bit 8p, see position.occupied)
# so "the point ``die`` lower" is a shift by ``8 * die``; flags are scanned from the highest
# point down, the order the single-step rules list their steps in.
_FLAG = (0,) + tuple(1 << 8 * p for p in range(1, 25))  # point 0 (off) has no flag
_ALL = FLAGS
_OUTER = sum(_FLAG[7:])  # points 7..24: any there and the mover cannot bear off (R8)
_NO_HEAD = _ALL ^ _FLAG[HEAD]
_ABOVE = tuple(sum(_FLAG[d + 1 : 7]) for d in range(7))  # home points above d
_BELOW = tuple(sum(_FLAG[1:d]) for d in range(7))  # home points below d
# R7 windows: the flags of the six points at path indices j..j+5, for j = 0..18.
_WINDOW = tuple(sum(_FLAG[PATH_POINT[i]] for i in range(j, j + 6)) for j in range(19))
# Key of a step for merging plays that reach the same board: boards are numbers in base 16
# (a point holds at most 15 checkers), so the sum of a play's step keys names its result.
_KEY = tuple(tuple((1 << 4 * t) - (1 << 4 * p) for t in range(25)) for p in range(25))
_new = tuple.__new__  # makes a NamedTuple without its Python-level __new__ (hot)


def mask_steps(board: list[int], occ: int, src: int, die: int, front: int) -> list[Step]:
    """_gen's steps (same rules, same order) from flags: ``occ`` the occupied points of the
    list ``board``, ``src`` those whose checker may move ``die`` as far as R4 and R5 go (landing
    point not the opponent's; the head left out once it may not move). ``front`` as for _gen,
    or 0 when no step of this roll can make a block (R7 is then not looked at)."""
    out: list[Step] = []
    while src:
        bit = src.bit_length() - 1
        src ^= 1 << bit
        p = bit >> 3
        t = p - die
        if board[t] or not front:
            out.append((p, t))
        else:
            board[p] -= 1  # R7 with the checker gone from p: inline makes_block (hot)
            k = PATH_INDEX[t]
            lo = k
            while lo and board[PATH_POINT[lo - 1]]:
                lo -= 1
            hi = k
            while hi < 23 and board[PATH_POINT[hi + 1]]:
                hi += 1
            board[p] += 1
            if hi - lo < 5 or front < 24 - hi:
                out.append((p, t))
    if not occ & _OUTER:
        if board[die]:
            out.append((die, OFF))
        elif not occ & _ABOVE[die]:
            lower = occ & _BELOW[die]
            if lower:
                out.append(((lower.bit_length() - 1) >> 3, OFF))
    return out


def _mixed(
    me: Board, a: int, b: int, occ: int, free: int, front: int
) -> list[tuple[Board, tuple[Step, ...]]]:
    """``[(result board, steps), …]`` for a non-double roll: both dice if possible, else the
    larger if possible, else the smaller (R6); at most one head checker (R5). Results come in
    the order first reached (die ``a`` first, then ``b`` first; checkers from the highest point
    down), each with the steps that reached it first."""
    board = list(me)
    two: dict[int, tuple[Board, tuple[Step, ...]]] = {}
    one: dict[int, dict[int, tuple[Board, tuple[Step, ...]]]] = {a: {}, b: {}}
    keys, flag, path_index, path_point = _KEY, _FLAG, PATH_INDEX, PATH_POINT  # locals: hot
    for d1, d2 in ((a, b), (b, a)):
        ok2 = (free << 8 * d2) & _ALL
        for s1 in mask_steps(board, occ, occ & (free << 8 * d1), d1, front):
            p1, t1 = s1
            board[p1] -= 1
            board[t1] += 1
            occ1 = occ | flag[t1]
            if not board[p1]:
                occ1 ^= flag[p1]
            src = occ1 & ok2
            if p1 == HEAD:
                src &= _NO_HEAD
            k1 = keys[p1][t1]
            played = False
            # mask_steps for the second die, inlined (the hottest loop)
            while src:
                bit = src.bit_length() - 1
                src ^= 1 << bit
                p = bit >> 3
                t = p - d2
                if front and not board[t]:
                    board[p] -= 1
                    k = path_index[t]
                    lo = k
                    while lo and board[path_point[lo - 1]]:
                        lo -= 1
                    hi = k
                    while hi < 23 and board[path_point[hi + 1]]:
                        hi += 1
                    board[p] += 1
                    if hi - lo >= 5 and front >= 24 - hi:
                        continue
                played = True
                key = k1 + keys[p][t]
                if key not in two:
                    board[p] -= 1
                    board[t] += 1
                    two[key] = (tuple(board), (s1, (p, t)))
                    board[p] += 1
                    board[t] -= 1
            if not occ1 & _OUTER:
                p = 0
                if board[d2]:
                    p = d2
                elif not occ1 & _ABOVE[d2]:
                    lower = occ1 & _BELOW[d2]
                    if lower:
                        p = (lower.bit_length() - 1) >> 3
                if p:
                    played = True
                    key = k1 + keys[p][OFF]
                    if key not in two:
                        board[p] -= 1
                        board[OFF] += 1
                        two[key] = (tuple(board), (s1, (p, OFF)))
                        board[p] += 1
                        board[OFF] -= 1
            if not played and not two:
                one[d1].setdefault(k1, (tuple(board), (s1,)))
            board[p1] += 1
            board[t1] -= 1
    if two:
        return list(two.values())
    return list((one[max(a, b)] or one[min(a, b)]).values())


def _double(
    me: Board, die: int, occ: int, free: int, front: int, limit: int
) -> list[tuple[Board, tuple[Step, ...]]]:
    """``[(result board, steps), …]`` for a double: as many of the four steps as possible (R6),
    ``limit`` head checkers (R5). Depth first from the highest point down, a partial play that
    reaches a board already reached with as many steps is not followed again; results come in
    the order first reached, each with the steps that reached it first."""
    board = list(me)
    head0 = me[HEAD]
    ok = (free << 8 * die) & _ALL
    # the keys reached at each depth (1..4; index 0 is never read)
    seen: tuple[set[int], ...] = (set(), set(), set(), set(), set())
    found: list[tuple[Board, tuple[Step, ...]]] = []
    best = 0
    keys = _KEY

    def walk(depth: int, occ: int, key: int, steps: tuple[Step, ...]) -> None:
        nonlocal best, found
        # mask_steps inlined and taken one step at a time: the board is restored after each
        # child, so a later step is judged on the same board as in a list made beforehand.
        src = occ & ok
        if head0 - board[HEAD] >= limit:
            src &= _NO_HEAD
        off = 0  # the point a checker may bear off from (R8), taken after the other steps
        if not occ & _OUTER:
            if board[die]:
                off = die
            elif not occ & _ABOVE[die]:
                lower = occ & _BELOW[die]
                if lower:
                    off = (lower.bit_length() - 1) >> 3
        level = seen[depth + 1]
        depth += 1
        moved = False
        while True:
            if src:
                bit = src.bit_length() - 1
                src ^= 1 << bit
                p = bit >> 3
                t = p - die
                if front and not board[t]:
                    board[p] -= 1
                    k = PATH_INDEX[t]
                    lo = k
                    while lo and board[PATH_POINT[lo - 1]]:
                        lo -= 1
                    hi = k
                    while hi < 23 and board[PATH_POINT[hi + 1]]:
                        hi += 1
                    board[p] += 1
                    if hi - lo >= 5 and front >= 24 - hi:
                        continue
            elif off:
                p = off
                t = off = 0
            else:
                break
            moved = True
            k = key + keys[p][t]
            if k not in level:
                level.add(k)
                board[p] -= 1
                board[t] += 1
                if depth == 4:  # the last die: a result, no need to look further
                    if best < 4:
                        best = 4
                        found = []
                    found.append((tuple(board), steps + ((p, t),)))
                elif board[p]:
                    walk(depth, occ | _FLAG[t], k, steps + ((p, t),))
                else:
                    walk(depth, (occ | _FLAG[t]) ^ _FLAG[p], k, steps + ((p, t),))
                board[p] += 1
                board[t] -= 1
        if not moved:
            depth -= 1
            if depth > best:
                best = depth
                found = []
            if depth == best:
                found.append((tuple(board), steps))

    walk(0, occ, 0, ())
    return found


def legal_plays(pos: Position, dice: Sequence[int], ruleset: Ruleset | str = "sport") -> list[Play]:
    """Every legal play of ``dice`` from ``pos``, one Play per distinct resulting position
    (RULES.md R4–R8, Notation), each with one legal step order.

    When no step is possible the only play is the pass (no steps, R6). ``ruleset`` is a preset
    name or Ruleset (R4–R8 are the same in every preset). Raises DiceError for a bad roll.
    """
    if ruleset.__class__ is not Ruleset:
        get_ruleset(ruleset)
    try:
        a, b = dice
        fine = a.__class__ is int and b.__class__ is int and 0 < a < 7 and 0 < b < 7
    except (TypeError, ValueError):
        fine = False
    if not fine:
        a, b = check_dice(dice)
    turn, white, black, first = pos
    if turn == "white":
        me, opp = white, black
    else:
        me, opp = black, white
    occ = occupied(int.from_bytes(bytes(me), "little"))
    counts = int.from_bytes(bytes(opp), "little")
    theirs = occupied(counts)  # in the opponent's numbering
    # R7's front: the opponent's lowest point, 0 once it has borne off a checker.
    front = 0 if opp[0] else ((theirs & -theirs).bit_length() - 1) >> 3
    # The points the opponent does not hold, in the mover's numbering (R1, R4).
    free = _ALL ^ occupied(mirrored(counts))
    if front:
        # A forbidden block ends at a path index hi >= 24 - front and fills its six points; a
        # roll takes at most two (four for a double) new points, so with no such window that
        # many points short of full no step of this roll can make one: skip R7's walk.
        need = 2 if a == b else 4
        for j in range(max(0, 19 - front), 19):
            if (occ & _WINDOW[j]).bit_count() >= need:
                break
        else:
            front = 0
    if a == b:
        found = _double(me, a, occ, free, front, 2 if first and a in EXCEPTION_DOUBLES else 1)
    else:
        found = _mixed(me, a, b, occ, free, front)
    if not found or not found[0][1]:  # no step at all (a double then lists the start board)
        return [Play((), pos.passed())]
    nxt = "black" if turn == "white" else "white"
    first = first and opp[HEAD] == CHECKERS  # as Position.with_boards, inlined: hot
    if turn == "white":
        return [
            _new(Play, (steps, _new(Position, (nxt, board, opp, first)))) for board, steps in found
        ]
    return [_new(Play, (steps, _new(Position, (nxt, opp, board, first)))) for board, steps in found]


def step_graph(
    pos: Position, dice: Sequence[int], ruleset: Ruleset | str = "sport"
) -> dict[str, list[StepNode]]:
    """Every legal way to play ``dice`` one step at a time, for a user interface.

    Returns ``{"nodes": [{"steps": {"24/18": 1, …}, "final": bool}, …]}``: node 0 is the
    position before the play; ``steps`` maps each legal next step to the node it leads to;
    ``final`` marks nodes where a legal play (as listed by legal_plays) is complete. Only steps
    that can still end in a legal play are listed, so the graph and legal_plays never disagree.
    """
    get_ruleset(ruleset)
    search = Search(pos, dice)
    depth = search.depth
    finals = set(search.results()) if depth else {search.me}
    # good[k]: boards at level k from which a legal result can still be reached.
    good: list[set[Board]] = [set() for _ in range(depth + 1)]
    good[depth] = set(finals)
    edges: list[dict[Board, dict[str, Board]]] = [dict() for _ in range(depth + 1)]
    for k in range(depth - 1, -1, -1):
        for board, lefts in search.levels[k].items():
            out: dict[str, Board] = {}
            for left in lefts:
                for die, _rest in _spend(left):
                    for p, t, nb in search.steps(board, die):
                        if nb in good[k + 1]:
                            out[format_step((p, t))] = nb
            if out:
                good[k].add(board)
                edges[k][board] = out
    ids = {(0, search.me): 0}
    nodes: list[StepNode] = [{"steps": {}, "final": depth == 0}]
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


def legal_steps(
    pos: Position,
    dice: Sequence[int],
    staged: str | Iterable[Step] = (),
    ruleset: Ruleset | str = "sport",
) -> list[Step]:
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


def _dice_text(dice: Sequence[int]) -> str:
    return f"{dice[0]}-{dice[1]}"


def _apply(search: Search, steps: tuple[Step, ...]) -> tuple[Board, tuple[int, ...]]:
    """Play ``steps`` checker by checker (R4, R8 mechanics; not R5/R6/R7, which the result set
    decides). Returns ``(board, dice_used)`` or raises IllegalPlay with the first fault."""
    a, b = search.dice
    pool = [a] * 4 if a == b else [a, b]
    opp_here = search.opp_here

    def go(board: Board, i: int, pool: list[int]) -> tuple[Board, tuple[int, ...]]:
        if i == len(steps):
            return board, ()
        p, t = steps[i]
        step = steps[i]
        label = format_step(step)
        if not board[p]:
            raise IllegalPlay("no_checker", f"There is no checker of yours on point {p}.", step)
        if t == OFF:
            if any(board[7:25]):
                raise IllegalPlay(
                    "bear_off_not_home",
                    "You may bear off only when all your "
                    "checkers are in your home (points 1 to 6).",
                    step,
                )
            higher = any(board[p + 1 : 7])
            choices = [d for d in sorted(set(pool)) if d == p or (d > p and not higher)]
            if not choices:
                if higher and any(d > p for d in pool):
                    raise IllegalPlay(
                        "bear_off_higher",
                        f"A die larger than {p} may bear off "
                        "only from your highest point; move inside your home "
                        "instead.",
                        step,
                    )
                raise IllegalPlay("no_die", f"No die left to play {label}.", step)
        else:
            if t >= p:
                raise IllegalPlay(
                    "wrong_direction",
                    f"{label}: checkers move towards lower point numbers only.",
                    step,
                )
            if (p - t) not in pool:
                raise IllegalPlay(
                    "no_die", f"No die left to play {label}: the step is {p - t} points.", step
                )
            if opp_here[t]:
                raise IllegalPlay("blocked", f"{label}: point {t} is held by your opponent.", step)
            choices = [p - t]
        nb = _moved(board, p, t)
        fault: IllegalPlay | None = None
        for d in choices:
            rest = list(pool)
            rest.remove(d)
            try:
                end, used = go(nb, i + 1, rest)
                return end, (d,) + used
            except IllegalPlay as exc:
                fault = fault or exc
        assert fault is not None  # choices is never empty: each failed and set it
        raise fault

    if len(steps) > len(pool):
        raise IllegalPlay(
            "too_many_steps",
            f"A roll of {_dice_text(search.dice)} gives at most {len(pool)} steps.",
        )
    return go(search.me, 0, pool)


def check_play(
    pos: Position,
    dice: Sequence[int],
    play: str | Iterable[Iterable[int]],
    ruleset: Ruleset | str = "sport",
) -> Play:
    """Check a submitted play and return it as a Play (RULES.md Notation: a play is judged by the
    position it leads to, so any step order reaching a legal result is accepted).

    ``play`` is a notation string (``"24/18 18/13"``, ``""`` for a pass) or a sequence of
    ``(from, to)``. Raises NotationError for a malformed play and IllegalPlay otherwise, whose
    ``code`` names the rule: ``no_checker``, ``wrong_direction``, ``no_die``, ``blocked`` (R4),
    ``head`` (R5), ``must_play_more``, ``must_play_larger``, ``cannot_pass`` (R6),
    ``six_block`` (R7), ``bear_off_not_home``, ``bear_off_higher`` (R8), ``too_many_steps``.
    """
    get_ruleset(ruleset)
    steps = (
        parse_play(play)
        if isinstance(play, str)
        # pairs of ints: checked just below
        else cast("tuple[Step, ...]", tuple(tuple(s) for s in play))
    )
    for s in steps:
        if len(s) != 2 or not all(isinstance(x, int) for x in s):
            raise NotationError(f"bad step {s!r}")
    search = Search(pos, dice)
    results: dict[Board, DiceLeft] = search.results() if search.depth else {search.me: ()}
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


def _board_after(search: Search, steps: tuple[Step, ...]) -> Board | None:
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


def _in_legal_order(search: Search, steps: tuple[Step, ...]) -> bool:
    """Can ``steps`` be played one by one in this order (R4, R5, R7, R8)?"""
    try:
        _apply(search, steps)
    except IllegalPlay:
        return False
    return _step_rule_broken(search, steps) is None


def _step_rule_broken(search: Search, steps: tuple[Step, ...]) -> IllegalPlay | None:
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
                return IllegalPlay(
                    "head", "At most two checkers may leave the head on this first turn.", step
                )
            return IllegalPlay("head", "Only one checker may leave the head this turn.", step)
        if t != OFF and not board[t] and makes_block(nb, t, search.front):
            return IllegalPlay(
                "six_block",
                f"{format_step(step)} would build six points in a "
                "row with no opponent checker ahead.",
                step,
            )
        board = tuple(nb)
    return None


def _diagnose(search: Search, steps: tuple[Step, ...], used: tuple[int, ...]) -> IllegalPlay:
    """Why a mechanically possible play is not legal: the first rule it breaks."""
    dice, depth = search.dice, search.depth
    broken = _step_rule_broken(search, steps)
    if broken is not None:
        return broken
    if not steps:
        return IllegalPlay("cannot_pass", "You have a legal move, so you cannot pass.")
    if len(steps) < depth:
        many = {2: "both dice", 3: "three dice", 4: "all four dice"}[depth]
        return IllegalPlay(
            "must_play_more",
            f"You must play {many} of this roll: the rules require as many dice as can be played.",
        )
    a, b = dice
    if depth == 1 and a != b and used and used[0] != max(a, b):
        return IllegalPlay(
            "must_play_larger",
            f"Only one die can be played, so it must be the larger one ({max(a, b)}).",
        )
    return IllegalPlay("not_legal", "This play is not legal.")
