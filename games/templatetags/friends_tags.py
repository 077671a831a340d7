"""``{% load friends_tags %}``: the Follow / Unfollow control of a player's page
(``{% follow_button user_id name %}``) and of a finished game's result, for the opponent when
both sides are accounts (``{% game_follow_button game %}``). Only a signed-in viewer who is
not that player gets one; the form posts to ``games:follow`` or ``games:unfollow`` and comes
back to the page."""

from django import template

from games import services
from games.choices import Side
from games.friends import following

register = template.Library()


def _viewer_id(context):
    user = getattr(context.get("request"), "user", None)
    return user.pk if user is not None and user.is_authenticated else None


def _control(context, viewer_id, user_id, name):
    if viewer_id is None or not user_id or viewer_id == user_id:
        return {"follow": None}
    request = context.get("request")
    return {
        "follow": {
            "user_id": user_id,
            "name": name,
            "following": following.is_following(viewer_id, user_id),
            "follows_you": following.is_following(user_id, viewer_id),
            "next": request.get_full_path() if request is not None else "",
        },
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("games/_follow_button.html", takes_context=True)
def follow_button(context, user_id, name):
    """The control for account ``user_id`` (display name ``name``)."""
    return _control(context, _viewer_id(context), user_id, name)


@register.inclusion_tag("games/_follow_button.html", takes_context=True)
def game_follow_button(context, game):
    """The control for the viewer's opponent in ``game`` (a game between two accounts that
    the viewer plays by account), else nothing."""
    viewer_id = _viewer_id(context)
    if viewer_id is None or game.bot_side:
        return {"follow": None}
    sides = {Side.WHITE: game.white_user_id, Side.BLACK: game.black_user_id}
    if viewer_id not in sides.values():
        return {"follow": None}
    opponent = sides[Side.BLACK] if sides[Side.WHITE] == viewer_id else sides[Side.WHITE]
    if not opponent:
        return {"follow": None}
    return _control(context, viewer_id, opponent, services.display_name(opponent))
