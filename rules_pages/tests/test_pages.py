"""The rules pages: every page in every language, their SEO head, sitemap, robots.txt, the
links between them (a crawler from sitemap.xml), and the per-language page cache."""

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation

from rules_pages.sitemaps import PAGES

LANGS = [code for code, _name in settings.LANGUAGES]
ORIGIN = "http://testserver"
SITEMAP_NS = {
    "sm": "http://www.sitemaps.org/schemas/sitemap/0.9",
    "xhtml": "http://www.w3.org/1999/xhtml",
}


def page_url(name, lang):
    with translation.override(lang):
        return reverse(f"rules:{name}")


class PageParser(HTMLParser):
    """Collects what the tests look at in a page: links, ids, head tags, scripts, text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []  # (tag, attribute value) of a[href], link[href], img/script[src]
        self.ids = set()
        self.meta = {}  # name or property -> content
        self.head_links = []  # dicts of <link> attributes
        self.scripts = []  # (type, text)
        self.html_lang = None
        self.title = ""
        self.h1 = []
        self._in = None
        self._script_type = None
        self._svg_depth = 0  # inside an inline SVG, <title> names the drawing, not the page

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self._svg_depth += 1
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "html":
            self.html_lang = a.get("lang")
        elif tag == "a" and a.get("href"):
            self.links.append(("a", a["href"]))
        elif tag == "link":
            self.head_links.append(a)
            if a.get("href"):
                # The x-default alternate is a redirect to the reader's language by design.
                kind = "x-default" if a.get("hreflang") == "x-default" else "link"
                self.links.append((kind, a["href"]))
        elif tag in ("img", "script") and a.get("src"):
            self.links.append((tag, a["src"]))
        elif tag == "meta":
            key = a.get("name") or a.get("property")
            if key:
                self.meta.setdefault(key, []).append(a.get("content", ""))
        if tag in ("title", "h1", "script") and not self._svg_depth:
            self._in = tag
            if tag == "script":
                self._script_type = a.get("type", "")
                self.scripts.append([self._script_type, ""])
            elif tag == "h1":
                self.h1.append("")

    def handle_endtag(self, tag):
        if tag == "svg":
            self._svg_depth -= 1
        if tag == self._in:
            self._in = None

    def handle_data(self, data):
        if self._in == "title":
            self.title += data
        elif self._in == "h1":
            self.h1[-1] += data
        elif self._in == "script":
            self.scripts[-1][1] += data


def parse(response) -> PageParser:
    parser = PageParser()
    parser.feed(response.content.decode())
    return parser


ALL = [(name, lang) for name in PAGES for lang in LANGS]


@pytest.mark.parametrize(("name", "lang"), ALL)
def test_page_answers_in_its_language_with_its_own_title_and_description(client, name, lang):
    url = page_url(name, lang)
    assert url.startswith(f"/{lang}/")
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Language"] == lang
    page = parse(response)
    assert page.html_lang == lang
    assert len(page.h1) == 1 and page.h1[0].strip()
    with translation.override(lang):
        site_name = translation.gettext("Long Nardy")
    title = page.title.strip()
    assert title.endswith(f" · {site_name}") and len(title) > len(site_name) + 5
    description = page.meta["description"][0]
    assert 50 <= len(description) <= 320, description
    assert page.meta["og:title"] == [title.rsplit(" · ", 1)[0]]
    assert page.meta["og:description"] == [description]


@pytest.mark.parametrize("lang", LANGS)
def test_titles_and_descriptions_differ_between_pages(client, lang):
    pages = [parse(client.get(page_url(name, lang))) for name in PAGES]
    titles = [p.title for p in pages]
    descriptions = [p.meta["description"][0] for p in pages]
    assert len(set(titles)) == len(PAGES), titles
    assert len(set(descriptions)) == len(PAGES), descriptions


@pytest.mark.parametrize("name", PAGES)
def test_each_language_has_its_own_title_and_description(client, name):
    pages = {lang: parse(client.get(page_url(name, lang))) for lang in LANGS}
    assert len({p.title for p in pages.values()}) == len(LANGS)
    assert len({p.meta["description"][0] for p in pages.values()}) == len(LANGS)


@pytest.mark.parametrize(("name", "lang"), ALL)
def test_head_has_canonical_hreflang_alternates_and_open_graph(client, name, lang):
    page = parse(client.get(page_url(name, lang)))
    canonical = [link["href"] for link in page.head_links if link.get("rel") == "canonical"]
    assert canonical == [ORIGIN + page_url(name, lang)]
    alternates = {
        link["hreflang"]: link["href"] for link in page.head_links if link.get("rel") == "alternate"
    }
    expected = {code: ORIGIN + page_url(name, code) for code in LANGS}
    expected["x-default"] = ORIGIN + "/" + page_url(name, "en")[len("/en/") :]
    assert alternates == expected
    assert page.meta["og:url"] == canonical
    assert page.meta["og:locale"] == [{"en": "en_GB", "ru": "ru_RU", "bg": "bg_BG"}[lang]]
    assert len(page.meta["og:locale:alternate"]) == len(LANGS) - 1
    assert page.meta["og:type"] in (["website"], ["article"])
    icons = [link for link in page.head_links if link.get("rel") == "icon"]
    assert icons and icons[0]["href"].endswith("favicon.svg")


@pytest.mark.parametrize("lang", LANGS)
def test_x_default_sends_the_visitor_to_their_language(client, lang):
    response = client.get("/rules/", HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 302
    assert response["Location"] == page_url("rules", lang)


@pytest.mark.parametrize(("name", "lang"), ALL)
def test_pages_are_readable_without_javascript(client, name, lang):
    page = parse(client.get(page_url(name, lang)))
    # Only structured data inline, and of files only the header's menu helper (the menu
    # works without it; it closes the menu when the keyboard's focus leaves it).
    inline = [(kind, text) for kind, text in page.scripts if text.strip()]
    assert all(kind == "application/ld+json" for kind, _text in inline), inline
    scripts = [src for tag, src in page.links if tag == "script"]
    assert [src.rsplit("/", 1)[-1] for src in scripts] == ["site-menu.js"], scripts


@pytest.mark.parametrize("lang", LANGS)
def test_faq_carries_faqpage_structured_data_matching_the_page(client, lang):
    from rules_pages.faq import FAQ

    response = client.get(page_url("faq", lang))
    page = parse(response)
    blocks = [text for kind, text in page.scripts if kind == "application/ld+json"]
    assert len(blocks) == 1
    data = json.loads(blocks[0])
    assert data["@context"] == "https://schema.org"
    assert data["@type"] == "FAQPage"
    questions = data["mainEntity"]
    assert len(questions) == len(FAQ) >= 12
    html = response.content.decode()
    with translation.override(lang):
        for entry, question in zip(FAQ, questions, strict=True):
            assert question["@type"] == "Question"
            assert question["name"] == str(entry.question)
            assert question["acceptedAnswer"]["@type"] == "Answer"
            assert question["acceptedAnswer"]["text"] == str(entry.answer).strip()
            assert f'id="{entry.id}"' in html
    assert len({q["name"] for q in questions}) == len(questions)


def test_sitemap_lists_every_page_in_every_language_with_alternates(client):
    response = client.get("/sitemap.xml")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/xml")
    root = ET.fromstring(response.content)
    urls = root.findall("sm:url", SITEMAP_NS)
    locs = [u.find("sm:loc", SITEMAP_NS).text for u in urls]
    assert sorted(locs) == sorted(ORIGIN + page_url(name, lang) for name, lang in ALL)
    for url in urls:
        loc = url.find("sm:loc", SITEMAP_NS).text
        links = url.findall("xhtml:link", SITEMAP_NS)
        alternates = {link.get("hreflang"): link.get("href") for link in links}
        assert set(alternates) == set(LANGS) | {"x-default"}
        assert loc in alternates.values()
        path = urlsplit(loc).path
        assert alternates["x-default"] == ORIGIN + "/" + path.split("/", 2)[2]


def test_sitemap_and_links_use_site_url_when_set(client, settings):
    settings.SITE_URL = "https://nardy.example"
    sitemap = client.get("/sitemap.xml").content.decode()
    assert "<loc>https://nardy.example/en/rules/</loc>" in sitemap
    page = parse(client.get("/ru/faq/"))
    assert [link["href"] for link in page.head_links if link.get("rel") == "canonical"] == [
        "https://nardy.example/ru/faq/"
    ]
    assert (
        "Sitemap: https://nardy.example/sitemap.xml" in client.get("/robots.txt").content.decode()
    )


def test_robots_txt_allows_the_pages_and_names_the_sitemap(client):
    response = client.get("/robots.txt")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    lines = response.content.decode().splitlines()
    assert lines[0] == "User-agent: *"
    assert "Disallow: /admin/" in lines
    assert f"Sitemap: {ORIGIN}/sitemap.xml" in lines
    assert "Disallow: /" not in lines


def test_favicon_ico_redirects_to_the_svg_icon(client):
    from django.contrib.staticfiles import finders

    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == "/static/favicon.svg"
    icon = finders.find("favicon.svg")
    assert icon
    ET.parse(icon)  # well-formed SVG


@pytest.mark.django_db  # the menu leads to pages that read the database (leaderboards)
def test_crawler_from_the_sitemap_finds_no_broken_link(client):
    """Every page of the sitemap, then every internal link of every page (and of the pages
    those lead to), answers 200; every #fragment names an element of its page."""
    root = ET.fromstring(client.get("/sitemap.xml").content)
    queue = [
        (urlsplit(loc.text).path, "sitemap") for loc in root.iter(f"{{{SITEMAP_NS['sm']}}}loc")
    ]
    seen, ids, fragments = set(), {}, []
    while queue:
        path, kind = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        response = client.get(path, HTTP_ACCEPT_LANGUAGE="bg")
        if kind == "x-default":
            assert response.status_code == 302, path
            assert response["Location"] == "/bg" + path
            continue
        assert response.status_code == 200, f"{path} ({kind}): {response.status_code}"
        if not response["Content-Type"].startswith("text/html"):
            continue
        page = parse(response)
        ids[path] = page.ids
        for tag, href in page.links:
            absolute = urljoin(ORIGIN + path, href)
            target, fragment = urldefrag(absolute)
            parts = urlsplit(target)
            if parts.netloc != "testserver":
                continue
            if fragment:
                fragments.append((path, parts.path, fragment))
            if parts.path not in seen:
                queue.append((parts.path, tag))
    assert len([p for p in seen if not p.startswith("/static/")]) >= len(ALL)
    for source, target, fragment in fragments:
        assert fragment in ids.get(target, set()), (
            f"{source} links to {target}#{fragment}: no such id"
        )


@pytest.mark.parametrize("lang", LANGS)
def test_nav_links_every_page_and_marks_the_current_one(client, lang):
    html = client.get(page_url("faq", lang)).content.decode()
    nav = re.search(r'<nav class="site-nav".*?</nav>', html, re.S).group(0)
    for name in ["rules", "faq", "glossary", "first_steps"]:
        assert f'href="{page_url(name, lang)}"' in nav
    assert re.search(rf'href="{page_url("faq", lang)}" aria-current="page"', nav)
    assert nav.count('aria-current="page"') == 1


@pytest.mark.parametrize("name", PAGES)
def test_second_request_is_a_cache_hit_for_another_anonymous_reader(client, name):
    url = page_url(name, "ru")
    first = client.get(url)
    assert first.status_code == 200
    assert "rules_pages/page.html" in [t.name for t in first.templates]
    # Another reader, with cookies of their own (CSRF, session, analytics): served from the cache.
    other = Client()
    other.cookies["csrftoken"] = "x" * 32
    other.cookies["sessionid"] = "abc"
    other.cookies["_ga"] = "GA1.1.1"
    second = other.get(url)
    assert second.status_code == 200
    assert second.templates == [], "the page was rendered again instead of served from the cache"
    strip = re.compile(rb'name="csrfmiddlewaretoken" value="[^"]+"')
    assert strip.sub(b"", first.content) == strip.sub(b"", second.content)
    assert "max-age=" in second["Cache-Control"] and "private" in second["Cache-Control"]


def test_cache_keeps_languages_apart(client):
    en = client.get(page_url("rules", "en"))
    ru = client.get(page_url("rules", "ru"))
    assert parse(en).html_lang == "en" and parse(ru).html_lang == "ru"
    again = Client().get(page_url("rules", "ru"))
    assert again.templates == [] and parse(again).html_lang == "ru"


def test_pages_are_served_uncached_while_redis_is_down(settings, caplog):
    # A Redis that does not answer (nothing listens on port 1): the page is rendered afresh.
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "KEY_PREFIX": "down",
        }
    }
    response = Client().get(page_url("rules", "bg"))
    assert response.status_code == 200 and parse(response).html_lang == "bg"
    assert "rules_pages/page.html" in [t.name for t in response.templates]
    assert "page cache unavailable" in caplog.text


def test_each_reader_of_a_cached_page_gets_a_working_csrf_token():
    url = page_url("home", "bg")
    Client().get(url)  # fills the cache
    reader = Client(enforce_csrf_checks=True)
    response = reader.get(url)
    assert response.templates == []
    tokens = set(
        re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', response.content.decode())
    )
    assert len(tokens) == 1
    assert "csrf-field" not in response.content.decode()
    assert "Cookie" in response["Vary"]
    assert reader.cookies.get(settings.CSRF_COOKIE_NAME)
    posted = reader.post(
        reverse("set_language"),
        {"language": "ru", "next": url, "csrfmiddlewaretoken": tokens.pop()},
    )
    assert posted.status_code == 302
    assert posted["Location"] == page_url("home", "ru")


def test_a_cached_page_token_is_refused_to_a_reader_without_the_cookie():
    url = page_url("home", "en")
    html = Client().get(url).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    stranger = Client(enforce_csrf_checks=True)
    response = stranger.post(
        reverse("set_language"), {"language": "ru", "next": url, "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 403


def test_pages_are_gzipped_for_clients_that_accept_it(client):
    import gzip

    url = page_url("home", "ru")
    plain = client.get(url)
    packed = client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert packed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed["Vary"]
    body = gzip.decompress(packed.content)
    assert body.startswith(b"<!DOCTYPE html>") and b'<html lang="ru">' in body
    assert len(packed.content) * 3 < len(plain.content)


@pytest.mark.parametrize("lang", LANGS)
def test_unknown_address_answers_404_with_a_page_in_the_language(client, lang):
    response = client.get(f"/{lang}/no-such-page/")
    assert response.status_code == 404
    page = parse(response)
    assert page.html_lang == lang
    assert page.meta["robots"] == ["noindex"]
    assert f'href="{page_url("rules", lang)}"' in response.content.decode()
