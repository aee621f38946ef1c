"""An AI seat's name already ends with a bracket: "🤖 Ada (bot)" (catalog ``ai_seats.name``; the game picture
strips the emoji and relies on the bracket). A template that writes "({something})" right after a player's
name would show "🤖 Ada (bot) (Líder)". So no template puts a bracket right after a placeholder that holds a
player's name or a list of names: the role or title goes into the sentence ("Carol als Assassine", "{leader}
führt an und schlägt vor", "Ada gana en solitario como Pícaro del Mal"), or the bracket goes before the names
("⏳ Waiting (vote): …").

Every template of every catalog is rendered with an AI seat's name in each such placeholder (the language's
own ``ai_seats.name``), its theme words, and a plain word in every other placeholder; the text, read without its
tags, must never have two brackets in a row."""
from __future__ import annotations

import re

import pytest

from gamebot.language import plurals, texts

LANGS = ["en", "fr", "es", "de", "ru", "pt", "it"]
# Placeholders holding one player's name, or a list of names joined by the code (which ends with a name).
NAMES = {"assassin", "by", "checker", "holder", "host", "leader", "name", "previous", "receiver", "seat", "target",
         "who", "names", "team", "approve", "reject", "targets", "voted"}
# Templates whose {name} is not a player: ``ai_seats.name`` is the bracket itself; a preset's name and its players.
OWN = {"ai_seats.name", "settings.preset_button", "settings.preset_line"}
TWO_IN_A_ROW = re.compile(r"\)\s*\(")


def rendered(lang: str, template: str, theme: str) -> str:
    words = texts.vocab(lang, theme)
    bot = str(texts.t("ai_seats.name", lang, theme, name="Ada"))

    def value(m: re.Match[str]) -> str:
        name = re.split(r"[,!:.\[]", m.group(1))[0].strip()
        return bot if name in NAMES else words.get(name, "x")

    text = re.sub(r"\{([^{}]*)\}", value, plurals.flatten(template))
    return re.sub(r"</?\w+>", "", text)


def two_brackets(lang: str) -> list[str]:
    found = []
    for key, entry in texts.catalog(lang).messages.items():
        if key in OWN:
            continue
        for theme in ("avalon", "resistance"):
            template = entry if isinstance(entry, str) else entry.get(theme) or entry.get("*") or next(iter(entry.values()))
            text = rendered(lang, template, theme)
            if TWO_IN_A_ROW.search(text):
                found.append(f"{key} ({theme}): {text!r}")
    return sorted(set(found))


@pytest.mark.parametrize("lang", LANGS)
def test_an_ai_seat_never_reads_two_brackets(lang):
    assert "(" in texts.t("ai_seats.name", lang, name="Ada")  # the bracket the picture relies on
    assert two_brackets(lang) == []


def test_the_check_finds_two_brackets():
    assert rendered("de", "{leader} ({Leader}) schlägt vor", "avalon") == "🤖 Ada (Bot) (Anführer) schlägt vor"
    assert TWO_IN_A_ROW.search(rendered("es", "🏴 ¡{seat} (<b>{role}</b>) gana en solitario!", "avalon"))
    assert TWO_IN_A_ROW.search(rendered("en", "⏳ Waiting for: {who} ({what})", "avalon"))
    assert not TWO_IN_A_ROW.search(rendered("de", "{leader} führt an und schlägt vor: <b>{team}</b>", "avalon"))
    assert not TWO_IN_A_ROW.search(rendered("en", "Only the {Leader} ({leader}) can choose the team.", "avalon"))
