"""The parallel run's plugin (nardy_site/tests/parallel.py): each xdist worker its own Redis
database and its own share of fixed port ranges."""

import pytest

from nardy_site.tests import parallel


def test_each_worker_gets_the_next_redis_database():
    assert parallel.worker_redis_url("redis://127.0.0.1:6379/0", "gw0") == (
        "redis://127.0.0.1:6379/0"
    )
    assert parallel.worker_redis_url("redis://127.0.0.1:6379/0", "gw1") == (
        "redis://127.0.0.1:6379/1"
    )
    assert parallel.worker_redis_url("redis://:pw@host:6380/5", "gw2") == "redis://:pw@host:6380/7"
    assert parallel.worker_redis_url("redis://127.0.0.1:6379", "gw3") == (
        "redis://127.0.0.1:6379/3"
    )


def test_a_worker_past_the_last_redis_database_is_refused_clearly():
    with pytest.raises(ValueError, match="database 16"):
        parallel.worker_redis_url("redis://127.0.0.1:6379/14", "gw2")


def test_workers_split_a_port_range_without_overlap(monkeypatch):
    ports = range(8800, 8850)
    shares = []
    for n in range(3):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", f"gw{n}")
        monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "3")
        shares.append(set(parallel.worker_share(ports)))
    assert set().union(*shares) == set(ports)
    assert all(not (a & b) for i, a in enumerate(shares) for b in shares[i + 1 :])
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert parallel.worker_share(ports) == ports
