"""The pages' JavaScript unit tests (``games/tests/js/``, Node's own test runner and
``node:assert``, no npm packages) run as part of the suite: ``node --test games/tests/js/``
runs every ``*.test.mjs`` file there. A failure shows node's report. scripts/test installs
Debian's nodejs when node is missing.

Every page script is an ES module, loaded by the templates as one, and has Node tests of its
state: the script itself, or a module only it uses (its ``*-state.js``, the room's modules), is
imported by a test file."""

import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "static"
TESTS = ROOT / "games" / "tests" / "js"
#: Debian 12's nodejs; the tests use nothing newer
NODE_MAJOR_MIN = 18
#: a static import or re-export by relative name (the only kind the pages use; nardy_site/storage.py)
MODULE_IMPORT = re.compile(
    r"""^(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}/[^"']+)["']\s*;""", re.MULTILINE
)
#: a module a test file reaches into static/ for, statically or with import()
TESTED = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(\s*)["']((?:\.\./)+static/[^"']+\.js)["']""")
#: a template's script tag with a static file: (attributes, path)
SCRIPT_TAG = re.compile(r"""<script\b([^>]*?)\bsrc="\{% static '([^']+\.js)' %\}"[^>]*>""")


def test_the_page_modules_pass_their_node_unit_tests():
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
    files = sorted(TESTS.glob("*.test.mjs"))
    assert ran and int(ran.group(1)) >= len(files) > 0, report


def imports_of(path):
    """The static files ``path`` imports, resolved."""
    return {(path.parent / name).resolve() for name in MODULE_IMPORT.findall(path.read_text())}


def reachable(path):
    """``path`` and every module it reaches through its imports."""
    seen, todo = set(), [path.resolve()]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(imports_of(module))
    return seen


def page_scripts():
    """{static file: [templates loading it]} and the script tags that are not modules."""
    scripts, classic = {}, []
    for template in sorted((ROOT / "templates").rglob("*.html")):
        for attributes, name in SCRIPT_TAG.findall(template.read_text()):
            scripts.setdefault((STATIC / name).resolve(), []).append(template)
            if 'type="module"' not in attributes:
                classic.append(f"{template.relative_to(ROOT)}: {name}")
    return scripts, classic


def test_every_page_script_is_an_es_module_loaded_as_one():
    scripts, classic = page_scripts()
    assert scripts
    assert classic == [], "loaded as classic scripts:\n" + "\n".join(classic)
    everything = sorted(STATIC.rglob("*.js"))
    not_modules = [
        str(path.relative_to(ROOT))
        for path in everything
        if not re.search(r"^(?:import|export)\b", path.read_text(), re.MULTILINE)
    ]
    assert not_modules == [], "no import or export: not an ES module"
    used = set().union(*(reachable(script) for script in scripts))
    unused = [str(path.relative_to(ROOT)) for path in everything if path.resolve() not in used]
    assert unused == [], "modules no page loads"
    assert not any("NardyBoard" in path.read_text() for path in everything)


def test_every_page_script_has_node_tests_of_its_own():
    scripts, _ = page_scripts()
    tested = set()
    for path in TESTS.glob("*.mjs"):
        tested |= {(path.parent / name).resolve() for name in TESTED.findall(path.read_text())}
    assert tested
    untested = []
    for script in scripts:
        others = set().union(*(reachable(other) for other in scripts if other != script))
        own = reachable(script) - others  # the script and the modules only it uses
        if not own & tested:
            untested.append(str(script.relative_to(ROOT)))
    assert untested == [], "page scripts without Node tests of their own"
