"""Each friends' test reads and writes the online keys in a cache of its own: an account id
reused by a later test must not find itself online."""

import copy
import uuid

import pytest


@pytest.fixture(autouse=True)
def own_cache(settings):
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["KEY_PREFIX"] = f"test-friends-{uuid.uuid4().hex}"
    settings.CACHES = caches
