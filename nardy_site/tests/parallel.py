"""A pytest plugin for running the suite in parallel (pytest-xdist, ``-n``): each worker
process gets a Redis database of its own.

The workers share one Redis server, but each has its own test database, and the names in
Redis come from row ids (Channels groups such as a player's lobby group, cache keys of games,
rate-limit counters of accounts), which repeat across the workers' databases: sharing one
Redis database, worker gw1's game 1 would hear gw0's game 1. So worker ``gwN`` uses database
``base + N`` of REDIS_URL (CHANNEL_REDIS_URLS and CELERY_BROKER_URL follow it when they are not
set apart). It is set in the environment before Django reads its settings (this hook runs
first), so the Celery workers, Daphne servers and commands the tests start inherit it (a
pytest the tests start does not move it again). Fixed port ranges are split between the workers
too (``worker_share``). Loaded by ``-p nardy_site.tests.parallel`` (pytest.ini); without xdist it changes nothing.
"""

import os
from urllib.parse import urlsplit, urlunsplit

import pytest

#: Redis has 16 databases unless configured otherwise
REDIS_DATABASES = 16


def _number(worker: str) -> int:
    """The number of an xdist worker id (``gw3`` -> 3)."""
    return int(worker.removeprefix("gw"))


def worker_redis_url(url: str, worker: str) -> str:
    """``url`` with its database number moved by the worker's number (``gw3`` -> +3).
    Raises ValueError when that passes the last of Redis' 16 databases."""
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    database = base + _number(worker)
    if database >= REDIS_DATABASES:
        raise ValueError(
            f"worker {worker} would need Redis database {database} of {url}: run fewer workers "
            f"(-n) or give REDIS_URL a lower database number"
        )
    return urlunsplit(parts._replace(path=f"/{database}"))


def worker_share(items: range) -> range:
    """This worker's share of ``items`` (every count-th, from its number on), so that two
    workers never pick the same port of a fixed range at the same moment; all of ``items``
    outside xdist."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if not worker.startswith("gw") or count <= 1:
        return items
    return items[_number(worker) :: count]


#: set once REDIS_URL is moved, so that a pytest started by a test keeps it as it is
MOVED = "NARDY_TEST_REDIS_MOVED_FOR"


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    url = os.environ.get("REDIS_URL", "")
    if not worker.startswith("gw") or not url or os.environ.get(MOVED) == worker:
        return
    os.environ["REDIS_URL"] = worker_redis_url(url, worker)
    os.environ[MOVED] = worker
