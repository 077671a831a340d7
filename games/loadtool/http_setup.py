"""The load tool's set-up over HTTP (sync, run in a thread pool by ``client.run_client``): two
new guests get a casual game through a challenge link, as two browsers would, each keeping its
session cookie; a full site's refusal (HTTP 503) is told apart from an error. Not timed."""

import re
from dataclasses import dataclass

import requests

#: the page language the guests use (the snapshots' messages come in it)
LANG = "en"
#: HTTP timeout of a set-up step, seconds
HTTP_TIMEOUT = 60

_CHALLENGE = re.compile(r"/challenge/([0-9a-f-]{36})/$")
_GAME = re.compile(r"/game/([0-9a-f-]{36})/$")


class SetupError(Exception):
    """An HTTP step of a game's set-up failed (its message says which and why)."""


class SiteFull(Exception):
    """The site refused the new game because it is full (HTTP 503 with ``Retry-After`` and
    the reason on the page, games.admission): not an error. ``retry_after`` in seconds;
    ``challenge``: the link whose acceptance was refused, to accept again later."""

    def __init__(self, retry_after, challenge=None):
        super().__init__(f"site full, retry after {retry_after} s")
        self.retry_after = retry_after
        self.challenge = challenge


@dataclass
class Challenge:
    """A challenge link made by guest A on ``base_a`` (``link``: its path) and not yet
    accepted by guest B on ``base_b``; ``a`` and ``b`` are the guests' HTTP sessions (their
    cookies); ``token``: B's CSRF token once B has opened the link."""

    a: requests.Session
    b: requests.Session
    link: str
    base_a: str
    base_b: str
    token: str = ""

    def close(self):
        """Close both guests' HTTP sessions."""
        self.a.close()
        self.b.close()


def form_token(session, url):
    """GET ``url`` with ``session`` and return the CSRF token its cookie holds. Raises
    SetupError for another answer than 200 or no token."""
    response = session.get(url, timeout=HTTP_TIMEOUT)
    if response.status_code != 200:
        raise SetupError(f"GET {url}: HTTP {response.status_code}")
    token = session.cookies.get("csrftoken")
    if not token:
        raise SetupError(f"GET {url} set no CSRF cookie")
    return token


def _redirect_id(response, pattern, what):
    location = response.headers.get("Location", "")
    found = pattern.search(location)
    if response.status_code != 302 or not found:
        raise SetupError(
            f"{what}: HTTP {response.status_code} to {location!r}, "
            f"expected a redirect to the {what.split()[0]}"
        )
    return location, found.group(1)


def cookie_header(session):
    """The Cookie header a browser holding ``session``'s cookies would send."""
    return "; ".join(f"{cookie.name}={cookie.value}" for cookie in session.cookies)


def create_game(base_a, base_b, preset="sport", challenge=None):
    """Two new guests get a casual game of ``preset`` between them through a challenge link:
    A makes it on ``base_a`` (colour random, the preset's clock), B opens it on ``base_b``
    and accepts it. With ``challenge`` (a ``Challenge`` whose acceptance a full site refused)
    B presses accept again on the page it was refused on, as a person told to come back
    later does.
    Returns ``(game_id, cookie_a, cookie_b)``, the cookies as Cookie header values.
    Raises SiteFull (the site refused the game, with its reason, Retry-After and the
    challenge to accept later), SetupError (an unexpected answer) or
    ``requests.RequestException``."""
    if challenge is None:
        a, b = requests.Session(), requests.Session()
        try:
            form = f"{base_a}/{LANG}/friend/"
            token = form_token(a, form)
            response = a.post(
                form,
                data={"csrfmiddlewaretoken": token, "preset": preset, "colour": "random"},
                allow_redirects=False,
                timeout=HTTP_TIMEOUT,
            )
            link, _challenge = _redirect_id(response, _CHALLENGE, "challenge POST")
        except BaseException:
            a.close()
            b.close()
            raise
        challenge = Challenge(a, b, link, base_a, base_b)
    try:
        b = challenge.b
        # a refused guest still has the link's page, its form and token: it presses again
        if not challenge.token:
            challenge.token = form_token(b, f"{challenge.base_b}{challenge.link}")
        response = b.post(
            f"{challenge.base_b}{challenge.link}accept/",
            data={"csrfmiddlewaretoken": challenge.token},
            allow_redirects=False,
            timeout=HTTP_TIMEOUT,
        )
        if response.status_code == 503:
            retry = response.headers.get("Retry-After", "")
            if not retry.isdigit() or 'id="challenge-error"' not in response.text:
                raise SetupError("game accept POST: HTTP 503 without Retry-After or reason")
            full = SiteFull(int(retry), challenge)
            challenge = None  # kept open for the retry
            raise full
        _page, game_id = _redirect_id(response, _GAME, "game accept POST")
        return game_id, cookie_header(challenge.a), cookie_header(b)
    finally:
        if challenge is not None:
            challenge.close()
