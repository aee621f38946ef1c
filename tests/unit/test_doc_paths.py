"""The README and docs/ name only test files and scripts that exist: a test file moved to another tier, or
renamed, is named by its new path (tests/browser/..., test_ai_seats.py), never by one that is gone."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PATH = re.compile(r"(?<![\w./])(tests/[\w/]+\.py|scripts/\w+(?:\.py)?)")  # (not a module or a glob)
BARE = re.compile(r"(?<![\w/])(test_\w+\.py)")


def _named() -> list[tuple[str, str]]:
    return [(doc.relative_to(ROOT).as_posix(), m.group(1)) for doc in DOCS
            for pattern in (PATH, BARE) for m in pattern.finditer(doc.read_text(encoding="utf-8"))]


def test_every_test_file_and_script_the_docs_name_exists():
    tests = {p.name for p in (ROOT / "tests").rglob("test_*.py")}
    missing = sorted({(doc, name) for doc, name in _named()
                      if not ((ROOT / name).exists() if "/" in name else name in tests)})
    assert missing == []


def test_the_check_sees_paths_and_bare_names():
    found = {name for _, name in _named()}
    assert "tests/browser/test_playground_browser.py" in found and "scripts/bench_ai_seats.py" in found
    assert "test_properties_base.py" in found
