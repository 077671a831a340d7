"""The table options a page that starts a game asks for (preset, match length, bot level,
clock, options) and the clock's wording for players; shared by the new-game form, the
challenge link and the lobby."""

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import clocks, services
from games.choices import Preset, Side

ON_OFF = [("on", gettext_lazy("On")), ("off", gettext_lazy("Off"))]


LEVEL_LABELS = {
    "easy": gettext_lazy("Easy"),
    "medium": gettext_lazy("Medium"),
    "hard": gettext_lazy("Hard"),
    "expert": gettext_lazy("Expert"),
}


def level_choices():
    return [(level, LEVEL_LABELS.get(level, level)) for level in services.bot_levels()]


def whole_seconds(ms):
    """A duration (ms) as a short text: "2 min" for whole minutes beyond one, else "60 s"."""
    if ms > 60_000 and ms % 60_000 == 0:
        return _("%(minutes)s min") % {"minutes": ms // 60_000}
    return _("%(seconds)s s") % {"seconds": ms // 1000}


def clock_summary(spec):
    """What the clock ``spec`` (a ``games.clocks.ClockSpec``) means for a player, in the active
    language: a list of short sentences (its times come from the spec)."""
    times = {
        "roll": whole_seconds(spec.roll_ms or 0),
        "move": whole_seconds(spec.move_ms),
        "reserve": whole_seconds(spec.reserve_ms),
        "first": whole_seconds(spec.first_move_ms),
    }
    lines = []
    if spec.auto_roll:
        lines.append(_("The dice are rolled for you; you have %(move)s for each move.") % times)
    else:
        lines.append(
            _("You have %(roll)s to roll and %(move)s for each move (and to answer a double).")
            % times
        )
    if spec.loses == clocks.LOSES_MATCH:
        lines.append(
            _("When that time is used up, a reserve of %(reserve)s for the whole match runs down.")
            % times
        )
    else:
        lines.append(
            _("When that time is used up, a reserve of %(reserve)s for the whole game runs down.")
            % times
        )
    if spec.max_move_ms is not None:
        lines.append(
            _("No move may take longer than %(cap)s.") % {"cap": whole_seconds(spec.max_move_ms)}
        )
    if spec.loses == clocks.LOSES_MATCH:
        lines.append(_("A player who runs out of time loses the whole match."))
    else:
        lines.append(_("A player who runs out of time loses the game."))
    if spec.reconnect_ms is not None:
        back = {"back": whole_seconds(spec.reconnect_ms)}
        if spec.loses == clocks.LOSES_MATCH:
            lines.append(
                _("A player who disconnects has %(back)s to come back, or loses the match.") % back
            )
        else:
            lines.append(
                _("A player who disconnects has %(back)s to come back, or loses the game.") % back
            )
    if spec.claim_after_ms is not None:
        lines.append(
            _("If a player leaves for more than %(away)s, the opponent may claim the win.")
            % {"away": whole_seconds(spec.claim_after_ms)}
        )
    lines.append(
        _("If a player makes no first move within %(first)s, the game is aborted with no result.")
        % times
    )
    return lines


def clock_name(kind):
    """The name of a clock kind ("standard" or "match") in the active language."""
    return {clocks.STANDARD: _("Standard clock"), clocks.MATCH: _("Match clock")}.get(kind, kind)


def preset_clocks():
    """``{preset: {"kind", "name", "summary"}}``: the clock each R12 preset plays with between
    people (and against the computer when the player asks for one)."""
    found = {}
    for preset, kind in clocks.PRESET_CLOCK.items():
        found[preset] = {
            "kind": kind,
            "name": clock_name(kind),
            "summary": clock_summary(clocks.CLOCKS[kind]),
        }
    return found


class TableForm(forms.Form):
    """The table options of a new game (RULES.md R12), every field optional: ``preset``
    sport/classic/match; ``match_length`` 1/3/5/7 (match only); ``koks`` and ``cube`` on/off
    (classic only). ``clean`` checks the combination with ``services.table_options``."""

    preset = forms.ChoiceField(label=gettext_lazy("Rules"), choices=Preset.choices, required=False)
    match_length = forms.TypedChoiceField(
        label=gettext_lazy("Match length"),
        required=False,
        coerce=int,
        empty_value=None,
        choices=[(str(n), str(n)) for n in services.MATCH_LENGTHS],
    )
    koks = forms.ChoiceField(label=gettext_lazy("Koks (3 points)"), choices=ON_OFF, required=False)
    cube = forms.ChoiceField(label=gettext_lazy("Doubling cube"), choices=ON_OFF, required=False)

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        preset = data.get("preset") or Preset.SPORT.value
        try:
            services.table_options(
                preset,
                data.get("match_length"),
                on_off(data.get("koks")),
                on_off(data.get("cube")),
            )
        except services.GameError as error:
            raise forms.ValidationError(error.message) from None
        return data

    def table(self):
        """The chosen table: ``{"preset", "match_length", "koks", "cube"}`` (None = the
        preset's default)."""
        data = self.cleaned_data
        return {
            "preset": data.get("preset") or Preset.SPORT.value,
            "match_length": data.get("match_length"),
            "koks": on_off(data.get("koks")),
            "cube": on_off(data.get("cube")),
        }

    def preset_clocks(self):
        """``preset_clocks()``, for the template's clock descriptions."""
        return preset_clocks()


class NewGameForm(TableForm):
    """Options of a new game against the computer (RULES.md R12); every field may be left out.

    The table options of ``TableForm``; ``level`` one of the computer levels that exist;
    ``side`` white/black/random; ``clock`` on/off (default off: on gives the player the
    preset's clock, the computer plays without one).
    """

    level = forms.ChoiceField(
        label=gettext_lazy("Computer level"), required=False, choices=level_choices
    )
    side = forms.ChoiceField(
        label=gettext_lazy("Your side"),
        required=False,
        choices=[*Side.choices, ("random", gettext_lazy("Random"))],
    )
    clock = forms.ChoiceField(label=gettext_lazy("Clock"), choices=ON_OFF, required=False)

    def options(self):
        """The chosen options for ``services.create_bot_game`` (defaults: sport rules, the
        medium computer, white, no clock; the preset's table defaults)."""
        data = self.cleaned_data
        return {
            **self.table(),
            "bot_level": data.get("level") or "medium",
            "human_side": data.get("side") or Side.WHITE.value,
            "clock": data.get("clock") == "on",
        }

    @classmethod
    def for_game(cls, game, you):
        """An (unbound) form holding ``game``'s options, for "play again"."""
        options = services.options_of(game)
        initial = {
            "preset": game.preset,
            "level": game.bot_level or "medium",
            "side": game.colour or you or Side.WHITE.value,
            "clock": "on" if game.clock else "off",
        }
        if game.preset == Preset.MATCH:
            initial["match_length"] = str(options["match_length"])
        if game.preset == Preset.CLASSIC:
            initial["koks"] = "on" if options["koks"] else "off"
            initial["cube"] = "on" if options["cube"] else "off"
        return cls(initial=initial)


def on_off(value):
    return None if not value else value == "on"


def table_text(preset, match_length, clock_kind, rated):
    """A table in a few words, in the active language: the rules (with a match's length),
    the clock and whether it is rated, e.g. "Match to 5 points · Match clock · casual"."""
    if preset == Preset.MATCH:
        rules = ngettext(
            "Match to %(points)s point", "Match to %(points)s points", match_length or 1
        ) % {"points": match_length or 1}
    else:
        rules = str(Preset(preset).label)
    return " · ".join((rules, clock_name(clock_kind), _("rated") if rated else _("casual")))
