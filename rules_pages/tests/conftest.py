"""Fixtures of the rules-pages tests."""

import copy
from uuid import uuid4

import pytest


@pytest.fixture(autouse=True)
def fresh_page_cache(settings):
    """Each test sees an empty page cache: the real RedisCache with a key prefix of its own
    (keys expire by themselves; nothing is flushed, the Redis is shared)."""
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["KEY_PREFIX"] = f"test-{uuid4().hex}"
    settings.CACHES = caches
