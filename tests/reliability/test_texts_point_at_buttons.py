"""A text never points at buttons that are not there: the line that tells the team to play its card with
the buttons below stands only in a message that carries the card buttons, in every language and set-up
(a quest that opens after other decisions, the last card in, a Plot card's news in between)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gamebot.language import texts
from tests.reliability.support import SETUPS
from tests.reliability.transcripts import play
from tests.unit.gamebot_fakes import GROUP

LOCALES = Path(texts.LOCALES_DIR)
LANGS = sorted(p.stem for p in LOCALES.glob("*.json"))


def _pointing_line(lang: str, theme: str) -> str:
    return texts.t("quest.play_below", lang, theme)


def test_only_the_line_made_for_it_points_at_buttons_below():
    """In English, the one sentence that says "the buttons below" is the card line drawn with the buttons."""
    catalog = json.loads((LOCALES / "en.json").read_text())["messages"]
    entries = {key: value for section in catalog.values() for key, value in section.items()}
    pointing = sorted(key for key, value in entries.items()
                      if "buttons below" in json.dumps(value) or "button below" in json.dumps(value))
    assert pointing == ["quest.play_below"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("setup", "seed"), [("base", 2), ("lancelot_rogue_sorcerer", 2), ("resistance", 3)])
def test_every_message_that_points_at_the_card_buttons_carries_them(setup, seed, lang):
    h = play(SETUPS[setup], seed=seed, lang=lang)
    line = _pointing_line(lang, SETUPS[setup][0])
    pointed = 0
    for m in h.io.chat(GROUP):
        for i, text in enumerate(m.history):
            if line in text:
                pointed += 1
                if i == len(m.history) - 1:  # the message as it stands now must still carry them
                    assert m.keyboard, text
    for m in h.io.chat(GROUP):
        if m.keyboard is None and line in m.text:
            pytest.fail(f"no buttons under: {m.text}")
    assert pointed >= 3  # (a quest or more was played)
    h.close()
