"""The chat on the pages that are not the live room: the replay shows each message under
the step the game stood at when it was sent, to the game's two players only (as they read it
live: a muting player without the opponent's); the staff's list of reports with the game's
link and its whole chat, the "handled" mark; a tournament created in the admin without chat."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games import services
from games.chat import chat
from games.chat.models import ChatReport
from games.chat.tests.helpers import BLACK, WATCHER, WHITE, people_game, signed_in_game
from games.room import replays
from games.room.models import Game
from games.tests.factories import play_turns
from games.tournaments.models import Tournament

pytestmark = pytest.mark.django_db

VISITOR = (("session", "chat-pages"), None)


def client_of(guest_id):
    client = Client()
    session = client.session
    session["guest_id"] = guest_id
    session.save()
    return client


def test_the_replay_places_each_message_at_its_step_for_the_players_only(fixed):
    game = people_game(fixed)
    chat.post(game.pk, WHITE, preset="good_luck", visitor=VISITOR)
    game = play_turns(game.pk, 2)
    chat.post(game.pk, BLACK, preset="nice_roll", visitor=VISITOR)
    chat.post(game.pk, WATCHER, preset="hello", visitor=VISITOR)
    services.resign(game.pk, BLACK, game.version)
    game = Game.objects.get(pk=game.pk)
    chat.post(game.pk, WHITE, preset="good_game", visitor=VISITOR)

    record = replays.game_record(game)
    _replay, frames = replays.replay_frames(record)
    versions = replays.frame_versions(game, frames)
    assert versions == sorted(versions) and versions[-1] == game.version
    assert replays.attach_chat(game, frames, "white", WHITE) == 3  # the onlooker's: not here
    placed = {f["index"]: [m["text"] for m in f["chat"]] for f in frames if f["chat"]}
    assert frames[1]["kind"] == "roll" and placed[1] == ["Good luck!"]  # at the opening dice
    assert placed[len(frames) - 1] == ["Good game!"]  # after the end: the end
    play_frames = [f["index"] for f in frames if f["kind"] == "play"]
    assert placed[play_frames[1]] == ["Nice roll!"]  # sent after the second play
    assert replays.attach_chat(game, frames, None, WATCHER) == 0
    assert all(f["chat"] == [] for f in frames)

    url = reverse("games:replay", kwargs={"game_id": game.pk})
    mine = client_of(game.white_guest).get(url).content.decode()
    assert 'class="replay-chat"' in mine and "Nice roll!" in mine and "Your opponent:" in mine
    onlooker = client_of("guest-someone").get(url).content.decode()
    assert 'class="replay-chat"' not in onlooker and "Nice roll!" not in onlooker
    ru = client_of(game.black_guest).get(url.replace("/en/", "/ru/")).content.decode()
    assert "Отличный бросок!" in ru and "Вы:" in ru


def test_a_muting_players_replay_leaves_the_opponent_out(fixed):
    game = people_game(fixed)
    chat.post(game.pk, WHITE, preset="oops", visitor=VISITOR)
    chat.mute(game.pk, BLACK, True)
    frames = replays.replay_frames(replays.game_record(game))[1]
    assert replays.attach_chat(game, frames, "black", BLACK) == 0
    assert replays.attach_chat(game, frames, "white", WHITE) == 1


def test_staff_see_reports_with_the_game_and_its_chat_and_mark_them_handled(fixed):
    game, white, black = signed_in_game("Ann", "Bob", fixed=fixed)
    chat.post(game.pk, white, preset="hello", visitor=VISITOR)
    rude = chat.post(game.pk, white, text="<b>rude</b> words", visitor=VISITOR)
    chat.post(game.pk, black, text="please stop", visitor=VISITOR)
    chat.report(game.pk, black, rude["id"])
    report = ChatReport.objects.get()
    staff = get_user_model().objects.create_superuser("chat-staff", password="not-used-here")
    client = Client()
    client.force_login(staff)
    listing = client.get(reverse("admin:games_chatreport_changelist")).content.decode()
    assert "&lt;b&gt;rude&lt;/b&gt; words" in listing and f"/en/game/{game.pk}/" in listing
    page = client.get(reverse("admin:games_chatreport_change", args=[report.pk])).content.decode()
    for shown in ("hello", "please stop", "&lt;b&gt;rude&lt;/b&gt; words", f"/en/game/{game.pk}/"):
        assert shown in page
    assert "<b>rude</b>" not in page
    client.post(
        reverse("admin:games_chatreport_changelist"),
        {"action": "mark_handled", "_selected_action": [str(report.pk)]},
    )
    report.refresh_from_db()
    assert report.handled


def test_staff_create_a_tournament_without_chat_in_the_admin():
    staff = get_user_model().objects.create_superuser("chat-boss", password="not-used-here")
    client = Client()
    client.force_login(staff)
    add = reverse("admin:games_tournament_add")
    assert 'name="chat_off"' in client.get(add).content.decode()
    answer = client.post(
        add,
        {
            "name": "Quiet cup",
            "kind": "cup",
            "preset": "match",
            "clock_kind": "",
            "size": 4,
            "match_length": 3,
            "chat_off": "on",
        },
    )
    assert answer.status_code == 302, answer.content.decode()[:2000]
    assert Tournament.objects.get(name="Quiet cup").chat_off is True
