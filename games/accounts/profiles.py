"""Players' public pages and the leaderboards: what they show (read only), the chart of a
rating's history, and the one change a player makes here, their display name.

Ratings are read as ``games.ratings`` keeps them (``PlayerRating``, one ``RatingChange`` per
rated result); shown ratings are rounded to whole points, and a rating is provisional (shown
with a "?") while its deviation is above ``PlayerRating.PROVISIONAL_DEVIATION``.
"""

import unicodedata

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _

from games.accounts.models import PlayerRating, Profile, RatingChange
from games.choices import Preset, Side, Status, other_side
from games.room.models import Game

#: longest display name (characters), as ``Profile.display_name`` stores it
DISPLAY_NAME_MAX = Profile._meta.get_field("display_name").max_length
#: rated results drawn in a rating's chart (the latest ones)
CHART_RESULTS = 60
#: rated results listed under a rating's chart (the latest ones)
CHANGES_LISTED = 10
#: games listed on a player's page (the latest ones)
RECENT_GAMES = 15
#: rows of a leaderboard
LEADERBOARD_ROWS = 100

# Invisible joiners that some scripts and emoji need; every other format character (the
# bidirectional overrides among them) could disguise a name, so it is refused.
_ALLOWED_FORMAT = {"\u200c", "\u200d"}


# --- display names ----------------------------------------------------------------------

#: letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern): a name of
#: them would look empty
_BLANK_LOOKING = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def clean_display_name(text):
    """``text`` as a display name: NFC-normalised, trimmed, 1 to ``DISPLAY_NAME_MAX``
    characters, with no control, line-separator, unusual space or invisible formatting
    characters, no double spaces, and something visible (names need not be unique). Raises
    ``ValidationError`` with a readable, translated message."""
    if not isinstance(text, str):
        raise ValidationError(_("Enter a name."), code="required")
    name = unicodedata.normalize("NFC", text).strip()
    if not name:
        raise ValidationError(_("Enter a name."), code="required")
    if len(name) > DISPLAY_NAME_MAX:
        raise ValidationError(
            _("A name may have at most %(max)s characters (this one has %(count)s).")
            % {"max": DISPLAY_NAME_MAX, "count": len(name)},
            code="max_length",
        )
    for char in name:
        category = unicodedata.category(char)
        if (
            category in ("Cc", "Cs", "Co", "Cn", "Zl", "Zp")
            or (category == "Cf" and char not in _ALLOWED_FORMAT)
            or (category == "Zs" and char != " ")
            or char in _BLANK_LOOKING
        ):
            raise ValidationError(
                _("A name cannot contain line breaks, tabs or other invisible control characters."),
                code="control",
            )
    if "  " in name:
        raise ValidationError(_("A name cannot have two spaces in a row."), code="spaces")
    if not any(unicodedata.category(char)[0] in "LNS" for char in name):
        raise ValidationError(_("A name needs at least one letter, digit or symbol."), code="blank")
    return name


def rename(user_id, text):
    """Set account ``user_id``'s display name to ``text`` (checked by
    ``clean_display_name``; raises its ``ValidationError`` and changes nothing when refused).
    Creates the profile if the account has none. Returns the ``Profile``."""
    name = clean_display_name(text)
    with transaction.atomic():
        profile, _created = Profile.objects.update_or_create(
            user_id=user_id, defaults={"display_name": name}
        )
    return profile


def names_of(user_ids):
    """``{user_id: display name}`` for the accounts ``user_ids`` (one query); an account
    without a profile is "Player <id>", as ``games.services.display_name`` says."""
    ids = {user_id for user_id in user_ids if user_id}
    found = dict(Profile.objects.filter(user_id__in=ids).values_list("user_id", "display_name"))
    return {user_id: found.get(user_id) or _("Player %(id)s") % {"id": user_id} for user_id in ids}


def profile_url(user_id):
    """The public page of account ``user_id``."""
    return reverse("games:player", kwargs={"user_id": user_id})


# --- a player's page --------------------------------------------------------------------


def player_card(user):
    """What a player's page says about account ``user`` (a User): ``{"user_id", "name",
    "avatar_url" ("" if none, or not an http(s) URL), "presets": [preset_stats, …] in R12
    order, "recent_games": [game rows, see recent_games]}``."""
    profile = Profile.objects.filter(user=user).first()
    avatar = profile.avatar_url if profile else ""
    if not avatar.startswith(("https://", "http://")):
        avatar = ""
    return {
        "user_id": user.pk,
        "name": names_of([user.pk])[user.pk],
        "avatar_url": avatar,
        "presets": preset_stats(user.pk),
        "recent_games": recent_games(user.pk),
    }


def preset_stats(user_id):
    """Per R12 preset (in ``Preset`` order), account ``user_id``'s standing: ``{"preset",
    "label", "rated": bool (has a rating there), "rating" (rounded points or None),
    "provisional", "deviation" (rounded), "rated_games", "rated_wins", "games", "wins" (every
    finished game of the account, rated or not), "chart" (an SVG, see rating_chart, or ""),
    "changes": the latest rated results, newest first (see rating_changes)}``."""
    ratings = {row.preset: row for row in PlayerRating.objects.filter(user_id=user_id)}
    played = _finished_counts(user_id)
    out = []
    for preset, label in Preset.choices:
        row = ratings.get(preset)
        history = list(
            RatingChange.objects.filter(user_id=user_id, preset=preset).order_by("-created", "-pk")[
                :CHART_RESULTS
            ]
        )[::-1]
        games, wins = played.get(preset, (0, 0))
        out.append(
            {
                "preset": preset,
                "label": label,
                "rated": row is not None,
                "rating": round(row.rating) if row else None,
                "provisional": row.provisional if row else True,
                "deviation": round(row.deviation) if row else None,
                "rated_games": row.games if row else 0,
                "rated_wins": row.wins if row else 0,
                "games": games,
                "wins": wins,
                "chart": rating_chart(_chart_points(history), label) if history else "",
                "changes": rating_changes(user_id, history[::-1][:CHANGES_LISTED]),
            }
        )
    return out


def _finished_counts(user_id):
    """``{preset: (games, wins)}`` over the account's finished games (aborted ones have no
    result and do not count)."""
    counts = {}
    for side in Side.values:
        rows = (
            Game.objects.finished()
            .filter(**{f"{side}_user_id": user_id})
            .values("preset")
            .annotate(games=Count("pk"), wins=Count("pk", filter=Q(winner=side)))
        )
        for row in rows:
            games, wins = counts.get(row["preset"], (0, 0))
            counts[row["preset"]] = (games + row["games"], wins + row["wins"])
    return counts


def _chart_points(history):
    """The ratings a chart draws from rated results in time order: the rating before the
    first, then the rating after each."""
    return [history[0].rating_before] + [change.rating_after for change in history]


def rating_changes(user_id, changes):
    """Rows for the rated results ``changes`` (RatingChange of account ``user_id``):
    ``{"when" (datetime), "won", "delta" (rounded points, as shown: after - before),
    "delta_text" (``signed``),
    "after" (rounded), "opponent" {"name", "url"} or None, "replay_url", "match" (bool)}``."""
    games = {
        game.pk: game for game in Game.objects.filter(pk__in=[change.game_id for change in changes])
    }
    opponents = {}
    for change in changes:
        game = games[change.game_id]
        opponents[change.pk] = game.user_of(other_side(_side_of_user(game, user_id)))
    names = names_of(opponents.values())
    rows = []
    for change in changes:
        opponent = opponents[change.pk]
        delta = round(change.rating_after) - round(change.rating_before)
        rows.append(
            {
                "when": change.created,
                "won": change.won,
                "delta": delta,
                "delta_text": signed(delta),
                "after": round(change.rating_after),
                "opponent": (
                    {"name": names[opponent], "url": profile_url(opponent)} if opponent else None
                ),
                "replay_url": reverse("games:replay", kwargs={"game_id": change.game_id}),
                "match": bool(change.match_id),
            }
        )
    return rows


def signed(points):
    """A rating change as shown: "+12", "−8" (a true minus sign) or "0"."""
    if points > 0:
        return f"+{points}"
    if points < 0:
        return f"\u2212{-points}"
    return "0"


def _side_of_user(game, user_id):
    return Side.WHITE.value if game.white_user_id == user_id else Side.BLACK.value


def recent_games(user_id, limit=RECENT_GAMES):
    """The account's latest games (newest first), each ``{"id", "url" (the game's page: to
    watch or play it), "replay_url", "preset", "label", "match_length" (None outside a
    match), "side", "active" (still being played), "outcome" ("won" | "lost" | "aborted" |
    None while on), "points", "rated", "delta" (rating points won or lost by the rated result
    that ended with this game, else None), "delta_text" (``signed``, or ""), "opponent"
    {"name", "url" (None for a guest or the computer), "bot"}, "when" (datetime of the last
    change)}``."""
    games = list(
        Game.objects.filter(Q(white_user_id=user_id) | Q(black_user_id=user_id))
        .select_related("match")
        .order_by("-updated")[:limit]
    )
    deltas = {
        change.game_id: round(change.rating_after) - round(change.rating_before)
        for change in RatingChange.objects.filter(user_id=user_id, game__in=[g.pk for g in games])
    }
    sides = {game.pk: _side_of_user(game, user_id) for game in games}
    names = names_of(game.user_of(other_side(sides[game.pk])) for game in games)
    labels = dict(Preset.choices)
    rows = []
    for game in games:
        side = sides[game.pk]
        opponent_side = other_side(side)
        opponent_id = game.user_of(opponent_side)
        if game.bot_side == opponent_side:
            opponent = {"name": _("Computer"), "url": None, "bot": True}
        elif opponent_id:
            opponent = {"name": names[opponent_id], "url": profile_url(opponent_id), "bot": False}
        else:
            opponent = {"name": _("Guest"), "url": None, "bot": False}
        outcome = None
        if game.status == Status.ABORTED:
            outcome = "aborted"
        elif game.status == Status.FINISHED:
            outcome = "won" if game.winner == side else "lost"
        rows.append(
            {
                "id": str(game.pk),
                "url": reverse("games:game", kwargs={"game_id": game.pk}),
                "replay_url": reverse("games:replay", kwargs={"game_id": game.pk}),
                "preset": game.preset,
                "label": labels.get(game.preset, game.preset),
                "match_length": game.match.length if game.match_id else None,
                "side": side,
                "active": game.status == Status.ACTIVE,
                "outcome": outcome,
                "points": game.result_points,
                "rated": game.rated,
                "delta": deltas.get(game.pk),
                "delta_text": signed(deltas[game.pk]) if game.pk in deltas else "",
                "opponent": opponent,
                "when": game.updated,
            }
        )
    return rows


# --- the rating chart -------------------------------------------------------------------

#: the chart's drawing box (user units; the SVG scales to the width it is given)
CHART_W, CHART_H = 320, 140
_PLOT = {"left": 44, "right": 312, "top": 12, "bottom": 124}


def rating_chart(points, label=""):
    """A small line chart (inline SVG markup, safe to put in a page) of the ratings
    ``points`` (floats, oldest first; at least one): the line, a dot per result when there
    are few, the highest and lowest rating on the left and the latest at the line's end.
    ``label`` (the preset's name) goes into its accessible description."""
    shown = [round(value) for value in points]
    low, high = min(shown), max(shown)
    span = max(high - low, 20)  # a flat or nearly flat history still gets some height
    middle = (high + low) / 2
    bottom, top = middle - span / 2 * 1.1, middle + span / 2 * 1.1
    left, right = _PLOT["left"], _PLOT["right"]
    step = (right - left) / max(len(points) - 1, 1)

    height = _PLOT["bottom"] - _PLOT["top"]

    def y_of(value):
        return _PLOT["bottom"] - (value - bottom) / (top - bottom) * height

    coords = [
        (left + i * step if len(points) > 1 else (left + right) / 2, y_of(value))
        for i, value in enumerate(points)
    ]

    def at(number):  # format_html escapes its arguments into text: numbers go in formatted
        return f"{number:.1f}"

    line = " ".join(f"{at(x)},{at(y)}" for x, y in coords)
    dots = ""
    if len(coords) <= 20:
        dots = format_html_join(
            "", '<circle cx="{}" cy="{}" r="2.5"/>', ((at(x), at(y)) for x, y in coords)
        )
    last_x, last_y = coords[-1]
    description = _(
        "%(preset)s rating over the last %(count)s rated results: from %(first)s "
        "to %(last)s (highest %(high)s, lowest %(low)s)."
    ) % {
        "preset": label,
        "count": len(points) - 1,
        "first": shown[0],
        "last": shown[-1],
        "high": high,
        "low": low,
    }
    return format_html(
        '<svg class="rating-chart" viewBox="0 0 {w} {h}" role="img" aria-label="{desc}" '
        'xmlns="http://www.w3.org/2000/svg">'
        '<line class="rating-chart__axis" x1="{left}" y1="{y_high}" x2="{right}" y2="{y_high}"/>'
        '<line class="rating-chart__axis" x1="{left}" y1="{y_low}" x2="{right}" y2="{y_low}"/>'
        '<text class="rating-chart__label" x="{label_x}" y="{y_high_text}" '
        'text-anchor="end">{high}</text>'
        '<text class="rating-chart__label" x="{label_x}" y="{y_low_text}" '
        'text-anchor="end">{low}</text>'
        '<polyline class="rating-chart__line" points="{line}"/>'
        '<g class="rating-chart__dots">{dots}</g>'
        '<circle class="rating-chart__last" cx="{last_x}" cy="{last_y}" r="4"/>'
        "</svg>",
        w=CHART_W,
        h=CHART_H,
        desc=description,
        left=left,
        right=right,
        y_high=at(y_of(high)),
        y_low=at(y_of(low)),
        label_x=left - 6,
        y_high_text=at(y_of(high) + 4),
        y_low_text=at(y_of(low) + 4),
        high=high,
        low=low,
        line=line,
        dots=dots,
        last_x=at(last_x),
        last_y=at(last_y),
    )


# --- leaderboards -----------------------------------------------------------------------


def leaderboard(preset, limit=LEADERBOARD_ROWS):
    """The leaderboard of R12 ``preset``: established ratings only (deviation at most
    ``PlayerRating.PROVISIONAL_DEVIATION``) of active accounts, best first, at most ``limit``
    rows ``{"rank", "user_id", "name", "url", "rating" (rounded), "games", "wins"}``. Equal
    shown ratings share a rank (1, 2, 2, 4)."""
    rows = list(PlayerRating.objects.leaderboard(preset).filter(user__is_active=True)[:limit])
    names = names_of(row.user_id for row in rows)
    out = []
    for position, row in enumerate(rows, start=1):
        rating = round(row.rating)
        rank = out[-1]["rank"] if out and out[-1]["rating"] == rating else position
        out.append(
            {
                "rank": rank,
                "user_id": row.user_id,
                "name": names[row.user_id],
                "url": profile_url(row.user_id),
                "rating": rating,
                "games": row.games,
                "wins": row.wins,
            }
        )
    return out
