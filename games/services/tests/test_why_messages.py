"""The "why can't this checker move" text (games.services.why_not_message) in every language:
one reason per die reads as one sentence, "Die 6: point 5 is held …" (no capital after the
colon), with the board's and the dice's own words in Russian and Bulgarian."""

from django.utils import translation

from games.engine.explain import BLOCKED, SIX_BLOCK
from games.services import why_not_message

REASONS = [(6, BLOCKED, 5), (5, SIX_BLOCK, 19)]


def test_reasons_per_die_continue_the_sentence_after_the_colon():
    with translation.override("en"):
        assert why_not_message(REASONS).startswith(
            "Die 6: point 5 is held by your opponent. Die 5: the step"
        )


def test_reasons_per_die_in_russian_and_bulgarian():
    with translation.override("ru"):
        text = why_not_message(REASONS)
        assert text.startswith("Кость 6: лунка 5 занята соперником. Кость 5: этот шаг")
        assert "пункт" not in text.lower()
    with translation.override("bg"):
        text = why_not_message(REASONS)
        assert text.startswith("Зар 6: поле 5 е заето от противника. Зар 5: тази стъпка")
        assert "пункт" not in text.lower()


def test_a_single_reason_is_a_whole_sentence():
    with translation.override("ru"):
        assert why_not_message([(6, BLOCKED, 5), (5, BLOCKED, 5)]) == "Лунка 5 занята соперником."
