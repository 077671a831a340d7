"""Server dice (RULES.md R3, R4): fair-looking values in range; the opening never ties."""
from collections import Counter

from games import dice


def test_roll_gives_two_dice_from_one_to_six():
    faces = Counter()
    for _ in range(3000):
        a, b = dice.roll()
        faces.update((a, b))
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    assert min(faces.values()) > 800  # 1000 expected per face


def test_opening_roll_rerolls_ties():
    pairs = [dice.opening_roll() for _ in range(2000)]
    assert all(w != b and 1 <= w <= 6 and 1 <= b <= 6 for w, b in pairs)
    assert len(set(pairs)) == 30  # every unequal pair occurs
