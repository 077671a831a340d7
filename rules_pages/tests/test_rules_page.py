"""The rules summary page: served in every language, reached from ``/`` by Accept-Language,
with a language switcher that keeps the page and a button that starts a game."""

import re

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

LANGS = [code for code, _name in settings.LANGUAGES]


def html_lang(content: bytes) -> str:
    match = re.search(rb'<html lang="([^"]+)"', content)
    assert match, "the page has no <html lang> attribute"
    return match.group(1).decode()


@pytest.mark.django_db
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("path", ["/{lang}/", "/{lang}/rules/"])
def test_rules_page_answers_in_each_language_with_its_html_lang(client, lang, path):
    response = client.get(path.format(lang=lang))
    assert response.status_code == 200
    assert html_lang(response.content) == lang
    assert response["Content-Language"] == lang
    assert b'name="viewport"' in response.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        ("ru-RU,ru;q=0.9,en;q=0.5", "/ru/"),
        ("bg,en;q=0.8", "/bg/"),
        ("en-GB,en;q=0.9", "/en/"),
        ("de-DE,de;q=0.9", "/en/"),  # not offered: the default language
    ],
)
def test_root_redirects_to_the_language_of_accept_language(client, accept, expected):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE=accept)
    assert response.status_code == 302
    assert response["Location"] == expected
    assert "Accept-Language" in response["Vary"]


@pytest.mark.django_db
def test_language_cookie_wins_over_accept_language_at_root(client):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "bg"
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="ru")
    assert response["Location"] == "/bg/"


@pytest.mark.django_db
@pytest.mark.parametrize("lang", LANGS)
def test_play_button_posts_with_csrf_to_new_game(client, lang):
    response = client.get(f"/{lang}/")
    html = response.content.decode()
    with translation.override(lang):
        new_game_url = reverse("games:new")
    assert new_game_url.startswith(f"/{lang}/")
    forms = re.findall(
        r'<form class="play-form" method="post" action="([^"]+)">(.*?)</form>', html, re.S
    )
    assert forms, "no play form on the rules page"
    for action, body in forms:
        assert action == new_game_url
        assert 'name="csrfmiddlewaretoken"' in body
        assert 'type="submit"' in body


@pytest.mark.django_db
def test_play_button_text_is_translated(client):
    texts = {}
    for lang in LANGS:
        html = client.get(f"/{lang}/").content.decode()
        match = re.search(r'<button type="submit" class="play-button">([^<]+)</button>', html)
        assert match
        texts[lang] = match.group(1).strip()
    assert texts["en"] == "Play against the computer"
    assert len(set(texts.values())) == len(LANGS), texts


@pytest.mark.django_db
def test_language_switcher_keeps_the_current_page(client):
    page = client.get("/ru/rules/").content.decode()
    form = re.search(
        r'<form class="lang-switch" method="post" action="([^"]+)">(.*?)</form>', page, re.S
    )
    assert form
    assert form.group(1) == reverse("set_language")
    assert 'name="next" value="/ru/rules/"' in form.group(2)
    for lang in LANGS:
        assert f'name="language" value="{lang}"' in form.group(2)

    response = client.post(reverse("set_language"), {"language": "bg", "next": "/ru/rules/"})
    assert response.status_code == 302
    assert response["Location"] == "/bg/rules/"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "bg"


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["ru", "bg"])
def test_javascript_catalogue_serves_the_page_language(client, lang):
    response = client.get(f"/{lang}/jsi18n/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert b"django.gettext" in response.content


def test_static_stylesheet_is_found():
    from django.contrib.staticfiles import finders

    assert finders.find("css/site.css")
