"""Every number that comes from outside is bounded before it is used (issue #30): the
Telegram sign-in widget's callback, the Mini App's initData, the bot's webhook, the game and
lobby sockets' frames and the forms. Huge numbers (309 digits overflow a float, 4,301 exceed
Python's limit on converting text to int), negative ones, floats, NaN, Infinity and booleans
get the usual refusal (a 400 page, an ignored update, an error frame), never a 500 or a
traceback; values exactly at a limit are accepted and one past it refused."""

import base64
import hashlib
import hmac
import json
import logging
from urllib.parse import urlencode

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.test import Client

from games.accounts import sign_in
from games.lobby.tests.test_lobby import join_frame, lobby_socket, receive
from games.room import consumer
from games.room.models import Game
from games.room.tests.test_consumers import TIMEOUT, communicator, connect
from games.telegram import init_data
from games.telegram.models import TelegramLink
from games.telegram.views import MAX_UPDATE_BYTES
from games.tests.factories import FixedDice, new_bot_game, state
from games.tests.telegram_helpers import (  # noqa: F401 - fixtures used by name
    TOKEN,
    WEBHOOK_SECRET,
    bot_api_stub,
    sign,
    telegram_on,
)

User = get_user_model()
MAX_AGE = 600  # settings.TELEGRAM_AUTH_MAX_AGE
SKEW = 300  # how far ahead of our clock an auth_date may be
NOW = 1_800_000_000  # a fixed "now" for the exact limits (Unix seconds)
HOOK = f"/telegram/webhook/{WEBHOOK_SECRET}/"
WIDGET_CALLBACK = "/en/accounts/telegram/login/callback/"

#: text that cannot be read as a number within bounds: a float overflows at 309 digits, and
#: Python refuses to convert text of over 4,300 digits to an int
DIGITS_309 = "9" * 309
DIGITS_4301 = "9" * 4301


# --- the sign-in widget (games/accounts/sign_in.py) -------------------------------------------------


def widget_signed(fields, token=TOKEN):
    """``fields`` with the ``hash`` the Telegram login widget adds: HMAC-SHA-256 of the
    sorted ``key=value`` lines keyed with SHA-256 of the bot token."""
    check = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    secret = hashlib.sha256(token.encode()).digest()
    return {**fields, "hash": hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()}


def widget_post(text):
    """POST ``text`` (the JSON of the answer) as ``tgAuthResult``, as allauth's callback page
    does, with no state and no session: what an attacker can do."""
    encoded = base64.b64encode(text.encode()).decode().rstrip("=")
    return Client().post(WIDGET_CALLBACK, {"tgAuthResult": encoded})


def assert_widget_refused(response, reason):
    assert response.status_code == 400
    page = response.content.decode()
    assert "Telegram sign-in refused" in page and reason in page, page[-600:]
    assert not User.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "auth_date",
    [f'"{DIGITS_309}"', DIGITS_309, f'"{DIGITS_4301}"'],
    ids=["309 digits", "309 digits as a number", "4301 digits"],
)
def test_an_unsigned_widget_answer_with_a_huge_auth_date_is_refused_for_its_signature(
    telegram_on, auth_date
):
    # the age was checked before the signature: 500 (OverflowError, or "Exceeds the limit")
    response = widget_post(f'{{"id":1,"auth_date":{auth_date},"hash":"x"}}')
    assert_widget_refused(response, "does not carry a valid signature")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text",
    [
        '{"id":1,"auth_date":1,"hash":"\\ud800"}',
        '{"id":1,"auth_date":1,"first_name":"\\udfff","hash":"x"}',
        '{"id":1,"auth_date":1,"\\ud800":"x","hash":"x"}',
    ],
    ids=["in the hash", "in a value", "in a key"],
)
def test_a_widget_answer_with_a_lone_surrogate_is_unreadable_not_a_500(telegram_on, text):
    # a JSON escape made a lone surrogate, and encoding it for the signature raised (attack run)
    assert_widget_refused(widget_post(text), "could not be read")


WIDGET_AUTH_DATES = {
    "309 digits": DIGITS_309,
    "4301 digits": DIGITS_4301,
    "negative": "-5",
    "negative number": -5,
    "float": 1.5,
    "float text": "1700000000.5",
    "exponent": "1e9",
    "true": True,
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
    "one past the bound": init_data.MAX_AUTH_DATE + 1,
}


@pytest.mark.django_db
@pytest.mark.parametrize("case", sorted(WIDGET_AUTH_DATES))
def test_a_signed_widget_answer_with_an_auth_date_out_of_range_is_refused(telegram_on, case):
    fields = widget_signed({"id": 4242, "first_name": "Ivan", "auth_date": WIDGET_AUTH_DATES[case]})
    reasons = ("no valid sign-in time", "could not be read")
    response = widget_post(json.dumps(fields))
    assert response.status_code == 400
    assert any(reason in response.content.decode() for reason in reasons)
    assert not User.objects.exists()


WIDGET_IDS = {
    "zero": 0,
    "negative": -1,
    "2**52": init_data.MAX_USER_ID,
    "309 digits": DIGITS_309,
    "309 digits as a number": int(DIGITS_309),
    "4301 digits": DIGITS_4301,
    "float": 1.5,
    "true": True,
    "NaN": float("nan"),
    "Infinity": float("inf"),
}


@pytest.mark.django_db
@pytest.mark.parametrize("case", sorted(WIDGET_IDS))
def test_a_signed_widget_answer_with_an_id_out_of_range_is_refused(telegram_on, case):
    fields = widget_signed({"id": WIDGET_IDS[case], "first_name": "Ivan", "auth_date": NOW})
    with pytest.raises(sign_in.TelegramRefused) as refused:
        sign_in.check_telegram_data(fields, TOKEN, now=NOW)
    assert "could not be read" in refused.value.message
    assert_widget_refused(widget_post(json.dumps(fields)), "could not be read")


def test_the_widgets_limits_are_exact():
    def check(at, now=NOW, user_id=4242):
        fields = widget_signed({"id": user_id, "first_name": "Ivan", "auth_date": at})
        sign_in.check_telegram_data(fields, TOKEN, now=now, max_age=MAX_AGE)

    check(NOW - MAX_AGE)
    check(str(NOW + SKEW))
    check(NOW, user_id=init_data.MAX_USER_ID - 1)
    check(NOW, user_id=str(init_data.MAX_USER_ID - 1))
    check(init_data.MAX_AUTH_DATE, now=init_data.MAX_AUTH_DATE)
    for at, now, user_id, reason in (
        (NOW - MAX_AGE - 1, NOW, 4242, "has expired"),
        (NOW + SKEW + 1, NOW, 4242, "has expired"),
        (NOW, NOW, init_data.MAX_USER_ID, "could not be read"),
        (init_data.MAX_AUTH_DATE + 1, init_data.MAX_AUTH_DATE + 1, 4242, "no valid sign-in time"),
    ):
        with pytest.raises(sign_in.TelegramRefused) as refused:
            check(at, now, user_id)
        assert reason in refused.value.message, (at, user_id)


# --- the Mini App (games/telegram/init_data.py) ---------------------------------------------


def mini_app_data(auth_date, user_id=5151, user_json=None):
    """A Mini App's initData signed with the tests' bot, with this ``auth_date`` (text) and
    a user of ``user_id`` (or the user's JSON text ``user_json``)."""
    user = user_json or json.dumps({"id": user_id, "first_name": "Olga"})
    return urlencode(sign({"user": user, "auth_date": str(auth_date), "query_id": "AAE1"}))


@pytest.mark.django_db
@pytest.mark.parametrize(
    "auth_date",
    [DIGITS_309, "9" * 400, DIGITS_4301, "-5", "1.5", "NaN", "Infinity", "true", ""],
    ids=["309", "400", "4301", "negative", "float", "NaN", "Infinity", "true", "empty"],
)
def test_signed_init_data_with_an_auth_date_out_of_range_is_refused_as_unreadable(
    telegram_on, client, auth_date
):
    client.get("/tg/")
    response = client.post("/tg/session/", {"init_data": mini_app_data(auth_date)})
    assert response.status_code == 400
    assert "could not be read" in response.content.decode()
    assert not User.objects.exists()
    with pytest.raises(init_data.InitDataRefused) as refused:
        init_data.check(mini_app_data(auth_date), TOKEN, now=NOW)
    assert refused.value.reason == "unreadable"


@pytest.mark.parametrize(
    "user_json",
    [
        '{"id":0}',
        '{"id":-1}',
        f'{{"id":{init_data.MAX_USER_ID}}}',
        f'{{"id":{DIGITS_309}}}',
        f'{{"id":{DIGITS_4301}}}',
        '{"id":1.5}',
        '{"id":5151.0}',
        '{"id":NaN}',
        '{"id":Infinity}',
        '{"id":1e400}',
        '{"id":true}',
        '{"id":"5151"}',
    ],
)
def test_signed_init_data_with_a_user_id_out_of_range_is_refused(user_json):
    with pytest.raises(init_data.InitDataRefused) as refused:
        init_data.check(mini_app_data(NOW, user_json=user_json), TOKEN, now=NOW)
    assert refused.value.reason == "no_user"


def test_the_mini_apps_limits_are_exact():
    def check(at, now=NOW, user_id=5151):
        return init_data.check(mini_app_data(at, user_id), TOKEN, now=now, max_age=MAX_AGE)

    assert check(NOW - MAX_AGE).auth_date == NOW - MAX_AGE
    assert check(NOW + SKEW).auth_date == NOW + SKEW
    assert check(NOW, user_id=init_data.MAX_USER_ID - 1).telegram_id == init_data.MAX_USER_ID - 1
    assert check(init_data.MAX_AUTH_DATE, now=init_data.MAX_AUTH_DATE).auth_date > 0
    for at, now, reason in (
        (NOW - MAX_AGE - 1, NOW, "expired"),
        (NOW + SKEW + 1, NOW, "expired"),
        (init_data.MAX_AUTH_DATE + 1, init_data.MAX_AUTH_DATE + 1, "unreadable"),
    ):
        with pytest.raises(init_data.InitDataRefused) as refused:
            check(at, now)
        assert refused.value.reason == reason, at


# --- the bot's webhook (games/telegram/views.py, games/telegram/webhook.py) -----------------


def post_hook(client, body, **extra):
    return client.post(
        HOOK,
        body,
        content_type="application/json",
        headers={"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET},
        **extra,
    )


def start_update(chat_id="700", sender_id="700", chat_type="private", update_id="1"):
    """A /start message's update as JSON text, with these numbers written as given."""
    return (
        f'{{"update_id":{update_id},"message":{{"message_id":5,"date":1700000000,'
        f'"from":{{"id":{sender_id},"is_bot":false,"first_name":"Ann","language_code":"en"}},'
        f'"chat":{{"id":{chat_id},"type":"{chat_type}"}},"text":"/start"}}}}'
    )


def padded(text, size):
    """``text`` (JSON) followed by spaces up to ``size`` bytes."""
    return text + " " * (size - len(text.encode()))


@pytest.mark.django_db
def test_a_webhook_body_over_the_limit_is_413_whatever_its_size(telegram_on, client):
    update = start_update()
    assert post_hook(client, padded(update, MAX_UPDATE_BYTES)).status_code == 200
    assert post_hook(client, padded(update, MAX_UPDATE_BYTES + 1)).status_code == 413
    # past Django's DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB): was 400 (RequestDataTooBig)
    assert post_hook(client, padded(update, 3 * 1024 * 1024)).status_code == 413
    # a Content-Length that says more than the limit is refused before anything is read
    for declared in (str(MAX_UPDATE_BYTES + 1), DIGITS_309, DIGITS_4301):
        assert post_hook(client, update, CONTENT_LENGTH=declared).status_code == 413


@pytest.mark.django_db
@pytest.mark.parametrize(
    "update",
    [
        start_update(chat_id="NaN"),
        start_update(chat_id="Infinity", sender_id="Infinity"),
        start_update(chat_id="-Infinity", chat_type="group"),
        start_update(update_id="NaN"),
        start_update(update_id="1e400"),
        start_update().replace("1700000000", "-Infinity"),
        start_update(chat_id=DIGITS_309),
        start_update(chat_id=str(init_data.MAX_USER_ID), sender_id=str(init_data.MAX_USER_ID)),
        start_update(chat_id=str(-init_data.MAX_USER_ID), chat_type="group"),
        start_update(chat_id="700.5"),
        start_update(chat_id="700.0"),
        start_update(chat_id="true"),
        start_update(chat_id='"700"'),
    ],
    ids=[
        "chat NaN",
        "chat Infinity",
        "chat -Infinity",
        "update_id NaN",
        "update_id 1e400",
        "date -Infinity",
        "chat 309 digits",
        "chat 2**52",
        "group -2**52",
        "chat float",
        "chat whole float",
        "chat true",
        "chat text",
    ],
)
def test_a_webhook_update_with_a_number_out_of_range_is_ignored(telegram_on, client, update):
    response = post_hook(client, update)
    assert response.status_code == 200 and response.content == b""
    assert not TelegramLink.objects.exists()
    assert telegram_on.calls == []


@pytest.mark.django_db
def test_webhook_chat_ids_at_the_limit_are_answered(telegram_on, client):
    top = init_data.MAX_USER_ID - 1
    reply = post_hook(client, start_update(chat_id=str(top), sender_id=str(top))).json()
    assert reply["chat_id"] == top
    group = post_hook(client, start_update(chat_id=str(-top), chat_type="group")).json()
    assert group["chat_id"] == -top


@pytest.mark.django_db
def test_a_webhook_update_with_a_number_too_long_to_read_is_400(telegram_on, client):
    assert post_hook(client, start_update(chat_id=DIGITS_4301)).status_code == 400


# --- the game and lobby sockets (games/room/consumer.py) ----------------------------------------

#: the codes a refused frame may get here: the frame is malformed, or its version is not the
#: game's (a version in range but not the current one)
REFUSED = {"bad_frame", "stale_version"}


async def answer_to(comm, text):
    """Send ``text``; the next error frame it gets (snapshots after a stale version are
    passed over)."""
    await comm.send_to(text_data=text)
    while True:
        frame = json.loads(await comm.receive_from(timeout=TIMEOUT))
        if frame["type"] == "error":
            return frame


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("unattended_queue")
def test_game_frames_with_numbers_out_of_range_get_an_error_frame(monkeypatch, caplog):
    game = new_bot_game(FixedDice(monkeypatch), opening=(6, 5))
    before = state(game.id)
    top = consumer.MAX_VERSION
    cases = {
        f'{{"type":"roll","version":{DIGITS_309}}}': {"bad_frame"},
        f'{{"type":"roll","version":{"9" * 4000}}}': {"bad_frame"},
        f'{{"type":"resign","version":{top + 1}}}': {"bad_frame"},
        f'{{"type":"resign","version":{top}}}': {"stale_version"},
        '{"type":"resign","version":-1}': {"bad_frame"},
        '{"type":"resign","version":1.5}': {"bad_frame"},
        '{"type":"resign","version":1.0}': {"bad_frame"},
        '{"type":"resign","version":NaN}': {"bad_frame"},
        '{"type":"resign","version":Infinity}': {"bad_frame"},
        '{"type":"resign","version":-Infinity}': {"bad_frame"},
        '{"type":"resign","version":1e400}': {"bad_frame"},
        '{"type":"resign","version":true}': {"bad_frame"},
        f'{{"type":"why","point":{DIGITS_309}}}': {"bad_frame"},
        '{"type":"why","point":NaN}': {"bad_frame"},
        '{"type":"why","point":-1}': {"bad_frame"},
        '{"type":"why","point":true}': {"bad_frame"},
    }

    async def scenario():
        comm = await communicator(game.id)
        await connect(comm)
        answers = {text: (await answer_to(comm, text))["code"] for text in cases}
        await comm.disconnect()
        return answers

    with caplog.at_level(logging.ERROR):
        answers = async_to_sync(scenario)()
    wrong = {text[:60]: code for text, code in answers.items() if code not in cases[text]}
    assert not wrong
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert state(game.id) == before


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("unattended_queue")
def test_lobby_frames_with_numbers_out_of_range_get_an_error_frame(caplog):
    user = User.objects.create_user("numbers")
    lengths = [DIGITS_309, "-1", "1.5", "3.0", "NaN", "Infinity", "1e400", "true", "8"]

    async def scenario():
        comm = await lobby_socket(user)
        codes = []
        for length in lengths:
            text = json.dumps(join_frame("match")).replace("}", f',"match_length":{length}}}')
            await comm.send_to(text_data=text)
            codes.append((await receive(comm, timeout=TIMEOUT))["code"])
        await comm.disconnect()
        return codes

    with caplog.at_level(logging.ERROR):
        codes = async_to_sync(scenario)()
    assert codes == ["bad_frame"] * len(lengths)
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


# --- forms and paths (games/room/views.py, games/accounts/views.py) -------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "length", [DIGITS_309, DIGITS_4301, "-1", "1.5", "3.0", "NaN", "Infinity", "true", "8"]
)
def test_a_new_game_with_a_match_length_out_of_range_is_400(client, length):
    response = client.post("/en/new/", {"preset": "match", "match_length": length})
    assert response.status_code == 400
    assert "Unknown game options" in response.content.decode()
    assert not Game.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("user_id", [DIGITS_309, DIGITS_4301, str(2**63)])
def test_a_player_page_of_a_huge_id_is_404(client, user_id):
    assert client.get(f"/en/players/{user_id}/").status_code == 404
