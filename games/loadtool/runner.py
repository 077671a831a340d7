"""Runs a measurement: N games (or N echo pairs) in one or more client processes, a CPU
sampler beside them, and a report.

A run has a ramp (every table gets its first game: challenge link, accept, two sockets), a
warm-up, then the measuring window of ``duration`` seconds: only actions sent inside the
window count. At its end every game still on is resigned by one of its players and the
sockets are closed. With ``to_end`` there is no window: each table plays one game to its end
and everything counts.
"""

import asyncio
import math
import multiprocessing
import os
import queue
import re
import statistics
import threading
import time
from dataclasses import asdict, dataclass, field

import psutil

from games.loadtool.client import ClientPlan, Stats, run_client

#: names of the database and Redis server processes sampled beside the site's own
SERVICE_NAMES = {"redis": ("redis-server",), "postgres": ("postgres",)}


@dataclass
class RunConfig:
    """One measurement. ``games``: simultaneous games (echo: pairs of sockets, the same
    socket count); ``bases``: the servers' origins (``http://127.0.0.1:8900``...);
    ``think``: mean seconds before each action; ``duration``/``warmup``: seconds of the
    window and of the pause between the ramp and the window; ``echo``: echo pairs instead
    of games; ``to_end``: each table plays one game to its end instead of a window;
    ``preset``: the games' rules; ``procs``: client processes; ``seed``: makes the clients'
    choices repeatable (the dice are the server's); ``stall``: seconds without a new version
    after which a game is an error; ``setup_threads``: HTTP set-up requests in flight per
    client process; ``ramp_rate``: games started per second during the ramp;
    ``retry_pause``: seconds a table rests after a game with an error; ``ramp_timeout``:
    seconds the ramp may take; ``server_pids``: ``{role: [pid, ...]}`` of the server
    processes to sample (their children included); ``sample_services``: sample the Redis
    and PostgreSQL servers too (``CpuSampler``)."""

    bases: list
    games: int
    think: float = 1.0
    duration: float = 60.0
    warmup: float = 5.0
    echo: bool = False
    to_end: bool = False
    preset: str = "sport"
    procs: int = 1
    seed: int = 1
    stall: float = 60.0
    setup_threads: int = 8
    ramp_rate: float = 10.0
    retry_pause: float = 5.0
    ramp_timeout: float = 900.0
    server_pids: dict = field(default_factory=dict)
    sample_services: bool = True


class CpuSampler(threading.Thread):
    """Samples, every ``interval`` seconds, the CPU of groups of processes (``{role:
    [pid, ...]}``, each with its children; 100 = one core busy), the whole machine's CPU
    (100 = all cores) and the 1-minute load average. ``services`` also samples the Redis
    and PostgreSQL server processes by name (on a shared machine they serve others too)."""

    def __init__(self, groups, interval=1.0, services=True):
        super().__init__(daemon=True)
        self.groups = {role: list(pids) for role, pids in groups.items()}
        self.interval = interval
        self.services = services
        self.samples = []  # (t, {role: percent}, machine percent, load1)
        self._known = {}
        self._halt = threading.Event()
        psutil.cpu_percent(None)

    def _process(self, pid):
        proc = self._known.get(pid)
        if proc is not None and not proc.is_running():
            proc = None  # the pid now names another process (PostgreSQL's backends come and go)
        if proc is None:
            proc = self._known[pid] = psutil.Process(pid)
            proc.cpu_percent(None)  # the first reading only starts the count
        return proc

    def _members(self, role):
        pids = set()
        for pid in self.groups.get(role, ()):
            try:
                root = psutil.Process(pid)
                pids.add(pid)
                pids.update(child.pid for child in root.children(recursive=True))
            except psutil.Error:
                continue
        if self.services and role in SERVICE_NAMES:
            for proc in psutil.process_iter(["name"]):
                if (proc.info["name"] or "").startswith(SERVICE_NAMES[role]):
                    pids.add(proc.pid)
        return pids

    def roles(self):
        roles = list(self.groups)
        if self.services:
            roles += [role for role in SERVICE_NAMES if role not in roles]
        return roles

    def sample(self):
        """Take one sample now."""
        reading = {}
        for role in self.roles():
            total = 0.0
            for pid in self._members(role):
                try:
                    total += self._process(pid).cpu_percent(None)
                except psutil.Error:
                    self._known.pop(pid, None)
            reading[role] = total
        self.samples.append(
            (time.monotonic(), reading, psutil.cpu_percent(None), os.getloadavg()[0])
        )

    def run(self):
        self.sample()
        while not self._halt.wait(self.interval):
            self.sample()

    def stop(self):
        self._halt.set()
        self.join(timeout=5)

    def summary(self, start, end):
        """``{"cpu_percent": {role: {"mean", "max"}}, "machine_cpu_percent": {...},
        "load1": {"mean", "max"}}`` over the samples taken from ``start`` to ``end``
        (``time.monotonic()``); the first sample (no interval yet) is skipped."""
        taken = [s for s in self.samples[1:] if start <= s[0] <= end]
        if not taken:
            return {"cpu_percent": {}, "machine_cpu_percent": None, "load1": None}

        def figures(values):
            return {"mean": round(statistics.fmean(values), 1), "max": round(max(values), 1)}

        return {
            "cpu_percent": {
                role: figures([s[1].get(role, 0.0) for s in taken]) for role in self.roles()
            },
            "machine_cpu_percent": figures([s[2] for s in taken]),
            "load1": figures([s[3] for s in taken]),
        }


def percentiles(samples):
    """``{"n", "p50", "p95", "p99", "max", "mean"}`` (ms, one decimal) of a list of ms."""
    if not samples:
        return {"n": 0, "p50": None, "p95": None, "p99": None, "max": None, "mean": None}
    ordered = sorted(samples)

    def at(q):
        # nearest rank: the smallest sample with at least q of them at or below it
        return round(ordered[max(0, math.ceil(q * len(ordered)) - 1)], 1)

    return {
        "n": len(ordered),
        "p50": at(0.50),
        "p95": at(0.95),
        "p99": at(0.99),
        "max": round(ordered[-1], 1),
        "mean": round(statistics.fmean(ordered), 1),
    }


def _shares(total, parts):
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts) if base or i < extra]


def _client_process(plan, ready_queue, stop_event, result_queue):
    """Body of a client process: run ``plan``, put its Stats on ``result_queue``."""
    stats = asyncio.run(run_client(plan, lambda: ready_queue.put(os.getpid()), stop_event.is_set))
    result_queue.put(stats)


def run_load(config, log=print):
    """Run the measurement ``config`` and return the report (a dict, see ``report``).

    With ``procs`` 1 the client runs in this process's main thread (the tests use this); with
    more, in forked processes, each with its share of the games. ``log`` receives progress
    lines."""
    shares = _shares(config.games, max(1, config.procs))
    context = multiprocessing.get_context("fork")
    ready_queue, result_queue = context.Queue(), context.Queue()
    stop = context.Event()
    started = time.monotonic()
    timeline = {"started": started}
    children = []
    groups = dict(config.server_pids)

    def coordinate():
        """Wait for the ramp, then through the warm-up and the window; set ``stop`` at its
        end, or at once if the ramp takes longer than ``ramp_timeout``."""
        try:
            for _ in shares:
                ready_queue.get(timeout=config.ramp_timeout)
        except queue.Empty:
            timeline["ramp_failed"] = True
            stop.set()
            return
        timeline["ramped"] = time.monotonic()
        log(
            f"ramp done in {timeline['ramped'] - started:.1f} s: {config.games} "
            f"{'echo pairs' if config.echo else 'games'} open"
        )
        if config.to_end:
            timeline["window_start"] = started  # every game counts from its first move
            return
        timeline["window_start"] = timeline["ramped"] + config.warmup
        time.sleep(config.warmup + config.duration)
        timeline["window_end"] = time.monotonic()
        stop.set()

    if len(shares) == 1:
        groups["client"] = [os.getpid()]
        sampler = CpuSampler(groups, services=config.sample_services)
        sampler.start()
        coordinator = threading.Thread(target=coordinate, daemon=True)
        coordinator.start()
        stats = asyncio.run(
            run_client(
                ClientPlan(config, shares[0]), lambda: ready_queue.put(os.getpid()), stop.is_set
            )
        )
        stop.set()
        coordinator.join(timeout=10)
    else:
        for index, tables in enumerate(shares):
            plan = ClientPlan(config, tables, index, len(shares))
            process = context.Process(
                target=_client_process, args=(plan, ready_queue, stop, result_queue), daemon=True
            )
            process.start()
            children.append(process)
        groups["client"] = [process.pid for process in children]
        sampler = CpuSampler(groups, services=config.sample_services)
        sampler.start()
        coordinate()
        stats = Stats()
        if config.to_end:
            stop_when_done = None
        else:
            stop.set()
            stop_when_done = time.monotonic() + 120
        for _ in children:
            timeout = None if stop_when_done is None else max(1, stop_when_done - time.monotonic())
            try:
                stats.merge(result_queue.get(timeout=timeout))
            except queue.Empty:
                stats.error("a client process did not report")
        for process in children:
            process.join(timeout=10)
    timeline["ended"] = time.monotonic()
    sampler.stop()
    return report(config, stats, sampler, timeline)


#: what differs between two errors of one kind: game ids, versions, seconds
_ERROR_KIND = re.compile(r"[0-9a-f]{8}-[0-9a-f-]{27}|\d+(\.\d+)?")


def report(config, stats, sampler, timeline):
    """The figures of one run as a dict: the configuration, ``round_trip_ms`` (``play`` and
    ``roll``, or ``echo``: see ``percentiles``), ``errors`` (count), ``error_kinds`` (count
    by message with ids and numbers left out) and ``error_samples`` (the first 20),
    ``actions_per_s`` (frames sent per second in the window), ``rate_limited`` (frames the
    server refused as too quick and the players sent again), ``gaps`` (events that missed a
    version), ``refused`` (new games the site refused as full, each with its reason and
    Retry-After), ``games_started``,
    ``games_over`` (by end reason), ``ramp_s``, the CPU figures of ``CpuSampler.summary``
    over the window, ``cpu_ms_per_action`` (each sampled server role's mean CPU divided by
    the action rate, and their sum ``server``) and the machine's load average at the end."""
    start = timeline.get("window_start", timeline["ended"])
    end = timeline.get("window_end", timeline["ended"])

    def in_window(t):
        return start <= t <= end

    window_s = max(end - start, 1e-9)
    kinds = ("echo",) if config.echo else ("play", "roll")
    trips = {
        kind: percentiles([ms for t, ms in getattr(stats, kind) if in_window(t)]) for kind in kinds
    }
    errors = sorted(stats.errors)
    kinds = {}
    for _t, text in errors:
        kind = _ERROR_KIND.sub("…", text)[:120]
        kinds[kind] = kinds.get(kind, 0) + 1
    result = {
        "mode": "echo" if config.echo else "game",
        "config": {key: value for key, value in asdict(config).items() if key != "server_pids"},
        "sockets": 2 * config.games,
        "ramp_s": round(timeline.get("ramped", timeline["ended"]) - timeline["started"], 1),
        "window_s": round(window_s, 1),
        "round_trip_ms": trips,
        "actions_per_s": round(sum(1 for t in stats.actions if in_window(t)) / window_s, 1),
        "errors": len(errors),
        "error_kinds": dict(sorted(kinds.items(), key=lambda item: -item[1])),
        "error_samples": [text for _t, text in errors[:20]],
        "rate_limited": stats.rate_limited,
        "gaps": stats.gaps,
        "refused": stats.refused,
        "games_started": stats.games_started,
        "games_over": stats.games_over,
        "load_average": [round(value, 2) for value in os.getloadavg()],
    }
    if timeline.get("ramp_failed"):
        result["errors"] += 1
        result["error_samples"].insert(0, f"the ramp did not finish in {config.ramp_timeout} s")
    result.update(sampler.summary(start, end))
    cpu = result.get("cpu_percent") or {}
    if result["actions_per_s"] and cpu:
        # CPU time per action frame: percent of a core / (frames per second) * 10 = ms
        per = {
            role: round(cpu[role]["mean"] * 10 / result["actions_per_s"], 2)
            for role in cpu
            if role != "client"
        }
        per["server"] = round(sum(per.values()), 2)
        result["cpu_ms_per_action"] = per
    return result


def summary_lines(result):
    """A short human-readable account of one run's report."""
    config = result["config"]
    lines = [
        (
            f"{result['mode']}: {config['games']} {'pairs' if config['echo'] else 'games'}, "
            f"{result['sockets']} sockets, think {config['think']} s, window "
            f"{result['window_s']} s, ramp {result['ramp_s']} s, "
            f"{result['actions_per_s']} actions/s, errors {result['errors']}"
        )
    ]
    for kind, figures in result["round_trip_ms"].items():
        lines.append(
            f"  {kind} round trip ms: n={figures['n']} p50={figures['p50']} "
            f"p95={figures['p95']} p99={figures['p99']} max={figures['max']}"
        )
    cpu = ", ".join(
        f"{role} {v['mean']}/{v['max']}" for role, v in result.get("cpu_percent", {}).items()
    )
    lines.append(f"  cpu % mean/max (100 = one core): {cpu}")
    per = result.get("cpu_ms_per_action")
    if per:
        lines.append("  cpu ms per action: " + ", ".join(f"{k} {v}" for k, v in per.items()))
    machine, load = result.get("machine_cpu_percent"), result.get("load1")
    if machine:
        lines.append(
            f"  machine cpu % mean/max (100 = all cores): {machine['mean']}/"
            f"{machine['max']}; load average (1 min) mean/max: {load['mean']}/"
            f"{load['max']}"
        )
    if result["rate_limited"]:
        lines.append(f"  refused as too quick (sent again): {result['rate_limited']} frames")
    if result["refused"]:
        lines.append(
            f"  new games refused as the site was full (503, with the reason): {result['refused']}"
        )
    if result["gaps"]:
        lines.append(f"  events that missed a version (a snapshot was asked for): {result['gaps']}")
    if result["games_over"]:
        lines.append(f"  games over: {result['games_over']} of {result['games_started']} started")
    for kind, count in list(result["error_kinds"].items())[:5]:
        lines.append(f"  errors x{count}: {kind}")
    return lines
