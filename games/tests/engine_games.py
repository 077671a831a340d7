"""Random long-nardy games played with the engine, for property tests and benchmarks."""

import random

from games.engine import Position, legal_plays


def opening(rng, preset="sport"):
    """R3: each side rolls one die until they differ; the higher moves first. Returns
    ``(first side, first roll)``: the opening dice, or a fresh roll for ``reroll``."""
    while True:
        w, b = rng.randint(1, 6), rng.randint(1, 6)
        if w != b:
            break
    first = "white" if w > b else "black"
    roll = (w, b) if preset != "match" else (rng.randint(1, 6), rng.randint(1, 6))
    return first, roll


def random_game(seed, preset="sport", max_turns=2000):
    """Play a random game; yield ``(position, dice, plays)`` for every turn, ending with the final
    position and ``None`` dice. Raises AssertionError if it does not end in ``max_turns``."""
    rng = random.Random(seed)
    first, dice = opening(rng, preset)
    pos = Position.initial(first)
    for _ in range(max_turns):
        plays = legal_plays(pos, dice, preset)
        yield pos, dice, plays
        pos = rng.choice(plays).result
        if pos.winner:
            yield pos, None, None
            return
        dice = (rng.randint(1, 6), rng.randint(1, 6))
    raise AssertionError(f"game {seed} did not end in {max_turns} turns")
