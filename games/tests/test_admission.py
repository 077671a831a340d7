"""Admission control (games/admission.py): past GAMES_MAX_ACTIVE games in progress the site
refuses new games with its reason (HTTP 503 and Retry-After, the lobby's site_full error),
while the games in progress go on and a challenge link may still be made."""

import contextlib

import pytest
from asgiref.sync import async_to_sync
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from games import admission, app_settings, clocks, ratelimits, services, tasks
from games.accounts.models import PlayerRating
from games.challenges.models import Challenge
from games.lobby import pairing
from games.lobby.models import QueueEntry
from games.lobby.tests.test_lobby import account, join_frame, lobby_socket, receive
from games.room.models import Game
from games.tests.factories import FixedDice, new_bot_game

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]

MESSAGES = {
    "en": "Every table is taken just now",
    "ru": "Сейчас все столы заняты",
    "bg": "В момента всички маси са заети",
}


@pytest.fixture
def full_site(settings, monkeypatch):
    """Two games in progress and a cap of two; returns the games."""
    settings.GAMES_MAX_ACTIVE = 2
    settings.GAMES_FULL_RETRY_SECONDS = 40
    fixed = FixedDice(monkeypatch)
    games = [new_bot_game(fixed, opening=(6, 5), guest=f"guest-{n}") for n in range(2)]
    admission.clear()
    return games


@pytest.mark.parametrize("lang", ["en", "ru", "bg"])
def test_a_new_game_past_the_cap_gets_the_503_page_with_the_reason(full_site, lang):
    before = Game.objects.count()
    response = Client().post(f"/{lang}/new/", {"level": "easy", "side": "white"})
    assert response.status_code == 503 and response["Retry-After"] == "40"
    page = response.content.decode()
    assert MESSAGES[lang] in page and 'id="site-full"' in page and "40" in page
    assert 'name="level"' in page  # the form to try again
    assert Game.objects.count() == before


def test_the_games_in_progress_go_on_and_a_challenge_may_be_made_but_not_accepted(full_site):
    game = full_site[0]
    moved = services.play(game.pk, services.Actor(guest_id="guest-0"), game.version, "24/18 18/13")
    assert moved.version == game.version + 1
    creator, friend = Client(), Client()
    response = creator.post("/en/friend/", {"preset": "sport", "colour": "random"})
    assert response.status_code == 302
    challenge = Challenge.objects.get()
    response = friend.post(reverse("games:challenge_accept", kwargs={"challenge_id": challenge.pk}))
    assert response.status_code == 503 and response["Retry-After"] == "40"
    assert MESSAGES["en"] in response.content.decode()
    assert Challenge.objects.get().game_id is None


def test_a_place_freed_by_a_game_that_ended_lets_a_new_game_in(full_site):
    game = full_site[0]
    services.resign(game.pk, services.Actor(guest_id="guest-0"), game.version)
    cache.delete(admission.CACHE_KEY)  # as after COUNT_SECONDS
    response = Client().post("/en/new/", {"level": "easy", "side": "white"})
    assert response.status_code == 302


def test_games_nobody_touched_for_the_window_do_not_count(full_site, settings):
    Game.objects.update(updated="2020-01-01T00:00:00Z")
    cache.delete(admission.CACHE_KEY)
    assert admission.active_games() == 0
    assert Client().post("/en/new/", {"level": "easy", "side": "white"}).status_code == 302


def test_no_cap_by_default(monkeypatch):
    fixed = FixedDice(monkeypatch)
    for n in range(3):
        new_bot_game(fixed, opening=(6, 5), guest=f"guest-{n}")
    cache.delete(admission.CACHE_KEY)
    assert app_settings.MAX_ACTIVE == 0 and admission.active_games() == 3
    admission.check()  # no refusal


def test_the_lobby_refuses_a_join_past_the_cap_with_site_full(full_site):
    user = account("carol")

    async def scenario():
        comm = await lobby_socket(user, lang="ru")
        await comm.send_json_to(join_frame())
        answer = await receive(comm)
        await comm.disconnect()
        return answer

    answer = async_to_sync(scenario)()
    assert answer["type"] == "error" and answer["code"] == "site_full"
    assert answer["retry_after"] == 40 and MESSAGES["ru"] in answer["message"]
    assert not QueueEntry.objects.filter(user=user).exists()


def test_lobby_joins_take_no_place_and_pairing_takes_one_per_game_it_starts(settings, time_machine):
    # joins, even refused ones, never fill the site; each game the pairing starts takes its
    # place, and a full site leaves the rest waiting until a later run finds room
    settings.GAMES_MAX_ACTIVE = 1
    settings.GAMES_CREATE_SESSION_LIMITS = "3/minute"
    time_machine.move_to("2027-05-01 12:00:00+00:00", tick=False)
    admission.clear()  # the places of these (fake) seconds, as another run may have left them
    one, visitor = services.Actor(guest_id="g-one"), ("session", "key-one")
    for _n in range(3):
        pairing.join(one, "classic", pool="casual", identity=visitor)
    with pytest.raises(ratelimits.RateLimited):
        pairing.join(one, "classic", pool="casual", identity=visitor)
    assert admission.has_room()  # four joins, no place taken
    low, high = account("low"), account("high")
    PlayerRating.objects.create(user=high, preset="sport", rating=1900)
    pairing.join(services.Actor(user_id=low.pk), "sport")
    pairing.join(services.Actor(user_id=high.pk), "sport")  # 400 apart: they wait
    pairing.join(services.Actor(guest_id="g-two"), "classic", pool="casual")  # takes the place
    assert Game.objects.count() == 1 and not admission.has_room()
    time_machine.shift(60)  # the windows now cover the gap, but the site is full
    admission.clear()  # the cached count's 2 s ran out in those 60 s
    assert tasks.pair_lobby() == 0
    assert QueueEntry.objects.filter(status="waiting").count() == 2
    Game.objects.all().delete()  # its players went home
    admission.clear()
    assert tasks.pair_lobby() == 1


def test_a_guest_joining_the_casual_pool_past_the_cap_is_refused_too(full_site):
    with pytest.raises(admission.SiteFull):
        pairing.join(services.Actor(guest_id="g-full"), "sport", pool="casual")
    assert not QueueEntry.objects.exists()


def test_a_cache_that_fails_costs_a_count_not_a_refusal(full_site, monkeypatch):
    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "get", broken)
    monkeypatch.setattr(cache, "set", broken)
    assert admission.active_games() == 2
    with pytest.raises(admission.SiteFull):
        admission.check()


def test_a_burst_of_new_games_inside_the_counts_lifetime_stops_at_the_cap(full_site, settings):
    settings.GAMES_MAX_ACTIVE = 5  # two games run; three more may start
    admitted = refused = 0
    for _n in range(10):  # all within COUNT_SECONDS of the count
        try:
            admission.check()
            admitted += 1
        except admission.SiteFull:
            refused += 1
    assert (admitted, refused) == (3, 7)


def test_places_given_count_before_their_games_reach_the_database(full_site, settings):
    # Slow requests: three places given while the cached count still says two, their games
    # not yet committed; the count is read again, and still nobody gets past the cap.
    settings.GAMES_MAX_ACTIVE = 5
    for _n in range(3):
        admission.check()
    cache.delete(admission.CACHE_KEY)  # the count's lifetime ends before any game commits
    assert admission.active_games() == 2
    with pytest.raises(admission.SiteFull):
        admission.check()


def test_a_refused_check_gives_its_place_back(full_site, settings):
    settings.GAMES_MAX_ACTIVE = 3
    for _n in range(4):
        with contextlib.suppress(admission.SiteFull):
            admission.check()
    # one place was given (2 + 1 = 3); the three refusals took none
    second = clocks.now_ms() // 1000
    given = sum(
        cache.get_many(
            [admission.TICKET_KEY.format(second - n) for n in range(admission.TICKET_SECONDS)]
        ).values()
    )
    assert given == 1
