"""The shape of a diagram of the rules pages: what ``diagram_data.py`` declares and
``diagrams.py`` checks and draws (its own module, so neither imports the other to get it)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Diagram:
    """One board picture of the rules pages.

    - ``id``: slug used in templates, e.g. ``"head-opening-6-6"`` (unique).
    - ``position``: RULES.md JSON position; ``turn`` is the side whose play is shown.
    - ``dice``: the roll the play uses, e.g. ``(6, 5)``, or None for a position only.
    - ``play``: the example play in RULES.md notation (``""`` = no play shown).
    - ``legal``: True if ``play`` is legal with ``dice`` from ``position`` (checked by the tests).
    - ``caption``: gettext_lazy plain text (no HTML): what the diagram shows and why.
    - ``ruleset``: the preset the play is judged by (RULES.md R12).
    - ``marks``: extra points to highlight, ``(side, point)`` in that side's own numbering.
    """

    id: str
    position: dict
    dice: tuple | None
    play: str
    legal: bool
    caption: str
    ruleset: str = "sport"
    marks: tuple = ()
