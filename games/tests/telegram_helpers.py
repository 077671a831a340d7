"""Helpers of the Telegram tests: a made-up bot, ``initData`` signed as Telegram signs it,
and a local stand-in for Telegram's Bot API (it is outside this machine), which records every
call and answers as told: ok, an error, 429 with ``retry_after``, a blocked user."""

import copy
import hashlib
import hmac
import json
import threading
import time
import uuid
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlencode

import pytest
from django.conf import settings

#: a made-up bot: its token signs the tests' initData; nothing reaches Telegram
TOKEN = "7000000002:made-up-mini-app-token-of-the-tests"
BOT_ID = TOKEN.partition(":")[0]
BOT_USERNAME = "NardyTestBot"
WEBHOOK_SECRET = "test-webhook-secret_0123456789"


def sign(fields, token=TOKEN):
    """``fields`` (str values) with the ``hash`` Telegram adds to a Mini App's initData:
    HMAC-SHA-256 of the data-check string keyed with HMAC-SHA-256("WebAppData", token)."""
    check = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    return {**fields, "hash": hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()}


_auth_dates = set()


def init_data(
    user_id=5151,
    age=5,
    start_param="",
    token=TOKEN,
    language_code="en",
    first_name="Olga",
    ascii_json=False,
    **user,
):
    """A Mini App's ``initData`` string for the Telegram user ``user_id``, signed ``age``
    seconds ago (each call a different auth_date, so two are two openings). ``ascii_json``:
    the user's JSON with \\u escapes (as for a lone surrogate) instead of UTF-8."""
    at = int(time.time()) - age
    while at in _auth_dates:
        at -= 1
    _auth_dates.add(at)
    person = {"id": user_id, "first_name": first_name, "language_code": language_code, **user}
    fields = {
        "query_id": "AAE" + uuid.uuid4().hex[:12],
        "user": json.dumps(person, separators=(",", ":"), ensure_ascii=ascii_json),
        "auth_date": str(at),
        "signature": "c2lnbmF0dXJlLW9mLXRlc3Rz",
    }
    if start_param:
        fields["start_param"] = start_param
    return urlencode(sign(fields, token))


def provider_settings():
    """SOCIALACCOUNT_PROVIDERS as nardy_site.settings builds it for TOKEN."""
    return {
        "google": {"SCOPE": ["profile"], "AUTH_PARAMS": {"prompt": "select_account"}},
        "telegram": {
            "AUTH_PARAMS": {"auth_date_validity": settings.TELEGRAM_AUTH_MAX_AGE},
            "APPS": [{"client_id": BOT_ID, "secret": TOKEN}],
        },
    }


def telegram_env(api_url):
    """Environment variables that turn Telegram on in a process the tests start."""
    return {
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_BOT_USERNAME": BOT_USERNAME,
        "TELEGRAM_WEBHOOK_SECRET": WEBHOOK_SECRET,
        "TELEGRAM_API_URL": api_url,
    }


class BotApiStub:
    """Telegram's Bot API on 127.0.0.1 for the tests: every call is recorded in ``calls``
    as ``{"method", "payload", "token", "at"}`` (``at``: time.time() on arrival); the answer
    is the next of ``answers`` (``(status, body dict)``), else ``{"ok": true, "result":
    {...}}``. ``wait_for(n)`` waits until n calls have come."""

    def __init__(self):
        self.calls = []
        self.answers = deque()
        self.arrived = threading.Condition()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                _empty, bot, method = self.path.split("/", 2)
                try:
                    payload = json.loads(body or b"{}")
                except ValueError:
                    payload = None
                with stub.arrived:
                    status, answer = (
                        stub.answers.popleft()
                        if stub.answers
                        else (200, {"ok": True, "result": {"message_id": len(stub.calls) + 1}})
                    )
                    stub.calls.append(
                        {
                            "method": method,
                            "payload": payload,
                            "token": bot[3:],
                            "at": time.time(),
                        }
                    )
                    stub.arrived.notify_all()
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, status, body):
        """Queue one answer for the next call."""
        self.answers.append((status, body))

    def rate_limited(self, retry_after):
        """The next call gets 429 Too Many Requests with ``retry_after`` (seconds)."""
        self.answer(
            429,
            {
                "ok": False,
                "error_code": 429,
                "description": f"Too Many Requests: retry after {retry_after}",
                "parameters": {"retry_after": retry_after},
            },
        )

    def blocked(self):
        """The next call gets 403: the user blocked the bot."""
        self.answer(
            403,
            {
                "ok": False,
                "error_code": 403,
                "description": "Forbidden: bot was blocked by the user",
            },
        )

    def wait_for(self, count, timeout=20):
        """The calls once there are ``count``; fails the test after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self.arrived:
            while len(self.calls) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    pytest.fail(f"the Bot API got {len(self.calls)} calls, not {count}")
                self.arrived.wait(left)
            return list(self.calls)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def bot_api_stub():
    """A running BotApiStub; closed after the test."""
    stub = BotApiStub()
    try:
        yield stub
    finally:
        stub.close()


@pytest.fixture
def telegram_on(settings, bot_api_stub):
    """Telegram on in this process with the made-up bot, its Bot API answered by
    ``bot_api_stub``, and a cache of this test's own (a used initData stays used in one test
    only). Returns the stub."""
    settings.TELEGRAM_BOT_TOKEN = TOKEN
    settings.TELEGRAM_BOT_USERNAME = BOT_USERNAME
    settings.TELEGRAM_WEBHOOK_SECRET = WEBHOOK_SECRET
    settings.TELEGRAM_API_URL = bot_api_stub.url
    settings.SITE_URL = "https://nardy.example"
    settings.SOCIALACCOUNT_PROVIDERS = provider_settings()
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["KEY_PREFIX"] = f"test-telegram-{uuid.uuid4().hex}"
    settings.CACHES = caches
    return bot_api_stub
