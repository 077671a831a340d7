"""``{% load account_tags %}``: ``{% account_menu %}``, the header's "Sign in" or the
visitor's name with "Sign out" (games.accounts.account_menu; in a cached page a marker that
games.accounts.AccountMenuMiddleware fills in per visitor)."""

from django import template

from games import accounts

register = template.Library()


@register.simple_tag(takes_context=True)
def account_menu(context):
    """The account menu of the page being rendered (HTML)."""
    return accounts.account_menu(context.get("request"))
