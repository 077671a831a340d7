"""Command line of the load tool (docs/performance.md, "Load").

    python -m games.loadtool stack [--ports 8900,8901]        # start the stack; Ctrl-C stops it
    python -m games.loadtool run --games 50,500 [--think 1.5] [--duration 60] [--procs 2]
                                 [--mode both|game|echo] [--until-broken] [--out FILE]
    python -m games.loadtool arena --players 20,60 [--duration 180] [--game-seconds 30]
                                   [--event UUID] [--out FILE]
    python -m games.loadtool pool --guests 40,200 [--arrival-rate 10] [--preset sport]
                                  [--out FILE]

``run`` reads the servers and their process ids from the stack file that ``stack`` writes
(``.run/load/stack.json``), or takes ``--base`` origins (and ``--pids role=pid,pid``) of a
site started otherwise. For each game count it runs the echo baseline, then the games, and
prints the figures; ``--out`` writes every report as JSON; ``--until-broken`` ends the sweep
at the first game count with errors. Exit status 0 when every run met the goal (no errors;
p95 of the play round trip at most ``--ratio`` times the echo's), else 1.

``arena`` fills an arena with signed-in players and plays it (``games.loadtool.arena``); the
arena is made with ``manage.py create_tournament`` on the stack's database unless ``--event``
names one. Exit status 0 when a run had no errors.

``pool`` sends guests to the lobby's casual pool ("Play a person", ``games.loadtool.pool``)
and measures from the second player's join to both players told of their game. Exit status 0
when no run had errors and every run's p95 was at most ``--goal-ms``.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from games.loadtool.arena import run_arena
from games.loadtool.pool import run_pool
from games.loadtool.runner import RunConfig, run_load, summary_lines
from games.loadtool.stack import DEFAULT_DATABASE_URL, DEFAULT_QUEUE, STACK_FILE, serve


def _ints(text):
    return [int(part) for part in text.split(",") if part.strip()]


def _pids(values):
    groups = {}
    for value in values or ():
        role, _sep, pids = value.partition("=")
        if not role or not pids:
            raise argparse.ArgumentTypeError(f"--pids wants role=pid[,pid...], not {value!r}")
        groups.setdefault(role, []).extend(_ints(pids))
    return groups


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m games.loadtool",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)

    stack = commands.add_parser("stack", help="start the production-like stack and keep it up")
    stack.add_argument(
        "--ports",
        type=_ints,
        default=[8900, 8901],
        help="Daphne ports, comma-separated (default 8900,8901)",
    )
    stack.add_argument(
        "--database-url",
        default=os.environ.get("LOAD_DATABASE_URL", DEFAULT_DATABASE_URL),
        help=f"default $LOAD_DATABASE_URL or {DEFAULT_DATABASE_URL} (created when missing)",
    )
    stack.add_argument("--redis-url", default=os.environ.get("REDIS_URL", ""))
    stack.add_argument("--queue", default=DEFAULT_QUEUE, help="Celery queue of the stack")
    stack.add_argument("--stack-file", default=str(STACK_FILE))

    run = commands.add_parser(
        "run",
        help="measure against a running stack",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    run.add_argument(
        "--games",
        type=_ints,
        required=True,
        help="simultaneous games, or several comma-separated for a sweep",
    )
    run.add_argument("--mode", choices=("both", "game", "echo"), default="both")
    run.add_argument(
        "--think",
        type=float,
        default=1.5,
        help="mean seconds before each roll or play (uniform 0.5-1.5 times it)",
    )
    run.add_argument("--duration", type=float, default=60, help="seconds measured per run")
    run.add_argument("--warmup", type=float, default=5, help="seconds between ramp and window")
    run.add_argument("--procs", type=int, default=1, help="client processes")
    run.add_argument(
        "--to-end",
        action="store_true",
        help="play one game per table to its end instead of a timed window",
    )
    run.add_argument("--preset", default="sport", choices=("sport", "classic", "match"))
    run.add_argument("--seed", type=int, default=1)
    run.add_argument(
        "--stall",
        type=float,
        default=60,
        help="seconds without progress after which a game is an error",
    )
    run.add_argument(
        "--setup-threads",
        type=int,
        default=8,
        help="HTTP set-up requests in flight per client process",
    )
    run.add_argument(
        "--ramp-rate",
        type=float,
        default=10,
        help="games (echo pairs) started per second during the ramp",
    )
    run.add_argument(
        "--retry-pause",
        type=float,
        default=5,
        help="seconds a table rests after a game with an error",
    )
    run.add_argument(
        "--ratio",
        type=float,
        default=3.0,
        help="goal: play p95 at most this many times the echo p95",
    )
    run.add_argument(
        "--until-broken",
        action="store_true",
        help="stop the sweep at the first game count whose runs had errors",
    )
    run.add_argument(
        "--rest", type=float, default=15, help="seconds of rest between runs (queued tasks drain)"
    )
    run.add_argument("--stack-file", default=str(STACK_FILE))
    run.add_argument(
        "--base",
        action="append",
        help="a server origin (instead of the stack "
        "file), e.g. http://127.0.0.1:8900; repeat for several",
    )
    run.add_argument(
        "--pids", action="append", help="role=pid[,pid] of server processes to sample (with --base)"
    )
    run.add_argument("--out", help="write the reports as JSON to this file")

    arena = commands.add_parser(
        "arena",
        help="fill an arena with signed-in players and play it",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    arena.add_argument(
        "--players", type=_ints, required=True, help="players, or several for a sweep"
    )
    arena.add_argument("--duration", type=float, default=180, help="seconds played per run")
    arena.add_argument(
        "--game-seconds",
        type=float,
        default=30,
        help="mean seconds a game is played before the side to act resigns",
    )
    arena.add_argument("--think", type=float, default=1.5, help="mean seconds per action")
    arena.add_argument("--stall", type=float, default=60)
    arena.add_argument("--preset", default="sport", choices=("sport", "classic", "match"))
    arena.add_argument("--seed", type=int, default=1)
    arena.add_argument("--event", help="an arena to fill (else one is made per run)")
    arena.add_argument("--ramp-rate", type=float, default=20, help="pages opened per second")
    arena.add_argument("--rest", type=float, default=15, help="seconds between runs")
    arena.add_argument("--stack-file", default=str(STACK_FILE))
    arena.add_argument("--base", action="append", help="a server origin, as for run")
    arena.add_argument("--pids", action="append", help="role=pid[,pid], as for run")
    arena.add_argument("--out", help="write the reports as JSON to this file")

    pool = commands.add_parser(
        "pool",
        help="guests press 'Play a person' (the casual pool) and are paired",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    pool.add_argument("--guests", type=_ints, required=True, help="guests, or several for a sweep")
    pool.add_argument("--arrival-rate", type=float, default=10, help="guests arriving a second")
    pool.add_argument("--preset", default="sport", choices=("sport", "classic", "match"))
    pool.add_argument("--timeout", type=float, default=30, help="seconds after the last arrival")
    pool.add_argument("--goal-ms", type=float, default=2000, help="goal: pairing p95 at most")
    pool.add_argument("--rest", type=float, default=10, help="seconds between runs")
    pool.add_argument("--stack-file", default=str(STACK_FILE))
    pool.add_argument("--base", action="append", help="a server origin, as for run")
    pool.add_argument("--pids", action="append", help="role=pid[,pid], as for run")
    pool.add_argument("--out", help="write the reports as JSON to this file")
    return parser


def _write_reports(out, reports):
    """Write every report so far to the JSON file ``out`` (its folder made if need be)."""
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(reports, indent=2) + "\n")


def _servers(args):
    if args.base:
        return [base.rstrip("/") for base in args.base], _pids(args.pids)
    path = Path(args.stack_file)
    if not path.exists():
        sys.exit(
            f"no stack file {path}: start the stack (python -m games.loadtool stack) or give --base"
        )
    described = json.loads(path.read_text())
    return described["bases"], described["pids"]


def _make_arena(args, minutes):
    """A new arena on the stack's database (``manage.py create_tournament``); its id."""
    described = json.loads(Path(args.stack_file).read_text())
    env = dict(
        os.environ,
        DATABASE_URL=described["database_url"],
        REDIS_URL=described["redis_url"],
        DJANGO_SETTINGS_MODULE="nardy_site.settings",
    )
    made = subprocess.run(
        [sys.executable, "manage.py", "create_tournament", "arena", "--preset", args.preset]
        + ["--minutes", str(minutes), "--json"],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(made.stdout)["id"]


def arena_main(args):
    """The ``arena`` command: one run per player count; 0 when no run had errors."""
    bases, pids = _servers(args)
    if args.base and not args.event:
        sys.exit("--base needs --event (an arena made on that site)")
    reports, clean = [], True
    for n, players in enumerate(args.players):
        minutes = int(args.duration // 60) + 2  # no end inside the measured window
        event = args.event or _make_arena(args, minutes)
        print(f"--- arena {event}: {players} players on {', '.join(bases)}", flush=True)
        report = run_arena(
            bases,
            event,
            players,
            duration=args.duration,
            game_seconds=args.game_seconds,
            think=args.think,
            stall=args.stall,
            seed=args.seed,
            ramp_rate=args.ramp_rate,
            server_pids=pids,
            log=lambda line: print(line, flush=True),
        )
        reports.append(report)
        gap = report["pairing_gap_ms"]
        print(
            f"{report['games_started']} games ({report['games_finished']} finished), at most "
            f"{report['most_games_at_once']} at once; game end -> next pairing: p50 "
            f"{gap['p50']} ms, p95 {gap['p95']} ms, worst {gap['max']} ms (n={gap['n']}); "
            f"play p95 {report['round_trip_ms']['play']['p95']} ms; errors {report['errors']}",
            flush=True,
        )
        clean = clean and report["errors"] == 0
        if args.out:
            _write_reports(args.out, reports)
        if n + 1 < len(args.players):
            time.sleep(args.rest)
    return 0 if clean else 1


def pool_main(args):
    """The ``pool`` command: one run per guest count; 0 when every run had no errors and its
    pairing p95 met ``--goal-ms``."""
    bases, pids = _servers(args)
    reports, clean = [], True
    for n, guests in enumerate(args.guests):
        print(f"--- pool: {guests} guests on {', '.join(bases)}", flush=True)
        report = run_pool(
            bases,
            guests,
            arrival_rate=args.arrival_rate,
            preset=args.preset,
            timeout=args.timeout,
            server_pids=pids,
            log=lambda line: print(line, flush=True),
        )
        reports.append(report)
        ms = report["pairing_ms"]
        load = report["cpu"]["load1"]
        print(
            f"{report['games']} games; second join -> both paired: p50 {ms['p50']} ms, p95 "
            f"{ms['p95']} ms, worst {ms['max']} ms (n={ms['n']}); {report['unpaired']} unpaired; "
            f"{report['waiting_frames_per_guest']} count frames a guest; errors "
            f"{report['errors']}; load1 {load}",
            flush=True,
        )
        clean = clean and not report["errors"] and (ms["p95"] or 0) <= args.goal_ms
        if args.out:
            _write_reports(args.out, reports)
        if n + 1 < len(args.guests):
            time.sleep(args.rest)
    return 0 if clean else 1


def _goal(echo, game, ratio):
    """(met, why) for a game report against its echo report."""
    if game["errors"]:
        return False, f"{game['errors']} errors"
    play, base = game["round_trip_ms"]["play"]["p95"], echo["round_trip_ms"]["echo"]["p95"]
    if play is None or base is None:
        return False, "no samples"
    factor = play / base if base else float("inf")
    return factor <= ratio, f"play p95 {play} ms = {factor:.1f} x echo p95 {base} ms"


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.command == "stack":
        return serve(args.ports, args.database_url, args.redis_url, args.queue, args.stack_file)
    if args.command == "arena":
        return arena_main(args)
    if args.command == "pool":
        return pool_main(args)
    bases, pids = _servers(args)
    reports, all_met = [], True
    for count in args.games:
        runs = {}
        for mode in ("echo", "game") if args.mode == "both" else (args.mode,):
            config = RunConfig(
                bases=bases,
                games=count,
                think=args.think,
                duration=args.duration,
                warmup=args.warmup,
                echo=mode == "echo",
                to_end=args.to_end,
                preset=args.preset,
                procs=args.procs,
                seed=args.seed,
                stall=args.stall,
                setup_threads=args.setup_threads,
                ramp_rate=args.ramp_rate,
                retry_pause=args.retry_pause,
                server_pids=pids,
            )
            print(
                f"--- {mode}: {count} {'pairs' if mode == 'echo' else 'games'} on "
                f"{', '.join(bases)}",
                flush=True,
            )
            result = run_load(config, log=lambda line: print(line, flush=True))
            runs[mode] = result
            reports.append(result)
            print("\n".join(summary_lines(result)), flush=True)
            if args.out:
                _write_reports(args.out, reports)
            if args.rest and (mode, count) != (
                ("game" if args.mode != "echo" else "echo"),
                args.games[-1],
            ):
                time.sleep(args.rest)
        met = all(r["errors"] == 0 for r in runs.values())
        if "echo" in runs and "game" in runs:
            met, why = _goal(runs["echo"], runs["game"], args.ratio)
            runs["game"]["goal"] = {"met": met, "why": why, "ratio": args.ratio}
            print(
                f"goal (no errors, play p95 <= {args.ratio} x echo p95): "
                f"{'met' if met else 'MISSED'}: {why}",
                flush=True,
            )
            if args.out:
                _write_reports(args.out, reports)
        all_met = all_met and met
        if args.until_broken and any(r["errors"] for r in runs.values()):
            break
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main())
