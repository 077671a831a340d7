"""Servers and browser settings shared by the tests that drive the real site: processes a
test starts (Daphne, and in the games tests Celery and a private Redis) through one class,
``ServerProcess``, ports for them, and Debian's Chromium for Playwright (never a downloaded
browser)."""

import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest

from nardy_site.tests.parallel import worker_share

ROOT = Path(__file__).resolve().parents[2]
#: the rate-limit counters of every Daphne this test run starts (kept apart from other runs')
RATELIMIT_KEY_PREFIX = f"nardy-limits-run-{uuid.uuid4().hex[:12]}"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port(ports=None, taken=()):
    """A TCP port on 127.0.0.1 that nothing listens on right now: one the system picks, or
    with ``ports`` (a range) the first of them not in ``taken`` (of this xdist worker's share
    of them). Fails the test when every port of ``ports`` is in use."""
    if ports is None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            return sock.getsockname()[1]
    for port in worker_share(ports):
        if port in taken:
            continue
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    pytest.fail(f"no free port in {ports.start}-{ports.stop - 1}")


class ServerProcess:
    """A process started by a test: ``command`` (argument list) run in the project folder
    with ``env`` (None: this process's environment), its output (stdout and stderr) appended
    to ``log_path``. ``start`` waits until ``ready()``; ``stop`` (SIGTERM, SIGKILL after 15 s)
    and ``kill`` (SIGKILL at once) end it, and ``start`` may start it again with the same
    command and log. As a context manager it is started on entry and stopped on exit.

    Subclasses set ``name`` and ``ready_when`` (for failure messages), ``ready``,
    ``poll_seconds`` (the pause between two ``ready`` checks) and ``start_timeout`` (seconds
    ``start`` waits by default)."""

    name = "the process"
    ready_when = "started"
    poll_seconds = 0.2
    start_timeout = 60

    def __init__(self, command, env, log_path):
        self.command = command
        self.env = env
        self.log_path = log_path
        self.process = None

    def ready(self):
        """True once the process does its work (checked after it was started)."""
        return True

    def log(self):
        """Everything the process (and earlier starts of it) wrote so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def start(self, timeout=None):
        """Start the process and wait until ``ready()``. If it exits first or is not ready
        within ``timeout`` seconds (default ``start_timeout``), it is stopped and the test
        fails with its log."""
        timeout = self.start_timeout if timeout is None else timeout
        with Path(self.log_path).open("ab") as log_file:
            self.process = subprocess.Popen(
                self.command, cwd=ROOT, env=self.env, stdout=log_file, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + timeout
        try:
            while True:
                # before ready(): another process on the same port could answer in its place
                if self.process.poll() is not None:
                    code = self.process.returncode
                    self.process = None
                    pytest.fail(f"{self.name} exited with {code}:\n{self.log()}")
                if self.ready():
                    return
                if time.monotonic() > deadline:
                    pytest.fail(
                        f"{self.name} was not {self.ready_when} within {timeout} s:\n{self.log()}"
                    )
                time.sleep(self.poll_seconds)
        except BaseException:
            self.stop()  # a start that failed leaves no process behind (the test's own error)
            raise

    @property
    def running(self):
        """True while the process started by ``start`` is alive."""
        return self.process is not None and self.process.poll() is None

    def kill(self):
        """Kill the process at once (SIGKILL), as a crash or the OOM killer would: its
        sockets are cut without a close frame and it runs no clean-up."""
        if self.process is None:
            return
        self.process.kill()
        self.process.wait()
        self.process = None

    def stop(self):
        """Stop the process (SIGTERM: a warm shutdown), killing it if it is still running
        after 15 s. Nothing happens if it is not running."""
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc_info):
        self.stop()


class DaphneServer(ServerProcess):
    """Daphne serving the site (HTTP + WebSockets) on 127.0.0.1:``port`` with ``env``; its
    output is appended to ``log_path``. Ready once ``/en/`` answers 200 (asked with
    ``headers``, a dict). ``command`` replaces Daphne's usual command line (e.g. the
    Procfile's, which must listen on ``port``). May be stopped and started again on the same
    port."""

    name = "Daphne"

    def __init__(self, port, env, log_path, command=None, headers=None):
        # this test run's own rate-limit counters (they count by address: 127.0.0.1 for all)
        env = {"GAMES_RATELIMIT_KEY_PREFIX": RATELIMIT_KEY_PREFIX, **env}
        if str(env.get("DATABASE_URL", "")).startswith("postgres") and not command:
            # as the Procfile's web process: connections from a pool, none kept per thread
            env = {"DATABASE_POOL": "10", **env, "CONN_MAX_AGE": "0"}
        super().__init__(
            command
            or [
                sys.executable,
                "-m",
                "nardy_site.serve",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "nardy_site.asgi:application",
            ],
            env,
            log_path,
        )
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.headers = headers or {}
        self.ready_when = f"serving {self.base}/en/"

    def ready(self):
        request = urllib.request.Request(f"{self.base}/en/", headers=self.headers)
        try:
            with urllib.request.urlopen(request, timeout=2) as response:
                return response.status == 200
        except OSError:
            return False


def start_all(servers):
    """Start the ``ServerProcess``es side by side; returns once each is ready."""
    if not servers:
        return
    with ThreadPoolExecutor(max_workers=len(servers)) as pool:
        for started in [pool.submit(server.start) for server in servers]:
            started.result()


@contextmanager
def running(*servers):
    """Start ``servers`` side by side (``start_all``) and stop every one of them on leaving,
    also when one of them failed to start. Yields the servers."""
    try:
        start_all(servers)
        yield servers
    finally:
        for server in servers:
            server.stop()
