"""Rolls such as 6-5 never break at their hyphen (the dice_nowrap filter of rules pages)."""

from django.utils.safestring import mark_safe

from rules_pages.templatetags.site_tags import dice_nowrap


def test_a_roll_in_text_is_wrapped_and_markup_is_left_alone():
    html = mark_safe(
        "<p>With 6-6, 4-4 or 3-3 (not 16-5, 1-24 or 7-7)</p>"
        '<a href="#two-from-head-with-5-5" id="x-3-3">5-5?</a>'
        "<svg><title>Dice 6-5</title><desc>Dice: 6-5.</desc></svg><code>24/18 6-5</code>"
        "<figcaption>Dice 4-2.</figcaption>"
    )
    out = dice_nowrap(html)
    assert out.count('<span class="dice-pair">') == 5
    for roll in ("6-6", "4-4", "3-3", "5-5", "4-2"):
        assert f'<span class="dice-pair">{roll}</span>' in out
    for not_a_roll in ("16-5", "1-24", "7-7"):
        assert f"{not_a_roll}" in out and f'"dice-pair">{not_a_roll}' not in out
    assert 'href="#two-from-head-with-5-5" id="x-3-3"' in out  # attributes untouched
    assert "<title>Dice 6-5</title><desc>Dice: 6-5.</desc>" in out  # no span inside SVG
    assert "<code>24/18 6-5</code>" in out


def test_the_rules_pages_wrap_their_rolls(client):
    body = client.get("/en/rules/").content.decode()
    assert '<span class="dice-pair">6-5</span>' in body
    assert 'id="diagram-opening-6-5"' in body
