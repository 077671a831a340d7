"""``{% load diagrams %}``: the ``{% diagram "diagram-id" %}`` tag of the rules pages."""

from django import template

from rules_pages.diagrams import render_diagram

register = template.Library()


@register.simple_tag
def diagram(diagram_id):
    """The ``<figure>`` (inline SVG board and caption) of the diagram declared with this id in
    ``rules_pages/diagram_data.py``, in the page's language. An unknown id raises
    TemplateSyntaxError so that a wrong id fails the page and its test, never silently."""
    try:
        return render_diagram(str(diagram_id))
    except KeyError as error:
        raise template.TemplateSyntaxError(str(error)) from None
