"""A Telegram sign-in signs in once, and a Redis that lost its data does not forget it
(games/accounts/one_use.py, issue #30): the used Mini App openings and widget answers are kept in the
database (``UsedToken``), so after a FLUSHDB a captured sign-in of the last minutes is still
refused "already used" in another browser; the browser that used an opening may still
reopen it; the beat task deletes the rows past their time."""

import copy
from datetime import timedelta

import pytest
import redis
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from games import tasks
from games.accounts import one_use
from games.accounts.models import UsedToken
from games.accounts.tests import test_accounts
from games.telegram import config
from games.telegram.tests.test_telegram_mini_app import open_app, signed_in
from games.tests.telegram_helpers import (  # noqa: F401 - fixtures used by name
    bot_api_stub,
    init_data,
    telegram_on,
)

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def cache_redis(settings, private_redis):
    """The cache on a Redis of this test's own (a real redis-server), so that it can be
    flushed without touching the Redis the other tests share. Returns a client of it."""
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["LOCATION"] = private_redis.url
    settings.CACHES = caches
    return redis.Redis.from_url(private_redis.url)


def test_a_used_mini_app_opening_stays_used_after_redis_loses_its_data(telegram_on, cache_redis):
    raw = init_data(user_id=7001)
    player = Client()
    assert open_app(player, raw).status_code == 302
    cache_redis.flushdb()
    thief = Client()
    replay = open_app(thief, raw)
    assert replay.status_code == 400
    assert "already used" in replay.content.decode()
    assert signed_in(thief) is None and User.objects.count() == 1
    # the browser that used it may still open it again, signed out (its device cookie)
    player.post("/en/accounts/logout/")
    assert signed_in(player) is None
    assert open_app(player, raw).status_code == 302
    assert signed_in(player) is not None
    # the database holds a digest of that cookie, never the cookie itself
    device = player.cookies[config.DEVICE_COOKIE].value
    assert not UsedToken.objects.filter(holder=device).exists()


def test_a_used_widget_answer_stays_used_after_redis_loses_its_data(settings, cache_redis):
    settings.SOCIALACCOUNT_PROVIDERS = test_accounts.provider_settings(google=False)
    answer = test_accounts.telegram_signed(test_accounts.telegram_user(user_id=7002))
    first = Client()
    assert test_accounts.telegram_sign_in(first, answer).status_code == 302
    cache_redis.flushdb()
    second = Client()
    replayed = test_accounts.telegram_sign_in(second, answer)
    assert replayed.status_code == 400 and "already used" in replayed.content.decode()
    assert test_accounts.signed_in_user(second) is None
    assert User.objects.count() == 1


def test_the_beat_task_deletes_the_claims_past_their_time():
    now = timezone.now()
    assert one_use.claim("init-data:old", "a", 60, now=now - timedelta(seconds=61))
    assert one_use.claim("init-data:new", "b", 60, now=now)
    assert one_use.holder_of("init-data:old") is None  # past its time: no longer counts
    assert one_use.holder_of("init-data:new") == "b"
    assert tasks.forget_used_tokens() == 1
    assert list(UsedToken.objects.values_list("key", flat=True)) == ["init-data:new"]


def test_a_claim_is_refused_while_it_lasts_and_free_again_after():
    now = timezone.now()
    assert one_use.claim("telegram-widget:x", "", 900, now=now)
    assert not one_use.claim("telegram-widget:x", "other", 900, now=now + timedelta(seconds=899))
    # past its time (beat has not run yet): the key may be claimed anew
    assert one_use.claim("telegram-widget:x", "other", 900, now=now + timedelta(seconds=900))
    assert one_use.holder_of("telegram-widget:x", now=now + timedelta(seconds=901)) == "other"
    one_use.release("telegram-widget:x")
    assert one_use.holder_of("telegram-widget:x") is None
    with pytest.raises(ValueError):
        one_use.claim("k" * (one_use.KEY_MAX + 1), "", 60)
