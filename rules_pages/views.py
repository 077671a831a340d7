"""Views of the rules pages."""

from django.views.generic import TemplateView


class RulesView(TemplateView):
    """The short rules summary (RULES.md R1–R9) with the "Play against the computer" button.

    Served at the language root (``/en/``, ``/ru/``, ``/bg/``) and at ``/<lang>/rules/``.
    The button is a POST form to ``games:new``.
    """

    template_name = "rules_pages/rules.html"
