"""Hints in casual games against the computer (docs/protocol.md "Hints"): the best play of the
roll, the equity the player's play lost, in the socket's language; refused in rated games,
between people and to onlookers; nothing changes."""

import json

import numpy as np
import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.utils import translation

from games import ratelimits, services
from games.bots import judge, neural, search
from games.engine import legal_plays
from games.room.tests.test_consumers import communicator, connect, fixed  # noqa: F401 - a fixture
from games.services import dispatch, hints
from games.tests.factories import (
    HUMAN,
    ONLOOKER,
    new_bot_game,
    new_people_game,
    state,
    unchanged,
)
from nardy_site.celery import app as celery_app

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unattended_queue")]

ME = services.Actor(guest_id=HUMAN)


@pytest.fixture(autouse=True)
def whole_search(monkeypatch):
    """The hints search to the end: under its time cap a loaded machine stops it a ply
    earlier, and these tests compare its answers with the search's own."""
    monkeypatch.setattr(neural, "EXPERT_CAP_S", None)


def game_with_a_choice(fixed):
    """A game against the computer where the human (white) is to play 6-3 with a real choice:
    the forced opening 6-5, the computer's 5-2, then white's roll."""
    game = new_bot_game(fixed, opening=(6, 5))
    game = services.play(game.id, ME, game.version, "24/18 18/13")
    fixed.rolls += [[5, 2], [6, 3]]
    game = services.bot_turn(game.id, game.version)
    game = services.roll(game.id, ME, game.version)
    assert len(legal_plays(game.get_position(), (6, 3), game.ruleset)) > 3
    return game


def expert_best(game):
    """The expert search's best play (notation) of the game's position and roll."""
    position = game.get_position()
    plays = legal_plays(position, tuple(game.dice), game.ruleset)
    return plays[neural.rank_expert(position, plays, cap_s=None).index].notation


def test_the_hint_is_the_expert_search_best_play_and_changes_nothing(fixed):
    game = game_with_a_choice(fixed)
    with unchanged(game.id):
        frame = services.hint(game, ME)
    assert frame["type"] == "hint" and frame["version"] == game.version
    assert frame["best"] == expert_best(game) == frame["plays"][0]["play"]
    assert not frame["forced"] and 1 <= len(frame["plays"]) <= 3
    equities = [p["equity"] for p in frame["plays"]]
    assert equities == sorted(equities, reverse=True)
    assert frame["message"].startswith("The best play: " + frame["best"] + " (equity ")


def test_after_a_worse_play_the_judgement_says_what_it_lost_and_which_was_best(fixed):
    game = game_with_a_choice(fixed)
    position, dice = game.get_position(), tuple(game.dice)
    best = expert_best(game)
    plays = legal_plays(position, dice, game.ruleset)
    zero = search.values(neural.network(), position.turn, [p.result for p in plays])
    bad = plays[int(np.argmin(zero))]  # the play the network likes least
    expected = judge.analyse_play(position, dice, bad.result, game.ruleset, cap_s=None)
    assert expected["lost"] > 0.05, expected
    services.play(game.id, ME, game.version, bad.notation)
    game.refresh_from_db()
    with unchanged(game.id):
        frame = services.judge_last_play(game, ME)
    lost = expected["lost"]
    assert (frame["type"], frame["played"], frame["best"]) == ("judged", bad.notation, best)
    assert frame["lost"] == lost and frame["mark"] == judge.mark_of(lost) != "best"
    shown = hints.two_decimals(lost)
    assert frame["message"] == f"That play lost {shown} points; the best was {best}."


def test_the_best_play_is_judged_best_and_a_forced_one_forced(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    hint = services.hint(game, ME)
    assert hint["forced"] and hint["message"] == "Only one play is possible: 24/18 18/13."
    services.play(game.id, ME, game.version, hint["best"])
    game.refresh_from_db()
    assert services.judge_last_play(game, ME)["message"] == (
        "That play was forced: there was no other."
    )
    game = game_with_a_choice(fixed)
    best = services.hint(game, ME)["best"]
    services.play(game.id, ME, game.version, best)
    game.refresh_from_db()
    frame = services.judge_last_play(game, ME)
    assert (frame["mark"], frame["lost"], frame["message"]) == (
        "best",
        0.0,
        "That was the best play.",
    )


def test_hints_are_refused_between_people_to_onlookers_and_out_of_turn(fixed):
    people = new_people_game(True, fixed=fixed)
    for viewer in (services.Actor(guest_id="guest-white"), services.Actor(guest_id="guest-black")):
        with pytest.raises(services.NoHints):
            services.hint(people, viewer)
        with pytest.raises(services.NoHints):
            services.judge_last_play(people, viewer)
    game = new_bot_game(fixed, opening=(6, 5))
    with pytest.raises(services.NoHints):
        services.hint(game, services.Actor(guest_id=ONLOOKER))
    with pytest.raises(services.NothingToJudge):
        services.judge_last_play(game, ME)
    game.rated = True  # the same game rated: no hints (no rated game has a computer today)
    with pytest.raises(services.NoHints):
        services.hint(game, ME)
    bot_first = new_bot_game(fixed, opening=(1, 6))  # the computer (black) is to play
    with pytest.raises(services.NotYourTurn):
        services.hint(bot_first, ME)


def test_the_snapshot_says_whom_hints_are_offered_to(fixed):
    game = new_bot_game(fixed, opening=(6, 5))
    assert services.snapshot(game, ME)["game"]["hints"] is True
    assert services.snapshot(game, services.Actor(guest_id=ONLOOKER))["game"]["hints"] is False
    people = new_people_game(True, fixed=fixed)
    viewer = services.Actor(guest_id="guest-white")
    assert services.snapshot(people, viewer)["game"]["hints"] is False


def test_a_hint_and_a_judgement_over_the_socket_in_russian_come_from_the_worker(
    fixed, celery_worker_process
):
    game = game_with_a_choice(fixed)  # made while no worker reads the queue (the fixture)
    before = state(game.id)
    celery_app.conf.task_default_queue = celery_worker_process.queue  # questions: the worker

    async def scenario():
        comm = await communicator(game.id, path=f"/ws/game/{game.id}/?lang=ru")
        await connect(comm)
        frames = []
        for question in ("judge", "hint", "hint"):
            await comm.send_json_to({"type": question})
            frames.append(json.loads(await comm.receive_from(timeout=20)))
        await comm.disconnect()
        return frames

    judged, hint, again = async_to_sync(scenario)()
    # the judgement of white's forced opening, then the hint for its 6-3, searched by the
    # worker; asked again, the same hint comes at once from the cache
    assert (
        judged["type"] == "judged" and judged["message"] == "Ход был вынужденным: другого не было."
    )
    assert hint["type"] == "hint" and hint["message"].startswith("Лучший ход: " + hint["best"])
    assert "," in hint["message"]  # the equity in the Russian format: +0,23
    assert again == hint
    assert state(game.id) == before
    assert "games.hint" in celery_worker_process.log()


def test_a_question_the_game_has_moved_past_is_answered_with_an_error(fixed, monkeypatch):
    game = game_with_a_choice(fixed)
    sent = []
    monkeypatch.setattr(dispatch, "send_to_socket", lambda channel, message: sent.append(message))
    services.play(game.id, ME, game.version, services.hint(game, ME)["best"])
    services.answer_hint("hint", str(game.id), "white", "a-channel", "bg")
    frame = sent[0]["frame"]
    assert (sent[0]["type"], frame["type"], frame["code"]) == (
        "hint.answer",
        "error",
        "not_your_turn",
    )
    assert frame["message"] == "Сега не е ваш ред."


def test_one_socket_asking_again_queues_one_search_and_the_limits_count_searches(
    fixed, settings, monkeypatch
):
    game = game_with_a_choice(fixed)
    queued = []
    monkeypatch.setattr(dispatch, "send_hint_question", lambda *args: queued.append(args))

    def count_search():  # as the consumer counts a hint (here every question)
        try:
            ratelimits.check_hint(("session", "s1"), "10.0.0.1")
        except ratelimits.RateLimited as limited:
            raise services.TooManyHints(limited.message) from None

    def ask(kind, channel):
        return services.ask_hint(game, ME, kind, channel, "en", count_search)

    for _ in range(5):  # a flood from one socket: one search on its way
        assert ask("hint", "chan-1") is None
    assert len(queued) == 1
    settings.GAMES_HINT_SESSION_LIMITS = "1/minute"
    ask("hint", "chan-2")  # another tab
    with pytest.raises(services.TooManyHints) as refused:
        ask("judge", "chan-2")
    assert refused.value.message.startswith("Too many hints in a short time. Please wait ")
    assert len(queued) == 2
    # an answer in the cache costs nothing and is not counted
    services.hint(game, ME)
    frame = ask("hint", "chan-3")
    assert frame["type"] == "hint" and len(queued) == 2


def human_to_play(game_id):
    """Play the computer's turns (no worker reads the queue) and roll for the human (white)
    until the human is to play; returns the game."""
    from games.room.models import Game

    while True:
        game = Game.objects.get(pk=game_id)
        assert game.status == "active", "the game ended too soon for the test"
        if game.turn != "white":
            services.bot_turn(game.id, game.version)
        elif game.phase == "roll":
            services.roll(game.id, ME, game.version)
        else:
            return game


def play_turns(game_id, turns):
    """The human's next ``turns`` turns in a game against the computer, yielding what the
    page asks between them: "hint" once the human is to play, "judge" after its play."""
    for _ in range(turns):
        game = human_to_play(game_id)
        yield "hint"
        plays = legal_plays(game.get_position(), tuple(game.dice), game.ruleset)
        services.play(game.id, ME, game.version, plays[0].notation)
        yield "judge"


async def drained(comm):
    """Every frame ``comm`` has been sent and not yet read."""
    frames = []
    while not await comm.receive_nothing(timeout=0.3):
        frames.append(json.loads(await comm.receive_from()))
    return frames


def test_judging_every_play_leaves_the_hint_limit_to_the_hints_asked(fixed, monkeypatch):
    """Issue #30: a player asking for a hint on every turn, with the page judging each play, as
    fast as 20 turns a minute (3 s a turn), under the real default limits: every hint and every
    judgement goes to the worker, none is refused. Only a 21st hint in that minute is, with
    the wait the page counts down."""
    game = new_bot_game(fixed, opening=(6, 5))
    queued = []
    monkeypatch.setattr(dispatch, "send_hint_question", lambda kind, *args: queued.append(kind))
    turns = play_turns(game.id, 20)

    async def scenario():
        comm = await communicator(game.id)
        await connect(comm)
        frames = []
        while question := await sync_to_async(next)(turns, None):
            await comm.send_json_to({"type": question})
            frames += await drained(comm)
        # a 21st turn within the minute: its hint is over the hint limit
        await sync_to_async(human_to_play)(game.id)
        frames += await drained(comm)
        await comm.send_json_to({"type": "hint"})
        refusal = json.loads(await comm.receive_from(timeout=5))
        await comm.disconnect()
        return frames, refusal

    frames, refusal = async_to_sync(scenario)()
    assert [f for f in frames if f["type"] not in ("event", "snapshot")] == []
    assert queued.count("hint") == 20 and queued.count("judge") == 20
    assert (refusal["type"], refusal["code"]) == ("error", "too_many_hints")
    assert 0 < refusal["retry_after"] <= 60
    assert refusal["message"].startswith("Too many hints in a short time. Please wait ")


def test_equities_and_losses_are_rounded_not_cut():
    assert hints.two_decimals(0.148) == "0.15" and hints.two_decimals(0.0297) == "0.03"
    assert (hints.points(-0.308), hints.points(0.004), hints.points(-0.004)) == (
        "\u22120.31",
        "0.00",
        "0.00",
    )
    with translation.override("ru"):
        assert hints.points(0.231) == "+0,23"
