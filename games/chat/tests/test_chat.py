"""The chat's service (games.chat.chat, docs/protocol.md "Chat"): presets for everyone, free
text for signed-in players only (trimmed, at most 140 characters, rate-limited), who reads
which message (players never an onlooker's, onlookers never a player's own words, a muting
player never the opponent's), mutes kept on the server, reports, tournaments without chat. A
message never raises the game's version."""

import pytest
from django.utils import translation

from games import services
from games.chat import chat
from games.chat.models import ChatMessage, ChatMute, ChatReport
from games.chat.reading import PRESETS, message_row, snapshot_chat
from games.chat.tests.helpers import (
    BLACK,
    WATCHER,
    WHITE,
    in_tournament,
    people_game,
    signed_in_game,
)
from games.room.models import Game
from games.services import projection
from games.tests.factories import HUMAN, new_bot_game

pytestmark = pytest.mark.django_db

VISITOR = (("session", "chat-test"), "10.0.0.1")


def texts(game, viewer):
    game.refresh_from_db()
    chat_view = services.snapshot(game, viewer)["game"]["chat"]
    return [(m["from"], m["text"]) for m in chat_view["messages"]]


def test_a_preset_is_kept_at_the_games_version_and_sent_after_the_commit(
    fixed, django_capture_on_commit_callbacks
):
    game = people_game(fixed)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        row = chat.post(game.pk, WHITE, preset="good_luck", visitor=VISITOR)
    assert len(callbacks) == 1  # the group message waits for the commit
    message = ChatMessage.objects.get()
    assert (message.sender, message.preset, message.text) == ("white", "good_luck", "")
    assert message.version == game.version == row["version"]
    assert Game.objects.get(pk=game.pk).version == game.version  # no version raised
    assert WHITE.guest_id not in str(row.values())  # the group message goes through Redis
    assert texts(game, BLACK.guest_id) == [("white", "Good luck!")]


def test_each_reader_gets_a_preset_in_their_own_language(fixed):
    game = people_game(fixed)
    chat.post(game.pk, WHITE, preset="good_game", visitor=VISITOR)
    row = chat.post(game.pk, WHITE, preset="thanks", visitor=VISITOR)
    view = projection.ViewerState(side="black")
    for language, words in (("ru", "Спасибо!"), ("bg", "Благодаря!"), ("en", "Thanks!")):
        with translation.override(language):
            frame = projection.chat_frame(row, view, BLACK)
        assert frame["message"]["text"] == words and frame["message"]["preset"] == "thanks"
    with translation.override("ru"):
        assert [m["text"] for m in snapshot_chat(game, "black", BLACK)["messages"]] == [
            "Хорошая игра!",
            "Спасибо!",
        ]


def test_a_guests_own_words_are_refused_with_a_reason_in_their_language(fixed):
    game = people_game(fixed)
    with pytest.raises(chat.ChatNotAllowed) as refused:
        chat.post(game.pk, WHITE, text="hi there", visitor=VISITOR)
    assert "signed-in" in refused.value.message and refused.value.code == "chat_not_allowed"
    with translation.override("ru"), pytest.raises(chat.ChatNotAllowed) as in_russian:
        chat.post(game.pk, WHITE, text="привет", visitor=VISITOR)
    assert "Только" in in_russian.value.message
    assert not ChatMessage.objects.exists()


def test_a_signed_in_players_words_are_trimmed_and_at_most_140_characters(fixed):
    game, white, _black = signed_in_game(fixed=fixed)
    row = chat.post(game.pk, white, text="  well\n\tplayed \x07 ", visitor=VISITOR)
    assert row["text"] == "well played"
    chat.post(game.pk, white, text="x" * 140, visitor=VISITOR)
    with pytest.raises(chat.ChatTooLong):
        chat.post(game.pk, white, text="x" * 141, visitor=VISITOR)
    with pytest.raises(services.BadFrame):
        chat.post(game.pk, white, text="   ", visitor=VISITOR)
    with pytest.raises(services.BadFrame):
        chat.post(game.pk, white, preset="no-such-phrase", visitor=VISITOR)
    with pytest.raises(services.BadFrame):
        chat.post(game.pk, white, preset="hello", text="hello", visitor=VISITOR)
    assert ChatMessage.objects.count() == 2


def test_messages_over_the_chat_limit_are_refused_with_the_wait(fixed, settings):
    settings.GAMES_CHAT_SESSION_LIMITS = "2/minute"
    game = people_game(fixed)
    for _ in range(2):
        chat.post(game.pk, WHITE, preset="hello", visitor=VISITOR)
    with pytest.raises(chat.TooManyMessages) as limited:
        chat.post(game.pk, WHITE, preset="hello", visitor=VISITOR)
    assert (
        50 < limited.value.retry_after <= 60 and "Too many chat messages" in limited.value.message
    )
    chat.post(game.pk, BLACK, preset="hello", visitor=(("session", "another"), "10.0.0.2"))
    assert ChatMessage.objects.count() == 3


def test_onlookers_send_presets_only_and_players_never_read_them(fixed):
    game, white, black = signed_in_game(fixed=fixed)
    chat.post(game.pk, WATCHER, preset="hello", visitor=VISITOR)
    with pytest.raises(chat.ChatNotAllowed):
        chat.post(
            game.pk,
            services.Actor(guest_id="guest-watcher", user_id=white.user_id + 99),
            text="hi",
            visitor=VISITOR,
        )
    chat.post(game.pk, white, preset="good_luck", visitor=VISITOR)
    chat.post(game.pk, black, text="thanks, you too", visitor=VISITOR)
    assert texts(game, white) == [("white", "Good luck!"), ("black", "thanks, you too")]
    # an onlooker reads the onlookers' presets and the players' presets, not their words
    watching = services.snapshot(game, WATCHER)["game"]["chat"]
    assert [(m["from"], m["text"], m["mine"]) for m in watching["messages"]] == [
        ("spectator", "Hello!", True),
        ("white", "Good luck!", False),
    ]
    assert watching["text"] is False and watching["muted"] is False
    other = services.snapshot(game, "guest-another-watcher")["game"]["chat"]
    assert [m["mine"] for m in other["messages"]] == [False, False]
    # the live frames follow the same rule
    player, onlooker = projection.ViewerState(side="white"), projection.ViewerState()
    spectators = ChatMessage.objects.filter(sender="spectator").first()
    words = ChatMessage.objects.exclude(text="").first()
    assert projection.chat_frame(message_row(spectators), player, white) is None
    assert projection.chat_frame(message_row(words), onlooker, WATCHER) is None
    assert projection.chat_frame(message_row(spectators), onlooker, WATCHER) is not None


def test_a_muted_opponent_is_not_delivered_and_a_reload_keeps_the_mute(fixed):
    game = people_game(fixed)
    chat.post(game.pk, WHITE, preset="good_luck", visitor=VISITOR)
    chat.mute(game.pk, BLACK, True)
    row = chat.post(game.pk, WHITE, preset="oops", visitor=VISITOR)
    chat.post(game.pk, BLACK, preset="sorry", visitor=VISITOR)
    assert ChatMute.objects.filter(game=game, side="black").exists()
    # the snapshot (a reload) of the muting player: none of the opponent's messages
    snap = services.snapshot(Game.objects.get(pk=game.pk), BLACK)["game"]["chat"]
    assert snap["muted"] is True and [m["text"] for m in snap["messages"]] == ["Sorry!"]
    view = projection.ViewerState(side="black")
    assert view.snapshot_sent(services.snapshot(game, BLACK)) and view.muted
    assert projection.chat_frame(row, view, BLACK) is None
    # the muted one still reads their own and the other's
    assert texts(game, WHITE) == [("white", "Good luck!"), ("white", "Oops!"), ("black", "Sorry!")]
    assert projection.mute_frame({"side": "black", "muted": False}, view) == {
        "type": "chat_muted",
        "muted": False,
    }
    assert projection.chat_frame(row, view, BLACK) is not None
    chat.mute(game.pk, BLACK, False)
    assert len(texts(game, BLACK)) == 3
    with pytest.raises(chat.ChatNotAllowed):
        chat.mute(game.pk, WATCHER, True)


def test_a_signed_in_player_reports_the_opponents_message_once(fixed):
    game, white, black = signed_in_game(fixed=fixed)
    theirs = chat.post(game.pk, white, text="you are bad", visitor=VISITOR)
    mine = chat.post(game.pk, black, preset="hello", visitor=VISITOR)
    assert chat.report(game.pk, black, theirs["id"]) == {
        "type": "chat_reported",
        "id": theirs["id"],
    }
    chat.report(game.pk, black, theirs["id"])
    assert (
        ChatReport.objects.filter(message_id=theirs["id"], reporter_id=black.user_id).count() == 1
    )
    with pytest.raises(chat.NoSuchMessage):
        chat.report(game.pk, black, mine["id"])
    with pytest.raises(chat.NoSuchMessage):
        chat.report(game.pk, black, 10**9)
    with pytest.raises(chat.ChatNotAllowed):
        chat.report(game.pk, BLACK, theirs["id"])  # a guest


def test_no_chat_against_the_computer_nor_in_a_tournament_that_turned_it_off(fixed):
    bot_game = new_bot_game(fixed, opening=(6, 5))
    with pytest.raises(chat.NoChat):
        chat.post(bot_game.pk, services.Actor(guest_id=HUMAN), preset="hello", visitor=VISITOR)
    assert services.snapshot(bot_game, HUMAN)["game"]["chat"] is None
    game = people_game(fixed)
    in_tournament(game, chat_off=False)
    chat.post(game.pk, WHITE, preset="hello", visitor=VISITOR)
    quiet = people_game(fixed)
    in_tournament(quiet, chat_off=True)
    with pytest.raises(chat.NoChat):
        chat.post(quiet.pk, WHITE, preset="hello", visitor=VISITOR)
    with pytest.raises(chat.NoChat):
        chat.mute(quiet.pk, WHITE, True)
    assert services.snapshot(quiet, WHITE)["game"]["chat"] is None


def test_every_preset_has_its_words_in_russian_and_bulgarian():
    for language in ("ru", "bg"):
        with translation.override(language):
            translated = {key: str(words) for key, words in PRESETS.items()}
        assert all(translated[key] != str(PRESETS[key]) for key in PRESETS), language
    assert {"good_luck", "have_fun", "good_game", "thanks", "well_played", "oops"} <= set(PRESETS)
    assert {"nice_roll", "sorry", "hello", "bye"} <= set(PRESETS)
