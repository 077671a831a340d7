"""The Telegram Bot API client (https://core.telegram.org/bots/api): one POST of JSON per
method to ``{TELEGRAM_API_URL}/bot<token>/<method>``, its ``result`` returned or its error
raised as one of the classes below, so callers decide: retry later, wait, or stop writing."""

import logging

import requests
from django.conf import settings

from games.telegram import config

logger = logging.getLogger(__name__)

#: seconds to connect and to read an answer; Telegram answers in well under a second
TIMEOUT = (3.05, 10)


class BotApiError(Exception):
    """A call the Bot API did not carry out. ``status``: the HTTP status (0 when no answer
    came), ``description``: Telegram's words (or the network error's)."""

    def __init__(self, method, status, description):
        super().__init__(f"{method}: {status} {description}")
        self.method = method
        self.status = status
        self.description = description


class Unavailable(BotApiError):
    """No answer, or a server error (5xx): worth trying again later."""


class RateLimited(BotApiError):
    """429 Too Many Requests: wait ``retry_after`` seconds (int) before the next call."""

    def __init__(self, method, status, description, retry_after):
        super().__init__(method, status, description)
        self.retry_after = retry_after


class Blocked(BotApiError):
    """403: the user blocked the bot (or deleted their account): stop writing to them."""


class Unreachable(BotApiError):
    """400 "chat not found" and the like: the bot may not start a chat with this user (they
    never opened it)."""


class Refused(BotApiError):
    """Any other 4xx: the request itself was wrong; trying again would not help."""


#: Telegram's descriptions of a 400 that means "this chat cannot be written to"
UNREACHABLE_WORDS = ("chat not found", "user not found", "bot can't initiate conversation")


def call(method, payload=None, token=None):
    """Call the Bot API ``method`` with ``payload`` (a JSON-able dict). Returns ``result``.
    Raises Unavailable, RateLimited, Blocked, Unreachable or Refused."""
    token = token or config.bot_token()
    url = f"{settings.TELEGRAM_API_URL}/bot{token}/{method}"
    try:
        response = requests.post(url, json=payload or {}, timeout=TIMEOUT)
    except requests.RequestException as error:
        raise Unavailable(method, 0, type(error).__name__) from None
    try:
        answer = response.json()
    except ValueError:
        answer = {}
    if not isinstance(answer, dict):
        answer = {}
    if response.status_code == 200 and answer.get("ok"):
        return answer.get("result")
    status = response.status_code
    description = str(answer.get("description") or response.reason or "")
    if status == 429:
        parameters = answer.get("parameters") or {}
        retry_after = parameters.get("retry_after") if isinstance(parameters, dict) else None
        if not isinstance(retry_after, int) or retry_after < 1:
            retry_after = 1
        raise RateLimited(method, status, description, retry_after)
    if status >= 500 or status == 0:
        raise Unavailable(method, status, description)
    if status == 403:
        raise Blocked(method, status, description)
    if status == 400 and any(words in description.lower() for words in UNREACHABLE_WORDS):
        raise Unreachable(method, status, description)
    raise Refused(method, status, description)
