"""Screening of training saves (games.bots.screen): 0-ply dice-paired matches of two networks.
Pure Python: no database."""

from games.bots import screen
from games.bots.network import WEIGHTS, Network


def test_a_network_against_itself_scores_exactly_one_half():
    # Same network, same dice, colours swapped: the two games of a pair are the same game.
    same = screen.run(str(WEIGHTS), str(WEIGHTS), pairs=6, seed=3, jobs=1)
    assert same["a_score"] == 0.5 and same["ci95"] == [0.5, 0.5]


def test_the_trained_network_beats_an_untrained_one(tmp_path):
    untrained = tmp_path / "untrained.npz"
    Network(hidden=8, seed=0).save(untrained)
    result = screen.run(str(WEIGHTS), str(untrained), pairs=20, seed=4, jobs=2)
    assert result["ci95"][0] > 0.7
