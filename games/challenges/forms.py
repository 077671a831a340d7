"""The form behind a challenge link: the table options, a side, casual or rated."""

from django import forms
from django.utils.translation import gettext_lazy

from games import clocks, services
from games.choices import Colour, Preset
from games.tables import TableForm, clock_summary

#: the clocks a game between people may run (RULES.md R11): "" in a form means the preset's
CLOCK_KINDS = [
    (clocks.STANDARD, gettext_lazy("Standard clock")),
    (clocks.MATCH, gettext_lazy("Match clock")),
]


RATED_CHOICES = [("casual", gettext_lazy("Casual")), ("rated", gettext_lazy("Rated"))]


class ChallengeForm(TableForm):
    """Options of a challenge link (a game with a friend, RULES.md R12): the table options of
    ``TableForm``, ``colour`` white/black/random (the creator's side; default random),
    ``rated`` casual/rated (default casual; rated only for a signed-in creator, which
    ``services.create_challenge`` checks) and ``clock`` standard/match (default: the
    preset's, R12)."""

    colour = forms.ChoiceField(
        label=gettext_lazy("Your side"), required=False, choices=Colour.choices
    )
    rated = forms.ChoiceField(label=gettext_lazy("Rating"), required=False, choices=RATED_CHOICES)
    clock = forms.ChoiceField(label=gettext_lazy("Clock"), required=False, choices=CLOCK_KINDS)

    def options(self):
        """The chosen options for ``services.create_challenge``."""
        data = self.cleaned_data
        return {
            **self.table(),
            "colour": data.get("colour") or Colour.RANDOM.value,
            "rated": data.get("rated") == "rated",
            "clock": data.get("clock") or None,
        }

    @classmethod
    def for_game(cls, game, you):
        """An (unbound) form holding the options of ``game`` (a game between people), for a
        new challenge with the same table, clock and rating; the creator's side is drawn."""
        options = services.options_of(game)
        initial = {
            "preset": game.preset,
            "colour": Colour.RANDOM.value,
            "rated": "rated" if game.rated else "casual",
        }
        if game.clock:
            initial["clock"] = game.clock.get("kind")
        if game.preset == Preset.MATCH:
            initial["match_length"] = str(options["match_length"])
        if game.preset == Preset.CLASSIC:
            initial["koks"] = "on" if options["koks"] else "off"
            initial["cube"] = "on" if options["cube"] else "off"
        return cls(initial=initial)


def clock_choices():
    """The clocks a player may choose for a game between people, each ``{"kind", "name",
    "summary", "presets"}`` (``presets``: the R12 presets whose own clock it is)."""
    return [
        {
            "kind": kind,
            "name": name,
            "summary": clock_summary(clocks.CLOCKS[kind]),
            "presets": [p for p, k in clocks.PRESET_CLOCK.items() if k == kind],
        }
        for kind, name in CLOCK_KINDS
    ]
