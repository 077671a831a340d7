"""The check of a Mini App's initData (games/telegram/init_data.py), signed as Telegram signs
it with a made-up bot token: accepted when signed and fresh; refused when expired, from the
future, tampered with, signed for another bot, unreadable or without a user."""

import json
import time
from urllib.parse import parse_qsl, urlencode

import pytest

from games.telegram import init_data
from games.tests.telegram_helpers import TOKEN, sign
from games.tests.telegram_helpers import init_data as make_init_data


def refused(raw, **kwargs):
    with pytest.raises(init_data.InitDataRefused) as caught:
        init_data.check(raw, TOKEN, max_age=600, **kwargs)
    assert caught.value.message  # a reason a person can read
    return caught.value.reason


def test_signed_fresh_init_data_is_accepted_with_its_user_and_start_parameter():
    raw = make_init_data(user_id=777, start_param="c0123", username="olga_k")
    data = init_data.check(raw, TOKEN, max_age=600)
    assert data.telegram_id == 777
    assert data.user["username"] == "olga_k"
    assert data.start_param == "c0123"
    assert data.hash == dict(parse_qsl(raw))["hash"]
    assert time.time() - data.auth_date < 60


def test_init_data_older_than_the_window_or_from_the_future_is_refused():
    assert refused(make_init_data(age=601)) == "expired"
    assert init_data.check(make_init_data(age=590), TOKEN, max_age=600)
    assert refused(make_init_data(age=-(init_data.CLOCK_SKEW + 60))) == "expired"


def test_any_change_to_signed_init_data_is_refused():
    fields = dict(parse_qsl(make_init_data(user_id=777)))
    for key, value in (
        ("user", fields["user"].replace("777", "778")),
        ("auth_date", str(int(fields["auth_date"]) + 1)),
        ("query_id", fields["query_id"] + "x"),
        ("signature", "forged"),
    ):
        assert refused(urlencode({**fields, key: value})) == "bad_signature"
    # a field added after signing
    assert refused(urlencode({**fields, "start_param": "g1"})) == "bad_signature"
    # signed for another bot
    other = make_init_data(token="7000000003:another-bot-token")
    assert refused(other) == "bad_signature"
    # the hash taken away
    unsigned = {key: value for key, value in fields.items() if key != "hash"}
    assert refused(urlencode(unsigned)) == "unsigned"


def test_unreadable_init_data_is_refused():
    good = make_init_data()
    for raw in ("", "=&=", good + "&hash=00", "x" * (init_data.MAX_LENGTH + 1), None, 42):
        assert refused(raw) in ("unreadable", "unsigned")
    fields = dict(parse_qsl(good))
    fields.pop("hash")
    fields["auth_date"] = "yesterday"
    assert refused(urlencode(sign(fields))) == "unreadable"


def test_init_data_without_a_user_is_refused():
    for user in ("", "not json", json.dumps({"first_name": "X"}), json.dumps({"id": -5})):
        fields = {"auth_date": str(int(time.time())), "user": user}
        assert refused(urlencode(sign(fields))) == "no_user"
