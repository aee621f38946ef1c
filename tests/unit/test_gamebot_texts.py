"""The message catalogs: one JSON file per language, complete, with the same placeholders everywhere;
every name the engine can show has an entry; a third language is one more file."""
from __future__ import annotations

import json
import os
import re
import shutil

import pytest

import engine
from engine import errors as engine_errors
from engine.event_types import EVENTS, is_private
from engine.presets import PRESETS
from gamebot.language import texts
from gamebot.messages.events import SILENT_PRIVATE, SILENT_PUBLIC
from gamebot.messages.settings import available_modules
from gamebot.messages.table import Table
from tests.catalog_check import problems, templates, untranslated
from tests.unit.i18n_inventory import inventory

LANGS = texts.languages()


def _templates(entry):
    return templates(entry)


def test_there_are_seven_catalogs():
    assert LANGS[0] == "en" and set(LANGS) == {"en", "fr", "es", "de", "ru", "pt", "it"}
    assert texts.language_name("fr") == "Français" and texts.language_name("en") == "English"
    assert texts.language_name("ru") == "Русский" and texts.language_name("de") == "Deutsch"
    assert texts.lang_for("pt-br") == "pt" and texts.lang_for("de-AT") == "de" and texts.lang_for("ru") == "ru"


def test_the_command_menu_is_registered_in_every_language():
    from gamebot.botapi import commands

    menus = commands.menus()
    assert {m.get("language_code") for m in menus} == {None, "fr", "es", "de", "ru", "pt", "it"}
    english = next(m for m in menus if m.get("language_code") is None)
    for menu in menus:
        assert [c["command"] for c in menu["commands"]] == [c["command"] for c in english["commands"]]
        if menu.get("language_code"):
            assert [c["description"] for c in menu["commands"]] != [c["description"] for c in english["commands"]]


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != "en"])
def test_every_catalog_has_every_key_with_the_same_placeholders(lang):
    assert problems(texts.catalog("en"), texts.catalog(lang)) == []


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("theme", ["avalon", "resistance"])
def test_every_entry_renders_in_both_themes(lang, theme):
    for key, entry in texts.catalog(lang).messages.items():
        for template in _templates(entry):
            fields = texts.placeholders(template)
            out = texts.t(key, lang, theme, **{f: "X" for f in fields - set(texts.vocab(lang, theme))})
            assert not re.search(r"{\w+}", out), (lang, key, out)


def test_catalog_files_are_well_formed_json_with_unique_keys():
    for lang in LANGS:
        path = os.path.join(texts.LOCALES_DIR, f"{lang}.json")
        with open(path, encoding="utf-8") as fh:
            raw = fh.read()
        assert raw.endswith("\n")
        json.loads(raw)
        assert texts.load_file(path).messages == texts.catalog(lang).messages


def test_a_key_twice_in_a_catalog_is_refused(tmp_path):
    path = tmp_path / "xx.json"
    path.write_text('{"language": {"code": "xx"}, "vocab": {"avalon": {}}, '
                    '"messages": {"a": {"k": "one"}, "b": {"k": "two"}}}')
    with pytest.raises(texts.CatalogError, match="two sections"):
        texts.load_file(str(path))
    path.write_text('{"language": {"code": "xx"}, "vocab": {"avalon": {}}, "messages": {"a": {"k": "1", "k": "2"}}}')
    with pytest.raises(texts.CatalogError, match="twice"):
        texts.load_file(str(path))


def test_a_missing_key_or_a_changed_placeholder_is_reported():
    en = texts.catalog("en")
    broken = dict(texts.catalog("fr").messages)
    del broken["lobby.joined"]
    broken["vote.progress"] = "Ont voté : {names}"  # lost {count} and {of}
    fr = texts.Catalog("fr", "Français", texts.catalog("fr").vocab, broken)
    found = problems(en, fr)
    assert "missing lobby.joined" in found
    assert any(p.startswith("placeholders of vote.progress") for p in found)


# ---------------------------------------------------------------------------------------------------
# A third language is one file
# ---------------------------------------------------------------------------------------------------


@pytest.fixture
def with_tiny_catalog(tmp_path):
    for lang in LANGS:
        shutil.copy(os.path.join(texts.LOCALES_DIR, f"{lang}.json"), tmp_path)
    tiny = {
        "language": {"code": "eo", "name": "Esperanto"},
        "vocab": {"avalon": {"Quest": "Serĉo", "quest": "serĉo"}, "resistance": {"Quest": "Misio", "quest": "misio"}},
        "messages": {"lobby": {"lobby.button.join": "🙋 Aliĝi", "lobby.joined": "Vi aliĝis."},
                     "announcements": {"ev.QuestStarted": "⚔️ {Quest} {quest}: {team} ludas."}},
    }
    (tmp_path / "eo.json").write_text(json.dumps(tiny, ensure_ascii=False))
    previous = texts.LOCALES_DIR
    texts.reload(str(tmp_path))
    try:
        yield
    finally:
        texts.reload(previous)


def test_adding_a_language_is_adding_one_catalog_file(with_tiny_catalog):
    from gamebot.botapi import commands

    assert "eo" in texts.languages() and texts.language_name("eo") == "Esperanto"
    assert texts.lang_for("eo") == "eo"
    assert texts.t("lobby.button.join", "eo") == "🙋 Aliĝi"
    assert texts.t("ev.QuestStarted", "eo", "resistance", quest=2, team="A") == "⚔️ Misio 2: A ludas."
    assert texts.t("lobby.left", "eo") == texts.t("lobby.left", "en")  # not translated yet: English
    assert {m.get("language_code") for m in commands.menus()} == {None, *(c for c in texts.languages() if c != "en")}
    assert "eo" in {m.get("language_code") for m in commands.menus()}
    # ... and the completeness test names everything the new catalog still lacks
    found = problems(texts.catalog("en"), texts.catalog("eo"))
    assert "missing lobby.left" in found and "missing lobby.button.join" not in found


def test_the_settings_panel_offers_every_catalog_language(with_tiny_catalog):
    from gamebot.botapi.callbacks import Codec
    from gamebot.compose.settings_panel import Pages
    from gamebot.storage.session import Settings

    table = Table(chat_id=-1, game_id="g", lang="en")
    pages = Pages(table, Codec("k"), Settings(), 5, "eo", timers_enforced=True)
    _, kb = pages.page("main")
    assert [b.text for row in kb for b in row if b.text.startswith("🌐")] == ["🌐 Language: Esperanto"]
    _, kb = pages.page("language")
    shown = [b.text for row in kb for b in row][:-1]
    assert shown[:3] == ["▫️ English", "🔘 Esperanto", "▫️ Français"] or "🔘 Esperanto" in shown
    assert len(shown) == len(texts.languages())


def test_catalogs_are_parsed_only_when_a_language_is_used():
    texts.reload()
    texts.t("lobby.joined", "en")
    assert set(texts._catalogs) == {"en"}
    texts.t("lobby.joined", "fr")
    assert set(texts._catalogs) == {"en", "fr"}


# ---------------------------------------------------------------------------------------------------
# Vocabulary and fallbacks
# ---------------------------------------------------------------------------------------------------


def test_theme_vocabulary_avalon_quests_resistance_missions():
    assert texts.t("ev.QuestStarted", "en", "avalon", quest=2, team="A") .startswith("⚔️ Quest 2")
    assert texts.t("ev.QuestStarted", "en", "resistance", quest=2, team="A").startswith("⚔️ Mission 2")
    assert texts.name_of("role", "servant", "en", "avalon") == "Loyal Servant of Arthur"
    assert texts.name_of("role", "minion", "en", "avalon") == "Minion of Mordred"
    assert texts.name_of("role", "minion", "en", "resistance") == "Spy"
    assert texts.t("side.evil", "en", "resistance") == "Spy"


def test_french_uses_the_french_rulebook_words():
    fr = texts.catalog("fr").vocab
    assert fr["avalon"]["Leader"] == "Roi" and fr["avalon"]["Quest"] == "Quête"
    assert fr["avalon"]["servant"] == "Fidèle Vassal d'Arthur" and fr["avalon"]["minion"] == "Sbire de Mordred"
    assert (fr["avalon"]["success"], fr["avalon"]["fail"]) == ("Succès", "Échec")
    names = {r: texts.name_of("role", r, "fr") for r in ("merlin", "percival", "assassin", "morgana", "mordred",
                                                         "oberon", "good_lancelot", "evil_lancelot")}
    assert names == {"merlin": "Merlin", "percival": "Perceval", "assassin": "Assassin", "morgana": "Morgane",
                     "mordred": "Mordred", "oberon": "Oberon", "good_lancelot": "Lancelot du Bien",
                     "evil_lancelot": "Lancelot du Mal"}
    assert texts.name_of("module", "lady_of_the_lake", "fr") == "Dame du Lac"
    assert texts.name_of("module", "excalibur", "fr") == "Excalibur"
    assert texts.name_of("card", "switch", "fr") == "Changement d'Allégeance"
    assert texts.t("ev.RoundStarted", "fr", "avalon", round=2, leader="Éric") == "🔔 <b>Tour 2</b> · Couronne : Éric"
    # The Resistance in French
    assert texts.t("ev.QuestStarted", "fr", "resistance", quest=3, team="A et B").startswith("⚔️ Mission 3")
    assert texts.name_of("role", "minion", "fr", "resistance") == "Espion"
    assert texts.name_of("role", "servant", "fr", "resistance") == "Résistant"
    assert texts.t("end.title.evil", "fr", "resistance") == "🏁 <b>Fin de la partie : les Espions l'emportent !</b>"


def test_every_role_module_preset_and_engine_error_has_catalog_entries():
    for role_id in engine.ROLES:
        assert texts.has(f"role.{role_id}") and texts.has(f"rolehelp.{role_id}"), role_id
    for theme in ("avalon", "resistance"):
        for module_id, option, values in available_modules(theme):
            assert texts.has(f"module.{module_id}") and texts.has(f"modulehelp.{option}"), option
            for value in values or []:
                assert texts.has(f"variant.{value}"), value
    for preset in PRESETS:
        assert texts.has(f"preset.{preset}") and texts.has(f"presethelp.{preset}"), preset
    codes = {cls.code for cls in vars(engine_errors).values()
             if isinstance(cls, type) and issubclass(cls, engine_errors.IllegalAction)}
    assert codes >= {"not_your_turn", "wrong_team_size", "card_not_allowed"}
    for code in codes:
        assert texts.has(f"illegal.{code}"), code


@pytest.mark.slow
def test_everything_the_engine_shows_in_play_has_catalog_entries():
    inv = inventory()
    missing = []
    # every event, listed from the declarations (the games' events are all declared: test_event_types)
    assert set(inv.public) | set(inv.private) <= set(EVENTS)
    for etype in EVENTS:
        if is_private(etype):
            if etype not in SILENT_PRIVATE and not texts.has(f"priv.{etype}") and not texts.has(f"ev.{etype}"):
                missing.append(f"priv.{etype}")
        elif etype not in SILENT_PUBLIC and not any(texts.has(f"ev.{etype}{suffix}") for suffix in ("", ".hit", ".success")):
            missing.append(f"ev.{etype}")
    for kind in inv.kinds - {"propose", "vote"}:
        if not texts.has(f"prompt.{kind}"):
            missing.append(f"prompt.{kind}")
    names = [("kind", inv.kinds), ("know", inv.knowledge), ("source", inv.sources), ("card", inv.cards),
             ("note", inv.notes), ("board", inv.board)]
    for prefix, ids in names:
        for ident in ids:
            if not (texts.has(f"{prefix}.{ident}") or texts.has(f"plot.{ident.removeprefix('plot_')}")):
                missing.append(f"{prefix}.{ident}")
    for choice in inv.choices:
        if not any(texts.has(k) for k in (f"choice.{choice}", f"card.{choice}", f"plot.{choice}")):
            missing.append(f"choice.{choice}")
    for reason in inv.reasons:
        if not texts.has(f"end.reason.{reason}"):
            missing.append(f"end.reason.{reason}")
    for code in inv.issues:
        if not texts.has(f"config.{code}"):
            missing.append(f"config.{code}")
    assert missing == []
    assert len(inv.public) > 25 and len(inv.issues) > 20  # the games did reach the Big Box plug-ins


def test_the_french_glossary_matches_the_catalog():
    """docs/I18N.md lists the French names chosen for what the French rulebook lacks."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "docs", "I18N.md"), encoding="utf-8") as fh:
        doc = fh.read()
    french = doc.split("## French vocabulary", 1)[1].split("\n## ", 1)[0]  # (the other languages' tables follow)
    rows = re.findall(r"^\| `([a-z_.]+)` \| [^|]+ \| ([^|]+?) \|", french, re.M)
    assert len(rows) >= 20
    for key, french in rows:
        assert texts.has(key, "fr"), key
        assert texts.t(key, "fr", "avalon").strip() == french.strip(), key


def test_unknown_ids_fall_back_to_readable_names():
    assert texts.name_of("role", "black_knight") == "Black knight"
    assert texts.name_of("kind", "PlotCardDealt") == "Plot card dealt"
    assert texts.humanize("lady_of_the_lake") == "Lady of the lake"
    assert texts.name_of("kind", "plot_open_up", "fr", "resistance") == "Se dévoiler"  # Plot cards by their card


def test_telegram_language_codes_pick_a_catalog_or_the_fallback():
    assert texts.lang_for("fr-CA") == "fr" and texts.lang_for("FR") == "fr"
    assert texts.lang_for("xx-YY") == "en"
    assert texts.lang_for("ja", fallback="fr") == "fr"
    assert texts.lang_for(None) == "en"
    assert texts.t("lobby.button.join", "xx") == texts.t("lobby.button.join", "en")


def test_a_translation_with_an_unknown_placeholder_still_renders():
    cat = texts.catalog("fr")
    saved = cat.messages["lobby.joined"]
    cat.messages["lobby.joined"] = "Rejoint {nobody}"
    try:
        assert texts.t("lobby.joined", "fr") == "Rejoint {nobody}"
    finally:
        cat.messages["lobby.joined"] = saved


def test_join_names_reads_naturally():
    assert texts.join_names(["A"]) == "A"
    assert texts.join_names(["A", "B", "C"]) == "A, B and C"
    assert texts.join_names(["A", "B"], "fr") == "A et B"
    assert texts.join_names([]) == "none"


# ---------------------------------------------------------------------------------------------------
# Plurals (CLDR rules, through Babel) and untranslated entries
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != "en"])
def test_no_catalog_keeps_english_text_it_does_not_list_as_the_same(lang):
    assert untranslated(texts.catalog("en"), texts.catalog(lang)) == []


def test_english_plurals_follow_the_number():
    assert texts.t("prompt.pick", "en", count=1) == "Choose 1 player."
    assert texts.t("prompt.pick", "en", count=3) == "Choose 3 players."
    assert texts.t("timers.extend.limit", "en", max=1) == "The lobby was already extended once."
    assert texts.t("timers.extend.limit", "en", max=2) == "The lobby was already extended 2 times."
    assert texts.t("settings.check.joined", "en", count=1) == "Checked for the one player who joined."
    assert texts.t("board.title", "en", game="Avalon", players=7) == "📜 <b>Avalon</b> · 7 players"


def test_french_counts_zero_and_one_as_singular():
    assert texts.t("prompt.pick", "fr", count=1) == "Choisissez 1 joueur."
    assert texts.t("ratings.board_line", "fr", rank=1, name="A", rating="25.0", games=0).endswith("0 partie")
    assert texts.t("ratings.board_line", "fr", rank=1, name="A", rating="25.0", games=2).endswith("2 parties")


def test_plural_blocks_use_each_languages_cldr_categories():
    from gamebot.language import plurals

    russian = "{n, plural, one {# карта} few {# карты} many {# карт} other {# карты}}"
    assert [plurals.expand(russian, "ru", {"n": n}) for n in (1, 2, 5, 11, 21, 22, 25)] == [
        "1 карта", "2 карты", "5 карт", "11 карт", "21 карта", "22 карты", "25 карт"]
    exact = "{n, plural, =0 {none} one {# card for {name}} other {# cards for {name}}}"
    assert plurals.expand(exact, "en", {"n": 0}) == "none"
    assert plurals.expand(exact, "en", {"n": 1}).format(name="A") == "1 card for A"
    assert texts.placeholders(exact) == {"n", "name"}
    assert plurals.expand(exact, "en", {"n": "many"}) == "many cards for {name}"  # not a number: other
    with pytest.raises(plurals.PluralError, match="other"):
        list(plurals.blocks("{n, plural, one {a}}"))


def test_in_a_nested_plural_block_the_number_sign_is_its_own_blocks_number():
    from gamebot.language import plurals

    nested = "{n, plural, one {# team} other {# teams, {k, plural, one {# card} other {# cards}} each}}"
    assert plurals.expand(nested, "en", {"n": 3, "k": 1}) == "3 teams, 1 card each"
    assert plurals.expand(nested, "en", {"n": 2, "k": 5}) == "2 teams, 5 cards each"


def test_a_plural_block_missing_a_languages_form_is_reported():
    ru = texts.Catalog("ru", "Русский", {"avalon": {}}, {"k": "{n, plural, one {# карта} other {# карт}}"})
    from tests.catalog_check import plural_problems

    assert plural_problems(ru) == ["plural of k (n): needs ['few', 'many']"]
