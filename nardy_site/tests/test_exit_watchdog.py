"""The test run's exit watchdog (conftest.py ``pytest_unconfigure``): a run that leaves a
thread that never ends still exits, with its own status, instead of stalling CI."""

import os
import subprocess
import sys
import time

import pytest

from nardy_site.tests.servers import ROOT

STUCK_TEST = """
import threading

def test_leaves_a_thread_that_never_ends():
    threading.Thread(target=threading.Event().wait, name="stuck").start()  # not a daemon
"""


@pytest.mark.sockets  # a pytest run of its own, in a process
def test_a_run_that_leaves_a_stuck_thread_still_exits_with_its_status(tmp_path):
    test_file = ROOT / "nardy_site" / "tests" / f"test_zz_stuck_{tmp_path.name}.py"
    test_file.write_text(STUCK_TEST)
    try:
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
            cwd=ROOT,
            env={**os.environ, "PYTEST_EXIT_GRACE_S": "2"},
            capture_output=True,
            text=True,
            timeout=120,
        )
        elapsed = time.monotonic() - started
    finally:
        test_file.unlink()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
    assert "threads still running" in result.stderr and "stuck" in result.stderr
    assert elapsed < 60
