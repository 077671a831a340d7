"""``{% load account_tags %}``: ``{% account_menu %}``, the header's "Sign in" or the
visitor's name with "Sign out" (games.accounts.account_menu; in a cached page a marker that
games.accounts.AccountMenuMiddleware fills in per visitor); ``{% sign_in_available %}`` and
``{% dev_sign_in_enabled %}`` for pages that offer signing in."""

from django import template

from games.accounts import dev_sign_in, sign_in

register = template.Library()


@register.simple_tag(takes_context=True)
def account_menu(context):
    """The account menu of the page being rendered (HTML)."""
    return sign_in.account_menu(context.get("request"))


@register.simple_tag(takes_context=True)
def sign_in_available(context):
    """``{% sign_in_available as can_sign_in %}``: whether this server offers any sign-in."""
    return sign_in.sign_in_available(context.get("request"))


@register.simple_tag
def dev_sign_in_enabled():
    """``{% dev_sign_in_enabled as dev %}``: whether the development sign-in is on."""
    return dev_sign_in.enabled()
