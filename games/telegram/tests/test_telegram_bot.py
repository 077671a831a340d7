"""The bot (games/telegram): its webhook (secret path and header, /start and /play answered
with a button that opens the Mini App in the user's language, a user blocking the bot), the
Bot API client's errors against a local stub of Telegram (429 with retry_after, 403 blocked,
400 chat not found, 5xx, no answer), which notices are decided and how one is sent, and
``manage.py telegram_setup``."""

import base64
import json
import random
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis
from allauth.socialaccount.models import SocialAccount
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connections

from games import clocks, services, tournaments
from games.accounts.models import Profile
from games.room.models import Game, Presence
from games.telegram import bot_api, links, notices
from games.telegram.models import TelegramLink
from games.tests.factories import random_legal_play
from games.tests.telegram_helpers import (  # noqa: F401 - fixtures used by name
    TOKEN,
    WEBHOOK_SECRET,
    bot_api_stub,
    telegram_on,
)
from games.tests.tournament_helpers import enter, open_page

pytestmark = pytest.mark.django_db
User = get_user_model()
HOOK = f"/telegram/webhook/{WEBHOOK_SECRET}/"


def post_update(client, update, path=HOOK, secret=WEBHOOK_SECRET):
    return client.post(
        path,
        json.dumps(update),
        content_type="application/json",
        headers={"X-Telegram-Bot-Api-Secret-Token": secret} if secret else {},
    )


def message(text, chat_type="private", user_id=700, language="en"):
    sender = {"id": user_id, "is_bot": False, "first_name": "Ann", "language_code": language}
    chat = {"id": user_id if chat_type == "private" else -100500, "type": chat_type}
    return {
        "update_id": 1,
        "message": {"message_id": 5, "from": sender, "chat": chat, "text": text},
    }


def player(telegram_id, notices_on=True, language="en"):
    """An account signed in with Telegram; its notices on (or not)."""
    user = User.objects.create(username=f"tg-{telegram_id}")
    Profile.objects.create(user=user, display_name=f"Player {telegram_id}")
    SocialAccount.objects.create(user=user, provider="telegram", uid=str(telegram_id))
    if notices_on:
        links.set_notices(user.pk, True, language)
    return user


# --- the webhook ----------------------------------------------------------------------------


def test_the_webhook_wants_its_secret_in_the_path_and_in_the_header(telegram_on, client):
    assert (
        post_update(client, message("/start"), path="/telegram/webhook/wrong/").status_code == 404
    )
    assert post_update(client, message("/start"), secret="").status_code == 403
    assert post_update(client, message("/start"), secret="wrong").status_code == 403
    assert client.get(HOOK).status_code == 405
    bad = client.post(
        HOOK,
        "{not json",
        "application/json",
        headers={"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET},
    )
    assert bad.status_code == 400
    assert post_update(client, message("/start")).status_code == 200


def test_start_and_play_answer_with_a_button_that_opens_the_mini_app(telegram_on, client):
    for text, language, words, button in (
        ("/start", "en", "Long nardy", "Play"),
        ("/play@NardyTestBot", "ru", "Длинные нарды", "Играть"),
        ("/start", "bg-BG", "Дълги нарди", "Играйте"),
    ):
        reply = post_update(client, message(text, language=language)).json()
        assert reply["method"] == "sendMessage" and reply["chat_id"] == 700
        assert reply["text"].startswith(words), reply["text"]
        [[key]] = reply["reply_markup"]["inline_keyboard"]
        assert key["text"] == button
        assert key["web_app"]["url"] == "https://nardy.example/tg/"
    # a deep link's payload opens what it names
    game = services.create_bot_game("guest-x", preset="sport", bot_level="easy", human_side="white")
    reply = post_update(client, message(f"/start g{game.pk.hex}")).json()
    url = reply["reply_markup"]["inline_keyboard"][0][0]["web_app"]["url"]
    assert url == f"https://nardy.example/tg/?next=%2Fen%2Fgame%2F{game.pk}%2F"
    # other words in a private chat: how to play; in a group: nothing but commands
    help_reply = post_update(client, message("hello")).json()
    assert "/play" in help_reply["text"]
    assert post_update(client, message("hello", chat_type="group")).content == b""
    group = post_update(client, message("/play", chat_type="group")).json()
    assert group["reply_markup"]["inline_keyboard"][0][0]["url"] == "https://t.me/NardyTestBot"


def test_a_user_who_blocks_the_bot_gets_no_more_notices_until_they_start_it(telegram_on, client):
    user = player(800)
    kicked = {
        "update_id": 2,
        "my_chat_member": {
            "chat": {"id": 800, "type": "private"},
            "from": {"id": 800},
            "new_chat_member": {"status": "kicked"},
        },
    }
    assert post_update(client, kicked).status_code == 200
    assert links.sending_to(user.pk) is None
    assert TelegramLink.objects.get(user=user).off_reason == "blocked"
    post_update(client, message("/start", user_id=800))
    assert links.sending_to(user.pk) is not None


def test_odd_updates_are_ignored_not_failed(telegram_on, client):
    odd = [
        message("/start", language=7),
        {"update_id": 3, "my_chat_member": {"chat": "x", "new_chat_member": []}},
        {"update_id": 4, "my_chat_member": {"chat": {"id": 2**70, "type": "private"}}},
        {"update_id": 5, "message": {"chat": None}},
        {"update_id": 6, "edited_message": {"text": "/start"}},
        {"update_id": 7, "message": {"chat": {"id": 1, "type": "private"}, "from": [], "text": 5}},
        [],
        "text",
    ]
    for update in odd:
        assert post_update(client, update).status_code == 200, update
    assert post_update(client, message("/start", language=7)).json()["text"].startswith("Long")
    deep = "[" * 100_000 + "]" * 100_000
    response = client.post(
        HOOK, deep, "application/json", headers={"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET}
    )
    assert response.status_code == 400
    # a command to another bot in a group is not ours to answer
    assert post_update(client, message("/play@OtherBot", chat_type="group")).content == b""


# --- the Bot API client -------------------------------------------------------------------


def test_bot_api_errors_become_what_the_caller_must_do(telegram_on):
    stub = telegram_on
    assert bot_api.call("getMe") == {"message_id": 1}
    assert stub.calls[0]["method"] == "getMe" and stub.calls[0]["token"] == TOKEN
    stub.rate_limited(7)
    with pytest.raises(bot_api.RateLimited) as limited:
        bot_api.call("sendMessage", {"chat_id": 1, "text": "x"})
    assert limited.value.retry_after == 7
    stub.blocked()
    with pytest.raises(bot_api.Blocked):
        bot_api.call("sendMessage", {"chat_id": 1, "text": "x"})
    stub.answer(400, {"ok": False, "error_code": 400, "description": "Bad Request: chat not found"})
    with pytest.raises(bot_api.Unreachable):
        bot_api.call("sendMessage", {"chat_id": 1, "text": "x"})
    stub.answer(400, {"ok": False, "error_code": 400, "description": "Bad Request: text is empty"})
    with pytest.raises(bot_api.Refused):
        bot_api.call("sendMessage", {"chat_id": 1, "text": ""})
    stub.answer(502, {})
    with pytest.raises(bot_api.Unavailable):
        bot_api.call("sendMessage", {"chat_id": 1, "text": "x"})


def test_no_answer_from_telegram_is_unavailable(telegram_on, settings):
    settings.TELEGRAM_API_URL = "http://127.0.0.1:9"  # nothing listens there
    with pytest.raises(bot_api.Unavailable):
        bot_api.call("getMe")


# --- which notices -----------------------------------------------------------------------


def people_game(white, black):
    """A game between the accounts ``white`` and ``black`` (a challenge made and accepted)."""
    challenge = services.create_challenge(
        services.Actor(guest_id="g-white", user_id=white.pk), preset="sport", colour="white"
    )
    return services.accept_challenge(
        challenge.pk, services.Actor(guest_id="g-black", user_id=black.pk)
    )


def take_turn(game_id, user):
    """``user`` rolls if due and plays a legal play. Returns the game after it."""
    actor = services.Actor(guest_id="", user_id=user.pk)
    game = Game.objects.get(pk=game_id)
    if game.phase == "roll":
        game = services.roll(game.pk, actor, game.version)
    return services.play(game.pk, actor, game.version, random_legal_play(game, random.Random(1)))


def queued(queue, kind="turn"):
    """``[(task name, args list, eta or None)]`` of the notices of ``kind`` waiting in
    ``queue``."""
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        found = []
        for raw in reversed(client.lrange(queue, 0, -1)):  # kombu pushes on the left
            message = json.loads(raw)
            args = json.loads(base64.b64decode(message["body"]))[0]
            found.append((message["headers"]["task"], args, message["headers"].get("eta")))
        return [item for item in found if item[0] == notices.TASK and item[1][0] == kind]
    finally:
        client.close()


def awaiting_user(game):
    return game.white_user if game.awaiting == "white" else game.black_user


@pytest.mark.django_db(transaction=True)
def test_a_player_away_from_the_game_is_told_when_the_turn_comes_to_them(
    telegram_on, unattended_queue
):
    white, black = player(901), player(902, notices_on=False)
    game = people_game(white, black)
    assert queued(unattended_queue) == []  # the opening tells nobody
    mover = awaiting_user(game)
    game = take_turn(game.pk, mover)
    waiting = awaiting_user(game)
    found = queued(unattended_queue)
    if waiting == white:
        assert found == [(notices.TASK, ["turn", white.pk, str(game.pk), game.version], None)]
    else:
        assert found == []  # black did not ask for notices
        game = take_turn(game.pk, black)
        found = queued(unattended_queue)
        assert found == [(notices.TASK, ["turn", white.pk, str(game.pk), game.version], None)]


@pytest.mark.django_db(transaction=True)
def test_no_turn_notice_while_the_page_is_open_and_a_late_one_after_a_reload(
    telegram_on, unattended_queue
):
    white, black = player(911), player(912)
    game = people_game(white, black)
    mover = awaiting_user(game)
    waiting_side = "black" if mover == white else "white"
    Presence.objects.create(
        game=game, side=waiting_side, channel_name="ch-1", seen=clocks.from_ms(clocks.now_ms())
    )
    game = take_turn(game.pk, mover)
    assert queued(unattended_queue) == []
    # the page has just closed (a reload?): told only once the grace has passed
    Presence.objects.all().delete()
    game.set_away_since(waiting_side, clocks.from_ms(clocks.now_ms()))
    game.save()
    game = take_turn(game.pk, awaiting_user(game))  # the waiting side plays (from elsewhere)
    game = take_turn(game.pk, mover)
    first, second = queued(unattended_queue)
    assert first[1][1] == mover.pk and first[2] is None  # never opened the page: at once
    waiting = black if mover == white else white
    assert second[1][1] == waiting.pk and second[2] is not None  # after the grace


@pytest.mark.django_db(transaction=True)
def test_the_maker_of_a_challenge_is_told_when_it_is_accepted(telegram_on, unattended_queue):
    maker, friend = player(921), player(922, notices_on=False)
    game = people_game(maker, friend)
    assert queued(unattended_queue, "accepted") == [
        (notices.TASK, ["accepted", maker.pk, str(game.pk), 0], None)
    ]


@pytest.mark.django_db(transaction=True)
def test_no_accepted_notice_to_a_maker_watching_the_challenges_page(
    telegram_on, unattended_queue, client
):
    maker, friend = player(923), player(924, notices_on=False)
    challenge = services.create_challenge(
        services.Actor(guest_id="g-maker", user_id=maker.pk), preset="sport", colour="white"
    )
    client.force_login(maker)
    assert client.get(f"/en/challenge/{challenge.pk}/status/").json()["status"] == "open"
    services.accept_challenge(challenge.pk, services.Actor(guest_id="g-f", user_id=friend.pk))
    assert queued(unattended_queue, "accepted") == []


@pytest.mark.django_db(transaction=True)
def test_games_against_the_computer_and_players_without_notices_send_nothing(
    telegram_on, unattended_queue
):
    user = player(931)
    game = services.create_bot_game(
        services.Actor(guest_id="g", user_id=user.pk),
        preset="sport",
        bot_level="easy",
        human_side="white",
    )
    if game.awaiting == "white":
        game = take_turn(game.pk, user)  # the computer's turn: its move is not queued here
    assert queued(unattended_queue) == []
    a, b = player(932, notices_on=False), player(933, notices_on=False)
    game = people_game(a, b)
    for _turn in range(3):
        game = take_turn(game.pk, awaiting_user(game))
    assert queued(unattended_queue) == [] and queued(unattended_queue, "accepted") == []


@pytest.mark.django_db(transaction=True)
def test_a_cup_player_with_no_page_of_it_open_is_told_their_game_has_begun(
    telegram_on, unattended_queue
):
    users = [player(940 + n, notices_on=n < 3) for n in range(4)]  # the last asked for none
    event = tournaments.create("cup", "match", size=4, match_length=3)
    open_page(event, users[0].pk)  # their page announces the game itself
    enter(event, [user.pk for user in users], present=False)
    started = tournaments.advance(event.pk)
    assert len(started) == 2
    told = {args[1]: args[2] for _task, args, _eta in queued(unattended_queue, "tournament")}
    assert set(told) == {users[1].pk, users[2].pk}
    assert notices.send("tournament", users[1].pk, told[users[1].pk]) == "sent"
    text = telegram_on.calls[-1]["payload"]["text"]
    assert text.startswith(f"Your next game in “{event.name}” has begun: you play Player 9")


# --- sending one notice --------------------------------------------------------------------


def a_turn_for(user, other):
    """A game between ``user`` and ``other`` where it is ``user``'s turn."""
    game = people_game(user, other)
    while awaiting_user(game) != user:
        game = take_turn(game.pk, awaiting_user(game))
    return game


def test_a_notice_goes_out_in_the_players_language_with_a_button_to_the_game(telegram_on):
    stub = telegram_on
    user, other = player(941, language="ru"), player(942, notices_on=False)
    other.profile.display_name = "Борис"
    other.profile.save()
    game = a_turn_for(user, other)
    assert notices.send("turn", user.pk, game.pk, game.version) == "sent"
    [call] = stub.calls
    assert call["method"] == "sendMessage" and call["payload"]["chat_id"] == 941
    assert call["payload"]["text"] == "Ваш ход в партии против Борис."
    [[button]] = call["payload"]["reply_markup"]["inline_keyboard"]
    assert button["text"] == "Открыть партию"
    assert button["web_app"]["url"].endswith(f"/tg/?next=%2Fru%2Fgame%2F{game.pk}%2F")
    # sent once, however often the task runs
    assert notices.send("turn", user.pk, game.pk, game.version) == "duplicate"
    assert len(stub.calls) == 1


def test_a_notice_that_no_longer_applies_is_not_sent(telegram_on):
    stub = telegram_on
    user, other = player(951), player(952, notices_on=False)
    game = a_turn_for(user, other)
    assert notices.send("turn", user.pk, game.pk, game.version - 1) == "stale"
    Presence.objects.create(
        game=game, side=game.awaiting, channel_name="ch-9", seen=clocks.from_ms(clocks.now_ms())
    )
    assert notices.send("turn", user.pk, game.pk, game.version) == "stale"
    links.set_notices(user.pk, False, "en")
    assert notices.send("accepted", user.pk, game.pk) == "off"
    assert stub.calls == []


def test_a_blocked_or_unreachable_user_is_switched_off(telegram_on, settings):
    stub = telegram_on
    settings.TELEGRAM_CHAT_LIMITS = ""
    user, other = player(961), player(962, notices_on=False)
    game = people_game(user, other)
    stub.blocked()
    assert notices.send("accepted", user.pk, game.pk) == "blocked"
    assert links.sending_to(user.pk) is None
    assert notices.send("accepted", user.pk, game.pk) == "off"
    links.set_notices(user.pk, True, "en")
    stub.answer(400, {"ok": False, "description": "Bad Request: chat not found"})
    assert notices.send("accepted", user.pk, game.pk) == "unreachable"
    assert TelegramLink.objects.get(user=user).off_reason == "unreachable"


def test_notices_keep_within_telegrams_limits(telegram_on, settings):
    stub = telegram_on
    settings.TELEGRAM_CHAT_LIMITS = "1/minute"
    user, other = player(971), player(972, notices_on=False)
    game = people_game(user, other)
    assert notices.send("accepted", user.pk, game.pk) == "sent"
    with pytest.raises(notices.SendLater) as later:
        notices.send("tournament", user.pk, game.pk)
    assert 0 < later.value.wait <= 60
    stub.rate_limited(3)
    settings.TELEGRAM_CHAT_LIMITS = ""
    with pytest.raises(bot_api.RateLimited):
        notices.send("tournament", user.pk, game.pk)
    assert len(stub.calls) == 2


@pytest.mark.django_db(transaction=True)
def test_a_notice_is_sent_once_when_its_task_runs_twice_at_once(telegram_on, settings):
    settings.TELEGRAM_CHAT_LIMITS = ""
    user, other = player(981), player(982, notices_on=False)
    game = people_game(user, other)
    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(lambda _n: _send_closing("accepted", user.pk, game.pk), range(4)))
    assert sorted(outcomes) == ["duplicate"] * 3 + ["sent"]
    assert len(telegram_on.calls) == 1


def _send_closing(*args):
    try:
        return notices.send(*args)
    finally:
        connections.close_all()


# --- manage.py telegram_setup ----------------------------------------------------------------


def test_setup_sets_the_webhook_the_menu_button_and_the_commands(telegram_on, capsys):
    stub = telegram_on
    call_command("telegram_setup", origin="https://nardy.example", menu_language="ru")
    methods = [call["method"] for call in stub.calls]
    assert methods == ["setWebhook", "setChatMenuButton"] + ["setMyCommands"] * 4
    hook = stub.calls[0]["payload"]
    assert hook["url"] == f"https://nardy.example/telegram/webhook/{WEBHOOK_SECRET}/"
    assert hook["secret_token"] == WEBHOOK_SECRET
    assert hook["allowed_updates"] == ["message", "my_chat_member"]
    menu = stub.calls[1]["payload"]["menu_button"]
    assert menu == {
        "type": "web_app",
        "text": "Играть",
        "web_app": {"url": "https://nardy.example/tg/"},
    }
    by_language = {
        call["payload"].get("language_code"): call["payload"]["commands"] for call in stub.calls[2:]
    }
    assert set(by_language) == {None, "en", "ru", "bg"}
    assert [c["command"] for c in by_language["bg"]] == ["start", "play"]
    assert by_language["ru"][1]["description"] == "Открыть доску"
    assert "done: setWebhook" in capsys.readouterr().out
    call_command("telegram_setup", remove=True)
    assert stub.calls[-1]["method"] == "deleteWebhook"


def test_setup_says_what_is_wrong(telegram_on, settings):
    stub = telegram_on
    for origin in ("http://nardy.example", "https://", "https://nardy.example/x", "https://a/?y"):
        with pytest.raises(CommandError, match="https"):
            call_command("telegram_setup", origin=origin)
    assert stub.calls == []
    call_command("telegram_setup", origin="https://nardy.example/")
    assert stub.calls[0]["payload"]["url"].startswith("https://nardy.example/telegram/webhook/")
    stub.answer(
        400, {"ok": False, "description": "Bad Request: bad webhook: HTTPS url must be provided"}
    )
    with pytest.raises(CommandError, match="bad webhook"):
        call_command("telegram_setup", origin="https://nardy.example")
    settings.TELEGRAM_BOT_TOKEN = ""
    settings.SITE_URL = ""
    with pytest.raises(CommandError, match="TELEGRAM_BOT_TOKEN"):
        call_command("telegram_setup")
