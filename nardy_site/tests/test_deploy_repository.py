"""What the repository itself promises a deployment: every dependency pinned, no secret in a
tracked file, local secrets ignored by git, and a Procfile whose every command names modules,
apps and management commands that exist."""

import importlib
import importlib.metadata
import importlib.util
import os
import re
import shlex
import subprocess
from pathlib import Path

import click
import pytest
from celery.app.utils import find_app
from celery.bin.base import CLIContext
from celery.bin.celery import celery as celery_cli
from daphne.server import Server
from django.core.management import get_commands

from games.room.analysis import QUEUE_SUFFIX
from nardy_site.serve import SiteCommandLine, SiteServer

ROOT = Path(__file__).resolve().parents[2]

# --- requirements.txt ---------------------------------------------------------------------------

#: ``name==version`` or ``name[extra,...]==version``, an optional trailing comment
PINNED = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[A-Za-z0-9._,-]+\])?"
    r"==(?P<version>[0-9][A-Za-z0-9.+!_-]*)(?:\s+#.*)?$"
)


def requirement_lines():
    """``(line number, text)`` of each line of requirements.txt that is not blank or a comment."""
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return [
        (n, line.strip())
        for n, line in enumerate(lines, 1)
        if line.strip() and not line.strip().startswith("#")
    ]


def normalized(name):
    """A distribution name as PyPI compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_requirement_is_pinned_to_one_version():
    lines = requirement_lines()
    assert lines, "requirements.txt lists nothing"
    loose = [f"line {n}: {text}" for n, text in lines if not PINNED.match(text)]
    assert not loose, "not pinned as name==version:\n" + "\n".join(loose)
    names = [normalized(PINNED.match(text)["name"]) for _, text in lines]
    assert len(names) == len(set(names)), "a package is listed twice"


def test_the_installed_packages_are_the_pinned_versions():
    wrong = []
    for _, text in requirement_lines():
        match = PINNED.match(text)
        try:
            installed = importlib.metadata.version(match["name"])
        except importlib.metadata.PackageNotFoundError:
            installed = None
        if installed != match["version"]:
            wrong.append(f"{match['name']}: pinned {match['version']}, installed {installed}")
    assert not wrong, "\n".join(wrong)


def lock_pins():
    """``{normalized name: version}`` of requirements.lock (asserting each line is a pin)."""
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        match = PINNED.match(line.strip())
        assert match, f"requirements.lock: not name==version: {line!r}"
        pins[normalized(match["name"])] = match["version"]
    return pins


def test_the_lock_pins_every_requirement_at_its_version():
    pins = lock_pins()
    for _, text in requirement_lines():
        match = PINNED.match(text)
        assert pins.get(normalized(match["name"])) == match["version"], text


def test_every_locked_package_is_installed_at_its_version():
    # transitive dependencies too: a fresh install gets the versions the tests ran with
    installed = {
        normalized(dist.metadata["Name"]): dist.version
        for dist in importlib.metadata.distributions()
    }
    wrong = {
        name: (version, installed.get(name))
        for name, version in lock_pins().items()
        if installed.get(name) != version
    }
    assert not wrong, f"locked (version, installed): {wrong}"


# --- secrets ------------------------------------------------------------------------------------

#: what a leaked credential looks like: (name, pattern)
SECRET_PATTERNS = [
    ("private key", re.compile(r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("Google OAuth client secret", re.compile(r"\bGOCSPX-[A-Za-z0-9_-]{20,}")),
    ("Telegram bot token", re.compile(r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b")),
    ("Stripe secret key", re.compile(r"\b[sr]k_live_[0-9A-Za-z]{20,}")),
    (
        "Django secret key",
        re.compile(r"""SECRET_KEY\s*[=:]\s*["'](?!django-insecure-)[^"'\s]{30,}["']"""),
    ),
    (
        "password in a URL",
        re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/:@'\"]+:(?P<password>[^\s/@'\"]+)@"),
    ),
]

#: passwords in example URLs of the docs and settings messages, not real ones
PLACEHOLDER_PASSWORDS = re.compile(
    r"^(?:password|pass|secret|changeme|x+|\*+|…|\.\.\.|<[^>]*>|"
    r"\$\{?\w+\}?)$",
    re.IGNORECASE,
)

#: file names that hold secrets and must never be committed
SECRET_FILE_NAMES = re.compile(
    r"(?:^|/)(?:\.env|\.secret_key|id_(?:rsa|dsa|ecdsa|ed25519)|"
    r"[^/]*\.(?:pem|key|p12|pfx))$"
)


def find_secrets(text):
    """The names of the secret patterns found in ``text`` (a file's contents), in order."""
    found = []
    for name, pattern in SECRET_PATTERNS:
        for match in pattern.finditer(text):
            password = match.groupdict().get("password")
            if password is not None and PLACEHOLDER_PASSWORDS.match(password):
                continue
            found.append(name)
            break
    return found


def tracked_files():
    """Paths (relative, as git prints them) of every file git tracks in the checkout."""
    output = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    return [name for name in output.decode().split("\0") if name]


def test_the_scanner_recognises_each_kind_of_secret():
    # Built from pieces so that this file holds no secret-looking string itself.
    samples = {
        "private key": "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIE",
        "AWS access key id": "key = AKIA" + "Q" * 16,
        "GitHub token": "token: ghp_" + "a1B2" * 9,
        "Slack token": "xoxb-" + "1234567890-abcdef",
        "Google API key": "AIza" + "S" * 35,
        "Google OAuth client secret": "GOCSPX-" + "k" * 28,
        "Telegram bot token": "TELEGRAM_BOT_TOKEN=1234567890:AA" + "h" * 33,
        "Stripe secret key": "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc",
        "Django secret key": "SECRET_KEY = '" + "q8#v" * 10 + "'",
        "password in a URL": "postgres://nardy:" + "s3cr3tPassw0rd" + "@db.internal/nardy",
    }
    for name, text in samples.items():
        assert find_secrets(text) == [name], name
    # examples of the docs are not secrets
    assert find_secrets("postgres://user:password@host:5432/nardy") == []
    assert find_secrets("redis://:${REDIS_PASSWORD}@redis.internal:6379/0") == []
    assert find_secrets("postgres://nardy:…@db.internal:5432/nardy") == []
    assert find_secrets("SECRET_KEY = 'django-insecure-" + "x" * 40 + "'") == []


def test_no_tracked_file_holds_a_secret():
    leaks = []
    for name in tracked_files():
        if SECRET_FILE_NAMES.search(name):
            leaks.append(f"{name}: a secret's file")
            continue
        path = ROOT / name
        if not path.is_file() or path.stat().st_size > 5_000_000:
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary (bot weights, images)
        leaks.extend(f"{name}: {kind}" for kind in find_secrets(data.decode("utf-8", "replace")))
    assert not leaks, "secrets in tracked files:\n" + "\n".join(leaks)


@pytest.mark.parametrize("name", [".secret_key", ".env", "staticfiles/x.css", "db.sqlite3"])
def test_local_secrets_and_state_are_ignored_by_git(name):
    # check-ignore exits 0 when the path is ignored, whether or not it exists
    result = subprocess.run(["git", "check-ignore", "--no-index", "-q", name], cwd=ROOT)
    assert result.returncode == 0, f"{name} is not in .gitignore"


# --- Procfile -----------------------------------------------------------------------------------

EXPECTED_PROCESSES = {"release", "web", "worker", "analysis", "beat"}
ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*$")
DEFAULTED = re.compile(r"\$\{(?P<name>[A-Z_][A-Z0-9_]*):-(?P<default>[^}]*)\}")


def procfile():
    """``{process type: command}`` of the Procfile (comment and blank lines skipped)."""
    processes = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, command = line.partition(":")
        assert sep and re.fullmatch(r"[A-Za-z0-9_-]+", name), f"not a Procfile line: {line!r}"
        assert name not in processes, f"{name} is defined twice"
        processes[name] = command.strip()
    return processes


def commands(text):
    """Each simple command of a Procfile command line (split on ``&&``) as ``(assignments,
    argv)``, with ``${NAME:-default}`` replaced by its default as on a machine without it."""
    result = []
    for part in text.split("&&"):
        words = shlex.split(DEFAULTED.sub(lambda m: m["default"], part))
        assignments = {}
        while words and ASSIGNMENT.match(words[0]):
            key, _, value = words.pop(0).partition("=")
            assignments[key] = value
        assert words, f"an empty command in {text!r}"
        result.append((assignments, words))
    return result


def celery_context(argv):
    """Parse a ``celery -A APP SUBCOMMAND ...`` argv with Celery's own command line (options
    are checked, nothing runs); returns ``(app, subcommand name, click context)``."""
    assert argv[0] == "celery" and argv[1] == "-A", argv
    app = find_app(argv[2])
    name, args = argv[3], argv[4:]
    assert name in celery_cli.commands, f"celery has no {name} command"
    obj = CLIContext(app=app, no_color=True, workdir=None, quiet=True)
    return app, name, celery_cli.commands[name].make_context(name, list(args), obj=obj)


def test_the_procfile_has_every_process_of_the_site():
    assert set(procfile()) == EXPECTED_PROCESSES


def test_the_release_step_migrates_collects_static_files_and_compiles_translations():
    steps = commands(procfile()["release"])
    management = get_commands()
    ran = []
    for _, argv in steps:
        assert argv[0] == "python", argv
        if argv[1] == "manage.py":
            assert (ROOT / "manage.py").is_file()
            assert argv[2] in management, f"no management command {argv[2]}"
            assert "--noinput" in argv, "a release step must not wait for an answer"
            ran.append(argv[2])
        else:
            assert argv[1] == "-m" and importlib.util.find_spec(argv[2]) is not None, argv
            ran.append(argv[2])
    assert ran == ["migrate", "collectstatic", "nardy_site.compilemessages"]


def test_web_is_daphne_on_port_with_proxy_headers_serving_the_asgi_application():
    text = procfile()["web"]
    [(_, argv)] = commands(text)
    # the site's Daphne (nardy_site/serve.py): Daphne's own command line, its own server class
    assert argv[:3] == ["python", "-m", "nardy_site.serve"]
    assert SiteCommandLine.server_class is SiteServer and issubclass(SiteServer, Server)
    args = SiteCommandLine().parser.parse_args(argv[3:])
    module_name, _, attribute = args.application.partition(":")
    application = getattr(importlib.import_module(module_name), attribute)
    assert callable(application)
    assert args.proxy_headers, "behind the load balancer Daphne must read X-Forwarded-*"
    assert "${PORT" in text and args.host == "0.0.0.0"


def test_the_workers_and_beat_are_celery_commands_of_the_site_app():
    processes = procfile()
    app, name, worker = celery_context(commands(processes["worker"])[0][1])
    assert name == "worker" and app.main == "nardy_site"
    assert worker.params["queues"] is None, "the worker reads the default queue"

    app, name, analysis = celery_context(commands(processes["analysis"])[0][1])
    assert name == "worker"
    # the queue games.room.analysis sends to when CELERY_QUEUE is not set (settings' default)
    assert analysis.params["queues"] == ["celery" + QUEUE_SUFFIX]
    assert analysis.params["concurrency"] == 1

    app, name, beat = celery_context(commands(processes["beat"])[0][1])
    assert name == "beat"
    # the file of last-run times: the operator's choice, a writable default otherwise
    assert "--schedule ${CELERY_BEAT_SCHEDULE:-" in processes["beat"]
    assert beat.params["schedule"] == "/tmp/nardy-celerybeat-schedule"
    # Celery processes keep their database connection (one thread each); Daphne must not.
    for process in ("worker", "analysis"):
        assert commands(processes[process])[0][0].get("CONN_MAX_AGE", "0") != "0"
    assert "CONN_MAX_AGE" not in commands(processes["web"])[0][0]


def test_the_default_celery_queue_is_the_one_the_procfile_assumes(monkeypatch):
    from nardy_site.tests.test_deploy_settings import settings_afresh

    monkeypatch.delenv("CELERY_QUEUE", raising=False)
    monkeypatch.setenv("REDIS_URL", os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    monkeypatch.delenv("DJANGO_ENV", raising=False)
    values = settings_afresh()
    assert values["CELERY_TASK_DEFAULT_QUEUE"] == "celery"


def test_a_wrong_celery_option_would_be_caught():
    with pytest.raises(click.UsageError):
        celery_context(["celery", "-A", "nardy_site", "worker", "--no-such-option"])
