"""Compile the project's translations (``locale/<lang>/LC_MESSAGES/*.po``) to ``.mo`` files
with Babel, so that a machine without GNU gettext can run the site.

    python -m nardy_site.compilemessages [LOCALE_DIR]

Covers every domain present (``django`` and ``djangojs``). Fuzzy entries are left out, as
``msgfmt`` would. A ``.mo`` is rewritten only when its ``.po`` is newer, and atomically, so a
running server never reads half a file. Exit status 1 if a catalogue cannot be read.
"""

import sys
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"


def compile_catalogues(locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """Compile every stale ``.po`` under ``locale_dir``; returns the ``.mo`` paths written.

    Raises babel's ``PoFileError`` (a ``ValueError``) when a ``.po`` file is malformed.
    """
    written = []
    for po_path in sorted(locale_dir.glob("*/LC_MESSAGES/*.po")):
        mo_path = po_path.with_suffix(".mo")
        if mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
            continue
        with po_path.open("rb") as handle:
            catalog = read_po(handle, locale=po_path.parent.parent.name, abort_invalid=True)
        tmp_path = mo_path.with_name(mo_path.name + ".tmp")
        with tmp_path.open("wb") as handle:
            write_mo(handle, catalog, use_fuzzy=False)
        tmp_path.replace(mo_path)
        written.append(mo_path)
    return written


def main(argv=None) -> int:
    """Command-line entry point; see the module docstring."""
    argv = sys.argv[1:] if argv is None else argv
    locale_dir = Path(argv[0]) if argv else LOCALE_DIR
    try:
        written = compile_catalogues(locale_dir)
    except ValueError as exc:
        print(f"compilemessages: {exc}", file=sys.stderr)
        return 1
    for path in written:
        print(f"compiled {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
