"""Views of the rules pages: server-rendered, readable without JavaScript, cached per language.

Every page is a TemplateView over ``templates/rules_pages/<page>.html`` (which extends
``rules_pages/page.html``), wrapped in :func:`rules_pages.cache.cached_page`: one copy per URL
in Redis, the language prefix of the URL keeping the languages apart.
"""

import json

from django.http import HttpResponse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET
from django.views.generic import TemplateView

from .cache import cached_page
from .faq import FAQ
from .seo import site_origin


class PageView(TemplateView):
    """A rules page (GET/HEAD only; TemplateView answers 405 to anything else), served through
    the page cache (:func:`rules_pages.cache.cached_page`)."""

    http_method_names = ["get", "head", "options"]

    @classmethod
    def as_view(cls, **initkwargs):
        # Decorated once here, not per request as method_decorator on dispatch would.
        return cached_page(super().as_view(**initkwargs))


class HomeView(PageView):
    """``/<lang>/``: the short summary of the rules (RULES.md R1–R9) with the "Play against the
    computer" button (a POST form to ``games:new``)."""

    template_name = "rules_pages/home.html"


class RulesView(PageView):
    """``/<lang>/rules/``: the complete rules, RULES.md R1–R12, with diagrams."""

    template_name = "rules_pages/rules_full.html"


class GlossaryView(PageView):
    """``/<lang>/glossary/``: the terms of the game in English, Russian and Bulgarian."""

    template_name = "rules_pages/glossary.html"


class FirstStepsView(PageView):
    """``/<lang>/first-steps/``: a short strategy page for beginners."""

    template_name = "rules_pages/first_steps.html"


def json_ld(data) -> str:
    """``data`` as JSON for a ``<script type="application/ld+json">``: ``<``, ``>`` and ``&``
    are written as \\u escapes so that no text can close the script element."""
    text = json.dumps(data, ensure_ascii=False, indent=None, separators=(",", ":"))
    return mark_safe(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def faq_structured_data(entries) -> dict:
    """The schema.org ``FAQPage`` of the FAQ entries, in the active language: each question as a
    ``Question`` whose ``acceptedAnswer`` is an ``Answer`` with the answer's (simple) HTML."""
    return {
        "@context": "https://schema.org",
        "@type": "FAQPage",
        "mainEntity": [
            {
                "@type": "Question",
                "name": str(entry.question),
                "acceptedAnswer": {"@type": "Answer", "text": str(entry.answer).strip()},
            }
            for entry in entries
        ],
    }


class FaqView(PageView):
    """``/<lang>/faq/``: the disputed points of the rules, from ``rules_pages.faq.FAQ``, with
    FAQPage structured data (JSON-LD) built from the same entries."""

    template_name = "rules_pages/faq.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["faq"] = FAQ
        context["faq_json_ld"] = json_ld(faq_structured_data(FAQ))
        return context


@require_GET
def robots_txt(request):
    """``/robots.txt``: everything public may be crawled except the admin and live games; the
    sitemap's absolute URL."""
    lines = [
        "User-agent: *",
        "Disallow: /admin/",
        "Disallow: /*/new/",
        "Disallow: /*/game/",
        "Disallow: /*/i18n/",
        "Allow: /",
        "",
        f"Sitemap: {site_origin(request)}/sitemap.xml",
        "",
    ]
    return HttpResponse("\n".join(lines), content_type="text/plain; charset=utf-8")
