"""Check a language's message catalog against English, and list what is still English.

    .venv/bin/python scripts/check_catalog.py de          # one language
    .venv/bin/python scripts/check_catalog.py             # every catalog

Prints missing and extra keys, placeholders that differ, plural blocks that miss a form the language
needs (CLDR rules, through Babel), and entries still word for word English that the catalog does not
list in ``language.same_as_english``. Exits 1 if anything is found.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared"), str(ROOT)]

from gamebot.language import texts  # noqa: E402
from tests.catalog_check import problems, untranslated  # noqa: E402


def main(argv: list[str]) -> int:
    langs = argv or [lang for lang in texts.languages() if lang != texts.DEFAULT_LANG]
    found = 0
    for lang in langs:
        other = texts.catalog(lang)
        if other is None:
            print(f"{lang}: no catalog shared/gamebot/language/locales/{lang}.json")
            found += 1
            continue
        issues = problems(texts.catalog("en"), other) + [f"still English: {k}" for k in untranslated(texts.catalog("en"), other)]
        print(f"{lang}: {len(issues)} problem(s)")
        for line in issues:
            print(f"  {line}")
        found += len(issues)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
