"""The game page's JavaScript unit tests (``games/tests/js/``, Node's own test runner and
``node:assert``, no npm packages) run as part of the suite: ``node --test games/tests/js/``.
A failure shows node's report. scripts/test installs Debian's nodejs when node is missing."""

import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Debian 12's nodejs; the tests use nothing newer
NODE_MAJOR_MIN = 18


def test_the_room_modules_pass_their_node_unit_tests():
    node = shutil.which("node")
    assert node, (
        "node is missing: run scripts/test (it installs Debian's nodejs) or apt-get install nodejs"
    )
    version = subprocess.run(
        [node, "--version"], capture_output=True, text=True, timeout=30
    ).stdout.strip()
    assert int(version.lstrip("v").split(".")[0]) >= NODE_MAJOR_MIN, (
        f"node {version} is older than {NODE_MAJOR_MIN}"
    )
    result = subprocess.run(
        [node, "--test", "games/tests/js/"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    ran = re.search(r"^# tests (\d+)$", result.stdout, re.MULTILINE)
    assert ran and int(ran.group(1)) > 0, report
