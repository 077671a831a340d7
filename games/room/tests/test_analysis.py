"""Post-game analysis (games/room/analysis.py): the judgement of plays by the hard evaluator, the
stored analysis (once per game, on request or after a game against the computer), the replay
page's marks and summary, the request button, and the task in a real Celery worker."""

import random
import time

import numpy as np
import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.bots import judge, neural, search
from games.choices import Status
from games.engine import Position, check_play, get_ruleset, legal_plays
from games.engine import record as rec
from games.room import analysis
from games.room.models import AnalysisStatus, Game, GameAnalysis
from games.tests.factories import HUMAN, FixedDice, new_bot_game, play_human_turn
from games.tests.fixtures import queued_tasks, start_worker, stop_worker

SPORT = get_ruleset("sport")
#: a short opening: white 6-5, black 3-1, white 4-2, black 6-6, white 5-3, black 2-2, white 6-4
ROLLS = [(6, 5), (3, 1), (4, 2), (6, 6), (5, 3), (2, 2), (6, 4)]
BEST_TURN, BAD_TURN = 5, 7


def scripted_record():
    """A record of the opening ``ROLLS`` (white starts with 6-5): every play the analysis's
    own best, but white's 6-4 of turn 7, the play the network rates lowest (0-ply). Returns
    ``(record, the bad play's notation)``."""
    position = Position.initial("white")
    entries, bad = [], None
    for n, dice in enumerate(ROLLS, start=1):
        plays = legal_plays(position, dice, SPORT)
        if n == BAD_TURN:
            zero = search.values(neural.network(), position.turn, [p.result for p in plays])
            pick = int(np.argmin(zero))
            bad = plays[pick].notation
        else:
            equities = judge.play_equities(position, plays, SPORT, 0)
            pick = max(equities, key=equities.get)
        entries.append(rec.Entry(n, position.turn, rec.PLAY, dice=dice, play=plays[pick].notation))
        position = plays[pick].result
    headers = [("Event", "test"), ("Preset", "sport"), ("Opening", "6-5")]
    return rec.Record(headers=headers, entries=entries), bad


def test_a_deliberately_bad_play_is_a_blunder_and_the_best_play_is_best():
    record, bad = scripted_record()
    rows, summary = analysis.analyse_record(record)
    by_turn = {row["n"]: row for row in rows}
    assert [row["n"] for row in rows] == list(range(1, len(ROLLS) + 1))

    worst = by_turn[BAD_TURN]
    assert (worst["side"], worst["dice"], worst["played"]) == ("white", [6, 4], bad)
    assert worst["mark"] == "blunder"
    assert worst["lost"] >= judge.BLUNDER
    assert worst["best"] != bad
    assert worst["lost"] == pytest.approx(worst["best_equity"] - worst["played_equity"], abs=1e-3)
    # the best play drawn on the board: the position after it, with black to move
    best_after = Position.from_json(worst["best_position"])
    assert best_after.turn == "black"

    best = by_turn[BEST_TURN]
    assert best["mark"] == "best" and best["lost"] == 0
    assert best["best"] == best["played"]

    white = summary["white"]
    assert white["analysed"] == 3 and white["blunders"] == 1 and white["best"] >= 1
    assert white["error_rate"] == pytest.approx(white["lost"] / 3, abs=1e-4)


def test_plays_with_one_legal_choice_are_forced_and_not_analysed():
    record, _ = scripted_record()
    rows, summary = analysis.analyse_record(record)
    # The first plays from the head (R5) leave no choice, nor do black's 3-1 and 6-6 here;
    # black's 2-2 may, depending on where the evaluator's own choices (the weights) led.
    forced = [row["n"] for row in rows if row["mark"] == "forced"]
    position, one_choice = Position.initial("white"), []
    for entry in record.entries:
        if len(legal_plays(position, entry.dice, SPORT)) == 1:
            one_choice.append(entry.n)
        position = check_play(position, entry.dice, entry.play, SPORT).result
    assert forced == one_choice and {1, 2, 4} <= set(forced)
    assert all("lost" not in rows[n - 1] and "best" not in rows[n - 1] for n in forced)
    black_forced = sum(1 for n in forced if n % 2 == 0)
    assert summary["black"]["forced"] == black_forced
    assert summary["black"]["analysed"] == 3 - black_forced
    assert summary["white"]["forced"] == 1 and summary["white"]["analysed"] == 3

    # A pass is forced too.
    # (white all on its head, 24; black holds white's 18: 6-6 cannot move)
    blocked = Position.from_json(
        {"turn": "white", "white": {"24": 15}, "black": {"6": 1, "24": 14}}
    )
    assert legal_plays(blocked, (6, 6), SPORT)[0].notation == ""
    assert judge.analyse_play(blocked, (6, 6), blocked, SPORT) == {"plays": 1, "mark": "forced"}


def test_throwing_away_the_last_bear_off_is_a_blunder_by_the_exact_values():
    # White bears off its last two checkers with 2-1 and wins (oin: black has one off);
    # moving 2/1 1/off instead leaves black, one checker from home, to win with any roll.
    white = (13, 1, 1) + (0,) * 22
    black = (14, 1) + (0,) * 23
    position = Position("white", white, black, False)
    plays = {p.notation: p for p in legal_plays(position, (2, 1), SPORT)}
    assert set(plays) == {"2/off 1/off", "2/1 1/off"}

    bad = judge.analyse_play(position, (2, 1), plays["2/1 1/off"].result, SPORT)
    assert bad["mark"] == "blunder"
    assert (bad["best"], bad["best_equity"], bad["played_equity"]) == ("2/off 1/off", 1.0, -1.0)
    assert bad["lost"] == 2.0

    good = judge.analyse_play(position, (2, 1), plays["2/off 1/off"].result, SPORT)
    assert (good["mark"], good["lost"], good["best"]) == ("best", 0.0, "2/off 1/off")


@pytest.mark.parametrize(
    "lost, mark",
    [
        (0.0, "best"),
        (0.0004, "best"),
        (0.001, "ok"),
        (0.0499, "ok"),
        (0.05, "mistake"),
        (0.1199, "mistake"),
        (0.12, "blunder"),
        (2.0, "blunder"),
    ],
)
def test_marks_follow_the_thresholds(lost, mark):
    assert judge.mark_of(lost) == mark


# --- the stored analysis ----------------------------------------------------------------------


def finished_bot_game(monkeypatch, turns=3):
    """A game of HUMAN (white) against the medium bot: ``turns`` turns each, then HUMAN
    resigns. The bot's turns are played here (or by a worker, if one runs); returns the
    finished game."""
    fixed = FixedDice(monkeypatch)
    game = new_bot_game(fixed, opening=(6, 5))
    # the rolls after the opening, the bot's and HUMAN's in turn: HUMAN's two leave it a
    # choice (with the seed's own dice its three plays were sometimes all forced: nothing
    # to analyse, and the tests below failed about once in thirty runs)
    fixed.rolls += [[2, 1], [5, 3], [4, 1], [4, 2], [6, 1], [5, 2]]
    rng = random.Random(3)
    for _ in range(turns):
        game = play_human_turn(game.id, rng=rng)
        while game.is_bot_turn:  # (a worker may be playing it meanwhile: then read it again)
            game = services.bot_turn(game.id, game.version) or Game.objects.get(pk=game.id)
    return services.resign(game.id, services.Actor(guest_id=HUMAN), game.version)


def replay_url(game):
    return reverse("games:replay", kwargs={"game_id": game.id})


def request_url(game):
    return reverse("games:analysis_request", kwargs={"game_id": game.id})


@pytest.mark.django_db
def test_running_the_analysis_twice_gives_one_analysis(monkeypatch):
    game = finished_bot_game(monkeypatch)
    first, queued = analysis.request_analysis(game.id)
    assert queued and first.status == AnalysisStatus.PENDING

    done = analysis.run_analysis(str(game.id))
    assert done.status == AnalysisStatus.DONE and done.version == analysis.ANALYSIS_VERSION
    plays = game.events.filter(kind="play").count()
    assert len(done.plays) == plays
    counted = done.summary["white"]["analysed"] + done.summary["white"]["forced"]
    assert counted + done.summary["black"]["analysed"] + done.summary["black"]["forced"] == plays
    stored = (done.plays, done.summary, done.finished)

    assert analysis.run_analysis(str(game.id)) is None  # nothing pending: nothing done
    assert analysis.request_analysis(game.id) == (done, False)  # done already: not queued
    assert analysis.run_analysis(str(game.id)) is None
    again = GameAnalysis.objects.get()
    assert (again.plays, again.summary, again.finished) == stored


@pytest.mark.django_db
def test_one_analysis_is_queued_at_a_time_and_a_stale_or_failed_one_again(monkeypatch):
    game = finished_bot_game(monkeypatch)
    pending, queued = analysis.request_analysis(game.id)
    assert queued
    assert analysis.request_analysis(game.id) == (pending, False)

    GameAnalysis.objects.update(
        status=AnalysisStatus.RUNNING, started=pending.requested - analysis.STALE_AFTER * 2
    )
    _, queued = analysis.request_analysis(game.id)  # a worker died with it
    assert queued and GameAnalysis.objects.get().status == AnalysisStatus.PENDING

    GameAnalysis.objects.update(status=AnalysisStatus.FAILED, error="boom")
    again, queued = analysis.request_analysis(game.id)
    assert queued and (again.status, again.error) == (AnalysisStatus.PENDING, "")
    assert GameAnalysis.objects.count() == 1


@pytest.mark.django_db
def test_a_game_in_play_cannot_be_analysed(monkeypatch):
    game = new_bot_game(FixedDice(monkeypatch), opening=(6, 5))
    with pytest.raises(analysis.AnalysisRefused) as refused:
        analysis.request_analysis(game.id)
    assert refused.value.code == "not_finished"
    assert not GameAnalysis.objects.exists()


@pytest.mark.django_db
def test_the_replay_page_shows_marks_and_the_summary(monkeypatch):
    game = finished_bot_game(monkeypatch)
    analysis.request_analysis(game.id)
    done = analysis.run_analysis(str(game.id))
    # Give one of the human's analysed plays a blunder mark, as if it had been one.
    row = next(r for r in done.plays if r["side"] == "white" and r["mark"] != "forced")
    row.update(mark="blunder", lost=0.25)
    done.summary = analysis.summarise(done.plays)
    done.save()

    response = Client().get(replay_url(game))
    assert response.status_code == 200
    html = response.content.decode()
    state = response.context["analysis"]
    assert state["status"] == "done" and not state["can_request"]
    assert "plays" not in state  # the rows travel on the frames
    frames = [f for f in response.context["frames"] if f["kind"] == "play"]
    assert [f["analysis"]["n"] for f in frames] == [r["n"] for r in done.plays]
    marked = next(f for f in frames if f["n"] == row["n"])
    assert (
        f'id="frame-{marked["index"]}" data-index="{marked["index"]}" '
        'class="replay-item replay-play an-blunder"' in html
    )
    assert 'an-mark-blunder"><span class="an-badge">Blunder</span>' in html
    assert "−0.250" in html
    assert 'id="an-best-toggle"' in html and 'id="replay-analysis"' in html
    assert "Error rate (lost per play)" in html
    summary = done.summary["white"]
    assert summary["blunders"] >= 1
    assert f"<td>{summary['analysed']}</td>" in html
    assert "a blunder at least 0.12" in html

    russian = Client().get(replay_url(game), HTTP_ACCEPT_LANGUAGE="ru")
    assert russian.status_code == 200


@pytest.mark.django_db
def test_the_replay_page_of_a_queued_analysis_says_so_and_its_status_answers(monkeypatch):
    game = finished_bot_game(monkeypatch)
    client = Client()
    page = client.get(replay_url(game)).content.decode()
    assert 'id="an-request"' in page and "Analyse this game" in page

    analysis.request_analysis(game.id)
    page = client.get(replay_url(game)).content.decode()
    assert "The analysis of this game is queued." in page and 'id="an-request"' not in page

    status = client.get(reverse("games:analysis_status", kwargs={"game_id": game.id}))
    assert status["Cache-Control"] == "no-store"
    assert status.json()["status"] == "pending" and "plays" not in status.json()
    analysis.run_analysis(str(game.id))
    done = client.get(reverse("games:analysis_status", kwargs={"game_id": game.id})).json()
    assert done["status"] == "done"
    assert len(done["plays"]) == game.events.filter(kind="play").count()
    assert done["summary"]["white"]["analysed"] >= 1


@pytest.mark.django_db
def test_the_request_button_queues_one_analysis_with_csrf(monkeypatch, unattended_queue):
    game = finished_bot_game(monkeypatch)
    client = Client(enforce_csrf_checks=True)
    page = client.get(replay_url(game))
    token = page.cookies["csrftoken"].value
    assert client.post(request_url(game)).status_code == 403  # no token
    assert not GameAnalysis.objects.exists()

    response = client.post(request_url(game), {"csrfmiddlewaretoken": token})
    assert response.status_code == 303
    assert response["Location"] == replay_url(game) + "#analysis"
    assert GameAnalysis.objects.get().status == AnalysisStatus.PENDING

    # Asked again (or by someone else) while queued: the same analysis, nothing more queued.
    other = Client(enforce_csrf_checks=True)
    other_token = other.get(replay_url(game)).cookies["csrftoken"].value
    answer = other.post(
        request_url(game), {"csrfmiddlewaretoken": other_token}, HTTP_ACCEPT="application/json"
    )
    assert answer.status_code == 200
    assert (answer.json()["status"], answer.json()["queued"]) == ("pending", False)
    assert GameAnalysis.objects.count() == 1


@pytest.mark.django_db
def test_the_request_is_refused_for_a_game_in_play(monkeypatch):
    game = new_bot_game(FixedDice(monkeypatch), opening=(6, 5))
    player = Client()
    session = player.session
    session["guest_id"] = HUMAN
    session.save()
    page = player.get(replay_url(game)).content.decode()
    assert 'id="an-request"' not in page  # no button while the game is on
    response = player.post(request_url(game), HTTP_ACCEPT="application/json")
    assert response.status_code == 409
    assert response.json()["error"] == "not_finished"
    assert not GameAnalysis.objects.exists()
    # Onlookers do not even see the replay of a game in play.
    assert Client().post(request_url(game)).status_code == 404
    assert Client().get(replay_url(game)).status_code == 404


# --- the task in a real Celery worker ---------------------------------------------------------


@pytest.fixture(scope="module")
def analysis_worker(test_process_env, celery_test_queue, tmp_path_factory):
    """A Celery worker reading the analyses' queue of this run (analysis.analysis_queue)."""
    from nardy_site.celery import app

    queue = analysis.analysis_queue(app)
    worker = start_worker(
        test_process_env, queue, tmp_path_factory.mktemp("analysis") / "worker.log"
    )
    try:
        yield worker
    finally:
        stop_worker(worker)


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_a_finished_game_against_the_computer_is_analysed_by_the_worker(
    monkeypatch, analysis_worker
):
    game = finished_bot_game(monkeypatch, turns=4)
    assert game.status == Status.FINISHED
    deadline = time.monotonic() + 60
    stored = None
    while time.monotonic() < deadline:
        stored = GameAnalysis.objects.filter(game=game).first()
        if stored is not None and stored.status in (AnalysisStatus.DONE, AnalysisStatus.FAILED):
            break
        time.sleep(0.2)
    assert stored is not None, "the end of the game queued no analysis"
    assert stored.status == AnalysisStatus.DONE, (stored.error, analysis_worker.log()[-3000:])
    assert len(stored.plays) == Game.objects.get(pk=game.id).events.filter(kind="play").count()
    assert stored.duration_ms is not None and stored.method == analysis.METHOD
    assert f"analysis game={game.id}" in analysis_worker.log()
    assert queued_tasks(analysis_worker.queue) == 0
