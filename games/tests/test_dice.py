"""Verifiable server dice (docs/protocol.md "Dice", RULES.md R3, R4): every roll derived from
the game's secret seed by HMAC-SHA256 with rejection sampling; fair faces; the opening never
ties; the documented one-line check reproduces the rolls."""

import hashlib
import hmac
import subprocess
import sys
from collections import Counter

import pytest

from games import dice
from games.engine import fairdice


def test_rolls_from_a_seed_are_two_dice_with_every_face_about_equally_often():
    seed = dice.new_seed()
    faces = Counter()
    for n in range(3000):
        a, b = dice.roll(seed, n)
        faces.update((a, b))
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    assert min(faces.values()) > 850 and max(faces.values()) < 1150  # 1000 expected per face


def test_a_roll_depends_only_on_the_seed_and_its_number():
    seed = bytes(range(32))
    assert dice.roll(seed, 7) == dice.roll(seed, 7)
    assert [dice.roll(seed, n) for n in range(40)] != [dice.roll(bytes(32), n) for n in range(40)]


def test_roll_is_the_documented_hmac_with_bytes_from_252_skipped():
    seed = bytes.fromhex("00" * 31 + "2a")
    for n in range(200):
        accepted = [
            b % 6 + 1
            for k in range(4)
            for b in hmac.new(seed, f"{n}:{k}".encode(), hashlib.sha256).digest()
            if b < 252
        ]
        assert dice.roll(seed, n) == accepted[:2]


def test_rejection_sampling_skips_high_bytes_and_reads_further_blocks():
    # Force a stream where the first block is all rejected: the faces still come out.
    class AllHigh:
        def digest(self):
            return bytes([255] * 32)

    real = fairdice.hmac.new
    calls = []

    def fake(key, msg, digestmod):
        calls.append(msg)
        return AllHigh() if msg.endswith(b":0") else real(key, msg, digestmod)

    fairdice.hmac.new = fake
    try:
        a, b = fairdice.roll(b"seed", 3)
    finally:
        fairdice.hmac.new = real
    assert 1 <= a <= 6 and 1 <= b <= 6 and calls[:2] == [b"3:0", b"3:1"]


def test_opening_roll_rerolls_ties_from_the_following_roll_numbers():
    for start in range(300):
        seed = hashlib.sha256(str(start).encode()).digest()
        white, black, ties, next_n = dice.opening_roll(seed, 0)
        assert white != black and 1 <= white <= 6 and 1 <= black <= 6
        assert next_n == len(ties) + 1
        assert [dice.roll(seed, n) for n in range(next_n)] == [*ties, [white, black]]
        assert all(w == b for w, b in ties)


def test_seed_hash_is_the_sha256_of_the_seed():
    seed = dice.new_seed()
    assert len(seed) == 32 and fairdice.seed_hash(seed) == hashlib.sha256(seed).hexdigest()


def test_the_documented_one_line_check_prints_the_hash_and_the_roll():
    seed = dice.new_seed()
    command = fairdice.VERIFY_COMMAND.replace("SEED N", f"{seed.hex()} 5")
    assert command.startswith("python3 -c ")
    # Run it through a shell as a reader would paste it (with this interpreter).
    command = command.replace("python3", sys.executable, 1)
    out = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, check=True
    ).stdout.split(None, 1)
    assert out[0] == hashlib.sha256(seed).hexdigest()
    assert out[1].strip() == str(dice.roll(seed, 5))


@pytest.mark.parametrize("seed", [None, b""])
def test_games_without_a_seed_still_get_fair_secure_dice(seed):
    rolls = [dice.roll(seed, 0) for _ in range(600)]
    assert {d for r in rolls for d in r} == {1, 2, 3, 4, 5, 6}
