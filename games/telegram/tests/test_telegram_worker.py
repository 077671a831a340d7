"""Telegram notices through a real Celery worker and a local stub of the Bot API: a player
who left the game's page is told each time the turn comes to them, Telegram's "wait"
(429 with retry_after) and a server error are waited out and tried again, and a user who
blocked the bot is switched off. Writes the time from a move to its notice reaching the
Bot API (median and worst) to artifacts/telegram/notices.json."""

import json
import os
import statistics
import time
import uuid
from pathlib import Path

import pytest

from games.telegram import links
from games.telegram.tests.test_telegram_bot import awaiting_user, people_game, player, take_turn
from games.tests.fixtures import _delete_queue, start_worker, stop_worker
from games.tests.telegram_helpers import (  # noqa: F401 - fixtures used by name
    bot_api_stub,
    telegram_env,
    telegram_on,
)
from nardy_site.celery import app as celery_app

ARTIFACTS = Path(__file__).resolve().parents[3] / "artifacts" / "telegram"
SAMPLES = 10


@pytest.fixture
def telegram_worker(transactional_db, test_process_env, celery_test_queue, telegram_on, tmp_path):
    """A Celery worker with Telegram on (the made-up bot, the stub's URL), reading a queue
    of its own, where this process's tasks go for the test."""
    queue = f"{celery_test_queue}-telegram"
    env = dict(
        test_process_env,
        SITE_URL="https://nardy.example",
        # counters of this test's own (the chats' ids recur from run to run)
        GAMES_RATELIMIT_KEY_PREFIX=f"test-telegram-{uuid.uuid4().hex}",
        **telegram_env(telegram_on.url),
    )
    worker = start_worker(env, queue, tmp_path / "worker.log")
    celery_app.conf.task_default_queue = queue
    try:
        yield worker
    finally:
        celery_app.conf.task_default_queue = celery_test_queue
        stop_worker(worker)
        _delete_queue(queue)


def turn_comes_to(game, user, other):
    """``other`` plays until it is ``user``'s turn; returns the game and the time (s, epoch)
    the move that handed the turn over was committed."""
    moved_at = None
    while awaiting_user(game) != user:
        game = take_turn(game.pk, other)
        moved_at = time.time()
    return game, moved_at


@pytest.mark.celery
def test_turn_notices_go_out_through_the_worker_and_wait_out_telegrams_refusals(
    telegram_worker, telegram_on
):
    stub = telegram_on
    white, black = player(990001), player(990002, notices_on=False)
    game = people_game(white, black)
    stub.wait_for(1)  # "your challenge was accepted" to its maker
    time.sleep(1.05)  # Telegram allows one message a second per chat
    if awaiting_user(game) == white:
        game = take_turn(game.pk, white)
    latencies = []
    for _sample in range(SAMPLES):
        before = len(stub.calls)
        game, moved_at = turn_comes_to(game, white, black)
        call = stub.wait_for(before + 1)[-1]
        assert call["payload"]["chat_id"] == 990001
        assert call["payload"]["text"].startswith("Your turn in the game against")
        latencies.append((call["at"] - moved_at) * 1000)
        time.sleep(1.05)  # Telegram allows one message a second per chat
        game = take_turn(game.pk, white)

    # Telegram says "wait 1 s": the notice goes out again after it
    stub.rate_limited(1)
    before = len(stub.calls)
    game, moved_at = turn_comes_to(game, white, black)
    refused, sent = stub.wait_for(before + 2)[-2:]
    assert sent["at"] - refused["at"] >= 1.0
    assert sent["payload"] == refused["payload"]
    time.sleep(1.05)
    game = take_turn(game.pk, white)

    # a server error: tried again a second later
    stub.answer(502, {"ok": False, "description": "Bad Gateway"})
    before = len(stub.calls)
    game, moved_at = turn_comes_to(game, white, black)
    failed, sent = stub.wait_for(before + 2)[-2:]
    assert sent["at"] - failed["at"] >= 0.9
    time.sleep(1.05)
    game = take_turn(game.pk, white)

    # the user blocked the bot: switched off, and told nothing more
    stub.blocked()
    before = len(stub.calls)
    game, moved_at = turn_comes_to(game, white, black)
    stub.wait_for(before + 1)
    deadline = time.monotonic() + 10
    while links.sending_to(white.pk) is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert links.sending_to(white.pk) is None
    game = take_turn(game.pk, white)
    game, moved_at = turn_comes_to(game, white, black)
    time.sleep(1.5)
    assert len(stub.calls) == before + 1
    assert "telegram notice kind=turn" in telegram_worker.log()

    figures = {
        "samples": len(latencies),
        "median_ms": round(statistics.median(latencies), 1),
        "worst_ms": round(max(latencies), 1),
        "all_ms": [round(value, 1) for value in latencies],
        "load_average": [round(value, 2) for value in os.getloadavg()],
        "database": "postgresql" if "postgres" in telegram_worker.env["DATABASE_URL"] else "sqlite",
    }
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "notices.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(f"\nmove -> turn notice at the Bot API: {figures}")
