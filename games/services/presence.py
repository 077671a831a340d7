"""Who is at the table (docs/protocol.md "Presence"): a player's sockets come and go, an
absent player's clock keeps running, and the opponent may claim the win once the grace period
is over."""

from uuid import UUID

from games import clocks
from games.room.models import Game, Presence
from games.services import clockwork, dispatch, turns, unit
from games.services.actors import Actor

#: a socket not seen for this long (ms) is taken for dead (its Daphne went away)
PRESENCE_STALE_MS = 60_000
#: how often an open socket tells the server it is still here (ms); well under the above
PRESENCE_TOUCH_MS = 20_000


def player_here(game_id: UUID | str, viewer: Actor | str | None, channel_name: str) -> str | None:
    """A socket of ``viewer`` (an Actor, or a guest id) opened on game ``game_id``: if they
    play a side, remember the socket and, if they were away, mark them back (every socket
    hears of it: an event of the same version). Like every message it first applies what
    has expired (a player back after their ``reconnect_ms`` has lost, even if no timer has
    run yet). If another socket of theirs is still listed (a second tab, or a socket of a
    Daphne that died), every socket of the game is sent a full snapshot (``game.resync``).
    Onlookers and finished games change nothing. Returns the side or None."""
    now = clocks.now_ms()
    with unit.changing(game_id) as change:
        game = change.game
        side = game.side_of(viewer)
        if side is None or game.is_over:
            return side
        if turns.apply_expired(change, now):  # back too late: what ran out meanwhile stands
            return side
        other_socket = (
            Presence.objects.filter(game=game, side=side)
            .exclude(channel_name=channel_name)
            .exists()
        )
        Presence.objects.update_or_create(
            channel_name=channel_name,
            defaults={"game": game, "side": side, "seen": clocks.from_ms(now)},
        )
        if game.away_since(side) is not None:
            game.set_away_since(side, None)
            clockwork.refresh_deadline(game)
            change.mark_presence()
        elif other_socket:
            # A player back while an older socket of theirs is still listed: perhaps its
            # Daphne died, maybe between committing their last change and sending its
            # message. Every socket gets a full snapshot, so the opponent sees that change.
            dispatch.notify_resync(game.pk, game.version)
    return side


def side_here(game: Game, side: str, now_ms: int) -> bool:
    """True when ``side`` of ``game`` has a socket seen within PRESENCE_STALE_MS of
    ``now_ms`` (ms): a page of the game is open for that player."""
    fresh = clocks.from_ms(now_ms - PRESENCE_STALE_MS)
    return Presence.objects.filter(game=game, side=side, seen__gte=fresh).exists()


def player_still_here(channel_names: list[str]) -> None:
    """Mark the sockets ``channel_names`` (a list) as seen now (every ``PRESENCE_TOUCH_MS``;
    a Daphne process touches all its players' sockets in one query)."""
    Presence.objects.filter(channel_name__in=channel_names).update(
        seen=clocks.from_ms(clocks.now_ms())
    )


def player_left(game_id: UUID | str, channel_name: str, stale: bool = False) -> str | None:
    """The socket ``channel_name`` of game ``game_id`` closed: forget it; if its player has no
    other socket left, they are away from now (their clock keeps running; with a ``match``
    clock they lose if not back within ``reconnect_ms``, with ``standard`` the opponent may
    claim the win after ``claim_after_ms``). ``stale``: the sweep found the socket dead (its
    Daphne went away), so the player is away since the touch it missed (last seen +
    ``PRESENCE_TOUCH_MS``). Returns the side that went away, or None."""
    now = clocks.now_ms()
    with unit.changing(game_id, missing_ok=True) as change:
        row = Presence.objects.filter(channel_name=channel_name).first()
        if change is None or row is None:
            return None
        game = change.game
        side, last_seen = row.side, row.seen
        row.delete()
        if game.is_over or side_here(game, side, now):
            return None
        # a dead socket missed its next touch: the player was surely gone by then
        away = clocks.to_ms(last_seen) + PRESENCE_TOUCH_MS if stale else now
        game.set_away_since(side, clocks.from_ms(min(away, now)))
        clockwork.refresh_deadline(game)
        spec = clockwork.clock_spec(game)
        # the opponent's actions list "claim" once the grace period is over
        change.mark_presence(notice_at=clocks.claim_from(spec, min(away, now)) if spec else None)
    return side


def notify_presence(game_id: UUID | str) -> None:
    """Send every open socket of the game its presence and actions as they are now (an event
    of the same version) without changing anything: what a viewer may do changed with time
    (the grace period ended)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is not None and not game.is_over:
        dispatch.send_presence(game)
