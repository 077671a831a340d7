"""Property tests of the engine over random games (hypothesis), cross-checked against a naive
reference reading of the rules (engine_reference.py)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    CHECKERS,
    Position,
    check_play,
    format_play,
    game_value,
    legal_steps,
    other,
    parse_play,
    step_graph,
)
from games.engine.position import board_to_json
from games.tests.engine_games import random_game
from games.tests.engine_reference import reference_results

seeds = st.integers(min_value=0, max_value=2**32 - 1)
presets = st.sampled_from(["sport", "classic", "match"])


def follow(pos, steps):
    """Apply steps mechanically to the mover's board (no rule checks)."""
    board = list(pos.board(pos.turn))
    for p, t in steps:
        board[p] -= 1
        board[t] += 1
    return tuple(board)


@settings(max_examples=40, deadline=None)
@given(seed=seeds, preset=presets)
def test_random_games_keep_every_invariant(seed, preset):
    turns = 0
    for pos, dice, plays in random_game(seed, preset):
        for side in ("white", "black"):
            assert sum(pos.board(side)) == CHECKERS, "checkers are conserved"
        if dice is None:
            loser = other(pos.winner)
            kind, points = game_value(pos.board(loser), preset)
            assert (kind, points) in {("oin", 1), ("mars", 2), ("koks", 3)}
            assert kind == "oin" if pos.off(loser) else kind in ("mars", "koks")
            break
        turns += 1
        results = [p.result for p in plays]
        assert len(set(results)) == len(results), "each result listed once"
        lengths = {len(p.steps) for p in plays}
        assert len(lengths) == 1, "no listed play uses fewer dice than another"
        nodes = step_graph(pos, dice, preset)["nodes"]
        for play in plays:
            assert follow(pos, play.steps) == play.result.board(pos.turn)
            assert play.result.board(other(pos.turn)) == pos.board(other(pos.turn))
            assert play.result.turn == other(pos.turn)
            # Each step is a legal single step given the ones before it, ending on a final node.
            node = nodes[0]
            for step in play.steps:
                node = nodes[node["steps"][format_play([step])]]
            assert node["final"]
            assert check_play(pos, dice, play.notation, preset).result == play.result
            assert parse_play(play.notation) == play.steps
    assert turns > 0


@settings(max_examples=25, deadline=None)
@given(seed=seeds)
def test_legal_results_equal_naive_reference(seed):
    rng = random.Random(seed)
    checked = 0
    for pos, dice, plays in random_game(seed):
        if dice is None or rng.random() > 0.3:
            continue
        me, opp = pos.board(pos.turn), pos.board(other(pos.turn))
        expected = reference_results(me, opp, dice, pos.first_turn)
        got = {p.result.board(pos.turn) for p in plays}
        if not plays[0].steps:
            assert expected == {me}
        assert got == expected, (pos.to_json(), dice)
        checked += 1
    assert checked > 0


@settings(max_examples=25, deadline=None)
@given(seed=seeds)
def test_step_graph_walks_to_exactly_the_legal_results(seed):
    rng = random.Random(seed)
    for pos, dice, plays in random_game(seed):
        if dice is None or rng.random() > 0.2:
            continue
        nodes = step_graph(pos, dice)["nodes"]
        finals = set()
        stack = [(0, ())]
        while stack:
            i, steps = stack.pop()
            node = nodes[i]
            if node["final"]:
                finals.add(follow(pos, steps))
                assert node["steps"] == {} or len(steps) < 4
            else:
                assert node["steps"], "every non-final node leads somewhere"
            for label, j in node["steps"].items():
                stack.append((j, steps + parse_play(label)))
        assert finals == {p.result.board(pos.turn) for p in plays}


@settings(max_examples=200, deadline=None)
@given(seed=seeds)
def test_position_json_round_trips(seed):
    rng = random.Random(seed)
    positions = [pos for pos, _d, _p in random_game(seed)]
    pos = rng.choice(positions)
    assert Position.from_json(pos.to_json()) == pos
    assert hash(Position.from_json(pos.to_json())) == hash(pos)
    for side in ("white", "black"):
        board = pos.board(side)
        assert pos.pip(side) == sum(int(p) * n for p, n in board_to_json(board).items())


@settings(max_examples=20, deadline=None)
@given(seed=seeds)
def test_legal_steps_follow_each_listed_play(seed):
    rng = random.Random(seed)
    pos, dice, plays = rng.choice([t for t in random_game(seed) if t[1]])
    for play in plays:
        for i, step in enumerate(play.steps):
            assert step in legal_steps(pos, dice, play.steps[:i])
        assert legal_steps(pos, dice, play.steps) == []


@given(st.lists(st.tuples(st.integers(1, 24), st.integers(0, 23)), max_size=4))
def test_play_notation_round_trips(steps):
    steps = tuple(steps)
    assert parse_play(format_play(steps)) == steps
