"""The rules page and the FAQ say what the site's clocks do (games/clocks.py): the grace period
before a claim (standard), the time to reconnect (match), the no-show abort, in every language.
If a clock's figures change, these texts must change with them."""

import pytest

from games.clocks import CLOCKS, MATCH, STANDARD

#: per language: (the claim after 60 s away, the 60 s to come back, the no-show abort)
SAYS = {
    "en": (
        "once you have been away for 60 seconds your opponent may claim the win",
        "With the match clock you have 60 seconds to come back",
        "does not make their first move within 60 seconds",
    ),
    "ru": (
        "когда вы отсутствуете 60 секунд, соперник может потребовать засчитать ему победу",
        "С матчевыми часами у вас есть 60 секунд, чтобы вернуться",
        "не сделавший первый ход за 60 секунд",
    ),
    "bg": (
        "след 60 секунди отсъствие противникът може да поиска победата",
        "С мачовия часовник имате 60 секунди да се върнете",
        "не направи първия си ход до 60 секунди",
    ),
}
FAQ_SAYS = {
    "en": "after 60 seconds your opponent may claim the win",
    "ru": "через 60 секунд соперник может потребовать засчитать ему победу",
    "bg": "след 60 секунди противникът може да поиска победата",
}


def test_the_texts_state_the_figures_the_clocks_use():
    assert CLOCKS[STANDARD].claim_after_ms == 60_000
    assert CLOCKS[MATCH].reconnect_ms == 60_000
    assert CLOCKS[STANDARD].first_move_ms == CLOCKS[MATCH].first_move_ms == 60_000


@pytest.mark.django_db
@pytest.mark.parametrize("lang", sorted(SAYS))
def test_rules_and_faq_describe_leaving_and_no_shows_in_each_language(client, lang):
    rules = client.get(f"/{lang}/rules/").content.decode()
    faq = client.get(f"/{lang}/faq/").content.decode()
    for text in SAYS[lang]:
        assert text in rules, (lang, text)
    assert FAQ_SAYS[lang] in faq, lang
