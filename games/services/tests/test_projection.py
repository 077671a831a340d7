"""What one viewer is sent after a change (games/services/projection.py, docs/protocol.md
"Events"): old news is skipped, a gap or an ended game asks for a snapshot, and an event
carries only what changed since the version the viewer holds, with its own actions."""

from games.services import projection


def snapshot(version, **fields):
    game = dict.fromkeys(projection.SHARED_FIELDS)
    game.update(version=version, awaiting="white", **fields)
    return {"game": game}


def change(version, base, over=False, **state):
    full = dict.fromkeys(projection.SHARED_FIELDS)
    full.update(awaiting="black", **state)
    return {
        "version": version,
        "from": base,
        "over": over,
        "state": full,
        "events": [(7, "play", "white", "ignored")],
        "history": [{"n": 3}],
        "actions": {"white": ["resign"], "black": ["roll", "resign"]},
        "legal": [["24/18"]],
    }


def test_a_snapshot_is_sent_once_per_version_unless_forced():
    view = projection.ViewerState(side="black")
    assert view.snapshot_sent(snapshot(4))
    assert not view.snapshot_sent(snapshot(4))
    assert not view.snapshot_sent(snapshot(3))
    assert view.snapshot_sent(snapshot(4), force=True)
    assert view.version == 4


def test_old_news_is_skipped_and_a_gap_or_an_ended_game_needs_a_snapshot():
    view = projection.ViewerState(side="black")
    assert view.on_change(change(5, 4)).kind == projection.SKIP  # nothing sent yet
    view.snapshot_sent(snapshot(4))
    assert view.on_change(change(3, 2)).kind == projection.SKIP
    gap = view.on_change(change(6, 5))
    assert (gap.kind, gap.force) == (projection.SNAPSHOT, False)
    over = view.on_change(change(5, 4, over=True))
    assert over.kind == projection.SNAPSHOT and view.version == 4


def test_an_event_carries_only_what_changed_and_the_viewers_own_actions():
    view = projection.ViewerState(side="black")
    view.snapshot_sent(snapshot(4, pips={"white": 167, "black": 167}, turn="white"))
    update = view.on_change(change(5, 4, pips={"white": 161, "black": 167}, turn="white"))
    assert update.kind == projection.EVENT
    frame = update.frame
    assert frame["changes"] == {"pips": {"white": 161}, "awaiting": "black"}
    assert frame["actions"] == ["roll", "resign"]
    assert frame["legal"] == [["24/18"]]  # black is awaited
    assert frame["events"] == [{"seq": 7, "kind": "play", "side": "white"}]
    assert view.version == 5 and view.shown["pips"] == {"white": 161, "black": 167}


def test_a_spectator_gets_no_actions_and_no_legal_plays():
    view = projection.ViewerState()
    view.snapshot_sent(snapshot(4))
    frame = view.on_change(change(5, 4)).frame
    assert frame["actions"] == [] and frame["legal"] is None
