"""Servers and browser settings shared by the tests that drive the real site: Daphne in a
subprocess on a free port, and Debian's Chromium for Playwright (never a downloaded browser)."""
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class DaphneServer:
    """Daphne serving the site (HTTP + WebSockets) on 127.0.0.1:``port`` with ``env``; its
    output is appended to ``log_path``. May be stopped and started again on the same port."""

    def __init__(self, port, env, log_path):
        self.port = port
        self.env = env
        self.log_path = log_path
        self.base = f"http://127.0.0.1:{port}"
        self.process = None

    def log(self):
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def start(self, timeout=60):
        command = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port),
                   "nardy_site.asgi:application"]
        with open(self.log_path, "ab") as log_file:
            self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=log_file,
                                            stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                pytest.fail(f"Daphne exited with {self.process.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(f"{self.base}/en/", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"Daphne did not serve {self.base}/en/ within {timeout} s:\n{self.log()}")
            time.sleep(0.2)

    @property
    def running(self):
        """True while the server process started by ``start`` is alive."""
        return self.process is not None and self.process.poll() is None

    def kill(self):
        """Kill the server at once (SIGKILL), as a crash would: its sockets are cut without a
        close frame and it runs no clean-up. ``start`` may start it again on the same port."""
        if self.process is None:
            return
        self.process.kill()
        self.process.wait()
        self.process = None

    def stop(self):
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None
