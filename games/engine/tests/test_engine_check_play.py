"""check_play: submitted plays are judged by their result, and every refusal names its rule
(RULES.md R4–R8, Notation)."""

import pytest

from games.engine import (
    DiceError,
    IllegalPlay,
    NotationError,
    Position,
    PositionError,
    check_play,
    get_ruleset,
    legal_plays,
    legal_steps,
    step_graph,
)
from games.engine.errors import RulesetError


def pos(white, black, turn="white", first_turn=False):
    return Position.from_json(
        {"turn": turn, "white": white, "black": black, "first_turn": first_turn}
    )


START = Position.initial("white")


def refusal(position, dice, play):
    with pytest.raises(IllegalPlay) as exc:
        check_play(position, dice, play)
    return exc.value


def test_opening_second_head_checker_is_refused_by_the_head_rule():
    err = refusal(START, (6, 5), "24/18 24/19")
    assert err.code == "head"
    assert str(err) == "Only one checker may leave the head this turn."


def test_first_turn_six_six_allows_exactly_two_head_checkers():
    assert check_play(START, (6, 6), "24/18 24/18").result.white[18] == 2
    err = refusal(START, (6, 6), "24/18 24/18 24/18")
    assert err.code == "head" and "two checkers" in str(err)


# TV-16: white holds 24..20; a checker on 19 would complete six with no black checker ahead.
TV16 = pos({"24": 9, "23": 1, "22": 2, "21": 1, "20": 1, "10": 1}, {"24": 11, "18": 2, "15": 2})


def test_step_order_through_a_block_is_accepted_when_the_result_is_legal():
    # 22/19 makes the block for a moment; 22/21 21/18 reaches the same result without it.
    legal = {pl.result for pl in legal_plays(TV16, (3, 1))}
    assert check_play(TV16, (3, 1), "22/19 19/18").result in legal


def test_result_reachable_only_through_a_block_is_refused():
    # TV-18: 21/16 completes white 19-14; 21/20 is blocked, so {15: 2} is not legal.
    p = pos({"24": 9, "21": 1, "19": 1, "18": 1, "17": 1, "15": 1, "14": 1}, {"24": 14, "8": 1})
    err = refusal(p, (5, 1), "21/16 16/15")
    assert err.code == "six_block" and err.step == (21, 16)


def test_six_block_with_no_opponent_checker_ahead_is_refused():
    err = refusal(TV16, (3, 1), "22/19 10/9")
    assert err.code == "six_block"
    assert "six points in a row with no opponent checker ahead" in str(err)


def test_playing_one_die_when_both_can_be_played_is_refused():
    err = refusal(START, (6, 5), "24/18")
    assert err.code == "must_play_more" and "both dice" in str(err)


def test_passing_with_a_legal_move_is_refused():
    err = refusal(START, (6, 5), "")
    assert err.code == "cannot_pass"


def test_smaller_die_alone_is_refused_when_the_larger_can_be_played():
    # TV-13: only one die can be played; the 5 is compulsory.
    white = {"24": 14, "9": 1}
    black = {"24": 12, "7": 1, "9": 1, "13": 1}
    p = pos(white, black)
    assert [pl.notation for pl in legal_plays(p, (5, 3))] == ["9/4"]
    err = refusal(p, (5, 3), "9/6")
    assert err.code == "must_play_larger" and "(5)" in str(err)


def test_bearing_off_before_all_checkers_are_home_is_refused():
    white = {"11": 1, "3": 14}
    black = {"24": 15}
    err = refusal(pos(white, black), (5, 3), "3/off 11/8")
    assert err.code == "bear_off_not_home"


def test_a_play_is_judged_by_its_result_whatever_the_order_written():
    # RULES.md Notation: 3/off 7/2 leads where the legal 7/2 3/off leads (7/2 brings the last
    # checker home first), so it is accepted, and recorded in the order that can be played.
    p = pos({"7": 1, "3": 13}, {"24": 15})
    play = check_play(p, (5, 3), "3/off 7/2")
    assert play.steps == ((7, 2), (3, 0)) and play.result.white[0] == 2
    # 21/16 16/13 stops on a black point, but 21/18 18/13 reaches the same position.
    p = pos(
        {"24": 10, "21": 1, "19": 1, "17": 1, "15": 1, "13": 1},
        {"24": 9, "22": 2, "20": 1, "18": 1, "4": 1, "2": 1},
    )
    play = check_play(p, (5, 3), "21/16 16/13")
    assert play.steps == ((21, 18), (18, 13))
    # A single step onto a black point has no other order: refused, with the reason.
    assert refusal(p, (5, 3), "24/21 21/16").code == "blocked"


def test_larger_die_bears_off_only_from_the_highest_point():
    white = {"6": 1, "2": 1, "1": 1}
    black = {"24": 15}
    err = refusal(pos(white, black), (5, 1), "2/off 6/5")
    assert err.code == "bear_off_higher"
    assert check_play(pos(white, black), (5, 1), "6/1 2/1").result.white[1] == 3


def test_moving_onto_an_opponent_point_is_refused():
    err = refusal(START, (6, 1), "24/18 18/12")
    assert err.code in ("blocked", "no_die")
    err = refusal(START, (6, 5), "24/12")
    assert err.code == "no_die"


def test_step_from_an_empty_point_is_refused():
    assert refusal(START, (6, 5), "13/7 7/2").code == "no_checker"


def test_malformed_plays_and_inputs_raise_value_errors():
    for bad in ("24-18", "24/18/12", "25/20", "24/24", "x/off", "1/2 3/4 5/6 7/8 9/10"):
        with pytest.raises(NotationError):
            check_play(START, (6, 5), bad)
    with pytest.raises(DiceError):
        legal_plays(START, (0, 5))
    with pytest.raises(DiceError):
        legal_plays(START, (6,))
    with pytest.raises(RulesetError):
        legal_plays(START, (6, 5), "backgammon")
    with pytest.raises(PositionError):
        Position.from_json({"turn": "white", "white": {"25": 1}, "black": {}})
    assert all(
        issubclass(e, ValueError)
        for e in (DiceError, NotationError, PositionError, IllegalPlay, RulesetError)
    )


def test_forced_pass_is_the_only_play_and_the_graph_is_final_at_once():
    # TV-26: black holds white 18 and 14; nothing can move a 6.
    white = {"24": 13, "20": 2}
    black = {"24": 13, "6": 1, "2": 1}
    p = pos(white, black)
    plays = legal_plays(p, (6, 6))
    assert [pl.notation for pl in plays] == [""]
    assert plays[0].result.turn == "black" and plays[0].result.white == p.white
    assert step_graph(p, (6, 6)) == {"nodes": [{"steps": {}, "final": True}]}
    assert check_play(p, (6, 6), "").result == plays[0].result


def test_legal_steps_refuses_a_staged_step_that_leads_nowhere():
    with pytest.raises(IllegalPlay) as exc:
        legal_steps(START, (6, 5), "24/19 24/18")
    assert exc.value.code == "not_next"
    assert legal_steps(START, (6, 5)) == [(24, 18), (24, 19)]
    assert legal_steps(START, (6, 5), "24/18") == [(18, 13)]


def test_table_overrides_only_where_the_preset_allows():
    assert get_ruleset("classic", {"cube": True}).cube
    assert not get_ruleset("classic", {"koks": False}).koks
    with pytest.raises(RulesetError):
        get_ruleset("sport", {"cube": True})
    with pytest.raises(RulesetError):
        get_ruleset("classic", {"clock": "blitz"})


def test_second_players_first_turn_keeps_the_head_exception():
    after_white = check_play(START, (6, 5), "24/18 18/13").result
    assert after_white.turn == "black" and after_white.first_turn
    after_black = check_play(after_white, (4, 4), "24/20 20/16 24/20 20/16").result
    assert not after_black.first_turn


def test_notation_takes_ascii_digits_only_and_spaces_around_the_slash():
    from games.engine import parse_play

    assert parse_play("24 / 18, 18/13") == ((24, 18), (18, 13))
    for bad in ("²/1", "24/¹8", "２４/２０", "٢٤/٢٠"):
        with pytest.raises(NotationError):
            parse_play(bad)
