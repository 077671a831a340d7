"""The game room's pages (docs/protocol.md "HTTP pages"): the options form, "my games", the
replay (access, frames, export), importing a record, and the position share page and images."""

import re
import struct
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.choices import Phase
from games.engine import Position, record_model, record_replay, record_text
from games.engine import record as rec
from games.engine.position_id import encode
from games.engine.tests.test_engine_record import GOOD
from games.room import position_views, views
from games.room.models import Game, ImportedRecord, Match
from games.tests.factories import FixedDice, play_turns, set_position

pytestmark = pytest.mark.django_db


@pytest.fixture
def fixed(monkeypatch):
    return FixedDice(monkeypatch)


def start(client, **data):
    response = client.post(reverse("games:new"), data)
    return response, Game.objects.order_by("-created").first()


def test_the_options_form_starts_the_chosen_table(client):
    response, game = start(
        client, preset="classic", koks="off", cube="on", level="easy", side="black"
    )
    assert response.status_code == 302
    assert (game.preset, game.table, game.bot_level, game.colour) == (
        "classic",
        {"koks": False, "cube": True},
        "easy",
        "black",
    )
    response, game = start(client, preset="match", match_length="7")
    assert game.match.length == 7
    # A hidden "off" before a checked box "on": the last value counts.
    response = client.post(
        reverse("games:new"),
        "preset=classic&koks=off&koks=on&cube=off",
        content_type="application/x-www-form-urlencoded",
    )
    assert Game.objects.order_by("-created").first().table == {"koks": True, "cube": False}


@pytest.mark.parametrize(
    "data",
    [
        {"preset": "sport", "cube": "on"},
        {"preset": "match", "match_length": "4"},
        {"preset": "classic", "match_length": "3"},
        {"preset": "classic", "koks": "maybe"},
        {"preset": "sport", "koks": "on"},
        {"level": "grandmaster"},
    ],
)
def test_bad_options_get_400_with_a_reason_and_create_nothing(client, data):
    response = client.post(reverse("games:new"), data)
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert len(response.content.decode()) > 20
    assert not Game.objects.exists() and not Match.objects.exists()


def test_my_games_lists_this_sessions_games_with_links(client, fixed):
    start(client)
    _response, finished = start(client, preset="match", match_length="3")
    finished = play_turns(finished.id, 2)  # both have played: the resignation is a result
    services.resign(
        finished.id, services.Actor(guest_id=client.session["guest_id"]), finished.version
    )
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
        row["id"] for row in active
    }


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
    set_position(
        game,
        {"turn": "white", "white": {"1": 1}, "black": {"24": 15}, "first_turn": False},
        phase=Phase.PLAY,
        dice_rolled=[2, 1],
    )
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
    response = client.post(reverse("games:import").replace("/en/", "/ru/"), {"text": bad})
    assert response.status_code == 400 and "6" in response.context["error"]
    assert client.post(reverse("games:import"), {"text": ""}).status_code == 400
    assert client.get(reverse("games:import")).status_code == 200


def test_the_example_record_on_the_import_page_imports(client):
    import html

    page = client.get(reverse("games:import")).content.decode()
    example = re.search(r'<pre class="record-import__example"[^>]*>(.*?)</pre>', page, re.S)
    text = html.unescape(example.group(1))
    rec.replay(rec.parse(text))  # the engine accepts every line
    response = client.post(reverse("games:import"), {"text": text})
    assert response.status_code == 302 and ImportedRecord.objects.count() == 1


def test_the_position_share_page_and_images(client):
    position = Position.from_json(
        {
            "turn": "black",
            "white": {"24": 13, "18": 2},
            "black": {"24": 14, "20": 1},
            "first_turn": False,
        }
    )
    position_id = encode(position)
    page = client.get(reverse("games:position", kwargs={"position_id": position_id}))
    assert page.status_code == 200
    html = page.content.decode()
    assert re.search(
        r'<meta property="og:image" content="http://testserver/position/'
        + re.escape(position_id)
        + r'\.png">',
        html,
    )
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
        mp.setattr(position_views, "_PNG_FONTS", Path("/nonexistent-fonts"))
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


def test_a_header_with_a_superscript_digit_is_refused_with_its_line_not_a_server_error(client):
    text = GOOD.replace('[Preset "classic"]', '[Preset "match"]\n[Match length "³"]')
    text = text.replace('[Cube "on"]\n', "")
    response = client.post(reverse("games:import"), {"text": text})
    assert response.status_code == 400 and not ImportedRecord.objects.exists()
    assert response.context["error"].startswith("Line 3:")


def test_a_pasted_record_with_a_byte_order_mark_is_imported(client):
    response = client.post(reverse("games:import"), {"text": "\ufeff" + GOOD})
    assert response.status_code == 302 and ImportedRecord.objects.count() == 1
    assert not ImportedRecord.objects.get().text.startswith("\ufeff")


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x7f"])
def test_a_record_file_with_a_control_character_is_refused_and_nothing_stored(client, char):
    from django.core.files.uploadedfile import SimpleUploadedFile

    data = GOOD.replace("2 black 4-4", f"2 black 4-4{char}").encode()
    upload = SimpleUploadedFile("game.txt", data, content_type="text/plain")
    response = client.post(reverse("games:import"), {"record": upload})
    assert response.status_code == 400 and not ImportedRecord.objects.exists()
    assert response.context["error"].startswith("Line 7:")
    assert "control character" in response.context["error"]


def seeded_record_text(cut_after_turn=None):
    """A legal match game record whose dice come from a seed, with the Seed revealed; with
    ``cut_after_turn`` the roll of turn 3 is changed (so it no longer matches the seed) and the
    record stops there."""
    from games.engine import legal_plays
    from games.engine.tests.test_engine_record import random_record

    seed = bytes(range(32))
    record, _ = random_record(21, "match", dice_seed=seed)
    text = rec.write(record)
    if cut_after_turn is None:
        return text, None
    lines = text.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith(f"{cut_after_turn} "))
    turn = lines[index].split()
    before = [f for f in rec.replay(rec.parse(text)).frames if f.kind == "roll"]
    position = before[cut_after_turn - 1].position
    old = sorted(int(x) for x in turn[2].split("-"))
    dice = next((a, b) for a in range(1, 7) for b in range(1, 7) if sorted((a, b)) != old)
    play = legal_plays(position, dice, "match")[0].notation or "pass"
    lines[index] = f"{cut_after_turn} {turn[1]} {dice[0]}-{dice[1]} {play}"
    cut = [line for line in lines[: index + 1] if not line.startswith("[Result")]
    return "\n".join(cut) + "\n", len(cut)


@pytest.mark.parametrize(
    "lang, match_text, mismatch_text",
    [
        ("en", "The dice match the revealed seed.", "The dice do not match the seed from line"),
    ],
)
def test_the_replay_page_shows_whether_the_dice_match_the_seed(
    client, lang, match_text, mismatch_text
):
    text, _line = seeded_record_text()
    response = client.post(reverse("games:import"), {"text": text})
    page = client.get(response["Location"])
    html = page.content.decode()
    assert page.context["dice_verified"] is True and match_text in html
    assert mismatch_text not in html
    text, line = seeded_record_text(cut_after_turn=3)
    response = client.post(reverse("games:import"), {"text": text})
    assert response.status_code == 302
    page = client.get(response["Location"])
    html = page.content.decode()
    assert page.context["dice_verified"] is False and page.context["dice_mismatch_line"] == line
    assert f"{mismatch_text} {line}." in html and match_text not in html
    # the line named is the line of the record shown on the page
    shown = page.context["record_text"].splitlines()[line - 1]
    assert shown.startswith("3 ")


def test_a_position_image_is_drawn_once_then_served_from_the_cache(client, monkeypatch):
    from django.core.cache import cache

    position = Position.from_json(
        {
            "turn": "white",
            "white": {"24": 12, "13": 3},
            "black": {"24": 13, "19": 2},
            "first_turn": False,
        }
    )
    position_id = encode(position)
    cache.delete(position_views._image_cache_key("png", position_id, position_views._PNG_FONTS))
    calls = []
    real = position_views._render_png

    def counting(pos):
        calls.append(pos)
        return real(pos)

    monkeypatch.setattr(position_views, "_render_png", counting)
    first = client.get(f"/position/{position_id}.png")
    second = client.get(f"/position/{position_id}.png")
    assert len(calls) == 1 and first.content == second.content
    assert second["Cache-Control"] == "public, max-age=86400"
    assert second["Content-Type"] == "image/png"
    svg = client.get(f"/position/{position_id}.svg")
    assert svg.status_code == 200 and svg["Cache-Control"] == "public, max-age=86400"
    assert client.get(f"/position/{position_id}.svg").content == svg.content
    assert position_views.RENDERER_VERSION in position_views._image_cache_key("png", position_id)


@pytest.mark.parametrize("position_id", ["AAAAAAAAAAAAAA", "gAAAAAAAAAAAAA", "YAAAAAAAAAAAAA"])
def test_impossible_position_ids_get_404(client, position_id):
    assert client.get(f"/en/position/{position_id}/").status_code == 404
    assert client.get(f"/position/{position_id}.svg").status_code == 404
    assert client.get(f"/position/{position_id}.png").status_code == 404


TRANSLATED_REFUSALS = [
    # (a bad record, the English reason shown on /en/)
    (GOOD.replace("2 black 4-4", "3 black 4-4"), "This is turn 2, not 3."),
    (GOOD.replace("result black oin 2 drop", "5 white 1-1 pass"), "The game is already over."),
    (GOOD.replace('[Preset "classic"]', '[Preset "backgammon"]'), 'Unknown rules "backgammon"'),
    (GOOD.replace("2 black 4-4", "2 black 4-7"), "A turn line is written"),
    ("x" * (rec.MAX_CHARS + 1), "The record is longer than 100000 characters."),
    (GOOD.replace('[Opening "3-3 6-5"]', '[Opening "white starts"]'), '"white starts" is only'),
    (GOOD.replace("3 white double 2", "3 white double 128"), "The cube stops at 64"),
    (GOOD.replace("3 black take", "3 white take"), "The double was offered to black."),
    (GOOD.replace("2 black 4-4", "2 black\x07 4-4"), "control character U+0007"),
    (
        GOOD.replace('[Preset "classic"]', '[Preset "match"]\n[Match length "³"]').replace(
            '[Cube "on"]\n', ""
        ),
        'the match length is 1, 3, 5, 7, not "³"',
    ),
]


@pytest.mark.parametrize("text, english", TRANSLATED_REFUSALS)
def test_import_refusals_are_given_in_the_pages_language(client, text, english):
    response = client.post(reverse("games:import"), {"text": text})
    assert response.status_code == 400 and english in response.context["error"]
    for lang in ("ru", "bg"):
        response = client.post(reverse("games:import").replace("/en/", f"/{lang}/"), {"text": text})
        error = response.context["error"]
        assert response.status_code == 400 and not ImportedRecord.objects.exists()
        assert english not in error and re.search("[а-яА-Я]", error), (lang, error)


def test_every_refusal_code_of_the_record_engine_has_a_translation():
    import inspect

    # the record engine's modules (record.py gives their names; the codes are raised in these)
    source = "".join(
        inspect.getsource(module) for module in (rec, record_model, record_text, record_replay)
    )
    codes = set(
        re.findall(
            r'RecordError\([^()]*?(?:\([^()]*\)[^()]*?)*?"([a-z_]+)"'
            r"(?:,\s*params=|\))",
            source,
        )
    )
    codes |= set(re.findall(r'"((?:[a-z]+_)*[a-z]+)",\s*params=', source))
    assert {"turn_number", "game_over", "cube_limit", "control_character"} <= codes
    for code in codes:
        exc = rec.RecordError(
            1,
            "English reason",
            code,
            params={
                "side": "white",
                "action": "take",
                "limit": 64,
                "value": "x",
                "char": "U+0000",
                "name": "Cube",
                "preset": "sport",
                "lengths": "1",
                "expected": 1,
                "got": 2,
                "dice": "6-5",
                "cube": 2,
                "offer": 4,
                "result": "r",
                "stated": "s",
            },
        )
        assert services.record_error_reason(exc) != "English reason", code


def test_a_stored_record_the_importer_now_refuses_gets_404_not_a_server_error(client):
    stored = ImportedRecord.objects.create(
        text=GOOD.replace('[Opening "3-3 6-5"]', '[Opening "white starts"]'), title="old"
    )
    response = client.get(reverse("games:imported", kwargs={"record_id": stored.id}))
    assert response.status_code == 404


def test_the_game_page_preloads_every_module_of_the_room(client):
    """All the room's modules are fetched at once (modulepreload), not one import level after
    another; a module added to static/games/room/ must be listed in views.ROOM_MODULES."""
    _, game = start(client, preset="sport", level="easy", side="white")
    page = client.get(reverse("games:game", args=[game.id])).content.decode()
    preloaded = set(
        re.findall(r'<link rel="modulepreload" href="/static/(games/room/[\w-]+\.js)"', page)
    )
    room = Path(views.__file__).resolve().parents[2] / "static" / "games" / "room"
    assert preloaded == {f"games/room/{path.name}" for path in room.glob("*.js")}


REPLAY_TITLE = re.compile(
    r"<title>(.*?) · .*?</title>.*?<h1 class=\"replay-title\">(.*?)</h1>", re.S
)


def replay_title(client, lang, url):
    """(page title without the site's name, heading) of a replay page in ``lang``."""
    html = client.get(re.sub(r"^/\w\w/", f"/{lang}/", url)).content.decode()
    return REPLAY_TITLE.search(html.replace("&#x27;", "'")).groups()


def test_a_replay_is_titled_by_its_players_as_the_game_page_names_them(client, fixed):
    from games.tests.tournament_helpers import accounts

    _response, game = start(client, level="hard")
    services.resign(game.id, services.Actor(guest_id=client.session["guest_id"]), game.version)
    url = reverse("games:replay", kwargs={"game_id": game.id})
    sides = ("hard computer", "you") if game.bot_side == "white" else ("you", "hard computer")
    title = "Replay: {} – {}".format(*sides)
    assert replay_title(client, "en", url) == (title, title)
    ru = (
        ("сильный компьютер", "Гость")
        if game.bot_side == "white"
        else ("Гость", "сильный компьютер")
    )
    assert replay_title(Client(), "ru", url) == ("Повтор: {} – {}".format(*ru),) * 2
    # two accounts: their names; the viewer's own side is "you"
    users = accounts("Ann", "Bob")
    challenge = services.create_challenge(
        services.Actor(guest_id="g-ann", user_id=users["Ann"]), preset="sport", colour="white"
    )
    people = services.accept_challenge(
        challenge.pk, services.Actor(guest_id="g-bob", user_id=users["Bob"])
    )
    services.resign(
        people.id, services.Actor(guest_id="g-bob", user_id=users["Bob"]), people.version
    )
    url = reverse("games:replay", kwargs={"game_id": people.id})
    assert replay_title(Client(), "bg", url) == ("Преглед: Ann – Bob",) * 2
    ann = Client()
    ann.force_login(people.white_user)
    assert replay_title(ann, "en", url) == ("Replay: you – Bob",) * 2


def test_an_imported_record_is_titled_in_the_language_of_the_page(client):
    text = GOOD.replace("[Preset", '[White "Guest"]\n[Black "Computer (hard)"]\n[Preset', 1)
    response = client.post(reverse("games:import"), {"text": text})
    url = response["Location"]
    assert replay_title(client, "bg", url) == ("Заредена игра: Гост – силен компютър",) * 2
    assert replay_title(client, "en", url) == ("Imported game: Guest – hard computer",) * 2
