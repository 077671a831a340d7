"""End to end in headless Chromium: an arena played to its end and a 4-player cup played to
its final (issue #18).

The real stack runs: Daphne, a Celery worker and Celery beat (the tournament tick every
second), the tests' Redis and database. Four accounts are signed in (sessions made here and
given to the browsers as cookies: the sign-in providers are outside this machine); a guest
watches the event's page on a phone and sees the standings, the bracket and the winners
change without reloading. The players join on the event's page, each page announces their
game and opens it after the countdown; in each game both sides first make the plays an arena
asks of a loser (through the services: the pages follow live), then the loser's page clicks
Resign and its next game opens by itself. The time from each game's end to its
players' next pairing is written to ``artifacts/tournaments/browser.json``; screenshots go to
``artifacts/e2e/``.
"""

import json
import re
import statistics
import time
from datetime import timedelta

import pytest

from games.lobby.tests.test_e2e_ranked import signed_in_context
from games.room.tests.test_e2e_browser import (  # noqa: F401 - fixtures used by name
    ARTIFACTS,
    DESKTOP,
    PHONE,
    ROOT,
    browser,
    daphne_server,
    in_thread,
)
from games.services.tests.test_clock_worker import wait_until
from games.tests.fixtures import start_beat, stop_beat

pytestmark = pytest.mark.e2e

TEST_LIMIT_S = 240
PLAYERS = {"Ann": DESKTOP, "Bob": PHONE, "Cid": {"width": 390, "height": 844}, "Dan": DESKTOP}
GAME_URL = re.compile(r"/(?:en|ru|bg)/game/([0-9a-f-]{36})/$")


@pytest.fixture
def tournament_beat(celery_worker_process, tmp_path):
    """Celery beat with the tournament tick every second (and the clock sweep)."""
    env = dict(celery_worker_process.env, TOURNAMENT_TICK_SECONDS="1")
    beat = start_beat(env, celery_worker_process.queue, tmp_path / "beat.log", interval=1.0)
    try:
        yield beat
    finally:
        stop_beat(beat)


def playing(event_id):
    """``[(game id of the game to resign, bracket black's user, white's user)]`` of the
    event's pairings being played (a match: its latest game)."""
    from games.tournaments.models import Pairing

    found = []
    for pairing in Pairing.objects.filter(tournament_id=event_id, status="playing").select_related(
        "white", "black", "game", "match"
    ):
        game = pairing.match.latest_game() if pairing.match_id else pairing.game
        found.append((str(game.pk), pairing.black.user_id, pairing.white.user_id))
    return found


def played_before_resigning(game_id, loser):
    """Both sides play in turn (random legal plays through the services) until account
    ``loser`` has made ``rules.MIN_LOSER_PLAYS`` plays in the game or its match: a resignation
    before would abort the game or score nothing in an arena. Returns the game's version."""
    from games.room.models import Game
    from games.tests.factories import play_turns
    from games.tournaments import play, rules

    game = Game.objects.get(pk=game_id)
    while play.plays_of(game, loser) < rules.MIN_LOSER_PLAYS:
        game = play_turns(game.pk, 1)
    return game.version


def resign_on(page, game_id, loser, deadline):
    """On ``page`` (account ``loser``'s), once it shows game ``game_id`` (it opens it by
    itself) and the plays before a resignation are made, click Resign and wait for the
    result."""
    page.wait_for_url(
        re.compile(rf"/game/{game_id}/$"), timeout=max(1000, (deadline - time.monotonic()) * 1000)
    )
    version = in_thread(lambda: played_before_resigning(game_id, loser))
    page.wait_for_function(
        f"() => Number(document.getElementById('game').dataset.version) >= {version}",
        timeout=15_000,
    )
    page.locator("#resign-btn").wait_for(state="visible", timeout=15_000)
    page.locator("#resign-btn").click()
    page.locator("#result").wait_for(state="visible", timeout=15_000)


def status_of(event_id):
    from games.tournaments.models import Tournament

    return Tournament.objects.get(pk=event_id).status


def play_out(event_id, pages, deadline, on_round=None):
    """Resign the loser's (bracket black's) side of every game of the event until it is over;
    returns how many games were resigned."""
    resigned, seen = 0, set()
    while in_thread(lambda: status_of(event_id)) != "finished":
        assert time.monotonic() < deadline, "the event did not finish in time"
        games = [g for g in in_thread(lambda: playing(event_id)) if g[0] not in seen]
        if not games:
            time.sleep(0.2)
            continue
        for game_id, loser, _winner in games:
            seen.add(game_id)
            resign_on(pages[loser], game_id, loser, deadline)
            resigned += 1
        if on_round:
            on_round()
    return resigned


def pairing_gaps(event_id):
    """For each game of the event started after an earlier game of its players ended: the ms
    from that end (its END event; the later of the two players') to the new game's start."""
    from games.room.models import GameEvent
    from games.tournaments.models import Pairing

    pairings = list(Pairing.objects.filter(tournament_id=event_id).select_related("white", "black"))
    ends = {}
    for pairing in pairings:
        if pairing.status != "done" or not pairing.game_id:
            continue
        games = pairing.match.games.all() if pairing.match_id else [pairing.game]
        end = (
            GameEvent.objects.filter(game__in=list(games), kind="end").order_by("-created").first()
        )
        for entrant in pairing.entrants():
            ends.setdefault(entrant.pk, []).append(end.created)
    gaps = []
    for pairing in pairings:
        started = pairing.game.created  # a cup's later slots exist from the draw on
        freed = [
            max((e for e in ends.get(entrant.pk, []) if e <= started), default=None)
            for entrant in pairing.entrants()
        ]
        freed = [f for f in freed if f is not None]
        if freed:
            gaps.append((started - max(freed)).total_seconds() * 1000)
    return gaps


def test_an_arena_and_a_cup_are_played_to_their_end_in_the_browser(
    daphne_server, celery_worker_process, tournament_beat, browser
):
    from games import clocks, tournaments
    from games.tournaments.models import Entrant

    deadline = time.monotonic() + TEST_LIMIT_S
    base = daphne_server.base
    errors = []
    pages, users = {}, {}
    for name, viewport in PLAYERS.items():
        context, user_id = signed_in_context(browser, base, name, viewport)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("dialog", lambda dialog: dialog.accept())  # "Resign this game?"
        pages[user_id], users[name] = page, user_id
    guest = browser.new_page(viewport=PHONE, reduced_motion="reduce")
    guest.on("pageerror", lambda error: errors.append(str(error)))

    # --- An arena that began 25 s ago with nobody in it: 35 s are left.
    start = clocks.from_ms(clocks.now_ms()) - timedelta(seconds=25)
    arena = in_thread(lambda: tournaments.create("arena", "sport", starts_at=start, minutes=1))
    url = f"{base}/en/tournaments/{arena.pk}/"
    guest.goto(url)
    assert guest.locator("#t-sign-in-link").is_visible()
    guest.screenshot(path=str(ARTIFACTS / "tournament-arena-guest-360.png"), full_page=True)
    for user_id, page in pages.items():
        page.goto(url)
        # as a person would, join once the page's socket is open: a join that comes before it
        # finds the player away (no page of the event open) and the tick marks them so
        wait_until(
            lambda u=user_id: in_thread(lambda: socket_open(arena.pk, u)), what="the page's socket"
        )
        page.locator("#t-join").click()
        page.wait_for_url(url + "#t-actions")  # back at the forms
        # in, or already paired with someone who joined before
        assert re.match(r"You are (in|playing)", page.locator("#t-you-text").inner_text())
    first = pages[users["Ann"]]
    first.locator("#t-next").wait_for(state="visible", timeout=10_000)
    assert re.search(
        r"Your next game starts in 0:0\d\.", first.locator("#t-next-text").inner_text()
    )
    first.screenshot(path=str(ARTIFACTS / "tournament-arena-paired-1280.png"), full_page=True)
    # the guest's standings show all four playing, without a reload
    guest.wait_for_function(
        "() => document.querySelectorAll('#t-standings-body a[href*=\"/game/\"]').length === 4",
        timeout=10_000,
    )
    for page in pages.values():
        page.wait_for_url(GAME_URL, timeout=15_000)
    assert first.locator("#tournament-link").inner_text() == "Sport arena, 1 min"
    first.screenshot(path=str(ARTIFACTS / "tournament-arena-game-1280.png"))

    def standings_have_points():
        guest.wait_for_function(
            "() => [...document.querySelectorAll('#t-standings-body tr')]"
            ".some((row) => Number(row.cells[2].textContent) > 0)",
            timeout=10_000,
        )

    resigned = play_out(arena.pk, pages, deadline, on_round=standings_have_points)
    assert resigned >= 4  # at least two rounds in 35 s
    guest.locator("#t-podium").wait_for(state="visible", timeout=10_000)
    podium = guest.locator("#t-podium-list li").all_inner_texts()
    assert len(podium) == 3 and set(podium) <= set(users)
    assert guest.locator("#t-status").inner_text() == "Finished"
    guest.screenshot(path=str(ARTIFACTS / "tournament-arena-finished-360.png"), full_page=True)
    rows = in_thread(lambda: list(Entrant.objects.filter(tournament=arena).order_by("place")))
    assert [row.place for row in rows] == [1, 2, 3, 4]
    assert rows[0].score >= rows[1].score > 0
    arena_gaps = in_thread(lambda: pairing_gaps(arena.pk))

    # --- A cup of four, matches to 3 points: the last entry starts it.
    cup = in_thread(lambda: tournaments.create("cup", "match", size=4, match_length=3))
    url = f"{base}/ru/tournaments/{cup.pk}/"
    guest.goto(url)
    for user_id, page in pages.items():
        page.goto(url)
        # as a person would, join once the page's socket is open: a join that comes before it
        # finds the player away (no page of the event open) and the tick marks them so
        wait_until(
            lambda u=user_id: in_thread(lambda: socket_open(arena.pk, u)), what="the page's socket"
        )
        page.locator("#t-join").click()
        page.wait_for_url(url + "#t-actions")
        assert not page.locator("#t-join").is_visible()  # in: the form is gone
    guest.wait_for_function(
        "() => document.querySelectorAll('#t-bracket .t-slot').length === 4", timeout=10_000
    )
    assert "Полуфиналы" in guest.locator("#t-bracket").inner_text()
    guest.screenshot(path=str(ARTIFACTS / "tournament-cup-drawn-ru-360.png"), full_page=True)
    for page in pages.values():
        page.wait_for_url(GAME_URL, timeout=15_000)
    bob = pages[users["Bob"]]
    assert bob.locator("#tournament-link").inner_text() == "Кубок на 4 участника, матчи до 3 очков"
    bob.screenshot(path=str(ARTIFACTS / "tournament-cup-game-ru-360.png"), full_page=True)
    play_out(cup.pk, pages, deadline)
    guest.locator("#t-podium").wait_for(state="visible", timeout=10_000)
    assert len(guest.locator("#t-podium-list li").all_inner_texts()) == 3
    assert guest.locator("#t-status").inner_text() == "Турнир завершён"
    guest.screenshot(path=str(ARTIFACTS / "tournament-cup-finished-ru-360.png"), full_page=True)
    places = in_thread(
        lambda: sorted(Entrant.objects.filter(tournament=cup).values_list("place", flat=True))
    )
    assert places == [1, 2, 3, 4]
    cup_gaps = in_thread(lambda: pairing_gaps(cup.pk))

    # the winner's profile lists the podium
    winner = in_thread(lambda: Entrant.objects.get(tournament=cup, place=1).user_id)
    pages[winner].goto(f"{base}/en/players/{winner}/")
    assert "1st place" in pages[winner].locator("#podiums").inner_text()
    assert not errors, errors

    gaps = arena_gaps + cup_gaps
    figures = {
        "what": "ms from a game's end (its END event) to the next pairing of its players, "
        "through the Celery task queued at the end (real Daphne, worker, beat, Redis, "
        "database, 4 players in Chromium)",
        "arena_ms": [round(g) for g in arena_gaps],
        "cup_ms": [round(g) for g in cup_gaps],
        "median_ms": round(statistics.median(gaps)) if gaps else None,
        "worst_ms": round(max(gaps)) if gaps else None,
    }
    path = ROOT / "artifacts" / "tournaments" / "browser.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures, indent=2) + "\n")
    print(f"\ntournament pairing gaps: {figures}")


def socket_open(tournament_id, user_id):
    """Whether account ``user_id`` has a socket open on the tournament's page (presence)."""
    from games.tournaments.models import TournamentSocket

    return TournamentSocket.objects.filter(tournament_id=tournament_id, user_id=user_id).exists()
