"""The game room's pages (docs/protocol.md "HTTP pages"): the options form, "my games", the
replay (access, frames, export), importing a record, and the position share page and images."""
import re
import struct
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from games import services, views
from games.engine import Position
from games.engine import record as rec
from games.engine.position_id import encode
from games.models import Game, ImportedRecord, Match, Phase
from games.tests.factories import FixedDice, set_position
from games.tests.test_engine_record import GOOD

pytestmark = pytest.mark.django_db


@pytest.fixture
def fixed(monkeypatch):
    return FixedDice(monkeypatch)


def start(client, **data):
    response = client.post(reverse("games:new"), data)
    return response, Game.objects.order_by("-created").first()


def test_the_options_form_starts_the_chosen_table(client):
    response, game = start(client, preset="classic", koks="off", cube="on", level="easy",
                           side="black")
    assert response.status_code == 302
    assert (game.preset, game.table, game.bot_level, game.colour) == (
        "classic", {"koks": False, "cube": True}, "easy", "black")
    response, game = start(client, preset="match", match_length="7")
    assert game.match.length == 7
    # A hidden "off" before a checked box "on": the last value counts.
    response = client.post(reverse("games:new"), "preset=classic&koks=off&koks=on&cube=off",
                           content_type="application/x-www-form-urlencoded")
    assert Game.objects.order_by("-created").first().table == {"koks": True, "cube": False}


@pytest.mark.parametrize("data", [
    {"preset": "sport", "cube": "on"}, {"preset": "match", "match_length": "4"},
    {"preset": "classic", "match_length": "3"}, {"preset": "classic", "koks": "maybe"},
    {"preset": "sport", "koks": "on"}, {"level": "grandmaster"},
])
def test_bad_options_get_400_with_a_reason_and_create_nothing(client, data):
    response = client.post(reverse("games:new"), data)
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert len(response.content.decode()) > 20
    assert not Game.objects.exists() and not Match.objects.exists()


def test_my_games_lists_this_sessions_games_with_links(client, fixed):
    start(client)
    _response, finished = start(client, preset="match", match_length="3")
    services.resign(finished.id, services.Actor(guest_id=client.session["guest_id"]), 1)
    other = Client()
    start(other)
    response = client.get(reverse("games:my_games"))
    assert response.status_code == 200
    active, done = response.context["active_games"], response.context["finished_games"]
    # The resigned match game, the next game of that match, and the first game.
    assert len(active) == 2 and len(done) == 1
    assert done[0]["result"]["reason"] == "resign" and done[0]["match"]["length"] == 3
    page = response.content.decode()
    for row in active + done:
        assert row["url"] in page
    assert other.get(reverse("games:my_games")).context["active_games"][0]["id"] not in {
        row["id"] for row in active}


def test_the_replay_is_for_players_during_the_game_and_for_all_after(client, fixed):
    _response, game = start(client)
    url = reverse("games:replay", kwargs={"game_id": game.id})
    assert client.get(url).status_code == 200
    stranger = Client()
    assert stranger.get(url).status_code == 404
    assert stranger.get(reverse("games:record", kwargs={"game_id": game.id})).status_code == 404
    services.resign(game.id, services.Actor(guest_id=client.session["guest_id"]), game.version)
    response = stranger.get(url)
    assert response.status_code == 200
    assert response.context["finished"] and response.context["fairness"]["seed"]


def test_the_replay_steps_through_every_roll_and_play_readable_without_javascript(client, fixed):
    fixed.openings.append((6, 5))
    _response, game = start(client)
    guest = services.Actor(guest_id=client.session["guest_id"])
    game = Game.objects.get(pk=game.pk)
    plays = services.snapshot(game, guest.guest_id)["game"]["legal"]["plays"]
    services.play(game.id, guest, game.version, plays[0]["play"])
    response = client.get(reverse("games:replay", kwargs={"game_id": game.id}))
    frames = response.context["frames"]
    assert [f["kind"] for f in frames] == ["start", "roll", "play"]
    assert frames[-1]["position"] == Game.objects.get(pk=game.pk).position
    page = response.content.decode()
    assert 'id="replay-frames"' in page
    for frame in frames:
        assert frame["text"] in page.replace("&#x27;", "'")
    assert response.context["fairness"]["seed"] is None  # still on
    assert Game.objects.get(pk=game.pk).seed not in page


def test_the_exported_record_imports_to_the_same_replay(client, fixed):
    _response, game = start(client, preset="classic", cube="on")
    guest = services.Actor(guest_id=client.session["guest_id"])
    set_position(game, {"turn": "white", "white": {"1": 1}, "black": {"24": 15},
                        "first_turn": False}, phase=Phase.PLAY, dice_rolled=[2, 1])
    services.play(game.id, guest, game.version, "1/off")
    response = client.get(reverse("games:record", kwargs={"game_id": game.id}))
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    text = response.content.decode()
    assert "result white" in text
    # The game was arranged by the test (set_position), so import the real record of a legal
    # game instead, and check export -> parse -> write is stable.
    assert rec.write(rec.parse(text)) == text
    response = client.post(reverse("games:import"), {"text": GOOD})
    imported = ImportedRecord.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("games:imported", kwargs={"record_id": imported.id})
    page = client.get(response["Location"])
    assert page.status_code == 200 and page.context["imported"]
    assert page.context["result"]["reason"] == "drop"
    assert len(page.context["frames"]) == 12


def test_an_uploaded_record_file_is_imported(client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("game.txt", GOOD.encode(), content_type="text/plain")
    response = client.post(reverse("games:import"), {"record": upload})
    assert response.status_code == 302 and ImportedRecord.objects.count() == 1


def test_an_illegal_record_is_refused_with_its_line_and_reason(client):
    bad = GOOD.replace("1 white 6-5 24/18 18/13", "1 white 6-5 24/18 24/19")
    response = client.post(reverse("games:import"), {"text": bad})
    assert response.status_code == 400 and not ImportedRecord.objects.exists()
    assert response.context["error"].startswith("Line 6:")
    assert "head" in response.context["error"]
    response = client.post(reverse("games:import") .replace("/en/", "/ru/"), {"text": bad})
    assert response.status_code == 400 and "6" in response.context["error"]
    assert client.post(reverse("games:import"), {"text": ""}).status_code == 400
    assert client.get(reverse("games:import")).status_code == 200


def test_the_position_share_page_and_images(client):
    position = Position.from_json({"turn": "black", "white": {"24": 13, "18": 2},
                                   "black": {"24": 14, "20": 1}, "first_turn": False})
    position_id = encode(position)
    page = client.get(reverse("games:position", kwargs={"position_id": position_id}))
    assert page.status_code == 200
    html = page.content.decode()
    assert re.search(r'<meta property="og:image" content="http://testserver/position/'
                     + re.escape(position_id) + r'\.png">', html)
    assert "<svg" in html and "Black to move" in html
    svg = client.get(f"/position/{position_id}.svg")
    assert svg.status_code == 200 and svg["Content-Type"].startswith("image/svg+xml")
    assert svg.content.startswith(b"<svg")
    png = client.get(f"/position/{position_id}.png")
    assert png.status_code == 200 and png["Content-Type"] == "image/png"
    assert png.content[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png.content[16:24])
    assert (width, height) == (1200, 630)
    # The labels are drawn with the project's own font, not whatever the machine has: the
    # image differs from the same board rendered with no font at all.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(views, "_PNG_FONTS", Path("/nonexistent-fonts"))
        bare = client.get(f"/position/{position_id}.png").content
    assert bare != png.content
    assert client.get(f"/position/{position_id}.png").content == png.content
    for bad in ("nope", "A" * 14 + "A", "_" * 14):
        assert client.get(f"/position/{bad}.svg").status_code == 404
        assert client.get(f"/position/{bad}.png").status_code == 404
        assert client.get(f"/en/position/{bad}/").status_code == 404


def test_the_snapshot_links_lead_to_working_pages(client, fixed):
    _response, game = start(client)
    snap = services.snapshot(Game.objects.get(pk=game.pk), client.session["guest_id"])["game"]
    for name in ("game", "replay", "record", "share", "image", "png"):
        assert client.get(snap["links"][name]).status_code == 200, name
    assert snap["links"]["share"].endswith(f"/position/{snap['position_id']}/")
