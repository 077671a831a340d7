"""The table options of a new game (RULES.md R11, R12): presets, match lengths, koks, the
cube, the computer's levels and the clock."""

from django.utils.translation import gettext as _

from games import bots, clocks
from games.choices import Preset
from games.services.errors import BadFrame

#: R11 match lengths and the default one for a new ``match`` game
MATCH_LENGTHS = (1, 3, 5, 7)
DEFAULT_MATCH_LENGTH = 3


def bot_levels() -> tuple[str, ...]:
    """The computer levels that exist now (``games.bots.LEVELS``)."""
    return tuple(level for level in bots.LEVELS if level)


def table_options(
    preset: str, match_length: object = None, koks: object = None, cube: object = None
) -> tuple[dict[str, bool], int | None]:
    """Check the table options of a new game (RULES.md R12) and fill in the preset's defaults.

    ``match_length`` (1/3/5/7) is for ``match`` only (default 3; other presets play one game),
    ``koks`` and ``cube`` (bools) for ``classic`` only (defaults: koks on, cube off); None means
    "the default". Returns ``(table, length)``: the engine's table overrides (``{"koks": …,
    "cube": …}`` for classic, else ``{}``) and the match length (None outside ``match``).
    Raises BadFrame naming the wrong option.
    """
    if preset not in Preset.values:
        raise BadFrame(_("Unknown rules preset."))
    if preset == Preset.MATCH:
        length = DEFAULT_MATCH_LENGTH if match_length is None else match_length
        if type(length) is not int or length not in MATCH_LENGTHS:  # not True, not 3.0
            raise BadFrame(_("A match is played to 1, 3, 5 or 7 points."))
    else:
        if match_length is not None and (type(match_length) is not int or match_length != 1):
            raise BadFrame(_("Only the match rules play a match of several games."))
        length = None
    for value in (koks, cube):
        if value is not None and not isinstance(value, bool):
            raise BadFrame(_("Table options are on or off."))
    if preset == Preset.CLASSIC:
        table = {"koks": True if koks is None else bool(koks), "cube": bool(cube)}
    else:
        if koks:
            raise BadFrame(_("Koks counts only in the classic rules."))
        if cube:
            raise BadFrame(_("The doubling cube is used only in the classic rules."))
        table = {}
    return table, length


def clock_for(preset: str, wanted: object) -> clocks.ClockSpec | None:
    """The clock spec a new game gets (RULES.md R12): the preset's clock when ``wanted`` is
    true (games between people always; against the computer only if the player asks), None
    when false, or ``wanted`` itself when it is a ``games.clocks.ClockSpec``. Raises BadFrame
    for an unknown preset or a ``wanted`` of another type."""
    if preset not in clocks.PRESET_CLOCK:
        raise BadFrame(_("Unknown rules preset."))
    if isinstance(wanted, clocks.ClockSpec):  # a given clock (tests, events with other times)
        return wanted
    if isinstance(wanted, str) or not isinstance(wanted, (bool, type(None))):
        raise BadFrame(_("The clock is on or off."))
    return clocks.CLOCKS[clocks.PRESET_CLOCK[preset]] if wanted else None


def clock_kind_for(preset: str, kind: object) -> str:
    """The clock kind a game between people runs: ``kind`` if it names one of
    ``games.clocks.CLOCKS``, the preset's (RULES.md R12) when None. Raises BadFrame."""
    if preset not in clocks.PRESET_CLOCK:
        raise BadFrame(_("Unknown rules preset."))
    if kind in (None, ""):
        return clocks.PRESET_CLOCK[preset]
    if kind not in clocks.CLOCKS:
        raise BadFrame(_("Unknown clock."))
    return kind
