"""Accounts (django-allauth, games/accounts/sign_in.py): the providers configured from the
environment, the sign-in page and the header's sign-in / sign-out in every language, the
Telegram sign-in with its checks in front of allauth, the whole Google OAuth2 flow with
Google's endpoints answered by the test, the Profile made on sign-up, the guest's games that
follow the account, and the views that know a player by account."""

import base64
import copy
import hashlib
import hmac
import json
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from unittest import mock
from urllib.parse import parse_qs, urlencode, urlparse

import jwt
import pytest
import requests
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.staticfiles import finders
from django.test import Client

from games.accounts.models import Profile

pytestmark = pytest.mark.django_db

User = get_user_model()

TELEGRAM_BOT_ID = "7000000001"
TELEGRAM_BOT_TOKEN = "7000000001:AAF-test-token-used-only-by-the-tests"
GOOGLE_CLIENT_ID = "test-client.apps.googleusercontent.com"
GOOGLE_CLIENT_SECRET = "test-google-secret"
GOOGLE_CALLBACK = "http://testserver/accounts/google/login/callback/"
MAX_AGE = 600  # settings.TELEGRAM_AUTH_MAX_AGE


def provider_settings(google=True, telegram=True):
    """SOCIALACCOUNT_PROVIDERS as nardy_site.settings builds it, with test credentials for the
    providers asked for."""
    from nardy_site.settings import TELEGRAM_AUTH_MAX_AGE

    providers = {
        "google": {
            "SCOPE": ["profile"],
            "AUTH_PARAMS": {"prompt": "select_account"},
            "OAUTH_PKCE_ENABLED": True,
        },
        "telegram": {"AUTH_PARAMS": {"auth_date_validity": TELEGRAM_AUTH_MAX_AGE}},
    }
    if google:
        providers["google"]["APPS"] = [
            {"client_id": GOOGLE_CLIENT_ID, "secret": GOOGLE_CLIENT_SECRET}
        ]
    if telegram:
        providers["telegram"]["APPS"] = [
            {"client_id": TELEGRAM_BOT_ID, "secret": TELEGRAM_BOT_TOKEN}
        ]
    return providers


@pytest.fixture(autouse=True)
def fresh_cache(settings):
    """Each test has a cache of its own (a key prefix; the Redis is shared), so a Telegram
    answer one test used is not "already used" in another."""
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["KEY_PREFIX"] = f"test-accounts-{uuid.uuid4().hex}"
    settings.CACHES = caches


#: every auth_date handed out: two answers must never be the same data (one second later, an
#: older offset could give the same date, and the second answer was "already used")
_auth_dates = set()


def _fresh_auth_date(age):
    """A Unix time ``age`` seconds ago, or the nearest earlier one not handed out yet."""
    at = int(time.time()) - age
    while at in _auth_dates:
        at -= 1
    _auth_dates.add(at)
    return at


@pytest.fixture
def providers(settings):
    """Both providers configured with the tests' credentials."""
    settings.SOCIALACCOUNT_PROVIDERS = provider_settings()
    return settings


# --- Telegram, as Telegram does it (https://core.telegram.org/widgets/login) -----------------


def telegram_signed(fields, token=TELEGRAM_BOT_TOKEN):
    """``fields`` with the ``hash`` Telegram adds: HMAC-SHA-256 of the data-check string (the
    fields sorted by key as ``key=value`` lines) keyed with SHA-256 of the bot token."""
    check = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    secret = hashlib.sha256(token.encode()).digest()
    return {**fields, "hash": hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()}


def telegram_user(user_id=4242, age=5, **extra):
    """Telegram's sign-in fields; each call with an auth_date no call had before, so two
    answers of one test are two sign-ins (each answer signs in once)."""
    fields = {
        "id": user_id,
        "first_name": "Ivan",
        "last_name": "Petrov",
        "username": "ivan_p",
        "photo_url": "https://t.me/i/userpic/320/ivan.jpg",
        "auth_date": _fresh_auth_date(age),
    }
    fields.update(extra)
    return {key: value for key, value in fields.items() if value is not None}


def tg_auth_result(data):
    """The ``tgAuthResult`` Telegram puts in the return URL's fragment: base64 JSON without
    padding."""
    return base64.b64encode(json.dumps(data).encode()).decode().rstrip("=")


def telegram_start(client, lang="en", next_url=None):
    """Press "Continue with Telegram": returns the callback URL (path?state=…) Telegram is told
    to return to."""
    response = client.post(
        f"/{lang}/accounts/telegram/login/", {"next": next_url} if next_url else {}
    )
    assert response.status_code == 302
    target = urlparse(response["Location"])
    assert target.netloc == "oauth.telegram.org"
    query = parse_qs(target.query)
    assert query["bot_id"] == [TELEGRAM_BOT_ID]
    back = urlparse(query["return_to"][0])
    assert back.path == f"/{lang}/accounts/telegram/login/callback/"
    assert "state" in parse_qs(back.query)
    return f"{back.path}?{back.query}"


def telegram_sign_in(client, data, lang="en", next_url=None):
    """The whole Telegram sign-in of ``data`` (already signed, or not): start, then the post
    that allauth's callback page makes with Telegram's answer."""
    callback = telegram_start(client, lang, next_url)
    page = client.get(callback)  # the page whose script posts the answer to the same URL
    assert page.status_code == 200
    # ... and takes it out of the address bar, so it follows no redirect and stays in no history
    # (a static script: the Content-Security-Policy allows no inline one)
    assert "games/telegram-callback.js" in page.content.decode()
    assert "history.replaceState" in Path(finders.find("games/telegram-callback.js")).read_text()
    return client.post(callback, {"tgAuthResult": tg_auth_result(data)})


def signed_in_user(client):
    """The account the client's session is signed in to, or None."""
    user_id = client.session.get(SESSION_KEY)
    return User.objects.get(pk=user_id) if user_id else None


# --- Google, answered by the test ------------------------------------------------------------


def _json_response(request, payload, status=200):
    response = requests.Response()
    response.status_code = status
    response._content = json.dumps(payload).encode()
    response.headers["Content-Type"] = "application/json; charset=utf-8"
    response.url = request.url
    response.request = request
    return response


class FakeGoogle:
    """Google's token and user-info endpoints, answered in the test (the only stand-in: the
    HTTP calls that would leave this machine). Every other request fails the test.

    The token endpoint checks the code, the client credentials, the redirect URI and the PKCE
    verifier against the challenge of the authorization request, and answers with an access
    token and, if ``id_token``, an id_token holding ``claims``; the user-info endpoint checks
    the access token and answers ``claims`` in its own format."""

    def __init__(self, claims, code_challenge, id_token=True):
        self.claims = claims
        self.code_challenge = code_challenge
        self.id_token = id_token
        self.calls = []

    def send(self, session, request, **kwargs):
        url = urlparse(request.url)
        self.calls.append(f"{url.netloc}{url.path}")
        if (url.netloc, url.path) == ("oauth2.googleapis.com", "/token"):
            form = {key: values[0] for key, values in parse_qs(request.body).items()}
            assert form["grant_type"] == "authorization_code"
            assert form["code"] == "code-from-google"
            assert form["client_id"] == GOOGLE_CLIENT_ID
            assert form["client_secret"] == GOOGLE_CLIENT_SECRET
            assert form["redirect_uri"] == GOOGLE_CALLBACK
            verifier_hash = hashlib.sha256(form["code_verifier"].encode()).digest()
            assert (
                base64.urlsafe_b64encode(verifier_hash).decode().rstrip("=") == self.code_challenge
            )
            payload = {
                "access_token": "access-from-google",
                "expires_in": 3599,
                "token_type": "Bearer",
                "scope": "openid profile",
            }
            if self.id_token:
                now = int(time.time())
                payload["id_token"] = jwt.encode(
                    {
                        "iss": "https://accounts.google.com",
                        "aud": GOOGLE_CLIENT_ID,
                        "azp": GOOGLE_CLIENT_ID,
                        "iat": now,
                        "exp": now + 3600,
                        **self.claims,
                    },
                    "a key that only this test knows, 32+ bytes",
                    algorithm="HS256",
                )
            return _json_response(request, payload)
        if (url.netloc, url.path) == ("www.googleapis.com", "/oauth2/v2/userinfo"):
            assert request.headers["Authorization"] == "Bearer access-from-google"
            info = {
                "id": self.claims["sub"],
                **{k: v for k, v in self.claims.items() if k != "sub"},
            }
            return _json_response(request, info)
        raise AssertionError(f"unexpected request to {request.url}")


@contextmanager
def google_answers(claims, code_challenge, id_token=True):
    fake = FakeGoogle(claims, code_challenge, id_token)
    with mock.patch.object(requests.Session, "send", autospec=True, side_effect=fake.send):
        yield fake


def google_sign_in(client, claims, lang="en", next_url=None, id_token=True):
    """The whole Google sign-in: "Continue with Google", Google's consent (skipped: it sends the
    browser back with a code), the callback. Returns (callback response, FakeGoogle)."""
    response = client.post(
        f"/{lang}/accounts/google/login/", {"next": next_url} if next_url else {}
    )
    assert response.status_code == 302
    target = urlparse(response["Location"])
    assert (target.netloc, target.path) == ("accounts.google.com", "/o/oauth2/v2/auth")
    query = {key: values[0] for key, values in parse_qs(target.query).items()}
    assert query["client_id"] == GOOGLE_CLIENT_ID
    assert query["redirect_uri"] == GOOGLE_CALLBACK
    assert query["response_type"] == "code" and query["code_challenge_method"] == "S256"
    with google_answers(claims, query["code_challenge"], id_token) as fake:
        response = client.get(
            f"/accounts/google/login/callback/?"
            f"{urlencode({'code': 'code-from-google', 'state': query['state']})}"
        )
    return response, fake


GOOGLE_CLAIMS = {
    "sub": "109876543210987654321",
    "name": "Maria Ivanova",
    "given_name": "Maria",
    "picture": "https://lh3.googleusercontent.com/a/maria",
}


# --- configuration ------------------------------------------------------------------------------


def test_providers_come_from_the_environment_and_are_left_out_without_credentials(monkeypatch):
    from nardy_site.settings import auth as site_settings

    for name in (
        "GOOGLE_CLIENT_ID",
        "GOOGLE_CLIENT_SECRET",
        "TELEGRAM_BOT_ID",
        "TELEGRAM_BOT_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)
    none = site_settings._social_providers()
    assert "APPS" not in none["google"] and "APPS" not in none["telegram"]

    monkeypatch.setenv("GOOGLE_CLIENT_ID", "id-1")
    half = site_settings._social_providers()  # a client id without its secret is not enough
    assert "APPS" not in half["google"]

    monkeypatch.setenv("GOOGLE_CLIENT_SECRET", "secret-1")
    monkeypatch.setenv("TELEGRAM_BOT_ID", "42")
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "42:token")
    both = site_settings._social_providers()
    assert both["google"]["APPS"] == [{"client_id": "id-1", "secret": "secret-1"}]
    assert both["telegram"]["APPS"] == [{"client_id": "42", "secret": "42:token"}]
    # allauth's own age check of the Telegram data has the same bound as ours (10 minutes)
    assert both["telegram"]["AUTH_PARAMS"]["auth_date_validity"] == MAX_AGE


@pytest.mark.parametrize(
    "lang, google_text, telegram_text",
    [
        ("en", "Continue with Google", "Continue with Telegram"),
        ("ru", "Продолжить через Google", "Продолжить через Telegram"),
        ("bg", "Продължете с Google", "Продължете с Telegram"),
    ],
)
def test_the_sign_in_page_shows_a_button_for_each_configured_provider(
    settings, lang, google_text, telegram_text
):
    settings.DEV_SIGN_IN = False  # as in production: the providers alone
    settings.SOCIALACCOUNT_PROVIDERS = provider_settings()
    page = Client().get(f"/{lang}/accounts/login/").content.decode()
    assert google_text in page and telegram_text in page
    assert f'action="/{lang}/accounts/google/login/"' in page
    assert f'action="/{lang}/accounts/telegram/login/"' in page
    assert 'type="password"' not in page  # social sign-in only

    settings.SOCIALACCOUNT_PROVIDERS = provider_settings(telegram=False)
    page = Client().get(f"/{lang}/accounts/login/").content.decode()
    assert google_text in page and telegram_text not in page

    settings.SOCIALACCOUNT_PROVIDERS = provider_settings(google=False, telegram=False)
    page = Client().get(f"/{lang}/accounts/login/").content.decode()
    assert google_text not in page and telegram_text not in page
    assert 'class="provider-list"' not in page


@pytest.mark.parametrize(
    "google, telegram, lang, said",
    [
        (True, True, "en", "Sign in with Google or Telegram: no password"),
        (True, False, "en", "Sign in with Google: no password"),
        (False, True, "en", "Sign in with Telegram: no password"),
        (False, False, "en", "Signing in is not available on this server yet."),
        (True, True, "ru", "Войдите через Google или Telegram — без пароля"),
        (False, True, "ru", "Войдите через Telegram — без пароля"),
        (True, True, "bg", "Влезте с Google или Telegram: без парола"),
        (True, False, "bg", "Влезте с Google: без парола"),
    ],
)
def test_the_lobby_tells_a_guest_only_the_sign_in_services_this_server_has(
    settings, google, telegram, lang, said
):
    settings.DEV_SIGN_IN = False  # as in production: the providers alone
    settings.SOCIALACCOUNT_PROVIDERS = provider_settings(google=google, telegram=telegram)
    page = Client().get(f"/{lang}/lobby/").content.decode()
    told = page.split('id="lobby-sign-in"', 1)[1].split("</div>", 1)[0]
    assert said in told
    assert ("Google" in told) == google and ("Telegram" in told) == telegram


def test_without_credentials_the_provider_urls_lead_nowhere(settings):
    settings.SOCIALACCOUNT_PROVIDERS = provider_settings(google=False, telegram=False)
    client = Client()
    response = client.post(
        "/en/accounts/telegram/login/callback/?state=x",
        {"tgAuthResult": tg_auth_result(telegram_signed(telegram_user()))},
    )
    assert response.status_code == 404
    for path in (
        "/en/accounts/telegram/login/",
        "/ru/accounts/google/login/",
        "/accounts/google/login/callback/?code=x&state=y",
    ):
        # (the path without a language that answers 404 is first sent to its /en/ twin)
        assert client.get(path, follow=True).status_code == 404, path
        assert client.post(path, follow=True).status_code == 404, path
    assert not User.objects.exists()


def test_local_passwords_and_sign_up_forms_do_not_exist(providers):
    client = Client()
    for path in ("/en/accounts/signup/", "/en/accounts/password/reset/", "/en/accounts/email/"):
        assert client.get(path).status_code == 404, path
    User.objects.create_user("admin-like", password="a password")
    response = client.post("/en/accounts/login/", {"login": "admin-like", "password": "a password"})
    assert response.status_code != 302 and signed_in_user(client) is None


# --- Telegram -------------------------------------------------------------------------------------


def test_a_valid_telegram_sign_in_makes_the_account_and_its_profile_and_comes_back(providers):
    client = Client()
    response = telegram_sign_in(
        client, telegram_signed(telegram_user()), lang="ru", next_url="/ru/rules/"
    )
    assert response.status_code == 302 and response["Location"] == "/ru/rules/"
    user = signed_in_user(client)
    assert user is not None
    assert SocialAccount.objects.get(user=user).provider == "telegram"
    assert SocialAccount.objects.get(user=user).uid == "4242"
    profile = Profile.objects.get(user=user)
    assert profile.display_name == "Ivan Petrov"
    assert profile.avatar_url == "https://t.me/i/userpic/320/ivan.jpg"
    assert user.email == ""  # Telegram gives none, and none is asked for
    assert "Ivan Petrov" in client.get("/ru/rules/").content.decode()


def test_telegram_sign_in_again_is_the_same_account(providers):
    telegram_sign_in(Client(), telegram_signed(telegram_user()))
    client = Client()
    telegram_sign_in(client, telegram_signed(telegram_user(first_name="Vanya")))
    assert User.objects.count() == 1 and Profile.objects.count() == 1
    assert signed_in_user(client) == User.objects.get()
    assert Profile.objects.get().display_name == "Ivan Petrov"  # the player's own name stays


def test_telegram_data_a_few_minutes_old_is_still_accepted(providers):
    # allauth's default would refuse anything older than 30 s; ours is 10 minutes
    client = Client()
    response = telegram_sign_in(client, telegram_signed(telegram_user(age=8 * 60)))
    assert response.status_code == 302 and signed_in_user(client) is not None


def test_a_telegram_answer_signs_in_once(providers):
    # found by an adversarial test: a copied answer could sign another browser in
    payload = telegram_signed(telegram_user())
    first = Client()
    assert telegram_sign_in(first, payload).status_code == 302
    second = Client()
    replayed = telegram_sign_in(second, payload)
    assert replayed.status_code == 400 and "already used" in replayed.content.decode()
    assert signed_in_user(second) is None


def test_a_telegram_name_falls_back_to_the_username(providers):
    client = Client()
    telegram_sign_in(
        client, telegram_signed(telegram_user(first_name=None, last_name=None, photo_url=None))
    )
    profile = Profile.objects.get(user=signed_in_user(client))
    assert profile.display_name == "ivan_p" and profile.avatar_url == ""


REFUSALS = {
    "wrong hash": (
        lambda: {**telegram_signed(telegram_user()), "hash": "0" * 64},
        "does not carry a valid signature",
    ),
    "signed with another bot": (
        lambda: telegram_signed(telegram_user(), token="1:other"),
        "does not carry a valid signature",
    ),
    "changed after signing": (
        lambda: {**telegram_signed(telegram_user()), "id": 1},
        "does not carry a valid signature",
    ),
    "stale": (lambda: telegram_signed(telegram_user(age=MAX_AGE + 60)), "has expired"),
    "from the future": (lambda: telegram_signed(telegram_user(age=-3600)), "has expired"),
    "no auth_date": (lambda: telegram_signed(telegram_user(auth_date=None)), "missing: auth_date"),
    "no id": (lambda: telegram_signed(telegram_user(id=None)), "missing: id"),
    "no hash": (lambda: telegram_user(), "missing: hash"),
    "auth_date not a number": (
        lambda: telegram_signed(telegram_user(auth_date="yesterday")),
        "no valid sign-in time",
    ),
    "id not a number": (lambda: telegram_signed(telegram_user(id="ivan")), "could not be read"),
    "a list inside": (lambda: telegram_signed(telegram_user(username=["a"])), "could not be read"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refused_telegram_data_gets_a_clear_page_and_creates_nothing(providers, case):
    make, reason = REFUSALS[case]
    client = Client()
    response = telegram_sign_in(client, make())
    assert response.status_code == 400
    page = response.content.decode()
    assert "Telegram sign-in refused" in page and reason in page
    assert signed_in_user(client) is None
    assert not User.objects.exists() and not Profile.objects.exists()
    assert not SocialAccount.objects.exists()


def test_telegram_answers_that_are_no_json_are_refused(providers):
    client = Client()
    callback = telegram_start(client)
    for answer in (
        "",
        "not base64 at all!",
        base64.b64encode(b"[1, 2]").decode(),
        base64.b64encode(b"{broken").decode(),
    ):
        response = client.post(callback, {"tgAuthResult": answer})
        assert response.status_code == 400
        assert "could not be read" in response.content.decode()
    assert not User.objects.exists()


@pytest.mark.parametrize(
    "lang, title, reason",
    [
        ("ru", "Вход через Telegram отклонён", "устарел"),
        ("bg", "Входът с Telegram е отказан", "е изтекъл"),
    ],
)
def test_the_telegram_refusal_is_translated(providers, lang, title, reason):
    response = telegram_sign_in(
        Client(), telegram_signed(telegram_user(age=2 * MAX_AGE)), lang=lang
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert title in page and reason in page


# --- Google ---------------------------------------------------------------------------------------


def test_the_google_flow_makes_the_account_and_its_profile_and_comes_back(providers):
    client = Client()
    response, google = google_sign_in(client, GOOGLE_CLAIMS, lang="bg", next_url="/bg/faq/")
    assert response.status_code == 302 and response["Location"] == "/bg/faq/"
    assert google.calls == ["oauth2.googleapis.com/token"]
    user = signed_in_user(client)
    assert user is not None
    account = SocialAccount.objects.get(user=user)
    assert (account.provider, account.uid) == ("google", GOOGLE_CLAIMS["sub"])
    profile = Profile.objects.get(user=user)
    assert profile.display_name == "Maria Ivanova"
    assert profile.avatar_url == GOOGLE_CLAIMS["picture"]

    # a second sign-in (another browser) is the same account
    again = Client()
    response, _google = google_sign_in(again, GOOGLE_CLAIMS, next_url="/en/rules/")
    assert response["Location"] == "/en/rules/"
    assert signed_in_user(again) == user
    assert User.objects.count() == 1 and Profile.objects.count() == 1


def test_the_google_flow_without_an_id_token_reads_the_user_info(providers):
    client = Client()
    response, google = google_sign_in(client, GOOGLE_CLAIMS, id_token=False)
    assert response.status_code == 302
    assert google.calls == ["oauth2.googleapis.com/token", "www.googleapis.com/oauth2/v2/userinfo"]
    user = signed_in_user(client)
    assert SocialAccount.objects.get(user=user).uid == GOOGLE_CLAIMS["sub"]
    assert Profile.objects.get(user=user).display_name == "Maria Ivanova"


def test_a_google_callback_with_a_forged_state_signs_nobody_in(providers):
    client = Client()
    client.post("/en/accounts/google/login/")
    with google_answers(GOOGLE_CLAIMS, "unused") as google:
        response = client.get("/accounts/google/login/callback/?code=code-from-google&state=x")
    assert google.calls == []
    assert response.status_code == 401 and "Sign-in failed" in response.content.decode()
    assert signed_in_user(client) is None and not User.objects.exists()
