"""The bot levels, the neural evaluator, its training and the bear-off table.
Pure Python + numpy: no database."""

import hashlib
import json
import os
import random
import signal
import threading
import time

import numpy as np
import pytest

from games.bots import (
    ALL_LEVELS,
    LEVELS,
    bearoff,
    choose_play,
    distill,
    neural,
    reference,
    search,
    train,
)
from games.bots.features import N_INPUTS, encode
from games.bots.network import Network, equity, flip
from games.engine import Position, legal_plays, other
from games.services.options import bot_levels


def pos(white, black, turn="white", first_turn=False):
    return Position.from_json(
        {"turn": turn, "white": white, "black": black, "first_turn": first_turn}
    )


def test_encoding_has_213_inputs_and_sees_the_opponent_on_the_same_physical_point():
    start = Position.initial("white")
    x = encode([start.white], start.black)
    assert x.shape == (1, N_INPUTS) == (1, 213)
    # Black's head (black 24) is white's 12: the opponent block, point 12, first unit.
    assert x[0, 96 + (12 - 1) * 4] == 1 and x[0, 96 + (24 - 1) * 4] == 0
    assert x[0, (24 - 1) * 4 + 3] == pytest.approx((15 - 3) / 4)
    # Contact, nobody home, and a run of one point (the head) each.
    assert list(x[0, 198:203]) == pytest.approx([0, 0, 0, 1 / 6, 1 / 6])
    # Each head holds back all 15 of the other side's checkers (6 at most): 6/36; nothing near,
    # a run of one (1/36), nothing in front of the other head; every die face has a step.
    assert list(x[0, 203:]) == pytest.approx([6 / 36, 0, 1 / 36, 0, 0] * 2)


def test_encoding_carries_the_medium_evaluations_blocking_terms_for_both_sides():
    # The extra inputs are medium's own terms (games.bots.heuristic.medium_terms), scaled; the
    # die faces without a step are counted without R7's block rule, so never more than medium's.
    from games.bots.features import N_BASE
    from games.bots.heuristic import medium_terms

    rng = random.Random(11)
    checked = 0
    for _ in range(6):
        position = Position.initial("white")
        while not position.winner:
            mover = position.turn
            them = position.board("black" if mover == "white" else "white")
            plays = legal_plays(position, (rng.randint(1, 6), rng.randint(1, 6)))
            x = encode([p.result.board(mover) for p in plays], them)
            for play, row in zip(plays, x):
                mine = play.result.board(mover)
                for k, (board, blocked) in enumerate(((mine, them), (them, mine))):
                    t = medium_terms(board, blocked)
                    got = row[N_BASE + 5 * k : N_BASE + 5 * k + 5]
                    assert list(got[:4]) == pytest.approx(
                        [t["hold"] / 36, t["near"] / 6, t["run_squares"] / 36, t["front"] / 6]
                    )
                    assert got[4] * 6 <= t["no_reply"] + 1e-6
                    checked += 1
            position = rng.choice(plays).result
    assert checked > 1000


def test_encoding_knows_a_finished_race_the_home_and_the_longest_block():
    # White: 13, 12, 11 and 6, 5, 4, 2, 1 (five at home); black all home on its 6 and 5, which
    # are white's 18 and 17: white's 13 must still pass them, so there is contact.
    white = {"13": 1, "12": 1, "11": 1, "6": 1, "5": 1, "4": 1, "2": 1, "1": 1}
    black = {"6": 2, "5": 2}
    position = pos(white, black)
    x = encode([position.white], position.black)[0]
    assert x[198] == 0  # contact: white 13 is black's 1
    assert x[199] == pytest.approx(5 / 15) and x[200] == pytest.approx(4 / 15)
    # Along the other side's path (own 12, 11, …, 1, 24, …, 13): white 12-11, 6-5-4, 2-1 and
    # 13 apart; black 6-5.
    assert x[201] == pytest.approx(3 / 6) and x[202] == pytest.approx(2 / 6)
    raced = pos({"6": 1, "5": 1, "4": 1}, {"6": 2, "5": 2})
    raced_x = encode([raced.white], raced.black)[0]
    assert raced_x[198] == 1 and not raced_x[203:].any()  # nothing left to block


def test_training_trace_is_the_gradient_of_whites_values_for_both_sides():
    # TD(lambda) over one game needs one trace in one side's terms: a position after Black's
    # play enters White's trace through flip (win -> 1 - win, mars outputs swapped).
    net = Network(hidden=6, seed=2)
    trainer = train.Trainer(net, alpha=0.1, lam=0.0)
    position = pos({"24": 10, "18": 2, "13": 3}, {"24": 12, "19": 3})
    x = encode([position.white], position.black)[0].astype(np.float64)
    for side in ("white", "black"):
        trace = trainer._zero_trace()
        trainer._accumulate(trace, x, side)

        def whites(n, side=side):
            y = n.forward(x)[1]
            return y if side == "white" else flip(y)

        for name, index, slot in (
            ("w1", (92, 3), 0),
            ("b1", (2,), 1),
            ("w2", (4, 1), 2),
            ("w2", (4, 2), 2),
            ("b2", (0,), 3),
        ):
            weights = getattr(net, name).astype(np.float64)
            setattr(net, name, weights)
            weights[index] += 1e-3
            up = whites(net)
            weights[index] -= 2e-3
            down = whites(net)
            weights[index] += 1e-3
            numeric = (up - down) / 2e-3
            assert [trace[slot][k][index] for k in range(3)] == pytest.approx(numeric, abs=1e-4)


def test_flip_swaps_the_sides_and_equity_is_in_points():
    y = np.array([[0.7, 0.2, 0.05]])
    assert flip(flip(y)) == pytest.approx(y)
    assert equity(y)[0] == pytest.approx(2 * 0.7 - 1 + 0.2 - 0.05)
    assert equity(flip(y))[0] == pytest.approx(-equity(y)[0])


def test_network_weights_round_trip(tmp_path):
    net = Network(hidden=8, seed=3)
    net.save(tmp_path / "n.npz", games=0, seed=3)
    again = Network.load(tmp_path / "n.npz")
    x = encode([Position.initial("white").white], Position.initial("white").black)
    assert again.evaluate(x) == pytest.approx(net.evaluate(x))
    assert again.meta == {"games": 0, "seed": 3}


def test_training_is_reproducible_from_its_seed(tmp_path):
    for name in ("a", "b"):
        assert (
            train.main(
                [
                    "--games",
                    "3",
                    "--seed",
                    "7",
                    "--hidden",
                    "8",
                    "--out",
                    str(tmp_path / f"{name}.npz"),
                ]
            )
            == 0
        )
    a, b = (np.load(tmp_path / f"{n}.npz") for n in ("a", "b"))
    assert all(np.array_equal(a[k], b[k]) for k in ("w1", "b1", "w2", "b2"))
    assert not np.array_equal(a["w1"], Network(hidden=8, seed=7).w1)  # it learned something


def test_training_steps_fall_to_alpha_end_and_every_save_is_kept(tmp_path):
    assert (
        train.main(
            [
                "--games",
                "4",
                "--seed",
                "7",
                "--hidden",
                "8",
                "--alpha",
                "0.1",
                "--alpha-end",
                "0.01",
                "--save-every",
                "2",
                "--out",
                str(tmp_path / "run-{games}.npz"),
            ]
        )
        == 0
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run-2.npz", "run-4.npz"]
    meta = Network.load(tmp_path / "run-4.npz").meta
    assert (meta["games"], meta["alpha"], meta["alpha_end"]) == (4, 0.1, 0.01)
    # A different step schedule learns differently from the same seed.
    assert (
        train.main(
            [
                "--games",
                "4",
                "--seed",
                "7",
                "--hidden",
                "8",
                "--alpha",
                "0.1",
                "--out",
                str(tmp_path / "flat.npz"),
            ]
        )
        == 0
    )
    assert not np.array_equal(
        np.load(tmp_path / "flat.npz")["w1"], np.load(tmp_path / "run-4.npz")["w1"]
    )


def test_the_arena_can_measure_another_network_file(tmp_path):
    other_net = Network(hidden=4, seed=9)
    other_net.save(tmp_path / "other.npz", games=0)
    try:
        neural.use_weights(tmp_path / "other.npz")
        assert neural.network().w1.shape[1] == 4
    finally:
        neural.use_weights(neural.WEIGHTS)
    assert neural.network().w1.shape[1] != 4


@pytest.mark.parametrize("level", ALL_LEVELS)
def test_every_level_plays_legal_plays(level):
    rng = random.Random(5)
    position = pos({"24": 10, "18": 2, "13": 3}, {"24": 12, "19": 3}, turn="black")
    for dice in [(6, 5), (3, 3), (2, 1), (6, 6)]:
        legal = {p.notation for p in legal_plays(position, dice)}
        assert choose_play(position, dice, "sport", level=level, rng=rng).notation in legal


@pytest.mark.parametrize("choose", [neural.choose_hard, neural.choose_expert])
def test_a_network_level_falls_back_to_its_first_choice_at_the_time_cap(choose):
    position = pos({"24": 10, "18": 2, "13": 3}, {"24": 12, "19": 3}, turn="black")
    plays = legal_plays(position, (6, 5))
    values = search.values(
        neural.network(), "black", [p.result for p in plays], position.board("white")
    )
    capped = choose(position, (6, 5), plays, cap_s=0)
    assert capped == plays[int(np.argmax(values))]


def test_bearoff_table_is_exact_on_small_positions():
    t = bearoff.table()
    empty = (15,) + (0,) * 24

    def one_on(p):
        return tuple(14 if i == 0 else (1 if i == p else 0) for i in range(25))

    assert t.rolls_to_finish(empty) == 0
    assert t.rolls_to_finish(one_on(1)) == pytest.approx(1.0)
    # One checker on 6: off at once with a 6, a double from 2-2 up, or two dice summing to
    # 6 or more; 1-1, 2-1, 3-1, 4-1 and 3-2 (9/36) leave it inside, and the next roll ends it.
    assert t.rolls_to_finish(one_on(6)) == pytest.approx(1 + 9 / 36)
    # Fifteen on 6: a checker comes off in one roll with a 6 (11/36), 5-1 or 4-2 (6/1 1/off,
    # 6/2 2/off: 4/36), 2-2 (6/4/2/off) or 3-3 (6/3/off): 17/36.
    fifteen_on_six = (0,) * 6 + (15,) + (0,) * 18
    assert t.chance_first_off(fifteen_on_six, 1) == pytest.approx(17 / 36)


def test_bear_off_play_uses_the_table_in_a_finished_race():
    # White (to move) all home, black all home: no contact. 6-1: 6/off 1/off is best.
    position = pos({"6": 1, "5": 2, "1": 1}, {"3": 2, "2": 1})
    assert choose_play(position, (6, 1), "sport").notation in ("6/off 1/off", "1/off 6/off")


def test_bot_plays_to_save_the_mars():
    # White has none off and black will finish next roll: white must get one off now.
    position = pos({"6": 14, "2": 1}, {"1": 1})
    play = choose_play(position, (4, 2), "sport")
    assert play.result.white[0] >= 1


def test_the_reference_is_frozen_and_not_offered_to_players():
    digest = hashlib.sha256(reference.REFERENCE_WEIGHTS.read_bytes()).hexdigest()
    assert digest == reference.REFERENCE_SHA256, "the reference network must never change"
    assert "reference" in ALL_LEVELS and "reference" not in LEVELS
    assert "reference" not in bot_levels()


def run_options(*extra):
    """Arguments of a small training run (hidden 8, seed 7) plus ``extra``."""
    return [
        "--games",
        "6",
        "--seed",
        "7",
        "--hidden",
        "8",
        "--alpha-end",
        "0.05",
        "--progress-every",
        "2",
        *extra,
    ]


def weights(path):
    data = np.load(path)
    return [data[k] for k in ("w1", "b1", "w2", "b2")]


def test_a_training_run_stopped_and_resumed_equals_one_that_never_stopped(tmp_path):
    whole = tmp_path / "whole.npz"
    assert train.main(run_options("--out", str(whole))) == 0
    sliced, out = tmp_path / "sliced", tmp_path / "sliced.npz"
    assert (
        train.main(run_options("--out", str(out), "--checkpoint", str(sliced), "--stop-after", "2"))
        == 0
    )
    assert not out.exists()  # two games of six: no save yet, only the checkpoint
    for _ in range(2):
        # the resumed run takes its options from the checkpoint, not from the command line
        assert (
            train.main(
                [
                    "--resume",
                    "--checkpoint",
                    str(sliced),
                    "--stop-after",
                    "2",
                    "--seed",
                    "9",
                    "--progress-every",
                    "2",
                ]
            )
            == 0
        )
    assert all(np.array_equal(a, b) for a, b in zip(weights(whole), weights(out), strict=True))
    lines = [json.loads(line) for line in (sliced / train.LOG).read_text().splitlines()]
    assert [line["games"] for line in lines] == [2, 4, 6]
    assert all(line["games_per_s"] > 0 and 0 <= line["white_wins"] <= 1 for line in lines)
    # nothing left to do: resuming again plays no game and changes nothing
    before = (sliced / train.CHECKPOINT).read_bytes()
    assert train.main(["--resume", "--checkpoint", str(sliced)]) == 0
    assert (sliced / train.CHECKPOINT).read_bytes() == before


def test_a_signal_ends_training_after_the_game_in_play_with_a_checkpoint(tmp_path):
    stopped = tmp_path / "stopped"

    def stop_when_it_listens():
        # a SIGTERM before the run's handler is in place would end the test process itself
        while signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            time.sleep(0.01)
        time.sleep(0.3)
        os.kill(os.getpid(), signal.SIGTERM)

    timer = threading.Thread(target=stop_when_it_listens)
    timer.start()
    assert (
        train.main(
            run_options(
                "--games", "100000", "--checkpoint", str(stopped), "--out", str(tmp_path / "w.npz")
            )
        )
        == 0
    )
    timer.join()
    _net, options, games, _rng = train.Checkpoint(stopped).load()
    assert 0 < games < 100_000 and options["games"] == 100_000
    # the same run cut at the same game by --stop-after holds the same state
    again = tmp_path / "again"
    assert (
        train.main(
            run_options(
                "--games",
                "100000",
                "--checkpoint",
                str(again),
                "--out",
                str(tmp_path / "w.npz"),
                "--stop-after",
                str(games),
            )
        )
        == 0
    )
    assert (again / train.CHECKPOINT).read_bytes() == (stopped / train.CHECKPOINT).read_bytes()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the run gave the signal back


def test_training_refuses_to_resume_nothing_or_to_overwrite_a_run(tmp_path, capsys):
    run = tmp_path / "run"
    assert train.main(["--resume", "--checkpoint", str(run)]) == 2
    assert "nothing to resume" in capsys.readouterr().err
    assert (
        train.main(
            run_options(
                "--checkpoint", str(run), "--stop-after", "1", "--out", str(tmp_path / "w.npz")
            )
        )
        == 0
    )
    assert train.main(run_options("--checkpoint", str(run), "--out", str(tmp_path / "w.npz"))) == 2
    assert "--resume" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.main(["--resume"])  # which run?


def test_training_can_start_from_saved_weights_and_says_which(tmp_path):
    start = tmp_path / "start.npz"
    Network(hidden=12, seed=3).save(start, games=0)  # wider than the run's --hidden 8: kept
    out = tmp_path / "saves" / "out.npz"  # its folder is made
    assert train.main(run_options("--games", "1", "--init", str(start), "--out", str(out))) == 0
    trained = Network.load(out)
    assert trained.b1.shape == (12,) and trained.meta["hidden"] == 12
    assert trained.meta["init"] == f"start.npz sha256:{train.sha256(start)}"


def test_a_network_widened_for_training_keeps_its_outputs(tmp_path):
    narrow = Network(hidden=5, seed=3)
    wide = narrow.widened(9, seed=1)
    assert wide.w1.shape == (N_INPUTS, 9) and wide.w2.shape == (9, 3)
    x = np.random.default_rng(0).random((20, N_INPUTS)).astype(np.float32)
    assert np.abs(wide.evaluate(x) - narrow.evaluate(x)).max() < 1e-3
    assert np.array_equal(wide.w1[:, :5], narrow.w1)
    copies = wide.w1[:, 5:].T  # each near an old unit, none exactly: training can part them
    assert all(min(np.abs(c - narrow.w1.T).max(axis=1)) < 1e-2 for c in copies)
    assert not any((c == narrow.w1.T).all(axis=1).any() for c in copies)
    with pytest.raises(ValueError):
        narrow.widened(4)
    start = tmp_path / "start.npz"
    narrow.save(start, games=0)
    out = tmp_path / "out.npz"
    assert train.main(run_options("--games", "1", "--init", str(start), "--out", str(out))) == 0
    assert Network.load(out).meta["hidden"] == 8


def midgame_positions(count, seed=3):
    """``count`` positions of a game the hard level plays against itself, each with its roll
    and legal plays: ``[(position, dice, plays)]``."""
    rng, out = random.Random(seed), []
    position, dice = Position.initial("white"), (3, 1)
    while len(out) < count:
        plays = legal_plays(position, dice)
        out.append((position, dice, plays))
        position = choose_play(position, dice, "sport", level="hard").result
        assert not position.winner
        dice = (rng.randint(1, 6), rng.randint(1, 6))
    return out


def test_one_batch_of_replies_gives_each_position_its_own_one_ply_value():
    net = neural.network()
    for position, _dice, plays in midgame_positions(12)[4:]:
        afters = [p.result for p in plays[:5]]
        batched = search.one_ply(net, afters, position.turn)
        alone = [reference.one_ply(net, after, position.turn) for after in afters]
        assert batched == pytest.approx(alone, abs=1e-5)


def test_two_ply_is_minus_the_mean_of_the_one_ply_values_of_the_opponents_picked_replies():
    net = neural.network()
    position, _dice, plays = midgame_positions(9)[8]
    after, mover = plays[0].result, position.turn
    expected = 0.0
    for dice, weight in search.ROLLS:
        replies = legal_plays(after, dice)
        picked = replies[
            int(np.argmax(search.values(net, other(mover), [r.result for r in replies])))
        ]
        expected -= weight / 36 * search.one_ply(net, [picked.result], other(mover))[0]
    assert search.two_ply(net, [after], mover)[0] == pytest.approx(expected, abs=1e-6)


def test_the_search_judges_the_play_made_at_every_ply_it_reaches():
    net = neural.network()
    filters = (search.Filter(keep=3, margin=1.0), search.Filter(keep=2, margin=1.0))
    for position, _dice, plays in midgame_positions(10)[5:]:
        if len(plays) < 5:
            continue
        worst = int(np.argmin(search.values(net, position.turn, [p.result for p in plays])))
        ranked = search.rank(net, position, plays, filters, also=worst)
        assert ranked.ply == 2 and ranked.plies[ranked.index] == 2 and ranked.plies[worst] == 2
        assert sorted(ranked.plies, reverse=True)[:3] == [2, 2, 2] or len(plays) < 3
        assert ranked.scores[ranked.index] >= ranked.scores[worst]
        assert sum(p == 2 for p in ranked.plies) <= 3  # two kept and the play made


def test_expert_searches_deeper_than_hard_within_its_cap():
    net = neural.network()
    position, _dice, plays = midgame_positions(8)[7]
    hard = search.rank(net, position, plays, (neural.HARD,), neural.HARD_CAP_S * 20)
    expert = search.rank(net, position, plays, (neural.EXPERT, neural.EXPERT_DEEP), 30)
    assert (hard.ply, expert.ply) == (1, 2)


def test_the_one_ply_targets_are_the_one_ply_values_as_three_chances():
    net = neural.network()
    for position, _dice, plays in midgame_positions(12)[6:]:
        afters = [p.result for p in plays[:4]]
        targets = distill.one_ply_targets(net, afters, position.turn)
        assert ((targets >= 0) & (targets <= 1)).all()
        values = search.one_ply(net, afters, position.turn)
        assert equity(targets) == pytest.approx(values, abs=1e-4)


def test_labelling_goes_on_where_it_stopped_and_fitting_learns_the_targets(tmp_path, monkeypatch):
    monkeypatch.setattr(distill, "SHARD", 40)
    data = tmp_path / "data"
    common = ["label", "--seed", "4", "--data", str(data), "--init", str(neural.WEIGHTS)]
    assert distill.main([*common, "--positions", "40"]) == 0
    first = (data / "shard-00000.npz").read_bytes()
    assert distill.main([*common, "--positions", "80"]) == 0  # one more shard; the first kept
    assert (data / "shard-00000.npz").read_bytes() == first
    assert sorted(p.name for p in data.glob("shard-*")) == ["shard-00000.npz", "shard-00001.npz"]
    again = tmp_path / "again"
    assert (
        distill.main(
            [
                "label",
                "--seed",
                "4",
                "--data",
                str(again),
                "--init",
                str(neural.WEIGHTS),
                "--positions",
                "80",
            ]
        )
        == 0
    )
    assert (again / "shard-00001.npz").read_bytes() == (data / "shard-00001.npz").read_bytes()
    # another seed into the same folder is refused
    assert (
        distill.main(["label", "--seed", "5", "--data", str(data), "--init", str(neural.WEIGHTS)])
        == 2
    )

    x, t = distill.load_data(data)
    net = Network(hidden=8, seed=1)
    losses = []
    distill.fit(
        net, x, t, 30, 0.01, 16, np.random.default_rng(0), lambda e, loss: losses.append(loss)
    )
    assert losses[-1] < losses[0] * 0.8
    out = tmp_path / "fitted.npz"
    assert (
        distill.main(
            [
                "fit",
                "--data",
                str(data),
                "--init",
                str(neural.WEIGHTS),
                "--out",
                str(out),
                "--epochs",
                "1",
            ]
        )
        == 0
    )
    assert Network.load(out).meta["distilled_from"]["seed"] == 4
