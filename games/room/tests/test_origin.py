"""The WebSocket Origin check (nardy_site/origins.py, docs/protocol.md "Origin"): a socket
opens only from a page of this site, the same scheme, host and port, or from an origin in
CSRF_TRUSTED_ORIGINS; the proxy's X-Forwarded-Proto/Host count only when the settings say a
proxy sets them. Checked through the ASGI stack and against a real Daphne."""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect as ws_connect

from games.tests.factories import FixedDice, new_bot_game
from nardy_site.origins import SiteOriginValidator, site_origins
from nardy_site.tests.servers import DaphneServer, free_port

pytestmark = pytest.mark.usefixtures("unattended_queue")

TIMEOUT = 5
#: the ports this file's servers may use
PORTS = range(8750, 8800)


@pytest.fixture
def game(transactional_db, monkeypatch):
    return new_bot_game(FixedDice(monkeypatch), opening=(6, 5))


def opens(game_id, headers):
    """True if a socket with these headers (name, value str pairs) is accepted by the site's
    ASGI application, False if the handshake is refused."""
    from nardy_site.asgi import application

    async def scenario():
        comm = WebsocketCommunicator(
            application,
            f"/ws/game/{game_id}/",
            headers=[(name.lower().encode(), value.encode()) for name, value in headers],
        )
        connected, _ = await comm.connect(timeout=TIMEOUT)
        # a refused socket's consumer (Channels' denier) still listens until told the socket
        # is gone: end it here, not in the loop's shutdown
        await comm.disconnect()
        return connected

    return async_to_sync(scenario)()


def test_same_scheme_host_and_port_opens(game):
    assert opens(game.id, [("Host", "127.0.0.1:8000"), ("Origin", "http://127.0.0.1:8000")])
    assert opens(game.id, [("Host", "localhost"), ("Origin", "http://localhost:80")])


@pytest.mark.parametrize(
    "origin",
    [
        "http://127.0.0.1:9999",  # another program on the same machine
        "http://127.0.0.1",  # the same host on port 80
        "https://127.0.0.1:8000",  # another scheme
        "http://localhost:8000",  # another host name, though it points here too
        "http://evil.example",
        "null",  # sandboxed frames and file: pages
        "chrome-extension://abcdef",
        "http://127.0.0.1:99999",  # not a port
        "",
    ],
)
def test_another_origin_is_refused(game, origin):
    assert not opens(game.id, [("Host", "127.0.0.1:8000"), ("Origin", origin)])


def test_a_socket_without_origin_is_refused(game):
    assert not opens(game.id, [("Host", "127.0.0.1:8000")])


def test_a_host_outside_allowed_hosts_is_refused_even_with_its_own_origin(game):
    # DNS rebinding: evil.example made to resolve to this server
    assert not opens(
        game.id, [("Host", "evil.example:8000"), ("Origin", "http://evil.example:8000")]
    )


def test_the_forwarded_scheme_counts_only_with_secure_proxy_ssl_header(game, settings):
    settings.ALLOWED_HOSTS = ["nardy.example"]
    behind_proxy = [
        ("Host", "nardy.example"),
        ("X-Forwarded-Proto", "https"),
        ("Origin", "https://nardy.example"),
    ]
    settings.SECURE_PROXY_SSL_HEADER = None
    assert not opens(game.id, behind_proxy)
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert opens(game.id, behind_proxy)
    assert not opens(
        game.id,
        [
            ("Host", "nardy.example"),
            ("X-Forwarded-Proto", "https"),
            ("Origin", "http://nardy.example"),
        ],
    )


def test_the_forwarded_host_counts_only_with_use_x_forwarded_host(game, settings):
    settings.ALLOWED_HOSTS = ["nardy.example", "127.0.0.1"]
    behind_proxy = [
        ("Host", "127.0.0.1:8000"),
        ("X-Forwarded-Host", "nardy.example"),
        ("Origin", "http://nardy.example"),
    ]
    settings.USE_X_FORWARDED_HOST = False
    assert not opens(game.id, behind_proxy)
    settings.USE_X_FORWARDED_HOST = True
    assert opens(game.id, behind_proxy)


def test_csrf_trusted_origins_open_with_their_own_port(game, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://*.nardy.example", "http://play.example:8080"]
    host = ("Host", "127.0.0.1:8000")
    assert opens(game.id, [host, ("Origin", "https://www.nardy.example")])
    assert opens(game.id, [host, ("Origin", "https://nardy.example:443")])
    assert opens(game.id, [host, ("Origin", "http://play.example:8080")])
    assert not opens(game.id, [host, ("Origin", "https://www.nardy.example:8443")])
    assert not opens(game.id, [host, ("Origin", "http://www.nardy.example")])
    assert not opens(game.id, [host, ("Origin", "http://play.example")])


def test_site_origins_follow_the_socket_scheme(settings):
    settings.ALLOWED_HOSTS = ["nardy.example"]
    settings.CSRF_TRUSTED_ORIGINS = []
    scope = {"type": "websocket", "scheme": "wss", "headers": [(b"host", b"nardy.example")]}
    assert site_origins(scope) == ["https://nardy.example"]
    validator = SiteOriginValidator(None)
    assert validator.allowed(
        dict(scope, headers=scope["headers"] + [(b"origin", b"https://nardy.example")])
    )
    assert not validator.allowed(
        dict(scope, headers=scope["headers"] + [(b"origin", b"http://nardy.example")])
    )


def test_without_a_host_header_the_server_address_is_the_origin(settings):
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    scope = {"type": "websocket", "headers": [], "server": ("127.0.0.1", 8000)}
    assert site_origins(scope) == ["http://127.0.0.1:8000"]


def test_daphne_refuses_a_page_on_another_port(game, test_process_env, tmp_path):
    """The hole this check closes: a page served on 127.0.0.1:9999 (another program) opening
    the site's socket on its own port with the visitor's cookies."""
    with DaphneServer(free_port(PORTS), test_process_env, tmp_path / "daphne.log") as server:
        url = f"ws://127.0.0.1:{server.port}/ws/game/{game.id}/"
        with ws_connect(url, origin=f"http://127.0.0.1:{server.port}", open_timeout=TIMEOUT) as ws:
            assert json.loads(ws.recv(timeout=TIMEOUT))["type"] == "snapshot"
        for origin in (
            "http://127.0.0.1:9999",
            f"https://127.0.0.1:{server.port}",
            f"http://localhost:{server.port}",
        ):
            with pytest.raises(InvalidStatus) as refused:
                ws_connect(url, origin=origin, open_timeout=TIMEOUT)
            assert refused.value.response.status_code == 403


def test_refusals_are_logged_on_one_line_each_and_a_flood_only_counted(caplog, monkeypatch):
    from nardy_site import origins

    monkeypatch.setattr(origins, "_log_window", {"start": 0.0, "logged": 0, "skipped": 0})
    forged = {
        "type": "websocket",
        "path": "/ws/game/x\n2026-12-02 01:00:00,000 CRITICAL django: forged",
        "headers": [(b"host", b"127.0.0.1:8000"), (b"origin", b"http://evil.example")],
    }
    with caplog.at_level("WARNING", logger="nardy_site.origins"):
        for _n in range(origins.LOG_PER_WINDOW + 5):
            origins.log_refusal(forged, "http://evil.example" + "x" * 10_000)
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == origins.LOG_PER_WINDOW
    assert all("\n" not in line and len(line) < 1_000 for line in lines)
    assert "'http://127.0.0.1:8000'" in lines[0] and "ALLOWED_HOSTS" in lines[0]
    # the next window's first line says how many went unlogged
    origins._log_window["start"] -= origins.LOG_WINDOW_S
    with caplog.at_level("WARNING", logger="nardy_site.origins"):
        origins.log_refusal(forged, "http://evil.example")
    assert "5 more refused before this one, not logged" in caplog.records[-1].getMessage()
