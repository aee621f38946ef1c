"""The README's commands table says what the commands take now."""
from __future__ import annotations

import re
from pathlib import Path

from gamebot.language import texts

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_language_command_lists_every_catalog_language():
    row = next(line for line in README.read_text(encoding="utf-8").splitlines() if line.startswith("| `/language"))
    listed = re.search(r"`/language \[([^\]]*)\]`", row)
    assert listed, row
    assert sorted(listed.group(1).replace("\\", "").split("|")) == sorted(texts.languages())
