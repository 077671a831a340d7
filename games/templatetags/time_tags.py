"""``{% load time_tags %}``: ``|ago``, how long ago a moment was ("5 minutes", "1 hour,
2 minutes") for the "… ago" phrases of our pages. It is Django's ``timesince`` with units from
our own catalogue (context "time ago"): Django's units are in the nominative, but Russian needs
the accusative before "назад" ("1 минуту назад", not "1 минута назад")."""

from django import template
from django.utils.timesince import timesince
from django.utils.translation import npgettext_lazy

register = template.Library()

#: the units of ``timesince`` as they stand in "<how long> ago"
AGO_STRINGS = {
    "year": npgettext_lazy("time ago", "%(num)d year", "%(num)d years", "num"),
    "month": npgettext_lazy("time ago", "%(num)d month", "%(num)d months", "num"),
    "week": npgettext_lazy("time ago", "%(num)d week", "%(num)d weeks", "num"),
    "day": npgettext_lazy("time ago", "%(num)d day", "%(num)d days", "num"),
    "hour": npgettext_lazy("time ago", "%(num)d hour", "%(num)d hours", "num"),
    "minute": npgettext_lazy("time ago", "%(num)d minute", "%(num)d minutes", "num"),
}


@register.filter
def ago(value):
    """How long before now ``value`` (an aware datetime) was, e.g. "3 minutes" (non-breaking
    spaces, at most two units); "" for no value."""
    if not value:
        return ""
    return timesince(value, time_strings=AGO_STRINGS)
