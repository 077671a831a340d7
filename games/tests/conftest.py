"""Fixtures of the games tests: a private Celery queue, a real Celery worker process, and a
worker with Celery beat for the clock tests."""
import json
import re
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from celery import Celery
from django.conf import settings

from nardy_site.celery import app as celery_app

ROOT = Path(__file__).resolve().parents[2]
BOT_LINE = re.compile(r"games\.bot: bot move game=(?P<game>\S+) version=(?P<version>\d+) "
                      r"ms=(?P<ms>[\d.]+) played=(?P<played>True|False)")
CLOCK_LINE = re.compile(r"games\.clock: clock timer game=(?P<game>\S+) version=(?P<version>\d+) "
                        r"lag_ms=(?P<lag>-?\d+) applied=(?P<applied>True|False)")


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


@dataclass
class WorkerProcess:
    """A running ``celery -A nardy_site worker`` process reading ``queue``; its output
    (including the ``games.bot`` timing lines) goes to ``log_path``. ``env`` is the
    environment it runs with (test database, the tests' Redis)."""

    process: subprocess.Popen
    queue: str
    log_path: Path
    env: dict

    def log(self):
        return self.log_path.read_text(errors="replace")

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
        """``{"moves", "median_ms", "worst_ms"}`` of a list of bot move times."""
        return {"moves": len(times), "median_ms": round(statistics.median(times), 1),
                "worst_ms": round(max(times), 1)}


def start_worker(env, queue, log_path):
    """Start ``celery -A nardy_site worker`` (solo pool) reading ``queue`` and sending its own
    tasks there too, with ``env`` (test database, the tests' Redis); wait until it answers a
    ping. Returns the WorkerProcess; stop it with ``stop_worker``."""
    env = dict(env, CELERY_QUEUE=queue)
    node = f"{queue}@localhost"
    command = [sys.executable, "-m", "celery", "-A", "nardy_site", "worker", "--pool=solo",
               "--queues", queue, "--hostname", node, "--loglevel", "INFO",
               "--without-gossip", "--without-mingle"]
    with open(log_path, "wb") as log_file:
        process = subprocess.Popen(command, cwd=ROOT, env=env,
                                   stdout=log_file, stderr=subprocess.STDOUT)
    worker = WorkerProcess(process, queue, log_path, env)
    deadline = time.monotonic() + 60
    # pinged through the worker's own broker (a fault test may give it a private Redis)
    pinger = Celery("ping", broker=env["REDIS_URL"], set_as_current=False)
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"the Celery worker exited with {process.returncode}:\n{worker.log()}")
            if pinger.control.ping(destination=[node], timeout=0.5):
                return worker
            if time.monotonic() > deadline:
                stop_worker(worker)
                pytest.fail(f"the Celery worker did not answer within 60 s:\n{worker.log()}")
    finally:
        pinger.close()


def kill_worker(worker):
    """Kill a worker started by ``start_worker`` at once (SIGKILL), as a crash or the OOM
    killer would: no warm shutdown, the task it was running and the timers it held are never
    acknowledged."""
    worker.process.kill()
    worker.process.wait()


def stop_worker(worker):
    """Stop a worker started by ``start_worker`` (warm shutdown, then kill after 15 s)."""
    worker.process.terminate()
    try:
        worker.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        worker.process.kill()
        worker.process.wait()


@pytest.fixture(scope="session")
def celery_worker_process(test_process_env, celery_test_queue, tmp_path_factory):
    """A real Celery worker process (solo pool) on the test database and the tests' Redis,
    reading the run's private queue. Session-wide: started once, stopped at the end.

    Tests that use it need ``transactional_db`` so the worker sees their committed rows.
    A process started by a test (e.g. Daphne) that should queue bot moves for this worker
    must use ``celery_worker_process.queue`` as its Celery default queue (CELERY_QUEUE).
    """
    log_path = tmp_path_factory.mktemp("celery") / "worker.log"
    worker = start_worker(test_process_env, celery_test_queue, log_path)
    try:
        yield worker
    finally:
        stop_worker(worker)


@dataclass
class BeatProcess:
    """A running ``celery -A nardy_site beat`` sending the clock sweep every ``interval``
    seconds to ``queue``; its output goes to ``log_path``."""

    process: subprocess.Popen
    queue: str
    log_path: Path
    interval: float

    def log(self):
        return self.log_path.read_text(errors="replace")


def start_beat(env, queue, log_path, interval=1.0):
    """Start ``celery -A nardy_site beat`` with ``env`` (as ``start_worker``), sending its tasks
    (the clock sweep every ``interval`` seconds, settings.CLOCK_SWEEP_SECONDS) to ``queue``;
    its schedule file lives beside ``log_path``. Waits until it has started. Returns the
    BeatProcess; stop it with ``stop_beat``."""
    env = dict(env, CELERY_QUEUE=queue, CLOCK_SWEEP_SECONDS=str(interval))
    schedule = log_path.with_name(f"{log_path.stem}-schedule")
    command = [sys.executable, "-m", "celery", "-A", "nardy_site", "beat",
               "--schedule", str(schedule), "--loglevel", "INFO"]
    with open(log_path, "wb") as log_file:
        process = subprocess.Popen(command, cwd=ROOT, env=env,
                                   stdout=log_file, stderr=subprocess.STDOUT)
    beat = BeatProcess(process, queue, log_path, interval)
    deadline = time.monotonic() + 60
    while "beat: Starting..." not in beat.log():
        if process.poll() is not None:
            pytest.fail(f"Celery beat exited with {process.returncode}:\n{beat.log()}")
        if time.monotonic() > deadline:
            stop_beat(beat)
            pytest.fail(f"Celery beat did not start within 60 s:\n{beat.log()}")
        time.sleep(0.05)
    return beat


def stop_beat(beat):
    """Stop a beat started by ``start_beat`` (then kill it after 15 s)."""
    stop_worker(beat)


@dataclass
class ClockWorker:
    """A Celery worker and beat on a queue of their own, for the clock tests: timers and
    sweeps go to ``queue`` while a test uses the ``clock_queue`` fixture. ``stop`` (warm) or
    ``kill`` (SIGKILL) the worker, then ``start`` a new one."""

    env: dict
    queue: str
    directory: Path
    worker: WorkerProcess | None = None
    beat: BeatProcess | None = None
    starts: int = 0

    def start(self):
        self.starts += 1
        log_path = self.directory / f"worker-{self.starts}.log"
        self.worker = start_worker(self.env, self.queue, log_path)
        return self.worker

    def stop(self):
        if self.worker is not None:
            stop_worker(self.worker)
            self.worker = None

    def kill(self):
        """SIGKILL the worker (``kill_worker``); ``start`` starts a new one."""
        if self.worker is not None:
            kill_worker(self.worker)
            self.worker = None

    def log(self):
        """The output of every worker started so far (each start has its own file)."""
        return "".join((self.directory / f"worker-{n}.log").read_text(errors="replace")
                       for n in range(1, self.starts + 1))

    def bot_moves(self, game_id):
        """``[(version, played)]`` of each bot move task of game ``game_id`` that the workers
        ran (their ``games.bot`` lines), in order; ``played`` False: it found nothing to do."""
        return [(int(m["version"]), m["played"] == "True")
                for m in BOT_LINE.finditer(self.log()) if m["game"] == str(game_id)]

    def clock_timers(self, game_id):
        """``[(version, lag_ms, applied)]`` of each clock timer of game ``game_id`` that the
        workers ran (their ``games.clock`` lines), in order."""
        return [(int(m["version"]), int(m["lag"]), m["applied"] == "True")
                for m in CLOCK_LINE.finditer(self.log()) if m["game"] == str(game_id)]


#: how often the clock tests' beat sweeps (seconds); production's default is 2
TEST_SWEEP_SECONDS = 1.0


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
    try:
        holder.beat = start_beat(test_process_env, queue, directory / "beat.log",
                                 interval=TEST_SWEEP_SECONDS)
        yield holder
    finally:
        if holder.beat is not None:
            stop_beat(holder.beat)
        holder.stop()
        _delete_queue(queue)


@pytest.fixture
def clock_queue(clock_worker):
    """For one test, send this process's tasks (clock timers, bot moves) to the clock worker's
    queue; yields the ClockWorker. Starts its worker again if a test left it stopped."""
    if clock_worker.worker is None:
        clock_worker.start()
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = clock_worker.queue
    yield clock_worker
    celery_app.conf.task_default_queue = previous


@pytest.fixture(scope="session")
def clock_lags():
    """Lags (ms) between a clock deadline and the moment its timeout was applied (the
    TIMEOUT/ABANDON/ABORT event's ``created``), measured by the integration tests: ``timer``
    (a worker ran throughout) and ``sweep`` (the timer was lost: Celery beat alone). Written to
    artifacts/clock/lag.json at the end of the run when there are any."""
    lags = {"timer": [], "sweep": []}
    yield lags
    if not lags["timer"] and not lags["sweep"]:
        return

    def figures(samples):
        if not samples:
            return {"runs": 0, "median_ms": None, "worst_ms": None, "samples": []}
        return {"runs": len(samples), "median_ms": statistics.median(samples),
                "worst_ms": max(samples), "samples": samples}

    from games.services import TIMER_GRACE_MS

    report = dict(figures(lags["timer"]), grace_ms=TIMER_GRACE_MS,
                  note="lag = the TIMEOUT/ABANDON/ABORT event's created minus the deadline; "
                       "timers run TIMER_GRACE_MS after a deadline by design",
                  sweep_only=dict(figures(lags["sweep"]), interval_ms=TEST_SWEEP_SECONDS * 1000))
    path = ROOT / "artifacts" / "clock" / "lag.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2) + "\n")


# --- several servers, and the processes the fault tests kill ---------------------------------

#: ports of the Daphne servers started by the multi-server and fault tests, and of their
#: private Redis (the shared one on 6379 is never restarted)
DAPHNE_PORTS = range(8800, 8850)
REDIS_PORTS = range(8850, 8860)


def free_port_in(ports, taken=()):
    """The first port of ``ports`` (not in ``taken``) that nothing listens on at 127.0.0.1."""
    import socket

    for port in ports:
        if port in taken:
            continue
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {ports.start}-{ports.stop - 1}")


def start_servers(servers):
    """Start the ``DaphneServer``s side by side (each waits until it serves its home page)."""
    from concurrent.futures import ThreadPoolExecutor

    if not servers:
        return
    with ThreadPoolExecutor(max_workers=len(servers)) as pool:
        for started in [pool.submit(server.start) for server in servers]:
            started.result()


def daphne_servers(env, directory, count=2):
    """``count`` unstarted ``DaphneServer``s on free ports of DAPHNE_PORTS with ``env``, each
    logging to ``directory/daphne-<port>.log``."""
    from nardy_site.tests.servers import DaphneServer

    ports = []
    for _n in range(count):
        ports.append(free_port_in(DAPHNE_PORTS, taken=ports))
    return [DaphneServer(port, env, directory / f"daphne-{port}.log") for port in ports]


@pytest.fixture(scope="session")
def daphne_pair(test_process_env, celery_worker_process, tmp_path_factory):
    """Two Daphne processes of the site on two ports of DAPHNE_PORTS, sharing the test
    database, the tests' Redis (Channels layer, cache) and ``celery_worker_process`` (bot
    moves and clock timers). Session-wide; tests use ``two_servers``, which starts again a
    server a previous test killed."""
    env = dict(test_process_env, CELERY_QUEUE=celery_worker_process.queue)
    servers = daphne_servers(env, tmp_path_factory.mktemp("daphne-pair"))
    try:
        start_servers(servers)
        yield servers
    finally:
        for server in servers:
            server.stop()


@pytest.fixture
def two_servers(transactional_db, daphne_pair):
    """``daphne_pair``, both running (a server killed by an earlier test is started again)."""
    start_servers([server for server in daphne_pair if not server.running])
    return daphne_pair


class RedisServer:
    """A private ``redis-server`` on 127.0.0.1:``port`` without persistence, for a test that
    kills Redis and starts it again on the same port (every key is lost, as with the
    embedded Redis of scripts/run). Output to ``directory/redis-<port>.log``."""

    def __init__(self, port, directory):
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.directory = directory
        self.process = None

    def start(self, timeout=15):
        """Start the server and wait until it answers PING."""
        from nardy_site.embedded_redis import redis_server_executable, wait

        command = [redis_server_executable(), "--bind", "127.0.0.1", "--port", str(self.port),
                   "--save", "", "--appendonly", "no", "--dir", str(self.directory),
                   "--daemonize", "no", "--loglevel", "warning"]
        with open(self.directory / f"redis-{self.port}.log", "ab") as log_file:
            self.process = subprocess.Popen(command, stdout=log_file, stderr=subprocess.STDOUT)
        if not wait(self.url, timeout):
            self.stop()
            pytest.fail(f"redis-server on port {self.port} did not answer within {timeout} s")

    def kill(self):
        """SIGKILL the server (nothing is saved: every key is gone)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def stop(self):
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


@pytest.fixture
def private_redis(tmp_path):
    """A started ``RedisServer`` on a free port of REDIS_PORTS, stopped after the test."""
    server = RedisServer(free_port_in(REDIS_PORTS), tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()
