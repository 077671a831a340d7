"""End to end in headless Chromium: the game page on the event protocol (docs/protocol.md,
"Events"). The page's socket is answered by the test, not the server (which sends snapshots
only, for now): a greeting snapshot, then `event` frames, a gap, a touch, the final snapshot.
The page must do with an event what it does with a snapshot (say the opponent's play, offer
the next action, stage on the event's `legal.graph`, send the version the event made), ask for
one snapshot after a gap, and take a socket that stays silent after a touch for dead.
"""

import json
import re
import time

import pytest

from games.room.tests.test_e2e_browser import (  # noqa: F401 - fixtures used by name
    browser,
    daphne_server,
    open_new_game,
)

pytestmark = pytest.mark.e2e

READY_AT_JS = """(v) => { const root = document.getElementById("game");
                          return root.dataset.ready === "true" && Number(root.dataset.version) === v; }"""


def other(side):
    return "black" if side == "white" else "white"


def point_for_white(side, point):
    """A point of `side`'s numbering in white's (the board's `data-point`)."""
    return point if side == "white" else (point + 12 if point <= 12 else point - 12)


class FakeServer:
    """Takes the page's game socket over (page.route_web_socket): keeps what the page sends
    and sends the test's frames."""

    def __init__(self, page):
        self.page = page
        self.sockets = []
        self.sent = []
        page.route_web_socket(re.compile(r"/ws/game/"), self.route)

    def route(self, ws):
        self.sockets.append(ws)
        ws.on_message(lambda message: self.sent.append(json.loads(message)))

    def wait(self, condition, seconds=10):
        deadline = time.monotonic() + seconds
        while not condition():
            assert time.monotonic() < deadline, "waited in vain"
            self.page.wait_for_timeout(50)

    def send(self, frame):
        self.sockets[-1].send(json.dumps(frame))


def greeting(initial, version):
    """The viewer has just played 24/18 18/13; the computer is to roll."""
    me = initial["you"]
    them = other(me)
    return dict(
        initial,
        version=version,
        status="active",
        phase="roll",
        turn=them,
        awaiting=them,
        dice=None,
        actions=["resign"],
        legal=None,
        result=None,
        position={"turn": them, me: {"24": 14, "13": 1}, them: {"24": 15}, "first_turn": False},
        pips={me: 349, them: 360},
        last={"side": me, "dice": [6, 5], "play": "24/18 18/13", "version": version},
        history=[
            {
                "n": 1,
                "side": me,
                "kind": "play",
                "dice": [6, 5],
                "play": "24/18 18/13",
                "version": version,
            }
        ],
    )


def test_event_frames_take_the_snapshots_path(daphne_server, browser):
    page, _game_id, page_errors = open_new_game(browser, daphne_server.base)
    server = FakeServer(page)
    page.reload()
    page.wait_for_selector("#board [data-point]")
    server.wait(lambda: server.sockets)
    initial = page.evaluate("""() => { const data = JSON.parse(document.getElementById("initial-snapshot").textContent);
                                       return data.game || data; }""")
    me, them = initial["you"], other(initial["you"])
    v = initial["version"] + 10
    server.send({"type": "snapshot", "game": greeting(initial, v)})
    page.wait_for_function(READY_AT_JS, arg=v)

    # The computer's roll and play, as one event: said, listed, and the roll offered.
    server.send(
        {
            "type": "event",
            "version": v + 2,
            "from": v,
            "events": [
                {"seq": v + 1, "kind": "roll", "side": them},
                {"seq": v + 2, "kind": "play", "side": them},
            ],
            "history": [
                {
                    "n": 2,
                    "side": them,
                    "kind": "play",
                    "dice": [6, 5],
                    "play": "24/18 18/13",
                    "version": v + 2,
                }
            ],
            "changes": {
                "phase": "roll",
                "turn": me,
                "awaiting": me,
                "position": {
                    "turn": me,
                    me: {"24": 14, "13": 1},
                    them: {"24": 14, "13": 1},
                    "first_turn": False,
                },
                "position_id": "AAAAAAAAAAAAAB",
                "pips": {me: 349, them: 349},
                "last": {"side": them, "dice": [6, 5], "play": "24/18 18/13", "version": v + 2},
            },
            "actions": ["roll", "resign"],
            "legal": None,
        }
    )
    page.wait_for_function(READY_AT_JS, arg=v + 2)
    said = "The computer rolled 6\u20115 and played 12/6 6/1."
    assert page.locator("#last-play").inner_text() == said
    # the live region says the play and what the viewer is to do now
    page.wait_for_function(
        "(text) => document.getElementById('announce').textContent === text",
        arg=said + " Your turn: roll the dice.",
    )
    assert page.locator("#status").inner_text() == "Your turn: roll the dice."
    assert page.locator("#history-list .history-play").all_inner_texts() == [
        "24/18 18/13",
        "12/6 6/1",
    ]

    # Rolling sends the version the event made; the roll comes back as an event with a graph.
    page.locator("#roll-btn").click()
    server.wait(lambda: server.sent and server.sent[-1]["type"] == "roll")
    assert server.sent[-1] == {"type": "roll", "version": v + 2}
    graph = {
        "nodes": [
            {"steps": {"13/10": 1}, "final": False},
            {"steps": {"10/9": 2}, "final": False},
            {"steps": {}, "final": True},
        ]
    }
    server.send(
        {
            "type": "event",
            "version": v + 3,
            "from": v + 2,
            "events": [{"seq": v + 3, "kind": "roll", "side": me}],
            "history": [],
            "changes": {"phase": "play", "dice": [3, 1]},
            "actions": ["play", "resign"],
            "legal": {
                "plays": [{"play": "13/10 10/9"}],
                "graph": graph,
                "pass": False,
                "why_not": {},
            },
        }
    )
    page.wait_for_function(READY_AT_JS, arg=v + 3)
    page.locator(f'#board [data-point="{point_for_white(me, 13)}"]').click()
    page.locator(f'#board [data-point="{point_for_white(me, 9)}"]').click()
    assert page.locator("#confirm-btn").is_enabled()
    page.locator("#confirm-btn").click()
    server.wait(lambda: server.sent[-1]["type"] == "play")
    assert server.sent[-1] == {"type": "play", "version": v + 3, "play": "13/10 10/9"}

    # Events the page cannot place ask for one snapshot; a touch above its version asks again.
    asked = len([frame for frame in server.sent if frame["type"] == "snapshot"])
    server.send(
        {
            "type": "event",
            "version": v + 6,
            "from": v + 5,
            "changes": {},
            "actions": [],
            "legal": None,
        }
    )
    server.send(
        {
            "type": "event",
            "version": v + 7,
            "from": v + 6,
            "changes": {},
            "actions": [],
            "legal": None,
        }
    )
    server.send({"type": "touch", "version": v + 3})
    server.wait(lambda: len([f for f in server.sent if f["type"] == "snapshot"]) == asked + 1)
    page.wait_for_timeout(300)
    assert len([f for f in server.sent if f["type"] == "snapshot"]) == asked + 1
    server.send({"type": "touch", "version": v + 7})
    server.wait(lambda: len([f for f in server.sent if f["type"] == "snapshot"]) == asked + 2)
    assert page.locator("#game").get_attribute("data-version") == str(v + 3)

    # The game's end comes as a snapshot, as before.
    final = dict(
        greeting(initial, v + 8),
        status="finished",
        phase="over",
        turn=None,
        awaiting=None,
        actions=[],
        result={
            "winner": them,
            "kind": "oin",
            "points": 1,
            "reason": "resign",
            "cube": 1,
            "loser": me,
            "match_lost": False,
            "rating": None,
        },
    )
    server.send({"type": "snapshot", "game": final})
    page.wait_for_selector("#result:not([hidden])")
    assert page.locator("#result-reason").inner_text() == "You resigned."
    assert not page_errors, page_errors


def test_a_socket_silent_for_45_s_after_a_touch_is_dropped_and_opened_again(daphne_server, browser):
    page, _game_id, page_errors = open_new_game(browser, daphne_server.base)
    server = FakeServer(page)
    # the page's timers on Playwright's clock: the 45 s pass at once, and exactly
    page.clock.install()
    page.reload()
    page.wait_for_selector("#board [data-point]")
    server.wait(lambda: server.sockets)
    initial = page.evaluate("""() => { const data = JSON.parse(document.getElementById("initial-snapshot").textContent);
                                       return data.game || data; }""")
    v = initial["version"] + 10
    server.send({"type": "snapshot", "game": greeting(initial, v)})
    page.wait_for_function(READY_AT_JS, arg=v)
    server.send({"type": "touch", "version": v})
    page.wait_for_timeout(200)  # the touch is in (real time: the socket's own delivery)
    page.clock.run_for(44_900)
    page.wait_for_timeout(200)
    assert len(server.sockets) == 1, "dropped before 45 s of silence"
    page.clock.run_for(100 + 1_000)  # the drop, then the first pause (0.5 s, +-20 %)
    server.wait(lambda: len(server.sockets) == 2, seconds=10)
    assert not page_errors, page_errors
