"""The check of a Mini App's ``initData`` (https://core.telegram.org/bots/webapps,
"Validating data received via the Mini App").

``initData`` is a URL-encoded query string. Telegram signs it: ``hash`` is the hex
HMAC-SHA-256 of the data-check string (every other field as ``key=value``, sorted by key,
joined by line feeds) keyed with HMAC-SHA-256 of the bot's token keyed with "WebAppData".
"""

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl

from django.conf import settings
from django.utils.translation import gettext_lazy as _

#: the longest ``initData`` read (characters); Telegram's are well under 4 KB
MAX_LENGTH = 8192
#: how far ahead of our clock an ``auth_date`` may be (seconds): clocks differ a little
CLOCK_SKEW = 300
#: Telegram's user ids fit in 52 bits (its Bot API says so); larger ones are no user's
MAX_USER_ID = 2**52
#: the latest ``auth_date`` read (Unix seconds, 12 digits: the year 33658); a longer number
#: is no time, and past 308 digits it would not even fit a float
MAX_AUTH_DATE = 10**12 - 1
#: the user's fields kept, and the longest text kept of each
USER_TEXT_FIELDS = ("first_name", "last_name", "username", "language_code", "photo_url")
USER_TEXT_MAX = 256


#: why initData is refused, by reason code, for the player
MESSAGES = {
    "unreadable": _("Telegram's data could not be read. Please close the app and open it again."),
    "unsigned": _("Telegram's data carries no signature."),
    "bad_signature": _("Telegram's data does not carry a valid signature for this site's bot."),
    "expired": _("This opening of the app has expired. Please close it and open it again."),
    "no_user": _("Telegram did not say who you are, so you cannot be signed in."),
    "used": _("This opening of the app was already used. Please close it and open it again."),
}


class InitDataRefused(ValueError):
    """``initData`` that is refused. ``reason``: a short code for logs and tests (a key of
    MESSAGES: "unreadable", "unsigned", "bad_signature", "expired", "no_user", "used");
    ``message``: why, for the player, in the language active when it is read."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason

    @property
    def message(self):
        return str(MESSAGES[self.reason])


@dataclass(frozen=True)
class InitData:
    """Checked ``initData``.

    ``user``: the Telegram user (a dict: ``id`` int, ``first_name``, maybe ``last_name``,
    ``username``, ``language_code``, ``photo_url``, ``allows_write_to_pm``);
    ``auth_date``: when Telegram signed it (Unix seconds); ``start_param``: the ``startapp``
    of the link that opened the Mini App ("" if none); ``hash``: the signature (hex), unique
    per signing; ``fields``: every field as received (str values)."""

    user: dict
    auth_date: int
    start_param: str
    hash: str
    fields: dict

    @property
    def telegram_id(self):
        """The user's Telegram id (int)."""
        return self.user["id"]


def data_check_string(fields):
    """The data-check string of ``fields`` (a dict of str): every field but ``hash`` as
    ``key=value``, sorted by key, joined by line feeds."""
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")


def signature(fields, bot_token):
    """The hex signature Telegram gives ``fields`` for the bot ``bot_token``."""
    secret = hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()
    return hmac.new(secret, data_check_string(fields).encode(), hashlib.sha256).hexdigest()


def whole_number(value, limit):
    """``value`` (an int, or a str of ASCII digits, as sent) as an int from 0 to ``limit``;
    None for anything else: a bool, a float, a sign, other characters, or a number past
    ``limit``. Text longer than ``limit``'s digits is refused before it is converted, so no
    length of text costs more than that (Python refuses to convert over 4,300 digits)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        if not (value.isascii() and value.isdigit()) or len(value) > len(str(limit)):
            return None
        value = int(value)
    if not isinstance(value, int) or not 0 <= value <= limit:
        return None
    return value


def parse_fields(raw):
    """``raw`` (the ``initData`` string) as a dict of str. Raises InitDataRefused
    ("unreadable") for a value that is not a string of at most MAX_LENGTH characters, an
    empty one, or one with a field given twice."""
    if not isinstance(raw, str) or not raw or len(raw) > MAX_LENGTH:
        raise InitDataRefused("unreadable")
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InitDataRefused("unreadable") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise InitDataRefused("unreadable")
    return fields


def check(raw, bot_token, now=None, max_age=None):
    """Check the Mini App's ``raw`` ``initData`` for the bot ``bot_token``: readable, signed
    by Telegram for this bot (checked first: nothing unsigned is read further),
    ``auth_date`` (Unix seconds, digits only, at most MAX_AUTH_DATE, else "unreadable") at
    most ``max_age`` seconds (default ``settings.TELEGRAM_AUTH_MAX_AGE``) before ``now``
    and at most CLOCK_SKEW after ("expired"), with a ``user`` whose ``id`` is a JSON whole
    number from 1 to MAX_USER_ID - 1 ("no_user"). Returns InitData; raises InitDataRefused
    saying why. Nothing is remembered here: that a signature is used
    only once is ``signin``'s concern."""
    now = time.time() if now is None else now
    max_age = settings.TELEGRAM_AUTH_MAX_AGE if max_age is None else max_age
    fields = parse_fields(raw)
    given = fields.get("hash", "")
    if not given:
        raise InitDataRefused("unsigned")
    if not hmac.compare_digest(given.encode(), signature(fields, bot_token).encode()):
        raise InitDataRefused("bad_signature")
    auth_date = whole_number(fields.get("auth_date", ""), MAX_AUTH_DATE)
    if auth_date is None:
        raise InitDataRefused("unreadable")
    if now - auth_date > max_age or auth_date - now > CLOCK_SKEW:
        raise InitDataRefused("expired")
    try:
        user = json.loads(fields.get("user", ""))
    except (ValueError, RecursionError):  # a number over 4,300 digits is a ValueError
        user = None
    user_id = user.get("id") if isinstance(user, dict) else None
    if not isinstance(user_id, int) or isinstance(user_id, bool) or not 0 < user_id < MAX_USER_ID:
        raise InitDataRefused("no_user")
    return InitData(
        user=clean_user(user),
        auth_date=auth_date,
        start_param=fields.get("start_param", ""),
        hash=given,
        fields=fields,
    )


def clean_user(user):
    """The signed ``user`` reduced to what the site uses: ``id``, the text fields of
    USER_TEXT_FIELDS that are strings (cut to USER_TEXT_MAX, anything UTF-8 cannot hold
    dropped) and ``allows_write_to_pm`` when it is a bool."""
    cleaned = {"id": user["id"]}
    for key in USER_TEXT_FIELDS:
        value = user.get(key)
        if isinstance(value, str):
            cleaned[key] = value.encode("utf-8", "ignore").decode("utf-8")[:USER_TEXT_MAX]
    if isinstance(user.get("allows_write_to_pm"), bool):
        cleaned["allows_write_to_pm"] = user["allows_write_to_pm"]
    return cleaned
