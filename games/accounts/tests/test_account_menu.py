"""The header's account menu on every page and in every language (games/accounts/sign_in.py
account_menu): sign in, then the name and sign out; pages from the page cache still show each
visitor their own menu; signing out asks first and forgets the account."""

from urllib.parse import quote

import pytest
from django.db import OperationalError
from django.test import Client

from games import services
from games.accounts.models import Profile
from games.accounts.sign_in import ACCOUNT_MENU_MARKER
from games.accounts.tests.test_accounts import (
    User,
    signed_in_user,
)
from rules_pages.cache import CSRF_MARKER

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "lang, sign_in, sign_out",
    [
        ("en", "Sign in", "Sign out"),
        ("ru", "Войти", "Выйти"),
        ("bg", "Вход", "Изход"),
    ],
)
@pytest.mark.parametrize("page", ["", "rules/", "faq/", "games/", "friend/", "records/import/"])
def test_every_page_offers_sign_in_and_then_the_name_and_sign_out(lang, sign_in, sign_out, page):
    path = f"/{lang}/{page}"
    anonymous = Client().get(path).content.decode()
    assert f'href="/{lang}/accounts/login/?next={quote(path, safe="")}"' in anonymous
    assert f">{sign_in}</a>" in anonymous
    assert ACCOUNT_MENU_MARKER not in anonymous and CSRF_MARKER not in anonymous

    user = User.objects.create_user(f"player-{lang}-{page.strip('/') or 'home'}")
    Profile.objects.create(user=user, display_name="Anna <b>K</b>")
    client = Client()
    client.force_login(user)
    signed = client.get(path).content.decode()
    assert "Anna &lt;b&gt;K&lt;/b&gt;" in signed and "<b>K</b>" not in signed
    assert f'href="/{lang}/profile/"' in signed
    assert f'action="/{lang}/accounts/logout/"' in signed
    assert f'name="next" value="{path}"' in signed
    assert f">{sign_out}</button>" in signed
    assert ACCOUNT_MENU_MARKER not in signed and CSRF_MARKER not in signed


def test_a_page_from_the_page_cache_shows_each_visitor_their_own_menu(settings):
    settings.PAGE_CACHE_SECONDS = 600
    first, second = (User.objects.create_user(name) for name in ("first", "second"))
    Profile.objects.create(user=first, display_name="First Player")
    Profile.objects.create(user=second, display_name="Second Player")
    one, two, anonymous = Client(), Client(), Client()
    one.force_login(first)
    two.force_login(second)
    path = "/en/glossary/?cache-test=accounts"
    pages = [client.get(path).content.decode() for client in (one, two, anonymous, one)]
    assert "First Player" in pages[0] and "Second Player" not in pages[0]
    assert "Second Player" in pages[1] and "First Player" not in pages[1]
    assert "First Player" not in pages[2] and "Second Player" not in pages[2]
    assert ">Sign in</a>" in pages[2]
    assert "First Player" in pages[3]
    for page in pages:
        assert ACCOUNT_MENU_MARKER not in page and CSRF_MARKER not in page


def test_a_page_still_renders_when_the_account_menu_cannot_read_the_database(monkeypatch):
    user = User.objects.create_user("unlucky")
    client = Client()
    client.force_login(user)

    def broken(user_id):
        raise OperationalError("database is locked")

    monkeypatch.setattr(services, "display_name", broken)
    response = client.get("/en/games/")
    assert response.status_code == 200
    assert 'class="account-menu"' not in response.content.decode()


def test_signing_out_comes_back_to_the_page_and_forgets_the_account():
    user = User.objects.create_user("leaving")
    client = Client()
    client.force_login(user)
    response = client.post("/ru/accounts/logout/", {"next": "/ru/faq/"})
    assert response.status_code == 302 and response["Location"] == "/ru/faq/"
    assert signed_in_user(client) is None
    assert ">Войти</a>" in client.get("/ru/faq/").content.decode()


def test_the_sign_out_page_asks_first_in_the_visitors_language():
    user = User.objects.create_user("asking")
    client = Client()
    client.force_login(user)
    page = client.get("/bg/accounts/logout/").content.decode()
    assert "Искате ли да излезете?" in page
    assert signed_in_user(client) == user
