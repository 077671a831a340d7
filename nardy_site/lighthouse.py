"""Lighthouse over every page type of the site (issue #15): ``scripts/lighthouse`` starts a
site and runs this; ``python -m nardy_site.lighthouse --base URL --modules DIR`` audits a site
already running on this machine's database and Redis (the same settings and environment).

Pages that need data get it first, made through the services like a visitor's actions: a game
against the computer to play (its guest session is given to the browser as a cookie, so the
game page and its socket see its player), a finished game between two guests with its analysis
(the replay), an open challenge link and a player's profile. Each page is audited as a phone
(Lighthouse's mobile default: Moto G Power, slow 4G, 4x CPU slowdown, simulated) and as a
desktop (Lighthouse's desktop config); Lighthouse is the npm package ``lighthouse`` at
``LIGHTHOUSE_VERSION``, driven by scripts/lighthouse-audit.mjs on Debian's Chromium. The
reports go to ``--out`` (default ``artifacts/lighthouse/``); a table of the four category
scores (0-100), CLS and LCP (s) is printed and saved as ``summary.md``, with the INP (ms) of a
tap on "Roll the dice" timed by a Lighthouse user flow in ``--rolls`` games (a phone, 4x CPU
slowdown applied by DevTools).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from importlib import import_module
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE_VERSION = "12.2.3"
CHROMIUM = "/usr/bin/chromium"
#: pages that need nothing made first: name -> path after the language prefix
STATIC_PAGES = {
    "home": "",
    "rules": "rules/",
    "faq": "faq/",
    "glossary": "glossary/",
    "first steps": "first-steps/",
    "new game (my games)": "games/",
    "play a friend": "friend/",
    "lobby": "lobby/",
    "leaderboard": "leaderboard/",
    "tournaments": "tournaments/",
    "sign-in": "accounts/login/",
    "record import": "records/import/",
}
# The error pages are not here: Lighthouse refuses to audit a page answered with an error
# status (the axe test covers the 404 page).
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
#: how many turns the replay's game runs before it is resigned (a few plays to analyse)
REPLAY_TURNS = 16


def setup_django():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nardy_site.settings")
    import django

    django.setup()


def guest_session(guest_id):
    """A saved session of the guest ``guest_id``, as a browser that played would hold: its
    key, for the ``sessionid`` cookie."""
    from django.conf import settings

    from games.accounts.guests import GUEST_SESSION_KEY

    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store[GUEST_SESSION_KEY] = guest_id
    store.save()
    return store.session_key


def first_legal_play(game):
    """The notation of the first legal play of ``game``'s side to play with its dice."""
    from games.engine import legal_plays

    return legal_plays(game.get_position(), tuple(game.dice), game.ruleset)[0].notation


def play_both_sides(game_id, turns):
    """Play ``turns`` actions of a game between two guests (each rolls, then plays the first
    legal play), then the side to move resigns: a finished game with a record."""
    from games import services
    from games.choices import Phase
    from games.room.models import Game

    for _ in range(turns):
        game = Game.objects.get(pk=game_id)
        if game.status != "active":
            return
        actor = services.Actor(guest_id=game.guest_of(game.awaiting))
        if game.phase == Phase.ROLL:
            services.roll(game_id, actor, game.version)
        else:
            services.play(game_id, actor, game.version, first_legal_play(game))
    game = Game.objects.get(pk=game_id)
    if game.status == "active":
        services.resign(
            game_id, services.Actor(guest_id=game.guest_of(game.awaiting)), game.version
        )


def game_at_roll(player):
    """A new game of the guest ``player`` (white) against the computer, brought to the
    player's roll: the opening played for them if they start, the computer's move made by the
    site's worker. The game page then always shows the same kind of moment."""
    from games import services
    from games.choices import Phase
    from games.room.models import Game

    game = services.create_bot_game(player, bot_level="easy", human_side="white")
    actor = services.Actor(guest_id=player)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        game = Game.objects.get(pk=game.pk)
        if game.awaiting == "white" and game.phase == Phase.ROLL:
            return game
        if game.awaiting == "white" and game.phase == Phase.PLAY:
            services.play(game.pk, actor, game.version, first_legal_play(game))
        else:
            time.sleep(0.2)
    raise SystemExit("the computer did not move within 60 s: is the site's Celery worker up?")


def made_pages():
    """Paths (after the language prefix) of the pages that need data, made now in this site's
    database, and the cookie header of the game page's player: ``(pages, {name: cookie})``."""
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from games import services
    from games.accounts.models import Profile
    from games.room import analysis

    stamp = str(int(time.time()))
    player = f"lighthouse-{stamp}"
    game = game_at_roll(player)
    challenge = services.create_challenge(f"lighthouse-friend-{stamp}", preset="sport")
    played = services.accept_challenge(
        services.create_challenge(f"lighthouse-a-{stamp}", preset="sport", colour="white").pk,
        f"lighthouse-b-{stamp}",
    )
    play_both_sides(played.pk, REPLAY_TURNS)
    analysis.request_analysis(played.pk)
    analysis.run_analysis(played.pk)  # here, as the analysis worker would
    user = get_user_model().objects.create(username=f"lighthouse-{stamp}")
    Profile.objects.create(user=user, display_name="Lighthouse")
    pages = {
        "game (its player)": f"game/{game.pk}/",
        "game (onlooker)": f"game/{game.pk}/",
        "replay with analysis": f"game/{played.pk}/replay/",
        "challenge": f"challenge/{challenge.pk}/",
        "player profile": f"players/{user.pk}/",
    }
    cookies = {"game (its player)": f"{settings.SESSION_COOKIE_NAME}={guest_session(player)}"}
    return pages, cookies


def roll_inp_ms(report_path):
    """The INP (ms) of the tap on Roll in one roll flow's report (its timespan step)."""
    flow = json.loads(Path(report_path).read_text())
    return flow["steps"][1]["lhr"]["audits"]["interaction-to-next-paint"]["numericValue"]


def lighthouse_command(modules, url, out, mode, cookie):
    """The command line of one audit (JSON report to ``out``; ``mode`` "mobile", "desktop" or
    "roll", the timed tap on Roll of a game page): scripts/lighthouse-audit.mjs,
    which gives the browser ``cookie`` ("name=value") as its own cookie, so that the page's
    WebSocket carries it too (Lighthouse's --extra-headers reaches HTTP requests only)."""
    command = [
        "node",
        str(ROOT / "scripts" / "lighthouse-audit.mjs"),
        modules,
        url,
        str(out),
        mode,
    ]
    if cookie:
        command.append(cookie)
    return command


def run_with_retries(command, env, attempts=3):
    """Run one audit; Lighthouse now and then fails to record a page load's trace
    (NO_NAVSTART, a known flake on a busy machine): such a run is repeated, up to
    ``attempts`` times, before giving up."""
    for attempt in range(1, attempts + 1):
        done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL)
        if done.returncode == 0:
            return
        print(f"lighthouse failed (attempt {attempt} of {attempts})", file=sys.stderr)
    raise SystemExit(f"lighthouse failed {attempts} times: {' '.join(command[:2])}")


def scores(report_path):
    """``{category: 0-100, "cls": float, "lcp_s": float}`` of one Lighthouse JSON report."""
    report = json.loads(Path(report_path).read_text())
    found = {name: round(report["categories"][name]["score"] * 100) for name in CATEGORIES}
    found["cls"] = report["audits"]["cumulative-layout-shift"]["numericValue"]
    found["lcp_s"] = report["audits"]["largest-contentful-paint"]["numericValue"] / 1000
    return found


def table(rows):
    """The Markdown table of ``rows`` (``[(page, language, form, scores)]``)."""
    lines = [
        "| page | lang | form | perf | a11y | best practices | SEO | CLS | LCP s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for page, lang, form, found in rows:
        lines.append(
            f"| {page} | {lang} | {form} | {found['performance']} | {found['accessibility']} "
            f"| {found['best-practices']} | {found['seo']} | {found['cls']:.3f} "
            f"| {found['lcp_s']:.1f} |"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the site, e.g. http://127.0.0.1:8000")
    parser.add_argument(
        "--modules", required=True, help="node_modules where the npm package lighthouse is"
    )
    parser.add_argument("--languages", default="en", help="comma-separated, e.g. ru,bg,en")
    parser.add_argument("--only", default="", help="comma-separated page names to audit")
    parser.add_argument("--out", default=str(ROOT / "artifacts" / "lighthouse"))
    parser.add_argument("--rolls", type=int, default=5, help="games whose roll INP is timed")
    args = parser.parse_args(argv)

    setup_django()
    from django.conf import settings

    made, cookies = made_pages()
    pages = dict(STATIC_PAGES, **made)
    if args.only:
        wanted = {name.strip() for name in args.only.split(",")}
        pages = {name: path for name, path in pages.items() if name in wanted}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, CHROME_PATH=CHROMIUM)
    rows = []
    for lang in args.languages.split(","):
        for name, path in pages.items():
            for form in ("mobile", "desktop"):
                slug = "".join(c if c.isalnum() else "-" for c in name).strip("-")
                report = out / f"{slug}-{lang}-{form}.json"
                url = f"{args.base.rstrip('/')}/{lang}/{path}"
                command = lighthouse_command(args.modules, url, report, form, cookies.get(name))
                run_with_retries(command, env)
                rows.append((name, lang, form, scores(report)))
                print(table(rows[-1:]).splitlines()[-1], flush=True)
    summary = table(rows)
    inps = []
    for run in range(args.rolls):
        # each tap on a game of its own, at the player's roll (a phone, 4x CPU slowdown)
        player = f"lighthouse-roll-{run}-{int(time.time())}"
        game = game_at_roll(player)
        report = out / f"roll-{run}.json"
        url = f"{args.base.rstrip('/')}/en/game/{game.pk}/"
        cookie = f"{settings.SESSION_COOKIE_NAME}={guest_session(player)}"
        run_with_retries(lighthouse_command(args.modules, url, report, "roll", cookie), env)
        inps.append(roll_inp_ms(report))
        print(f"roll {run + 1}: INP {inps[-1]:.0f} ms", flush=True)
    if inps:
        summary += (
            f"\n\nINP of a tap on Roll (phone, 4x CPU slowdown), {len(inps)} games: median "
            f"{statistics.median(inps):.0f} ms, worst {max(inps):.0f} ms\n"
        )
    (out / "summary.md").write_text(summary + "\n")
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
