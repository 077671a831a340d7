"""``{% load site_tags %}``: tags of the page shell (base.html, rules_pages/page.html).

- ``{% csrf_field %}``: the CSRF hidden input, or in a cached page the marker that
  ``rules_pages.cache.CachedPageCsrfMiddleware`` replaces per visitor.
- ``{% block_text "name" %}``: the text of a block of the page being rendered (tags removed,
  whitespace collapsed), to reuse a page's ``title``/``description`` in its meta tags.
- ``{% seo_head %}``: meta description, canonical, hreflang alternates and Open Graph tags.
- ``|dice_nowrap``: wraps every roll written as ``6-5`` in the text of an HTML fragment in
  ``<span class="dice-pair">`` so that a line never breaks at its hyphen.
"""

import html
import re

from django import template
from django.conf import settings
from django.template.loader_tags import BLOCK_CONTEXT_KEY
from django.utils.html import strip_tags
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from rules_pages.cache import csrf_input
from rules_pages.seo import OG_LOCALES, page_links

register = template.Library()


@register.simple_tag(takes_context=True)
def csrf_field(context):
    """The hidden CSRF input of a POST form (see rules_pages/cache.py)."""
    return mark_safe(csrf_input(context["request"]))


def render_block_text(context, name: str) -> str:
    """Plain text of the most derived block ``name`` of the template being rendered ("" when
    no template defines it)."""
    block_context = context.render_context.get(BLOCK_CONTEXT_KEY)
    block = block_context.get_block(name) if block_context is not None else None
    if block is None:
        return ""
    with context.push():
        text = block.nodelist.render(context)
    return " ".join(html.unescape(strip_tags(text)).split())


@register.simple_tag(takes_context=True)
def block_text(context, name):
    """The plain text of block ``name`` (autoescaped where it is written)."""
    return render_block_text(context, name)


@register.inclusion_tag("rules_pages/seo_head.html", takes_context=True)
def seo_head(context):
    """Context of the SEO part of ``<head>``: title and description from the page's blocks,
    canonical and alternate URLs from rules_pages.seo, Open Graph locale tags."""
    request = context["request"]
    links = page_links(request)
    language = links["language"]
    return {
        "title": render_block_text(context, "title"),
        "description": render_block_text(context, "description"),
        "canonical": links["canonical"],
        "alternates": links["alternates"],
        "og_type": render_block_text(context, "og_type") or "website",
        "og_locale": OG_LOCALES.get(language, language),
        "og_alternate_locales": [
            OG_LOCALES[code] for code, _n in settings.LANGUAGES if code != language
        ],
        "site_name": gettext("Long Nardy"),
    }


# A roll such as 6-5 or 3-3, standing alone (not part of 16-5, an id like "head-6-6", a date...).
_ROLL = re.compile(r"(?<![\w/.\-])[1-6]-[1-6](?![\w/\-])")
# Tags and comments of an HTML fragment; the text between them is what gets wrapped.
_TAG = re.compile(r"<!--.*?-->|<(/?)([A-Za-z][\w:-]*)[^>]*>", re.S)
# Elements whose text is left alone: no <span> may go into SVG text, scripts or code.
_KEEP = {"svg", "script", "style", "code", "pre", "textarea", "title"}


@register.filter(is_safe=True)
def dice_nowrap(fragment):
    """The HTML ``fragment`` (already safe: rendered template output) with each roll in its
    text, e.g. ``6-5``, wrapped in ``<span class="dice-pair">`` (CSS ``white-space: nowrap``).
    Tags, attributes, comments and the text inside svg/script/style/code/pre/textarea/title
    are left untouched, so ids, URLs, notation and SVG stay as they were."""
    if not isinstance(fragment, SafeString):
        return fragment
    out, depth, pos = [], 0, 0
    for tag in _TAG.finditer(fragment):
        text = fragment[pos : tag.start()]
        out.append(_ROLL.sub(r'<span class="dice-pair">\g<0></span>', text) if depth == 0 else text)
        out.append(tag.group(0))
        closing, name = tag.group(1), (tag.group(2) or "").lower()
        if name in _KEEP and not tag.group(0).endswith("/>"):
            depth = max(depth - 1, 0) if closing else depth + 1
        pos = tag.end()
    tail = fragment[pos:]
    out.append(_ROLL.sub(r'<span class="dice-pair">\g<0></span>', tail) if depth == 0 else tail)
    return mark_safe("".join(out))
