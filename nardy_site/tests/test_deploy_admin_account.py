"""The first admin account as docs/deploy.md ("The admin") makes it: ``createsuperuser`` run
once, then a username-and-password sign-in at ADMIN_URL (apart from the players' Google and
Telegram sign-in)."""

import re

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

PASSWORD = "long-nardy-owner-7Qv2"


def test_the_first_admin_account_made_by_createsuperuser_signs_in_at_admin_url(db, monkeypatch):
    # the documented form without a terminal: --noinput, the password from the environment
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    call_command(
        "createsuperuser",
        interactive=False,
        username="owner",
        email="owner@nardy.example",
        verbosity=0,
    )
    owner = get_user_model().objects.get(username="owner")
    assert owner.is_staff and owner.is_superuser

    index = reverse("admin:index")
    assert index == "/" + settings.ADMIN_URL
    client = Client(enforce_csrf_checks=True)
    login_page = client.get(reverse("admin:login"), {"next": index})
    assert login_page.status_code == 200
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login_page.content.decode())[1]

    refused = client.post(
        reverse("admin:login"),
        {"username": "owner", "password": "wrong", "next": index, "csrfmiddlewaretoken": token},
    )
    assert refused.status_code == 200 and "_auth_user_id" not in client.session

    response = client.post(
        reverse("admin:login"),
        {"username": "owner", "password": PASSWORD, "next": index, "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302 and response["Location"] == index
    page = client.get(index)
    assert page.status_code == 200
    assert reverse("admin:auth_user_changelist") in page.content.decode()
