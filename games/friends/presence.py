"""Where a friend is: online (a page of the site open: a key in the cache that each open
notices socket keeps fresh), in a game (a page of a game they play, against a person or the
computer, open now: the game room's own presence rows) or away, with when they were last seen
(``LastSeen``); and the friends list that shows it.

Online and last seen are shown only between two players who follow each other: following
asks nothing of the one followed, so it must not tell anyone when they are around. For a
player followed one way the list shows only what is public anyway, a game in progress (anyone
may watch it), and otherwise that they do not follow back."""

from django.core.cache import cache
from django.db.models import Q
from django.urls import reverse

from games import clocks, services
from games.accounts import profiles
from games.choices import Side, Status
from games.friends import following
from games.friends.models import LastSeen
from games.room.models import Presence

#: how often an open notices socket says its account is still online (s)
ONLINE_REFRESH_S = 30
#: the online key outlives the last refresh by this much (s): a page that reloads, or a
#: refresh a little late, does not flicker to "away"
ONLINE_TTL_S = 75
#: the states of a friend, in the order the list shows them (ONE_WAY: not in a game and not
#: following back, so neither online nor last seen is shown)
PLAYING, ONLINE, AWAY, ONE_WAY = "playing", "online", "away", "one_way"


def _online_key(user_id):
    return f"friends:online:{user_id}"


def page_seen(user_id):
    """A notices socket of account ``user_id`` is open now (it opened, or refreshes every
    ONLINE_REFRESH_S): it is online for ONLINE_TTL_S more seconds, and last seen now."""
    now = clocks.now_ms()
    cache.set(_online_key(user_id), now, ONLINE_TTL_S)
    LastSeen.objects.update_or_create(user_id=user_id, defaults={"seen": clocks.from_ms(now)})


def page_closed(user_id):
    """A notices socket of account ``user_id`` closed: last seen now. The online key is left
    to expire: another tab may still be open, and it keeps the key fresh."""
    LastSeen.objects.update_or_create(
        user_id=user_id, defaults={"seen": clocks.from_ms(clocks.now_ms())}
    )


def online_ids(user_ids):
    """The accounts among ``user_ids`` with a page of the site open (one cache read)."""
    keys = {_online_key(user_id): user_id for user_id in user_ids}
    return {keys[key] for key in cache.get_many(list(keys))}


def games_in_play(user_ids, now_ms):
    """``{user_id: Game}``: for each account among ``user_ids`` that has a page of an active
    game it plays open now (a game room presence seen within ``services.PRESENCE_STALE_MS``),
    the latest such game."""
    ids = list(user_ids)
    fresh = clocks.from_ms(now_ms - services.PRESENCE_STALE_MS)
    rows = (
        Presence.objects.filter(seen__gte=fresh, game__status=Status.ACTIVE)
        .filter(
            Q(side=Side.WHITE, game__white_user_id__in=ids)
            | Q(side=Side.BLACK, game__black_user_id__in=ids)
        )
        .select_related("game")
        .order_by("seen")
    )
    found = {}
    for row in rows:  # the latest seen last, so it stays
        found[row.game.user_of(row.side)] = row.game
    return found


def _game_row(game, user_id, names):
    """What the list says of the game ``user_id`` plays: its page (to watch) and opponent."""
    side = Side.WHITE if game.white_user_id == user_id else Side.BLACK
    other = Side.BLACK if side == Side.WHITE else Side.WHITE
    other_user = game.user_of(other)
    return {
        "url": reverse("games:game", kwargs={"game_id": game.pk}),
        "bot": game.bot_side == other,
        "opponent": names.get(other_user, "") if other_user else "",
    }


def friends_of(user_id):
    """The friends list of account ``user_id`` (the accounts it follows): ``[{"user_id",
    "name", "profile" (their page), "mutual" (they follow ``user_id`` back: they may be
    challenged), "state" (PLAYING, ONLINE, AWAY or ONE_WAY), "game" (for PLAYING: ``{"url",
    "bot" (against the computer), "opponent" (a name, "" for a guest or the computer)}``, else
    None), "last_seen" (a datetime, or None: never seen or not mutual)}]``. ONLINE, AWAY and
    ``last_seen`` only for those who follow back (ONE_WAY for the others, unless PLAYING).
    Those playing first, then those online, then the other mutual ones by when they were last
    seen, the latest first, then the ONE_WAY ones by name."""
    ids = following.followed_ids(user_id)
    if not ids:
        return []
    now = clocks.now_ms()
    mutual = following.mutual_ids(user_id)
    shared = [friend for friend in ids if friend in mutual]  # only theirs are read
    online = online_ids(shared) if shared else set()
    playing = games_in_play(ids, now)
    opponents = {
        user for game in playing.values() for user in (game.white_user_id, game.black_user_id)
    }
    names = profiles.names_of(set(ids) | opponents)
    seen = dict(LastSeen.objects.filter(user_id__in=shared).values_list("user_id", "seen"))
    rows = []
    for friend in ids:
        if friend in playing:
            state = PLAYING
        elif friend not in mutual:
            state = ONE_WAY
        else:
            state = ONLINE if friend in online else AWAY
        rows.append(
            {
                "user_id": friend,
                "name": names[friend],
                "profile": profiles.profile_url(friend),
                "mutual": friend in mutual,
                "state": state,
                "game": _game_row(playing[friend], friend, names) if friend in playing else None,
                "last_seen": seen.get(friend),
            }
        )
    order = {PLAYING: 0, ONLINE: 1, AWAY: 2, ONE_WAY: 3}
    rows.sort(key=lambda row: (order[row["state"]], row["name"].casefold()))
    away = [row for row in rows if row["state"] == AWAY]
    away.sort(key=lambda row: -(clocks.to_ms(row["last_seen"]) or 0))
    return (
        [row for row in rows if order[row["state"]] < order[AWAY]]
        + away
        + [row for row in rows if row["state"] == ONE_WAY]
    )
