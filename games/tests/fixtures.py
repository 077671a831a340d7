"""Fixtures of the games tests, loaded for every area's tests by the root conftest.py: a private Celery queue, a real Celery worker process, and a
worker with Celery beat for the clock tests; several Daphne processes and a private Redis for
the multi-server and fault tests. Every process is a ``ServerProcess``
(nardy_site/tests/servers.py)."""

import json
import os
import re
import statistics
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from celery import Celery
from django.conf import settings
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError

from games.services import outages
from nardy_site.celery import app as celery_app
from nardy_site.embedded_redis import redis_server_executable
from nardy_site.embedded_redis import wait as wait_for_redis
from nardy_site.tests.servers import DaphneServer, ServerProcess, free_port, running, start_all

ROOT = Path(__file__).resolve().parents[2]
BOT_LINE = re.compile(
    r"games\.bot: bot move game=(?P<game>\S+) version=(?P<version>\d+) "
    r"ms=(?P<ms>[\d.]+) played=(?P<played>True|False)"
)
#: Celery's INFO line of a task the worker took (the routine beat tasks' are filtered out:
#: nardy_site/logging_filters.py)
RECEIVED_LINE = re.compile(r"Task (?P<name>[\w.]+)\[[^\]]+\] received")


@pytest.fixture(scope="session", autouse=True)
def celery_test_queue():
    """A Celery queue private to this test run, so bot moves queued by the tests never reach
    (or come from) another worker on the same Redis. Deleted at the end of the run.

    Tasks sent from this process go to it; the worker of ``celery_worker_process`` reads it.
    """
    name = f"nardy-test-{uuid.uuid4().hex[:12]}"
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = name
    yield name
    celery_app.conf.task_default_queue = previous
    _delete_queue(name)


@pytest.fixture
def unattended_queue(celery_test_queue):
    """For one test, queue bot moves where no worker reads them (so the test sees the game
    stay as it left it, even while ``celery_worker_process`` runs); yields the queue name,
    whose messages ``queued_tasks`` counts. Deleted afterwards."""
    name = f"{celery_test_queue}-idle-{uuid.uuid4().hex[:8]}"
    celery_app.conf.task_default_queue = name
    yield name
    celery_app.conf.task_default_queue = celery_test_queue
    _delete_queue(name)


def _delete_queue(name):
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        keys = list(client.scan_iter(match=f"*{name}*"))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def queued_tasks(queue):
    """How many task messages wait in the Redis list of ``queue`` (not yet taken by a worker)."""
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        return client.llen(queue)
    finally:
        client.close()


class WorkerProcess(ServerProcess):
    """A ``celery -A nardy_site worker`` process (solo pool) reading ``queue`` and sending its
    own tasks there too, with ``env`` (test database, the tests' Redis) plus
    ``CELERY_QUEUE=queue``; its output (including the ``games.bot`` timing lines) goes to
    ``log_path``. Ready once it answers a ping through its own broker."""

    name = "the Celery worker"
    ready_when = "answering a ping"
    poll_seconds = 0  # the ping itself waits half a second for an answer

    def __init__(self, env, queue, log_path):
        self.queue = queue
        self.node = f"{queue}@localhost"
        super().__init__(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "nardy_site",
                "worker",
                "--pool=solo",
                "--queues",
                queue,
                "--hostname",
                self.node,
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
            ],
            dict(env, CELERY_QUEUE=queue),
            log_path,
        )
        self._pinger = None

    def start(self, timeout=None):
        # pinged through the worker's own broker (a fault test may give it a private Redis)
        broker = self.env.get("CELERY_BROKER_URL") or self.env["REDIS_URL"]
        self._pinger = Celery("ping", broker=broker, set_as_current=False)
        try:
            super().start(timeout)
        finally:
            self._pinger.close()
            self._pinger = None

    def ready(self):
        try:
            return bool(self._pinger.control.ping(destination=[self.node], timeout=0.5))
        except (RedisConnectionError, KombuOperationalError, OSError):
            # a broker just started may drop the first connection (CI, test_scale_out): the
            # worker is not reachable yet, so ask again until start()'s deadline
            return False

    def bot_move_times(self, game_id=None):
        """Milliseconds of each bot move the worker played (optionally of one game), in order."""
        times = []
        for match in BOT_LINE.finditer(self.log()):
            if match["played"] != "True":
                continue
            if game_id is not None and match["game"] != str(game_id):
                continue
            times.append(float(match["ms"]))
        return times

    def wait_for_bot_moves(self, game_id, count, timeout=10):
        """``bot_move_times(game_id)`` once it holds ``count`` moves (the worker logs a move
        just after its commit, so a socket may hear of it first), or whatever it holds after
        ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        times = self.bot_move_times(game_id)
        while len(times) < count and time.monotonic() < deadline:
            time.sleep(0.05)
            times = self.bot_move_times(game_id)
        return times

    @staticmethod
    def summary(times):
        """``{"moves", "median_ms", "p95_ms", "worst_ms"}`` of a list of bot move times."""
        ordered = sorted(times)
        return {
            "moves": len(times),
            "median_ms": round(statistics.median(times), 1),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
            "worst_ms": round(max(times), 1),
        }


def start_worker(env, queue, log_path):
    """A started ``WorkerProcess`` (see there); stop it with ``stop_worker``."""
    worker = WorkerProcess(env, queue, log_path)
    worker.start()
    return worker


def stop_worker(worker):
    """Stop a worker started by ``start_worker`` (warm shutdown, then kill after 15 s)."""
    worker.stop()


@pytest.fixture(scope="session")
def celery_worker_process(test_process_env, celery_test_queue, tmp_path_factory):
    """A real Celery worker process (solo pool) on the test database and the tests' Redis,
    reading the run's private queue. Session-wide: started once, stopped at the end.

    Tests that use it need ``transactional_db`` so the worker sees their committed rows.
    A process started by a test (e.g. Daphne) that should queue bot moves for this worker
    must use ``celery_worker_process.queue`` as its Celery default queue (CELERY_QUEUE).
    """
    log_path = tmp_path_factory.mktemp("celery") / "worker.log"
    with WorkerProcess(test_process_env, celery_test_queue, log_path) as worker:
        yield worker


class BeatProcess(ServerProcess):
    """A ``celery -A nardy_site beat`` with ``env`` (as ``WorkerProcess``) sending its tasks
    (the clock sweep every ``interval`` seconds, settings.CLOCK_SWEEP_SECONDS) to ``queue``;
    its output goes to ``log_path`` and its schedule file lives beside it. Ready once it
    says it has started."""

    name = "Celery beat"
    poll_seconds = 0.05

    def __init__(self, env, queue, log_path, interval=1.0):
        self.queue = queue
        self.interval = interval
        schedule = log_path.with_name(f"{log_path.stem}-schedule")
        super().__init__(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "nardy_site",
                "beat",
                "--schedule",
                str(schedule),
                "--loglevel",
                "INFO",
            ],
            dict(env, CELERY_QUEUE=queue, CLOCK_SWEEP_SECONDS=str(interval)),
            log_path,
        )

    def ready(self):
        return "beat: Starting..." in self.log()


def start_beat(env, queue, log_path, interval=1.0):
    """A started ``BeatProcess`` (see there); stop it with ``stop_beat``."""
    beat = BeatProcess(env, queue, log_path, interval)
    beat.start()
    return beat


def stop_beat(beat):
    """Stop a beat started by ``start_beat`` (then kill it after 15 s)."""
    beat.stop()


@dataclass
class ClockWorker:
    """A Celery worker and beat on a queue of their own, for the clock tests: sweeps and
    bot moves go to ``queue`` while a test uses the ``clock_queue`` fixture. ``stop`` (warm) or
    ``kill`` (SIGKILL) the worker, then ``start`` a new one."""

    env: dict
    queue: str
    directory: Path
    worker: WorkerProcess | None = None
    beat: BeatProcess | None = None
    starts: int = 0
    beats: int = 0

    def start_beat(self):
        """Start the beat (its sweep every TEST_SWEEP_SECONDS, its tournament tick, its lobby
        pairing), each start with a log file of its own."""
        self.beats += 1
        self.beat = start_beat(
            self.env, self.queue, self.directory / f"beat-{self.beats}.log", TEST_SWEEP_SECONDS
        )

    def stop_beat(self):
        if self.beat is not None:
            stop_beat(self.beat)
            self.beat = None

    def start(self):
        self.start_process().start()
        return self.worker

    def start_process(self):
        """The next worker, not yet started (``start`` it, or ``start_all`` it with others)."""
        self.starts += 1
        self.worker = WorkerProcess(
            self.env, self.queue, self.directory / f"worker-{self.starts}.log"
        )
        return self.worker

    def stop(self):
        if self.worker is not None:
            self.worker.stop()
            self.worker = None

    def kill(self):
        """SIGKILL the worker, as a crash or the OOM killer would: no warm shutdown, the task
        it was running and those it prefetched are never acknowledged. ``start`` starts a new
        one."""
        if self.worker is not None:
            self.worker.kill()
            self.worker = None

    def log(self):
        """The output of every worker started so far (each start has its own file)."""
        return "".join(
            (self.directory / f"worker-{n}.log").read_text(errors="replace")
            for n in range(1, self.starts + 1)
        )

    def bot_moves(self, game_id):
        """``[(version, played)]`` of each bot move task of game ``game_id`` that the workers
        ran (their ``games.bot`` lines), in order; ``played`` False: it found nothing to do."""
        return [
            (int(m["version"]), m["played"] == "True")
            for m in BOT_LINE.finditer(self.log())
            if m["game"] == str(game_id)
        ]

    def tasks_received(self, since=0):
        """The names of the tasks the workers took after the first ``since`` characters of
        ``log()``, in order, but beat's routine ones (the clock sweep, the lobby's pairing, the
        tournaments' tick), whose lines are filtered."""
        return [m["name"] for m in RECEIVED_LINE.finditer(self.log()[since:])]


#: how often the clock tests' beat sweeps (seconds); production's default is 2
TEST_SWEEP_SECONDS = 0.25


@pytest.fixture(scope="session")
def clock_worker(test_process_env, celery_test_queue, tmp_path_factory):
    """A Celery worker and beat (sweep every TEST_SWEEP_SECONDS) on the test database and the
    tests' Redis, reading a queue of their own (``celery_test_queue`` + "-clock"), so a test
    may stop and start the worker without touching ``celery_worker_process``. Session-wide.
    Tests need ``transactional_db`` and the ``clock_queue`` fixture."""
    queue = f"{celery_test_queue}-clock"
    directory = tmp_path_factory.mktemp("clock-celery")
    holder = ClockWorker(test_process_env, queue, directory)
    holder.start()
    _CLOCK_WORKERS.append(holder)
    try:
        holder.start_beat()
        yield holder
    finally:
        _CLOCK_WORKERS.remove(holder)
        holder.stop_beat()
        holder.stop()
        _delete_queue(queue)


#: the session's clock worker once a test has started it (``paused_beat`` stops its beat
#: without starting one)
_CLOCK_WORKERS: list[ClockWorker] = []


@pytest.fixture(autouse=True)
def paused_beat(request):
    """The clock worker's beat runs only in tests that hold ``clock_queue`` (which starts it
    again): once started it sweeps the clocks, pairs the lobby and ticks the tournaments
    every 2 s, and in a later test it would start and pair that test's arena (its start just
    past) before the test's own ``advance`` does."""
    if "clock_queue" not in request.fixturenames:
        for holder in _CLOCK_WORKERS:
            holder.stop_beat()


@pytest.fixture
def clock_queue(clock_worker):
    """For one test, send this process's tasks (bot moves, analyses) to the clock worker's
    queue; yields the ClockWorker. Starts its worker and beat again if a test left them
    stopped."""
    if clock_worker.worker is None:
        clock_worker.start()
    if clock_worker.beat is None:
        clock_worker.start_beat()
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = clock_worker.queue
    yield clock_worker
    celery_app.conf.task_default_queue = previous


@pytest.fixture(scope="session")
def clock_lags():
    """Lags (ms) between a clock deadline and the moment its timeout was applied (the
    TIMEOUT/ABANDON/ABORT event's ``created``), measured by the integration tests: ``timer``
    (a worker ran throughout) and ``sweep`` (the timer was lost: Celery beat alone). Written to
    artifacts/clock/lag.json (lag-gwN.json under xdist) at the end of the run when there are
    any."""
    lags = {"timer": [], "sweep": []}
    yield lags
    if not lags["timer"] and not lags["sweep"]:
        return

    def figures(samples):
        if not samples:
            return {"runs": 0, "median_ms": None, "worst_ms": None, "samples": []}
        return {
            "runs": len(samples),
            "median_ms": statistics.median(samples),
            "worst_ms": max(samples),
            "samples": samples,
        }

    from games.services import TIMER_GRACE_MS

    report = dict(
        figures(lags["timer"]),
        grace_ms=TIMER_GRACE_MS,
        note="lag = the TIMEOUT/ABANDON/ABORT event's created minus the deadline; "
        "the sweep applies a deadline TIMER_GRACE_MS after it by design",
        sweep_only=dict(figures(lags["sweep"]), interval_ms=TEST_SWEEP_SECONDS * 1000),
    )
    # one file per xdist worker: each measured only the tests it ran
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    path = ROOT / "artifacts" / "clock" / (f"lag-{worker}.json" if worker else "lag.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2) + "\n")


# --- several servers, and the processes the fault tests kill ---------------------------------

#: ports of the Daphne servers started by the multi-server and fault tests, and of their
#: private Redis (the shared one on 6379 is never restarted)
DAPHNE_PORTS = range(8800, 8850)
REDIS_PORTS = range(8850, 8860)


def daphne_servers(env, directory, count=2):
    """``count`` unstarted ``DaphneServer``s on free ports of DAPHNE_PORTS with ``env``, each
    logging to ``directory/daphne-<port>.log``; start them with ``running`` or
    ``start_all`` (nardy_site.tests.servers)."""
    ports = []
    for _n in range(count):
        ports.append(free_port(DAPHNE_PORTS, taken=ports))
    return [DaphneServer(port, env, directory / f"daphne-{port}.log") for port in ports]


@pytest.fixture(scope="session")
def daphne_pair(test_process_env, celery_worker_process, tmp_path_factory):
    """Two Daphne processes of the site on two ports of DAPHNE_PORTS, sharing the test
    database, the tests' Redis (Channels layer, cache) and ``celery_worker_process`` (bot
    moves and clock timers). Session-wide; tests use ``two_servers``, which starts again a
    server a previous test killed."""
    env = dict(test_process_env, CELERY_QUEUE=celery_worker_process.queue)
    with running(*daphne_servers(env, tmp_path_factory.mktemp("daphne-pair"))) as servers:
        yield servers


@pytest.fixture
def two_servers(transactional_db, daphne_pair):
    """``daphne_pair``, both running (a server killed by an earlier test is started again)."""
    start_all([server for server in daphne_pair if not server.running])
    return daphne_pair


class RedisServer(ServerProcess):
    """A private ``redis-server`` on 127.0.0.1:``port`` without persistence, for a test that
    kills Redis and starts it again on the same port (every key is lost, as with the
    embedded Redis of scripts/run). Output to ``directory/redis-<port>.log``; ready once it
    answers PING."""

    name = "redis-server"
    ready_when = "answering PING"
    poll_seconds = 0.1
    start_timeout = 15

    def __init__(self, port, directory):
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        super().__init__(
            [
                redis_server_executable(),
                "--bind",
                "127.0.0.1",
                "--port",
                str(port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(directory),
                "--daemonize",
                "no",
                "--loglevel",
                "warning",
            ],
            None,
            directory / f"redis-{port}.log",
        )

    def ready(self):
        return wait_for_redis(self.url, 0)  # one PING


@pytest.fixture
def private_redis(tmp_path):
    """A started ``RedisServer`` on a free port of REDIS_PORTS, stopped after the test."""
    with RedisServer(free_port(REDIS_PORTS), tmp_path) as server:
        yield server


@pytest.fixture(autouse=True)
def fresh_outage_memory():
    """Each test starts with this process knowing nothing of the heartbeat: what an earlier
    test read belongs to a database it rolled back."""
    outages.forget()
    yield
    outages.forget()
