"""The tournament pages (games.tournaments.views) through Django's test client: the list, an
arena's standings and a cup's bracket, entering and leaving by form, the game page's link back
to its event, and the podium on a player's page; in English, Russian and Bulgarian."""

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from games import tournaments
from games.tests.tournament_helpers import accounts, arena, enter, lose_match, resign
from games.tournaments.models import Entrant, Tournament

pytestmark = pytest.mark.django_db


def signed_in(user_id):
    client = Client()
    client.force_login(get_user_model().objects.get(pk=user_id))
    return client


def embedded_state(html):
    found = re.search(
        r'<script id="tournament-state" type="application/json">(.*?)</script>', html, re.S
    )
    return json.loads(found.group(1))


def test_the_list_shows_events_under_way_open_and_finished_to_anyone():
    users = accounts("Ann")
    running = arena(minutes=45)
    tournaments.join(running.pk, users["Ann"])
    tournaments.advance(running.pk)
    cup = tournaments.create("cup", "match", size=8, match_length=5, name="Friday cup")
    html = Client().get("/en/tournaments/").content.decode()
    assert "Sport arena, 45 min" in html and "Friday cup" in html
    assert "Players: 1" in html and "Players: 0 of 8" in html
    assert "to play, sign in first" in html
    assert f'href="/en/tournaments/{cup.pk}/"' in html
    ru = Client().get("/ru/tournaments/").content.decode()
    assert "Турниры" in ru and "Спортивная арена, 45 мин" in ru
    bg = Client().get("/bg/tournaments/").content.decode()
    assert "Турнири" in bg
    # the menu leads there
    assert 'href="/en/tournaments/"' in Client().get("/en/").content.decode()


def test_a_guest_sees_an_arena_and_is_sent_to_sign_in_to_join():
    users = accounts("Ann", "Bob")
    event = arena()
    enter(event, users.values())
    (pairing,) = tournaments.advance(event.pk)
    guest = Client()
    html = guest.get(f"/en/tournaments/{event.pk}/").content.decode()
    assert "Standings" in html and "Ann" in html and "Bob" in html
    assert f'href="/en/game/{pairing.game_id}/"' in html  # watch the game being played
    state = embedded_state(html)
    assert state["status"] == "running" and len(state["games"]) == 1
    assert 'id="t-sign-in-link"' in html
    answer = guest.post(f"/en/tournaments/{event.pk}/join/")
    assert answer.status_code == 302 and answer["Location"].startswith("/en/accounts/login/")


def test_a_signed_in_player_joins_and_leaves_an_arena_by_form():
    users = accounts("Ann")
    event = arena()
    client = signed_in(users["Ann"])
    page = client.get(f"/en/tournaments/{event.pk}/").content.decode()
    assert 'id="t-join"' in page
    answer = client.post(f"/en/tournaments/{event.pk}/join/")
    assert answer.status_code == 302
    assert answer["Location"] == f"/en/tournaments/{event.pk}/#t-actions"  # back at the forms
    assert Entrant.objects.filter(tournament=event, user_id=users["Ann"]).exists()
    page = client.get(f"/en/tournaments/{event.pk}/").content.decode()
    assert "You are entered" in page and 'id="t-join-form" hidden' in page
    assert 'id="t-leave-form">' in page
    client.post(f"/en/tournaments/{event.pk}/leave/")
    assert not Entrant.objects.filter(tournament=event).exists()  # before its start


def test_a_refused_entry_is_explained_on_the_event_page():
    users = accounts("Ann", "Bob", "Cid", "Dan", "Eve")
    cup = tournaments.create("cup", "match", size=4, match_length=3)
    for name in ("Ann", "Bob", "Cid", "Dan"):
        tournaments.join(cup.pk, users[name])
    client = signed_in(users["Eve"])
    page = client.post(f"/ru/tournaments/{cup.pk}/join/", follow=True).content.decode()
    assert "Этот кубок уже начался" in page
    assert 'id="t-join-form" hidden' in page


def test_a_cup_page_shows_the_bracket_and_the_winners_and_the_player_page_the_podium():
    ratings = {"Ann": 1900, "Bob": 1800, "Cid": 1700, "Dan": 1600}
    users = accounts(*ratings, ratings=ratings)
    cup = tournaments.create("cup", "match", size=4, match_length=3)
    for user_id in users.values():
        tournaments.join(cup.pk, user_id)
    first, second = tournaments.advance(cup.pk)
    html = Client().get(f"/bg/tournaments/{cup.pk}/").content.decode()
    assert "Полуфинали" in html and "Финал" in html and "Мач за трето място" in html
    lose_match(first, users["Dan"])
    lose_match(second, users["Cid"])
    final, third = tournaments.advance(cup.pk)
    lose_match(final, users["Bob"])
    lose_match(third, users["Dan"])
    tournaments.advance(cup.pk)
    html = Client().get(f"/en/tournaments/{cup.pk}/").content.decode()
    podium = re.search(r'<ol id="t-podium-list">(.*?)</ol>', html, re.S).group(1)
    assert re.findall(r">(\w+)</a>", podium) == ["Ann", "Bob", "Cid"]
    player = Client().get(f"/en/players/{users['Ann']}/").content.decode()
    assert "Tournament podiums" in player and "1st place" in player
    assert "Cup of 4, matches to 3 points" in player


def test_a_tournament_game_links_back_to_its_event_and_follows_it():
    users = accounts("Ann", "Bob")
    event = arena()
    enter(event, users.values())
    (pairing,) = tournaments.advance(event.pk)
    player = signed_in(pairing.white.user_id)
    html = player.get(f"/en/game/{pairing.game_id}/").content.decode()
    assert 'id="tournament-follow"' in html
    assert f'data-ws-path="/ws/tournament/{event.pk}/?lang=en"' in html
    assert f'href="/en/tournaments/{event.pk}/"' in html
    assert "Back to the tournament" in html and "tournament.js" in html
    onlooker = Client().get(f"/en/game/{pairing.game_id}/").content.decode()
    assert 'id="tournament-follow"' in onlooker
    assert "/ws/tournament/" not in onlooker  # only players follow the event's socket
    resign(pairing.game, pairing.black.user_id)


def test_staff_create_an_event_in_the_admin_and_call_off_one_not_started():
    staff = get_user_model().objects.create_superuser("boss", password="not-used-here")
    client = Client()
    client.force_login(staff)
    add = reverse("admin:games_tournament_add")
    refused = client.post(
        add, {"name": "", "kind": "cup", "preset": "match", "size": 6, "match_length": 3}
    )
    assert (
        refused.status_code == 200 and "A cup has 4, 8 or 16 players." in refused.content.decode()
    )
    answer = client.post(
        add,
        {
            "name": "Friday evening",
            "kind": "arena",
            "preset": "classic",
            "clock_kind": "",
            "starts_at_0": "2026-12-04",
            "starts_at_1": "18:00:00",
            "minutes": 45,
            "match_length": 1,
        },
    )
    assert answer.status_code == 302, answer.content.decode()[:2000]
    event = Tournament.objects.get(name="Friday evening")
    assert (event.kind, event.preset, event.clock_kind) == ("arena", "classic", "standard")
    assert (event.ends_at - event.starts_at).total_seconds() == 45 * 60
    assert event.created_by == staff
    client.post(
        reverse("admin:games_tournament_changelist"),
        {"action": "call_off", "_selected_action": [str(event.pk)]},
    )
    event.refresh_from_db()
    assert event.status == "cancelled"


def test_entering_and_leaving_in_a_loop_is_refused_after_a_while(settings):
    settings.GAMES_ENTRY_SESSION_LIMITS = "4/minute"
    users = accounts("Ann")
    event = arena()
    client = signed_in(users["Ann"])
    for _ in range(2):
        client.post(f"/en/tournaments/{event.pk}/join/")
        client.post(f"/en/tournaments/{event.pk}/leave/")
    event.refresh_from_db()
    version = event.version
    page = client.post(f"/en/tournaments/{event.pk}/join/", follow=True).content.decode()
    assert "Too many entries in a short time" in page
    event.refresh_from_db()
    assert event.version == version  # refused: nothing changed, nothing sent


def test_the_admin_shows_an_event_read_only_and_refuses_a_start_out_of_range():
    staff = get_user_model().objects.create_superuser("boss", password="not-used-here")
    client = Client()
    client.force_login(staff)
    event = arena()
    change = reverse("admin:games_tournament_change", args=[event.pk])
    page = client.get(change)
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert client.post(change, {"name": "renamed"}).status_code == 403
    answer = client.post(
        reverse("admin:games_tournament_add"),
        {
            "kind": "arena",
            "preset": "sport",
            "starts_at_0": "9999-12-31",
            "starts_at_1": "23:00:00",
            "minutes": 120,
            "match_length": 1,
        },
    )
    assert answer.status_code == 200
    assert "That start time is out of range." in answer.content.decode()


@pytest.mark.parametrize("starts_in", ["nan", "inf", "-5", "1e12"])
def test_create_tournament_refuses_a_start_that_is_not_a_time(starts_in):
    with pytest.raises(CommandError):
        call_command("create_tournament", "arena", "--starts-in", starts_in)
    assert not Tournament.objects.exists()


def decided_arena_game(points, kind="mars"):
    """Ann and Bob's arena game, won by its white player, as the arena recorded it: the
    winner's ``points`` for a ``kind``. Returns (pairing, winner's user id, loser's)."""
    from games.room.models import Game
    from games.tournaments.models import Pairing

    users = accounts("Ann", "Bob")
    event = arena()
    enter(event, users.values())
    (pairing,) = tournaments.advance(event.pk)
    game = Game.objects.get(pk=pairing.game_id)
    winner, loser = game.white_user_id, game.black_user_id
    resign(game, loser)
    # what the arena scored is set here: its rules (streaks, short games) have tests of their own
    Game.objects.filter(pk=game.pk).update(result_kind=kind)
    winning = Entrant.objects.get(tournament=event, user_id=winner)
    Pairing.objects.filter(pk=pairing.pk).update(
        winner=winning,
        white_points=points if pairing.white_id == winning.pk else 0,
        black_points=points if pairing.black_id == winning.pk else 0,
    )
    return pairing, winner, loser


def test_an_arena_game_says_what_the_arena_scored_for_it_not_only_the_game_points():
    pairing, winner, loser = decided_arena_game(6)
    url = f"/en/game/{pairing.game_id}/"
    arena_line = re.compile(r'<p class="result-arena" id="result-arena">(.*?)</p>')
    mine = arena_line.search(signed_in(winner).get(url).content.decode()).group(1)
    assert mine == "You score 6 arena points for this mars. Doubled by the win streak."
    name = get_user_model().objects.get(pk=winner).profile.display_name
    theirs = arena_line.search(signed_in(loser).get(url).content.decode()).group(1)
    assert theirs == f"{name} scores 6 arena points for this mars. Doubled by the win streak."
    ru = arena_line.search(Client().get(url.replace("/en/", "/ru/")).content.decode()).group(1)
    assert ru == f"{name} получает на арене 6 очков за этот марс. Очки удвоены за серию побед."
    # the event's socket tells a player's page the same, for the page's script to say it
    frame = tournaments.state(pairing.tournament_id)
    assert {row["user"]: row["last"] for row in frame["standings"]}[loser] == {
        "game": str(pairing.game_id),
        "winner": winner,
        "points": 6,
        "kind": "mars",
        "doubled": True,
    }


def test_a_win_the_arena_did_not_score_says_so_on_the_game_page():
    pairing, _winner, _loser = decided_arena_game(0, kind="oin")
    html = Client().get(f"/bg/game/{pairing.game_id}/").content.decode()
    assert "Тази победа не носи точки в арената" in html


def test_arena_standings_explain_ties_and_drop_the_streak_mark_once_finished():
    users = accounts("Ann", "Bob", "Cid")
    event = arena()
    enter(event, users.values())
    tournaments.advance(event.pk)
    # Ann and Bob tied on points, Ann with more wins and a streak that doubles her next win
    Entrant.objects.filter(tournament=event, user_id=users["Ann"]).update(
        score=6, wins=3, streak=2, games=3
    )
    Entrant.objects.filter(tournament=event, user_id=users["Bob"]).update(
        score=6, wins=2, streak=0, games=3
    )
    body = re.compile(r'<tbody id="t-standings-body">(.*?)</tbody>', re.S)
    html = Client().get(f"/en/tournaments/{event.pk}/").content.decode()
    assert 'class="t-fire"' in body.search(html).group(1)  # while it runs
    assert '<th scope="col">Wins</th>' in html
    rows = re.findall(r"<tr[^>]*>\s*<td>(\d)</td>.*?<td>(\d+)</td>\s*<td>(\d+)</td>", html, re.S)
    assert rows[:2] == [("1", "6", "3"), ("2", "6", "2")]  # place, points, wins
    assert "Equal points: more wins ranks higher" in html
    Tournament.objects.filter(pk=event.pk).update(status="finished")
    Entrant.objects.filter(tournament=event, user_id=users["Ann"]).update(place=1)
    Entrant.objects.filter(tournament=event, user_id=users["Bob"]).update(place=2)
    html = Client().get(f"/ru/tournaments/{event.pk}/").content.decode()
    assert "t-fire" not in body.search(html).group(1)
    assert re.search(r'<p class="ng-note t-legend" id="t-legend" hidden>', html)
    assert not any(row["fire"] for row in embedded_state(html)["standings"])
    assert "При равных очках выше тот, у кого больше побед" in html


def test_an_arena_not_yet_started_counts_down_on_its_start_line():
    from datetime import timedelta

    from games import clocks

    starts = clocks.from_ms(clocks.now_ms()) + timedelta(minutes=10)
    event = tournaments.create("arena", "sport", starts_at=starts, minutes=30)
    html = Client().get(f"/en/tournaments/{event.pk}/").content.decode()
    facts = dict(re.findall(r"<dt>(\w+)</dt>\s*<dd>(.*?)</dd>", html, re.S))
    assert f'id="t-starts-in" data-until="{clocks.to_ms(starts)}"' in facts["Start"]
    assert 'id="t-countdown"' in facts["End"] and "t-starts-in" not in facts["End"]
