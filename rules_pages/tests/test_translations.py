"""Every message of the ru and bg catalogues is translated and none is fuzzy."""

from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings

LOCALE_DIR = Path(settings.LOCALE_PATHS[0])
TRANSLATED_LANGS = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]


def catalogues():
    for lang in TRANSLATED_LANGS:
        for po_path in sorted((LOCALE_DIR / lang / "LC_MESSAGES").glob("*.po")):
            yield pytest.param(po_path, id=f"{lang}/{po_path.name}")


def test_each_translated_language_has_a_django_catalogue():
    for lang in TRANSLATED_LANGS:
        assert (LOCALE_DIR / lang / "LC_MESSAGES" / "django.po").is_file(), lang


@pytest.mark.parametrize("po_path", list(catalogues()))
def test_catalogue_has_no_untranslated_or_fuzzy_message(po_path):
    with po_path.open("rb") as handle:
        catalog = read_po(handle, locale=po_path.parent.parent.name, abort_invalid=True)
    assert not catalog.fuzzy, f"{po_path}: the header is marked fuzzy"
    problems = []
    for message in catalog:
        if not message.id:
            continue
        where = f"{po_path.name}: {message.id!r}"
        if message.fuzzy:
            problems.append(f"fuzzy {where}")
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not all(s and s.strip() for s in strings):
            problems.append(f"untranslated {where}")
    assert len(catalog) > 1, f"{po_path} has no messages"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("po_path", list(catalogues()))
def test_catalogue_keeps_placeholders(po_path):
    """A translation keeps the same %(name)s / {name} placeholders as its source text."""
    import re

    placeholder = re.compile(r"%\(\w+\)[sd]|%[sd]|\{\w*\}")
    with po_path.open("rb") as handle:
        catalog = read_po(handle, locale=po_path.parent.parent.name)
    problems = []
    for message in catalog:
        if not message.id or not message.string:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = sorted(placeholder.findall(ids[-1]))
        for text in strings:
            found = sorted(placeholder.findall(text))
            # A plural form may drop the count (e.g. "one checker"), never add a new name.
            if not set(found) <= set(wanted) or (len(ids) == 1 and found != wanted):
                problems.append(f"{po_path.name}: {ids[0]!r} -> {text!r}")
    assert not problems, "\n".join(problems)
