"""The admin's password sign-in is throttled by django-axes (issue #16; docs/deploy.md "The
admin"): after AXES_FAILURE_LIMIT wrong passwords from one address, that address gets the
translated 429 page with Retry-After, even with the right password, until the cool-off has
passed; other addresses are not held back, and the limits come from the environment."""

import os
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from nardy_site.tests.test_deploy_settings import evaluate

PASSWORD = "long-nardy-owner-9Xw4"

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner():
    return get_user_model().objects.create_superuser("owner", "owner@nardy.example", PASSWORD)


def sign_in(address, password, lang="en"):
    """One sign-in at the admin from ``address``, as a browser sends it (CSRF token included):
    ``(status, signed_in, page)``."""
    client = Client(enforce_csrf_checks=True, REMOTE_ADDR=address, HTTP_ACCEPT_LANGUAGE=lang)
    page = client.get(reverse("admin:login"))
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())
    response = client.post(
        reverse("admin:login"),
        {
            "username": "owner",
            "password": password,
            "csrfmiddlewaretoken": token[1] if token else "",
            "next": reverse("admin:index"),
        },
    )
    return response, "_auth_user_id" in client.session


def test_wrong_passwords_from_one_address_lock_it_out_for_the_cool_off(
    owner, settings, time_machine
):
    settings.AXES_FAILURE_LIMIT = 3
    settings.AXES_COOLOFF_TIME = timedelta(minutes=30)
    time_machine.move_to("2027-01-10 10:00Z", tick=False)
    answers = [sign_in("198.51.100.4", "wrong")[0].status_code for _ in range(3)]
    assert answers == [200, 200, 429]
    response, signed_in = sign_in("198.51.100.4", PASSWORD, lang="ru")
    assert response.status_code == 429 and not signed_in
    assert response["Retry-After"] == "1800"
    # the wait left, counted from the last failed attempt
    time_machine.shift(timedelta(minutes=10))
    response, signed_in = sign_in("198.51.100.4", PASSWORD, lang="ru")
    assert response.status_code == 429 and not signed_in
    assert response["Retry-After"] == "1200"
    page = response.content.decode()
    assert "ещё на 20 минут" in page and "Игроков это не касается" in page
    assert 'name="password"' not in page
    # a player signing in from that address does not lift the lockout
    settings.DEV_SIGN_IN = True
    player = Client(REMOTE_ADDR="198.51.100.4")
    assert player.post("/en/accounts/dev/", {"name": "Ann"}).status_code == 302
    assert "_auth_user_id" in player.session
    assert sign_in("198.51.100.4", PASSWORD)[0].status_code == 429
    # another address is not held back
    response, signed_in = sign_in("198.51.100.5", PASSWORD)
    assert response.status_code == 302 and signed_in
    # after the cool-off the address may try again; old failures no longer count
    time_machine.shift(timedelta(minutes=21))
    response, signed_in = sign_in("198.51.100.4", PASSWORD)
    assert response.status_code == 302 and signed_in
    assert [sign_in("198.51.100.4", "wrong")[0].status_code for _ in range(2)] == [200, 200]


def test_the_lockout_may_be_turned_off(owner, settings):
    settings.AXES_ENABLED = False
    settings.AXES_FAILURE_LIMIT = 1
    assert {sign_in("198.51.100.6", "wrong")[0].status_code for _ in range(3)} == {200}


def test_the_limits_come_from_the_environment(monkeypatch):
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    defaults = evaluate(monkeypatch, {"REDIS_URL": redis_url})
    assert defaults["AXES_FAILURE_LIMIT"] == 5
    assert defaults["AXES_COOLOFF_TIME"] == timedelta(minutes=30)
    assert defaults["AXES_LOCKOUT_PARAMETERS"] == ["ip_address"]
    values = evaluate(
        monkeypatch,
        {
            "REDIS_URL": redis_url,
            "AXES_FAILURE_LIMIT": "10",
            "AXES_COOLOFF_MINUTES": "5",
            "AXES_ENABLED": "false",
        },
    )
    assert values["AXES_FAILURE_LIMIT"] == 10
    assert values["AXES_COOLOFF_TIME"] == timedelta(minutes=5)
    assert values["AXES_ENABLED"] is False
