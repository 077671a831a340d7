"""Every diagram of the rules pages agrees with the engine, and every one is shown somewhere.

A diagram declares a position, a roll, an example play and whether that play is legal
(rules_pages/diagram_data.py); the engine that judges real games must agree, so a page can
never show an illegal play as legal or the reverse.
"""

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation
from django.utils.functional import Promise

from games.engine import (
    EngineError,
    IllegalPlay,
    Position,
    check_dice,
    check_play,
    get_ruleset,
    parse_play,
)
from rules_pages.diagrams import REFUSAL_REASONS, Diagram, describe, registry, render_diagram

TEMPLATES = Path(settings.BASE_DIR) / "templates" / "rules_pages"
DIAGRAM_TAG = re.compile(r"""{%\s*diagram\s+["']([^"']+)["']\s*%}""")
COMMENTS = re.compile(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}|{#.*?#}", re.S)
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
LANGS = [code for code, _name in settings.LANGUAGES]
SVG = "{http://www.w3.org/2000/svg}"

DIAGRAMS = list(registry().values())


def ids_in_templates() -> dict[str, set]:
    """Diagram id -> templates using it with {% diagram "id" %}."""
    used: dict[str, set] = {}
    for path in sorted(TEMPLATES.glob("*.html")):
        source = COMMENTS.sub("", path.read_text(encoding="utf-8"))
        for diagram_id in DIAGRAM_TAG.findall(source):
            used.setdefault(diagram_id, set()).add(path.name)
    return used


def ids_in_faq() -> set:
    from rules_pages.faq import FAQ

    return {entry.diagram for entry in FAQ if entry.diagram}


def test_there_are_diagrams_with_unique_slug_ids():
    assert DIAGRAMS
    for diagram in DIAGRAMS:
        assert SLUG.match(diagram.id), diagram.id


@pytest.mark.parametrize("diagram", DIAGRAMS, ids=[d.id for d in DIAGRAMS])
def test_diagram_agrees_with_the_engine(diagram):
    position = Position.from_json(diagram.position)
    get_ruleset(diagram.ruleset)
    assert isinstance(diagram.caption, Promise), "captions are gettext_lazy strings"
    assert str(diagram.caption).strip()
    for side, point in diagram.marks:
        assert side in ("white", "black") and 1 <= point <= 24
    if diagram.dice is None:
        assert diagram.play == "", "a play needs the roll it uses"
        assert diagram.legal, "a position without a roll shows no refused play"
        return
    dice = check_dice(diagram.dice)
    steps = parse_play(diagram.play)  # well-formed even when refused
    try:
        check_play(position, dice, steps, diagram.ruleset)
    except IllegalPlay as refusal:
        assert not diagram.legal, f"declared legal, but the engine refuses it: {refusal}"
    else:
        assert diagram.legal, "declared not legal, but the engine accepts it"


def test_refused_plays_are_refused_for_a_reason_the_page_can_name():
    for diagram in DIAGRAMS:
        if diagram.legal or diagram.dice is None:
            continue
        try:
            check_play(
                Position.from_json(diagram.position), diagram.dice, diagram.play, diagram.ruleset
            )
        except IllegalPlay as refusal:
            assert refusal.code in REFUSAL_REASONS, (diagram.id, refusal.code)


def test_every_diagram_used_in_a_template_or_the_faq_is_declared():
    declared = set(registry())
    used = set(ids_in_templates()) | ids_in_faq()
    assert used - declared == set(), f"undeclared diagrams used: {sorted(used - declared)}"


def test_every_declared_diagram_is_shown_on_some_page():
    used = set(ids_in_templates()) | ids_in_faq()
    unused = set(registry()) - used
    assert not unused, f"declared but shown on no page: {sorted(unused)}"


@pytest.mark.parametrize("lang", LANGS)
def test_every_diagram_renders_as_an_accessible_figure(lang):
    with translation.override(lang):
        for diagram in DIAGRAMS:
            html = str(render_diagram(diagram.id))
            assert html.startswith(f'<figure class="diagram" id="diagram-{diagram.id}">')
            svg = ET.fromstring(re.search(r"<svg .*?</svg>", html, re.S).group(0))
            assert svg.get("role") == "img"
            assert svg.find(f"{SVG}title").text == str(diagram.caption)
            assert svg.find(f"{SVG}desc").text == describe(diagram)
            assert "<figcaption>" in html
            if diagram.play:
                assert f"<code>{diagram.play}</code>" in html


def make(position, dice=None, play="", legal=True):
    return Diagram(id="t", position=position, dice=dice, play=play, legal=legal, caption="c")


def test_description_lists_checkers_turn_dice_and_verdict():
    diagram = make(
        {
            "turn": "black",
            "white": {"24": 13, "18": 1, "13": 1},
            "black": {"24": 14, "20": 1},
            "first_turn": False,
        },
        (6, 5),
        "24/18 18/13",
    )
    with translation.override("en"):
        text = describe(diagram)
    assert "White: 13 checkers on point 24, 1 checker on point 18, 1 checker on point 13." in text
    assert "Black: 14 checkers on point 24, 1 checker on point 20." in text
    assert "Black to move." in text
    assert "Dice: 6-5." in text
    assert "The play 24/18 18/13 is legal." in text


def test_description_of_a_refused_play_says_why():
    diagram = make(
        {"turn": "white", "white": {"24": 14, "18": 1}, "black": {"24": 14, "19": 1}},
        (6, 5),
        "24/18 24/19",
        legal=False,
    )
    with translation.override("en"):
        text = describe(diagram)
    assert (
        "The play 24/18 24/19 is not legal: only one checker may leave the head in this turn."
        in text
    )


def test_description_counts_borne_off_checkers():
    diagram = make({"turn": "white", "white": {"2": 1}, "black": {"5": 3}})
    with translation.override("en"):
        text = describe(diagram)
    assert "White has borne off 14 checkers." in text
    assert "Black has borne off 12 checkers." in text
    assert "to move" not in text  # a position only: no turn, no dice


def test_unknown_diagram_id_fails_loudly():
    from django.template import Context, Template, TemplateSyntaxError

    with pytest.raises(TemplateSyntaxError, match="no-such-diagram"):
        Template('{% load diagrams %}{% diagram "no-such-diagram" %}').render(Context())


def test_engine_errors_are_value_errors_so_bad_data_cannot_slip_through():
    assert issubclass(EngineError, ValueError)


def test_only_the_step_that_breaks_a_refused_play_is_drawn_refused_and_later_steps_neutral():
    from rules_pages.diagrams import play_arrows

    # Mid-game 5-5: the second checker from the head is the refused step (R5).
    position = {"turn": "white", "white": {"24": 13, "13": 2}, "black": {"24": 15}}
    diagram = make(position, (5, 5), "24/19 24/19 19/14 19/14", legal=False)
    arrows = play_arrows(diagram, Position.from_json(position))
    # The steps after the refused one are not judged (None: drawn neutral, never green).
    assert [legal for *_step, legal in arrows] == [True, False, None, None]
    # A play that is only too short (R6: both dice must be played): no single step is wrong,
    # so every step is drawn refused.
    start = {"turn": "white", "white": {"24": 15}, "black": {"24": 15}, "first_turn": True}
    diagram = make(start, (6, 5), "24/18", legal=False)
    with pytest.raises(IllegalPlay):
        check_play(Position.from_json(start), (6, 5), "24/18")
    assert [legal for *_s, legal in play_arrows(diagram, Position.from_json(start))] == [False]
