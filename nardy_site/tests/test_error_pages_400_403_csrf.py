"""The 400, 403 and CSRF-failure pages (nardy_site/errors.py): styled like the site (they
extend base.html), in the page's language, showing no technical detail, and never raising."""

import re

import pytest
from django.conf.urls.i18n import i18n_patterns
from django.core.exceptions import PermissionDenied
from django.test import Client, RequestFactory, override_settings
from django.urls import path

from games.challenges.models import Challenge
from nardy_site import errors
from nardy_site.tests.test_error_pages import _text
from nardy_site.urls import urlpatterns as site_urlpatterns

LANGUAGES = ("en", "ru", "bg")
INTERNAL_DETAIL = "only-the-server-may-know-this"


def _refuse(request):
    raise PermissionDenied(INTERNAL_DETAIL)


# This module doubles as the URLconf of the 403 test: the site's URLs plus one that refuses.
urlpatterns = i18n_patterns(path("refuse-for-test/", _refuse)) + site_urlpatterns
handler400 = "nardy_site.errors.bad_request"
handler403 = "nardy_site.errors.permission_denied"


def _is_site_page(html, language):
    """True if ``html`` is a page of the site's own shell in ``language``."""
    return f'<html lang="{language}">' in html and 'class="site-header"' in html


def _plain_words(html):
    """The page's text with whitespace collapsed (blocktranslate trimmed joins lines)."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


CSRF_TITLE = "The form could not be sent"
CSRF_ADVICE = (
    "Go back, reload the page and send the form again. If the same thing happens "
    "again, allow cookies for this site: the check needs them."
)


@override_settings(DEBUG=False)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_form_sent_without_its_csrf_token_gets_the_site_page_saying_to_reload(db, language):
    client = Client(enforce_csrf_checks=True)
    url = f"/{language}/friend/"  # the "play a friend" form
    # no CSRF cookie at all (cookies blocked, or never loaded the page)
    response = client.post(url, {"preset": "sport"})
    assert response.status_code == 403
    html = response.content.decode()
    assert _is_site_page(html, language)
    text = _plain_words(html)
    assert _text(language, CSRF_TITLE) in text
    assert _text(language, CSRF_ADVICE) in text
    assert 'name="robots" content="noindex"' in html
    # no technical reason, and not Django's own page (whose inline style the CSP blocks)
    assert "CSRF" not in html and "<style" not in html
    # the page sets a fresh token, so the form works once reloaded
    assert response.cookies["csrftoken"].value

    # with a cookie but a form without its token (the page was loaded under an older cookie)
    client.get(url)
    response = client.post(url, {"preset": "sport", "csrfmiddlewaretoken": "x" * 64})
    assert response.status_code == 403
    assert _text(language, CSRF_TITLE) in _plain_words(response.content.decode())
    assert not Challenge.objects.exists()  # refused forms changed nothing

    # as the page says: reload and send again, and the challenge link is made
    page = client.get(url).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    response = client.post(url, {"preset": "sport", "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    challenge = Challenge.objects.get()
    assert response["Location"] == f"/{language}/challenge/{challenge.id}/"


@override_settings(DEBUG=False)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_request_for_an_unknown_host_gets_the_site_400_page(db, language):
    response = Client().get(f"/{language}/rules/", HTTP_HOST="not-our-site.example")
    assert response.status_code == 400
    html = response.content.decode()
    assert _is_site_page(html, language)
    assert _text(language, "The site could not understand this request") in html
    assert "not-our-site.example" not in html  # the refused host is not echoed back


@override_settings(DEBUG=False, ROOT_URLCONF=__name__)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_refused_request_gets_the_site_403_page_without_the_reason(db, language):
    response = Client().get(f"/{language}/refuse-for-test/")
    assert response.status_code == 403
    html = response.content.decode()
    assert _is_site_page(html, language)
    assert _text(language, "Access denied") in html
    assert INTERNAL_DETAIL not in html


@pytest.mark.parametrize(
    "view, status",
    [
        (lambda request: errors.bad_request(request, ValueError("x")), 400),
        (lambda request: errors.permission_denied(request, PermissionDenied("x")), 403),
        (lambda request: errors.csrf_failure(request, reason="CSRF cookie not set."), 403),
        (errors.server_error, 500),
    ],
)
def test_an_error_page_that_fails_to_render_gives_plain_text_with_its_status(
    monkeypatch, caplog, view, status
):
    def broken(*args, **kwargs):
        raise RuntimeError("the templates are broken")

    monkeypatch.setattr(errors.loader, "render_to_string", broken)
    response = view(RequestFactory().get("/en/"))
    assert response.status_code == status
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content
    assert "itself failed to render" in caplog.text
