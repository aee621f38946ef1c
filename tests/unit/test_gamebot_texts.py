"""The text catalog: every entry renders in both themes; names fall back for new plug-ins."""
from __future__ import annotations

import re

import pytest

import engine
from gamebot import texts


@pytest.mark.parametrize("theme", ["avalon", "resistance"])
def test_every_catalog_entry_renders_in_both_themes(theme):
    for key, entry in texts.CATALOG["en"].items():
        templates = entry.values() if isinstance(entry, dict) else [entry]
        for template in templates:
            fields = set(re.findall(r"{(\w+)}", template))
            out = texts.t(key, "en", theme, **{f: "X" for f in fields})
            assert "{" not in out or "}" not in out, (key, out)


def test_theme_vocabulary_avalon_quests_resistance_missions():
    assert texts.t("ev.QuestStarted", "en", "avalon", quest=2, team="A") .startswith("⚔️ Quest 2")
    assert texts.t("ev.QuestStarted", "en", "resistance", quest=2, team="A").startswith("⚔️ Mission 2")
    assert texts.name_of("role", "servant", "en", "avalon") == "Loyal Servant of Arthur"
    assert texts.name_of("role", "minion", "en", "avalon") == "Minion of Mordred"
    assert texts.name_of("role", "minion", "en", "resistance") == "Spy"
    assert texts.t("side.evil", "en", "resistance") == "Spy"


def test_every_engine_role_and_module_has_a_readable_name():
    for role_id in engine.ROLES:
        name = texts.name_of("role", role_id)
        assert name and "_" not in name
    for module_id in engine.MODULES:
        assert "_" not in texts.name_of("module", module_id)


def test_unknown_ids_fall_back_to_readable_names():
    assert texts.name_of("role", "black_knight") == "Black knight"
    assert texts.name_of("kind", "PlotCardDealt") == "Plot card dealt"
    assert texts.humanize("lady_of_the_lake") == "Lady of the lake"


def test_unknown_languages_fall_back_to_english():
    assert texts.lang_for("xx-YY") == "en"
    assert texts.lang_for(None) == "en"
    assert texts.t("lobby.button.join", "xx") == texts.t("lobby.button.join", "en")


def test_a_translation_with_a_missing_placeholder_still_renders():
    texts.CATALOG["zz"] = {"lobby.joined": "Beigetreten {nobody}"}
    try:
        assert texts.t("lobby.joined", "zz") == "Beigetreten {nobody}"
        assert texts.t("lobby.left", "zz") == texts.t("lobby.left", "en")
    finally:
        del texts.CATALOG["zz"]


def test_join_names_reads_naturally():
    assert texts.join_names(["A"]) == "A"
    assert texts.join_names(["A", "B", "C"]) == "A, B and C"
    assert texts.join_names([]) == "none"
