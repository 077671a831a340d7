"""The production-like stack for the load tool, all on this machine: two Daphne processes
(the client spreads its sockets over both ports, as a balancer would), a Celery worker
(prefork, concurrency 2, as ``scripts/run``: computer moves) and Celery beat (the clock sweep),
on PostgreSQL and Redis given by ``DATABASE_URL`` and ``REDIS_URL``, with ``DEBUG`` off and
``LOAD_ECHO=1`` (the echo socket of the baseline). The post-game analysis worker of
``scripts/run`` is left out: games between guests are not analysed unless asked for.

Tasks go to a queue of their own (``CELERY_QUEUE``, default ``nardy-load``) so that other
workers on the same Redis neither take them nor send theirs. Every scripted guest comes from
127.0.0.1, so the limit of new games per address (``GAMES_CREATE_IP_LIMITS``, 120 a minute),
the cap of open sockets per address (``GAMES_SOCKETS_PER_IP``, 300 per process) and the
limit of sockets opened per address (``GAMES_CONNECT_IP_LIMITS``) are turned off unless
those variables are set; the limits per session and per socket stay as in
production (each guest has its own session). Daphne gets ``DATABASE_POOL=10`` and the Celery
processes ``CONN_MAX_AGE=60``, as in the Procfile. A description of the running
stack (origins, process ids by role, log directory) is written as JSON to the stack file,
where ``python -m games.loadtool run --stack-file`` finds it.
"""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN_DIR = ROOT / ".run" / "load"
STACK_FILE = RUN_DIR / "stack.json"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/nardy_load"
DEFAULT_QUEUE = "nardy-load"


def code_version():
    """The checkout's commit, with ``+changes`` when the working tree differs from it (the
    servers run what is on disk when they start)."""

    def git(*args):
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    return commit + ("+changes" if git("status", "--porcelain", "--untracked-files=no") else "")


class StackError(Exception):
    """The stack could not be started (the message says which part and why)."""


def ensure_database(database_url):
    """Create the PostgreSQL database of ``database_url`` when it does not exist yet
    (connecting to the server's ``postgres`` database). Other URLs are left alone."""
    parts = urllib.parse.urlparse(database_url)
    if parts.scheme not in ("postgres", "postgresql", "pgsql"):
        return
    import psycopg

    name = urllib.parse.unquote(parts.path.lstrip("/"))
    admin = parts._replace(path="/postgres").geturl().replace("postgres://", "postgresql://", 1)
    with psycopg.connect(admin, autocommit=True) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (name,)
        ).fetchone()
        if not exists:
            connection.execute(f'CREATE DATABASE "{name}"')


class Stack:
    """The started processes: ``processes`` ``{role: [Popen, ...]}`` (roles ``daphne``,
    ``celery``, ``beat``), ``bases`` the Daphne origins, ``log_dir`` their output."""

    def __init__(self, bases, log_dir):
        self.bases = bases
        self.log_dir = log_dir
        self.processes = {"daphne": [], "celery": [], "beat": []}

    def pids(self):
        """``{role: [pid, ...]}`` of the running processes."""
        return {role: [p.pid for p in procs] for role, procs in self.processes.items()}

    def describe(self):
        """The stack file's content."""
        return {
            "bases": self.bases,
            "pids": self.pids(),
            "log_dir": str(self.log_dir),
            "code": code_version(),
        }

    def exited(self):
        """``(role, returncode)`` of a process that has ended, else None."""
        for role, procs in self.processes.items():
            for process in procs:
                if process.poll() is not None:
                    return role, process.returncode
        return None

    def stop(self, grace=20):
        """SIGTERM every process, SIGKILL what is left after ``grace`` seconds."""
        everything = [p for procs in self.processes.values() for p in procs]
        for process in everything:
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + grace
        for process in everything:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _spawn(stack, role, command, env, log_name):
    log_file = (stack.log_dir / log_name).open("ab")
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT
    )
    log_file.close()
    stack.processes[role].append(process)
    return process


def _wait_http(stack, base, timeout):
    deadline = time.monotonic() + timeout
    while True:
        problem = stack.exited()
        if problem:
            raise StackError(f"{problem[0]} exited with {problem[1]} (logs: {stack.log_dir})")
        try:
            with urllib.request.urlopen(f"{base}/en/", timeout=5) as response:
                if response.status == 200:
                    return
        except (OSError, urllib.error.URLError):
            pass
        if time.monotonic() > deadline:
            raise StackError(
                f"{base}/en/ did not answer within {timeout} s (logs: {stack.log_dir})"
            )
        time.sleep(0.3)


def _wait_log(stack, name, text, timeout):
    deadline = time.monotonic() + timeout
    path = stack.log_dir / name
    while text not in (path.read_text(errors="replace") if path.exists() else ""):
        problem = stack.exited()
        if problem:
            raise StackError(f"{problem[0]} exited with {problem[1]} (log: {path})")
        if time.monotonic() > deadline:
            raise StackError(f"no {text!r} in {path} within {timeout} s")
        time.sleep(0.3)


def start_stack(
    ports, database_url, redis_url, queue=DEFAULT_QUEUE, log_dir=RUN_DIR, concurrency=2, log=print
):
    """Migrate the database (creating a missing PostgreSQL one) and start the stack; returns
    the ``Stack`` once every Daphne serves ``/en/`` and the worker is ready. Raises
    StackError (and stops what it started) when a part does not come up within 90 s."""
    if not redis_url:
        raise StackError("REDIS_URL is needed (e.g. redis://127.0.0.1:6379/0)")
    log_dir = Path(log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    env = dict(
        os.environ,
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        DEBUG="false",
        LOAD_ECHO="1",
        CELERY_QUEUE=queue,
        PYTHONUNBUFFERED="1",
        DJANGO_SETTINGS_MODULE="nardy_site.settings",
    )
    # one address for every guest: see above
    env.setdefault("GAMES_CREATE_IP_LIMITS", "")
    env.setdefault("GAMES_SOCKETS_PER_IP", "0")
    env.setdefault("GAMES_CONNECT_IP_LIMITS", "")
    env.setdefault("GAMES_ENTRY_IP_LIMITS", "")
    ensure_database(database_url)
    log(f"migrating {database_url}")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "--verbosity", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    stack = Stack([f"http://127.0.0.1:{port}" for port in ports], log_dir)
    # database connections as the Procfile has them: kept by the Celery processes, pooled
    # by Daphne
    celery_env = dict(env, CONN_MAX_AGE=env.get("CONN_MAX_AGE") or "60")
    daphne_env = dict(env, DATABASE_POOL=env.get("DATABASE_POOL") or "10", CONN_MAX_AGE="0")
    try:
        _spawn(
            stack,
            "celery",
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "nardy_site",
                "worker",
                "--concurrency",
                str(concurrency),
                "--queues",
                queue,
                "--hostname",
                f"{queue}@%h",
                "--loglevel",
                "INFO",
            ],
            celery_env,
            "celery.log",
        )
        _spawn(
            stack,
            "beat",
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "nardy_site",
                "beat",
                "--schedule",
                str(log_dir / "celerybeat-schedule"),
                "--loglevel",
                "INFO",
            ],
            celery_env,
            "beat.log",
        )
        for port in ports:
            _spawn(
                stack,
                "daphne",
                [
                    sys.executable,
                    "-m",
                    "nardy_site.serve",
                    "-b",
                    "127.0.0.1",
                    "-p",
                    str(port),
                    "nardy_site.asgi:application",
                ],
                daphne_env,
                f"daphne-{port}.log",
            )
        for base in stack.bases:
            _wait_http(stack, base, 90)
        _wait_log(stack, "celery.log", " ready.", 90)
    except BaseException:
        stack.stop()
        raise
    log(
        f"stack up: Daphne at {', '.join(stack.bases)}; pids {stack.pids()}; code "
        f"{code_version()}; logs in {log_dir}"
    )
    return stack


def serve(ports, database_url, redis_url, queue=DEFAULT_QUEUE, stack_file=STACK_FILE, log=print):
    """Start the stack, write ``stack_file`` and keep running until SIGINT/SIGTERM or until
    one of its processes exits; then stop them all. Returns the exit status (0: asked to
    stop, 1: a process died)."""
    stopping = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_args: stopping.append(True))
    stack = start_stack(ports, database_url, redis_url, queue, Path(stack_file).parent, log=log)
    stack_file = Path(stack_file)
    described = dict(stack.describe(), database_url=database_url, redis_url=redis_url)
    stack_file.write_text(json.dumps(described, indent=2) + "\n")
    status = 0
    try:
        while not stopping:
            problem = stack.exited()
            if problem:
                log(f"{problem[0]} exited with {problem[1]}; stopping the stack")
                status = 1
                break
            time.sleep(0.5)
    finally:
        log("stopping the stack")
        stack.stop()
        stack_file.unlink(missing_ok=True)
    return status
