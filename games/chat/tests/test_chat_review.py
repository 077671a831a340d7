"""The chat's security review (docs/protocol.md "Chat"): the snapshot filters in the query, so
onlookers' messages cannot push the players' out of a player's snapshot (and the query keeps
``visible_to``'s rule on every combination); ``clean_text`` drops lone surrogates, format
characters but the emoji's joiner and piles of combining marks, and leaves ordinary text
alone; after the end of a game the players may chat for ``AFTER_END``, onlookers not at all."""

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone, translation

from games import services
from games.chat import chat
from games.chat.models import ChatMessage
from games.chat.reading import (
    AFTER_END,
    SNAPSHOT_MESSAGES,
    SPECTATOR,
    snapshot_chat,
    visible_q,
    visible_to,
)
from games.chat.tests.helpers import BLACK, WATCHER, WHITE, people_game, signed_in_game
from games.room.models import Game, GameEvent

pytestmark = pytest.mark.django_db

VISITOR = (("session", "chat-review"), "10.0.0.3")


@pytest.fixture(autouse=True)
def no_chat_limits(settings):
    """The chat's limits have their own tests: here many messages go from one visitor."""
    settings.GAMES_CHAT_SESSION_LIMITS = ""
    settings.GAMES_CHAT_IP_LIMITS = ""


def said(game, sender, preset="", text=""):
    return ChatMessage(game=game, version=game.version, sender=sender, preset=preset, text=text)


def test_the_query_and_visible_to_agree_on_every_combination(fixed):
    game = people_game(fixed)
    kinds = {"preset": ("hello", ""), "text": ("", "words")}
    sent = {}
    for sender, kind in itertools.product(("white", "black", SPECTATOR), kinds):
        if sender == SPECTATOR and kind == "text":
            continue  # refused by the service and by a constraint
        preset, text = kinds[kind]
        sent[(sender, kind)] = ChatMessage.objects.create(
            game=game, version=0, sender=sender, preset=preset, text=text
        )
    assert len(sent) == 5
    for you, muted in itertools.product((None, "white", "black"), (False, True)):
        queried = set(ChatMessage.objects.filter(visible_q(you, muted), game=game))
        ruled = {m for m in sent.values() if visible_to(m.sender, m.preset, you, muted)}
        assert queried == ruled, (you, muted)


def test_onlookers_phrases_never_push_the_players_messages_out_of_a_players_snapshot(fixed):
    game, white, black = signed_in_game(fixed=fixed)
    chat.post(game.pk, white, preset="good_luck", visitor=VISITOR)
    chat.post(game.pk, black, text="you too", visitor=VISITOR)
    ChatMessage.objects.bulk_create([said(game, SPECTATOR, preset="hello") for _ in range(250)])
    game.refresh_from_db()
    for player in (white, black):
        snap = services.snapshot(game, player)["game"]["chat"]
        assert [(m["from"], m["text"]) for m in snap["messages"]] == [
            ("white", "Good luck!"),
            ("black", "you too"),
        ]
    # and the players' words never push the onlookers' phrases out of an onlooker's
    ChatMessage.objects.bulk_create([said(game, "white", text="busy") for _ in range(60)])
    watching = snapshot_chat(game, None, WATCHER)
    assert len(watching["messages"]) == SNAPSHOT_MESSAGES
    assert {m["from"] for m in watching["messages"]} == {SPECTATOR}
    ChatMessage.objects.bulk_create([said(game, "black", preset="oops") for _ in range(60)])
    latest = snapshot_chat(game, "white", white)["messages"]
    assert len(latest) == SNAPSHOT_MESSAGES and latest[-1]["preset"] == "oops"
    assert latest[0]["id"] < latest[-1]["id"]  # the latest, oldest first


def test_a_lone_surrogate_is_dropped_not_a_server_error(fixed):
    game, white, _black = signed_in_game(fixed=fixed)
    row = chat.post(game.pk, white, text="ab\ud800cd\udfff", visitor=VISITOR)
    assert row["text"] == ChatMessage.objects.get().text == "abcd"
    with pytest.raises(services.BadFrame):
        chat.post(game.pk, white, text="\ud800\udc00", visitor=VISITOR)


@pytest.mark.parametrize(
    "text, kept",
    [
        ("\u200b\u200b\u200b", ""),  # zero-width spaces only: nothing to read
        ("\u2060\ufeff\u200c\u200e", ""),  # word joiner, BOM, ZWNJ, a direction mark
        ("\u200d\u200d", ""),  # a joiner joins nothing
        ("\u200c\u200c", ""),  # nor a non-joiner
        ("\u0301\u0301\u0301", ""),  # marks with no base
        ("pay \u202eslp.exe\u202c now", "pay slp.exe now"),
        ("\u202a\u202b\u202c\u202d\u202eab", "ab"),
        ("\u2066a\u2067b\u2068c\u2069", "abc"),
        ("Z" + "\u0301" * 139, "Z\u0301\u0301"),
        ("a\u0301\u0302\u0303b\u20dd\u20dd\u20dd", "a\u0301\u0302b\u20dd\u20dd"),
        ("a\u0301\u200b\u0302\u200b\u0303", "a\u0301\u0302"),  # an invisible gap resets nothing
        ("x\u200d\u0301\u0302\u0303", "x\u0301\u0302"),  # nor a joiner
        ("one\u200btwo", "onetwo"),
        ("end\u200d", "end"),
    ],
)
def test_invisible_and_disguising_characters_are_dropped(text, kept):
    assert chat.clean_text(text) == kept


@pytest.mark.parametrize(
    "text",
    [
        "Привет! Как дела? Ёлка, щи, съел.",
        "Здравей! Благодаря, ѝ и ъгъл.",
        "café, naïve, Ærø, Ångström, ñandú, Ünal",
        "e\u0323\u0302 tie\u0302\u0301ng Vie\u0323\u0302t",  # two marks after a base, decomposed
        "👨\u200d👩\u200d👧\u200d👦 👍🏽 🧑🏿\u200d🚀 🏃🏽\u200d♀️ 🏳️\u200d🌈 ❤️ 1️⃣ 🇧🇬 🇷🇺",
        "می\u200cخواهم",  # Persian: the non-joiner keeps two letters of a word apart
        "😀 gg wp",
    ],
)
def test_ordinary_text_passes_unchanged(fixed, text):
    assert chat.clean_text(text) == text
    game, white, _black = signed_in_game(fixed=fixed)
    assert chat.post(game.pk, white, text=text, visitor=VISITOR)["text"] == text


def test_nothing_but_invisible_characters_is_refused_as_empty(fixed):
    game, white, _black = signed_in_game(fixed=fixed)
    for text in ("\u200b" * 5, "\u202e\u2066 \u2069", "\u0301" * 20, "\u200d"):
        with pytest.raises(services.BadFrame) as refused:
            chat.post(game.pk, white, text=text, visitor=VISITOR)
        assert refused.value.message == "The message is empty."
    assert not ChatMessage.objects.exists()


def ended(game, ago, resigner=WHITE):
    """``game`` resigned by ``resigner`` (an abort: nobody has played) ``ago`` ago."""
    game = services.resign(game.pk, resigner, game.version)
    GameEvent.objects.filter(game=game, kind__in=("end", "abort")).update(
        created=timezone.now() - ago
    )
    return Game.objects.get(pk=game.pk)


def test_the_players_chat_for_ten_minutes_after_the_end_onlookers_not_at_all(fixed):
    game = people_game(fixed)
    chat.post(game.pk, WATCHER, preset="hello", visitor=VISITOR)  # while it goes on
    live = snapshot_chat(game, "white", WHITE)
    assert live["open"] is True and live["until"] is None
    game = ended(game, timedelta(minutes=9))
    chat.post(game.pk, WHITE, preset="good_game", visitor=VISITOR)
    chat.post(game.pk, BLACK, preset="thanks", visitor=VISITOR)
    with pytest.raises(chat.ChatOver) as closed:
        chat.post(game.pk, WATCHER, preset="good_game", visitor=VISITOR)
    assert closed.value.code == "chat_over"
    with translation.override("ru"), pytest.raises(chat.ChatOver) as in_russian:
        chat.post(game.pk, WATCHER, preset="bye", visitor=VISITOR)
    assert in_russian.value.message == "Партия окончена, чат закрыт."
    player, onlooker = snapshot_chat(game, "black", BLACK), snapshot_chat(game, None, WATCHER)
    assert player["open"] is True and onlooker["open"] is False
    end = GameEvent.objects.get(game=game, kind="abort").created
    assert player["until"] == onlooker["until"] + AFTER_END.total_seconds() * 1000
    assert abs(onlooker["until"] - end.timestamp() * 1000) < 1
    # past the ten minutes: closed to the players too, the messages still shown
    GameEvent.objects.filter(game=game).update(created=timezone.now() - AFTER_END)
    with pytest.raises(chat.ChatOver):
        chat.post(game.pk, WHITE, preset="bye", visitor=VISITOR)
    after = snapshot_chat(game, "white", WHITE)
    assert after["open"] is False and [m["preset"] for m in after["messages"]] == [
        "good_game",
        "thanks",
    ]
    # a mute stays possible: it only hides
    assert chat.mute(game.pk, BLACK, True) is True
    assert ChatMessage.objects.count() == 3


def test_a_report_after_the_chat_closed_still_reaches_the_staff(fixed):
    game, white, black = signed_in_game(fixed=fixed)
    rude = chat.post(game.pk, white, text="rude", visitor=VISITOR)
    game = ended(game, AFTER_END + timedelta(minutes=1), white)
    assert chat.report(game.pk, black, rude["id"]) == {"type": "chat_reported", "id": rude["id"]}
