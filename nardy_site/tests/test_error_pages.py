"""The 404 and 500 pages: styled like the site (they extend base.html) and in the page's
language (issue 2: testers saw Django's bare pages)."""

from django.conf.urls.i18n import i18n_patterns
from django.test import Client, override_settings
from django.urls import path
from django.utils import translation

from nardy_site.urls import urlpatterns as site_urlpatterns


def _fail(request):
    raise RuntimeError("a deliberate failure for the 500 page test")


# This module doubles as the URLconf of the 500 test: the site's URLs plus one that fails.
urlpatterns = i18n_patterns(path("fail-for-test/", _fail)) + site_urlpatterns
handler500 = "nardy_site.errors.server_error"


def _text(language, message):
    """``message`` in ``language``; a translated language must really have it translated."""
    with translation.override(language):
        text = translation.gettext(message)
    assert language == "en" or text != message, (language, message)
    return text


@override_settings(DEBUG=False)
def test_missing_game_gets_the_site_404_page_in_each_language(db):
    client = Client()
    for language in ("en", "ru", "bg"):
        response = client.get(f"/{language}/game/00000000-0000-0000-0000-000000000000/")
        assert response.status_code == 404
        html = response.content.decode()
        assert f'<html lang="{language}">' in html
        assert 'class="site-header"' in html  # the site's own header: base.html
        assert _text(language, "Page not found") in html
        # the game against the computer it promises is one click away: the form that starts one
        assert f'action="/{language}/new/"' in html and 'name="csrfmiddlewaretoken"' in html
        assert _text(language, "Play against the computer") in html


@override_settings(DEBUG=False, ROOT_URLCONF=__name__)
def test_server_error_gets_the_site_500_page_in_each_language(db):
    client = Client(raise_request_exception=False)
    for language in ("en", "ru", "bg"):
        response = client.get(f"/{language}/fail-for-test/")
        assert response.status_code == 500
        html = response.content.decode()
        assert f'<html lang="{language}">' in html
        assert 'class="site-header"' in html
        assert _text(language, "Something went wrong on our side") in html
