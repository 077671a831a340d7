"""The Mini App's pages and sign-in (games/telegram/views.py, games/telegram/signin.py,
pages.py): off without a bot; signed initData signs in to the account of the Telegram sign-in
(made on the first visit, a guest's games moved to it), in the Telegram user's language, on
to what the startapp link names; replays, expired and tampered data change nothing; pages
inside Telegram, and only they, allow Telegram's script and framing."""

from urllib.parse import parse_qsl, urlencode

import pytest
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import SESSION_KEY, get_user_model

from games import services
from games.room.models import Game
from games.telegram import config, signin
from games.telegram.models import TelegramLink
from games.tests.telegram_helpers import (  # noqa: F401 - fixtures used by name
    BOT_USERNAME,
    bot_api_stub,
    init_data,
    telegram_on,
)

pytestmark = pytest.mark.django_db
User = get_user_model()


def open_app(client, raw, next_path=""):
    """What Telegram's view does: open /tg/ (for the CSRF cookie), then the page's script
    posts initData."""
    entry = client.get("/tg/" + (f"?{urlencode({'next': next_path})}" if next_path else ""))
    assert entry.status_code == 200
    return client.post("/tg/session/", {"init_data": raw, "next": next_path})


def signed_in(client):
    user_id = client.session.get(SESSION_KEY)
    return User.objects.get(pk=user_id) if user_id else None


def csp(response):
    return response["Content-Security-Policy"]


def test_without_a_bot_token_the_mini_app_and_webhook_do_not_exist(client, settings):
    settings.TELEGRAM_BOT_TOKEN = ""
    assert client.get("/tg/").status_code == 404
    assert client.post("/tg/session/", {"init_data": init_data()}).status_code == 404
    assert client.post("/telegram/webhook/anything/", "{}", "application/json").status_code == 404
    page = client.get("/en/")
    assert "telegram-web-app.js" not in page.content.decode()
    assert "telegram.org" not in csp(page)


def test_the_entry_page_loads_telegrams_script_and_may_be_framed_by_telegram(telegram_on, client):
    page = client.get("/tg/?next=/en/lobby/")
    html = page.content.decode()
    assert "https://telegram.org/js/telegram-web-app.js" in html
    assert "js/telegram-entry.js" in html and 'value="/en/lobby/"' in html
    policy = csp(page)
    assert "script-src 'self' https://telegram.org" in policy
    assert "frame-ancestors https://web.telegram.org" in policy
    assert "X-Frame-Options" not in page
    # any other visitor's page stays as strict as before
    other = client.__class__().get("/en/games/")
    assert "telegram.org" not in csp(other) and other["X-Frame-Options"] == "DENY"
    assert "telegram-web-app.js" not in other.content.decode()


def test_first_opening_makes_the_account_of_the_telegram_sign_in_and_marks_the_session(
    telegram_on, client
):
    response = open_app(client, init_data(user_id=9001, first_name="Olga", last_name="K"))
    assert response.status_code == 302 and response["Location"] == "/en/games/"
    user = signed_in(client)
    account = SocialAccount.objects.get(user=user)
    assert (account.provider, account.uid) == ("telegram", "9001")
    assert user.profile.display_name == "Olga K"
    assert client.session[config.SESSION_KEY] is True
    link = TelegramLink.objects.get(user=user)
    assert (link.chat_id, link.language, link.notices) == (9001, "en", False)
    # the next pages carry Telegram's script and may be framed; so may a cached rules page
    for path in ("/en/games/", "/en/lobby/", "/en/", "/en/rules/"):
        page = client.get(path)
        assert "telegram-web-app.js" in page.content.decode(), path
        assert "frame-ancestors https://web.telegram.org" in csp(page), path
    # ... and the rules page served to a visitor outside Telegram was not the Telegram copy
    outsider = client.__class__().get("/en/rules/")
    assert "telegram-web-app.js" not in outsider.content.decode()


def test_opening_again_signs_in_to_the_same_account_as_the_telegram_sign_in(telegram_on, client):
    user = User.objects.create(username="tg-4242")
    SocialAccount.objects.create(user=user, provider="telegram", uid="4242", extra_data={})
    open_app(client, init_data(user_id=4242))
    assert signed_in(client) == user
    client.logout()
    open_app(client, init_data(user_id=4242))
    assert signed_in(client) == user
    assert User.objects.count() == 1


def test_a_guests_games_move_to_the_account(telegram_on, client):
    client.get("/en/")
    client.post("/en/new/", {"level": "easy", "side": "white"})
    guest_game = Game.objects.get()
    assert guest_game.white_guest and guest_game.white_user_id is None
    open_app(client, init_data(user_id=31337))
    guest_game.refresh_from_db()
    assert guest_game.white_user_id == signed_in(client).pk


def test_the_telegram_users_language_is_the_sites_when_it_has_it(telegram_on, client):
    response = open_app(client, init_data(user_id=11, language_code="bg"))
    assert response["Location"] == "/bg/games/"
    assert response.cookies["django_language"].value == "bg"
    assert TelegramLink.objects.get(chat_id=11).language == "bg"
    other = open_app(client.__class__(), init_data(user_id=12, language_code="de"))
    assert other["Location"] == "/en/games/"
    ru = client.__class__()
    assert (
        open_app(ru, init_data(user_id=13, language_code="ru"), "/en/lobby/")["Location"]
        == "/ru/lobby/"
    )


def test_a_startapp_link_opens_the_challenge_it_names(telegram_on, client):
    challenge = services.create_challenge("guest-friend", preset="sport", colour="white")
    param = signin.start_param_for("c", challenge.pk)
    assert config.valid_start_param(param)
    link = config.mini_app_link(param)
    assert link == f"https://t.me/{BOT_USERNAME}?startapp={param}"
    response = open_app(client, init_data(user_id=21, start_param=param, language_code="ru"))
    assert response["Location"] == f"/ru/challenge/{challenge.pk}/"
    # a start parameter that names nothing goes to the app's home
    nothing = open_app(client.__class__(), init_data(user_id=22, start_param="zzz"))
    assert nothing["Location"] == "/en/games/"
    # a next path to another site is not followed
    away = open_app(client.__class__(), init_data(user_id=23), "https://evil.example/")
    assert away["Location"] == "/en/games/"


def test_the_creator_inside_telegram_can_send_the_challenge_to_a_chat(telegram_on, client):
    open_app(client, init_data(user_id=41))
    page = client.post("/en/friend/", {"preset": "sport", "colour": "white"}, follow=True)
    html = page.content.decode()
    assert 'id="tg-share"' in html
    assert "https://t.me/share/url?url=https%3A%2F%2Ft.me%2FNardyTestBot%3Fstartapp%3Dc" in html
    # outside Telegram the page has no such button
    outside = client.__class__()
    outside.get("/en/")
    plain = outside.post("/en/friend/", {"preset": "sport", "colour": "white"}, follow=True)
    assert 'id="tg-share"' not in plain.content.decode()


def test_replayed_expired_or_tampered_init_data_signs_nobody_in(telegram_on, client):
    raw = init_data(user_id=51)
    assert open_app(client, raw).status_code == 302
    # the same opening from another browser: refused, nothing made
    thief = client.__class__()
    replay = open_app(thief, raw)
    assert replay.status_code == 400
    assert "already used" in replay.content.decode()
    assert signed_in(thief) is None
    # ... while the player's own reload of it is fine (already signed in as them)
    assert open_app(client, raw).status_code == 302
    expired = open_app(thief, init_data(user_id=52, age=3600))
    assert expired.status_code == 400 and "expired" in expired.content.decode()
    fields = dict(parse_qsl(init_data(user_id=53)))
    fields["user"] = fields["user"].replace("53", "51")
    tampered = open_app(thief, urlencode(fields))
    assert tampered.status_code == 400
    assert "valid signature" in tampered.content.decode()
    assert signed_in(thief) is None
    assert User.objects.count() == 1 and not TelegramLink.objects.exclude(chat_id=51).exists()


def test_a_player_with_telegram_chooses_notices_on_the_profile(telegram_on, client):
    open_app(client, init_data(user_id=61, language_code="ru"))
    profile = client.get("/bg/profile/")
    assert 'id="telegram-notices"' in profile.content.decode()
    client.post("/bg/profile/telegram/", {"notices": "on"})
    link = TelegramLink.objects.get(chat_id=61)
    assert link.notices and link.language == "bg"
    link.off_reason = "blocked"
    link.save()
    paused = client.get("/en/profile/").content.decode()
    assert 'id="telegram-off"' in paused and "you blocked the bot" in paused
    client.post("/en/profile/telegram/", {"notices": "on"})  # on again: tried again
    link.refresh_from_db()
    assert link.notices and link.off_reason == "" and link.language == "en"
    client.post("/en/profile/telegram/", {})
    link.refresh_from_db()
    assert not link.notices
    # a player without Telegram is told, not given a form that cannot work
    google = User.objects.create(username="g")
    client.force_login(google)
    assert 'id="telegram-none"' in client.get("/en/profile/").content.decode()
    refused = client.post("/en/profile/telegram/", {"notices": "on"})
    assert refused.status_code == 400 and "sign in with Telegram" in refused.content.decode()
    assert not TelegramLink.objects.filter(user=google).exists()


def test_signing_out_inside_the_app_keeps_its_pages_and_this_browser_may_open_it_again(
    telegram_on, client
):
    raw = init_data(user_id=71)
    open_app(client, raw)
    client.post("/en/accounts/logout/")
    assert signed_in(client) is None
    page = client.get("/en/")
    assert "telegram-web-app.js" in page.content.decode()
    assert "frame-ancestors https://web.telegram.org" in csp(page)
    # the same opening, reloaded in this browser, signs in again; a copy elsewhere does not
    assert open_app(client, raw).status_code == 302 and signed_in(client) is not None
    assert open_app(client.__class__(), raw).status_code == 400


def test_a_player_s_own_choice_of_language_outlives_opening_the_app_again(telegram_on, client):
    open_app(client, init_data(user_id=81, language_code="ru"))
    client.post("/bg/profile/telegram/", {"notices": "on"})
    client.logout()
    open_app(client, init_data(user_id=81, language_code="ru"))
    assert TelegramLink.objects.get(chat_id=81).language == "bg"


def test_odd_user_data_signed_by_telegram_is_cleaned_or_refused(telegram_on, client):
    huge = open_app(client, init_data(user_id=2**63))
    assert huge.status_code == 400 and not User.objects.exists()
    odd = init_data(
        user_id=91, language_code=7, first_name={"x": 1}, last_name="K\ud800", ascii_json=True
    )
    assert open_app(client, odd).status_code == 302
    user = signed_in(client)
    assert user.profile.display_name == "K"
    assert TelegramLink.objects.get(user=user).language == "en"


def test_without_a_bot_every_telegram_url_is_not_found_whatever_the_method(client, settings):
    settings.TELEGRAM_BOT_TOKEN = ""
    for path in ("/tg/session/", "/telegram/webhook/x/", "/en/profile/telegram/"):
        assert client.get(path).status_code == 404, path
        assert client.post(path).status_code == 404, path
