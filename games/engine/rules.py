"""Rule presets (RULES.md R12) and per-table overrides."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar, Literal, TypedDict

from .errors import RulesetError

PLAY_OPENING_DICE = "play_opening_dice"
REROLL = "reroll"


class _TableChanges(TypedDict, total=False):
    """The table options a table overrides, as ``dataclasses.replace`` takes them."""

    koks: bool
    cube: bool


@dataclass(frozen=True)
class Ruleset:
    """One rule set: a preset of RULES.md R12 with any table overrides applied.

    - ``opening``: R3, ``play_opening_dice`` or ``reroll``.
    - ``koks``: R9, whether koks (3 points) exists.
    - ``cube``: R10, whether the doubling cube is at the table.
    - ``gammons_need_turned_cube``: R9, with the cube, mars/koks count only if it was turned.
    - ``match_lengths``: R11, the allowed match lengths in points.
    - ``clock``: R11/R12, the clock used for games between people (``standard`` or ``match``).

    The move rules R4–R8 are the same in every preset.
    """

    name: str
    opening: str
    koks: bool
    cube: bool
    gammons_need_turned_cube: bool
    match_lengths: tuple[int, ...]
    clock: str

    #: table options a game may override (RULES.md R12: "table may switch off", "table option")
    TABLE_OPTIONS: ClassVar[tuple[Literal["koks"], Literal["cube"]]] = ("koks", "cube")

    def with_table(self, table: dict[str, bool] | None) -> Ruleset:
        """Return this ruleset with the per-table overrides in ``table`` (e.g. ``{"cube": True}``).

        Raises RulesetError for an unknown option or a non-boolean value, or an option the
        preset does not allow to change (koks and the cube exist only in ``classic``).
        """
        if not table:
            return self
        if not isinstance(table, dict):
            raise RulesetError("table options must be an object")
        changes: _TableChanges = {}
        for key, value in table.items():
            if key not in self.TABLE_OPTIONS:
                raise RulesetError(f"unknown table option {key!r}")
            if not isinstance(value, bool):
                raise RulesetError(f"table option {key!r} must be true or false")
            if value and self.name != "classic":
                raise RulesetError(f"the {self.name} preset has no {key}")
            changes[key] = value
        return replace(self, **changes)


PRESETS = {
    "sport": Ruleset(
        "sport",
        PLAY_OPENING_DICE,
        koks=False,
        cube=False,
        gammons_need_turned_cube=False,
        match_lengths=(1,),
        clock="standard",
    ),
    "classic": Ruleset(
        "classic",
        PLAY_OPENING_DICE,
        koks=True,
        cube=False,
        gammons_need_turned_cube=True,
        match_lengths=(1,),
        clock="standard",
    ),
    "match": Ruleset(
        "match",
        REROLL,
        koks=False,
        cube=False,
        gammons_need_turned_cube=False,
        match_lengths=(1, 3, 5, 7),
        clock="match",
    ),
}


def get_ruleset(name: Ruleset | str, table: dict[str, bool] | None = None) -> Ruleset:
    """The preset called ``name`` (``sport``, ``classic``, ``match``) with ``table`` overrides.

    A Ruleset passed in is returned (with overrides). Raises RulesetError for an unknown name.
    """
    if isinstance(name, Ruleset):
        return name.with_table(table)
    try:
        preset = PRESETS[name]
    except (KeyError, TypeError):
        raise RulesetError(
            f"unknown ruleset {name!r}; expected one of: {', '.join(PRESETS)}"
        ) from None
    return preset.with_table(table)
