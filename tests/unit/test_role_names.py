"""Characters' names read the same way everywhere: ``role.<id>`` is the bare name, as lists and labels show
it (the end's roles, /rules, the settings, statistics by character, the picture), in every language;
``role_a.<id>`` is the form a sentence needs ("You are the Assassin", "Bob is a Minion of Mordred",
"Merlin sees the Assassin..."), with the article the language puts there."""
from __future__ import annotations

import html
import random
import re

import pytest

from engine import ROLES, GameConfig, Theme, public_view
from gamebot.language import texts, wording
from gamebot.messages.lobby import rules_text
from gamebot.messages.reveal_words import reveal_text
from gamebot.messages.role_card import role_card
from gamebot.messages.table import Table
from gamebot.story import end_text
from localdev.autoplay import Driver, Policy
from tests.helpers import play_game
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen

LANGS = ["en", "fr", "es", "de", "ru", "pt", "it"]
# The articles a name may begin with, per language (Russian has none).
ARTICLES = {
    "en": ("the ", "a ", "an "),
    "fr": ("le ", "la ", "les ", "l'", "un ", "une "),
    "es": ("el ", "la ", "los ", "las ", "un ", "una "),
    "de": ("der ", "die ", "das ", "ein ", "eine "),
    "ru": (),
    "pt": ("o ", "a ", "os ", "as ", "um ", "uma "),
    "it": ("il ", "lo ", "la ", "l'", "i ", "gli ", "le ", "un ", "uno ", "una ", "un'"),
}
CHARACTERS = sorted(ROLES) + ["trapper"]  # (the Trapper is named like a character where a source is shown)
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy"]


def article(lang: str, name: str) -> str | None:
    return next((a for a in ARTICLES[lang] if name.lower().startswith(a)), None)


def themes_of(role_id: str) -> list[str]:
    role = ROLES.get(role_id)
    return [t.value for t in role.themes] if role is not None else ["avalon"]


def same_word(lang: str, sentence_word: str, bare_word: str) -> bool:
    """German declines an adjective after the article ("der Unzuverlässige" / "Unzuverlässiger")."""
    if lang == "de":
        return sentence_word.rstrip("rn") == bare_word.rstrip("rn") or sentence_word[:-1] == bare_word[:-1]
    return sentence_word == bare_word


@pytest.mark.parametrize("lang", LANGS)
def test_every_characters_name_is_bare_and_its_sentence_form_adds_only_the_article(lang):
    for role_id in CHARACTERS:
        for theme in themes_of(role_id):
            bare = texts.t(f"role.{role_id}", lang, theme)
            assert article(lang, bare) is None, (role_id, theme, bare)
            assert bare[:1] == bare[:1].upper(), (role_id, theme, bare)  # a name, capitalised as a label
            sentence = wording.role_a(Table(chat_id=0, game_id="", lang=lang, theme=theme), role_id)
            found = article(lang, sentence)
            rest = sentence[len(found):] if found else sentence
            assert len(rest.split()) == len(bare.split()), (role_id, sentence, bare)
            assert all(same_word(lang, a, b) for a, b in zip(rest.split(), bare.split(), strict=True)), (sentence, bare)
            # a character English names with an article is named with one in every language that has them
            english = wording.role_a(Table(chat_id=0, game_id="", lang="en", theme=theme), role_id)
            if ARTICLES[lang] and article("en", english):
                assert found, (lang, role_id, theme, sentence)


@pytest.mark.parametrize("lang", LANGS)
def test_sentences_about_a_character_use_its_sentence_form(lang):
    table = Table(chat_id=0, game_id="g", lang=lang, theme="avalon", names=NAMES[:7])
    for role_id in ("assassin", "lunatic", "minion", "good_messenger", "merlin"):
        side = "evil" if role_id in ("assassin", "lunatic", "minion") else "good"
        card = role_card(table, {"you": {"role": role_id, "side": side, "knowledge": []}})
        assert f"<b>{html.escape(wording.role_a(table, role_id), quote=False)}</b>" in card, (role_id, card)
    config = GameConfig(theme=Theme.AVALON, players=7, roles=("merlin", "assassin", "percival", "morgana"))
    reveal = html.unescape(reveal_text(table, config))
    assert wording.role_a(table, "assassin") in reveal or wording.role_a(table, "assassin").capitalize() in reveal
    # with nobody to name (an older summary), the end names the Assassin at the start of a sentence
    pv = {"winner": "evil", "win_reason": "merlin_assassinated", "roles": [], "sides": []}
    why = html.unescape(end_text.reason(table, pv))
    sentence = wording.role_a(table, "assassin")
    assert why.startswith(sentence[:1].upper() + sentence[1:]), why


def role_lines(text: str) -> dict[str, str]:
    """The end's role list: name -> the character shown in bold after it ("Carol: ", "Carol als ", "Carol, rôle : ")."""
    return {m.group(1): m.group(2) for m in re.finditer(r"^\S+ (\w+)(?: ?:|,? \w+(?: ?:)?) <b>([^<]+)</b>", text, re.M)}


@pytest.mark.parametrize("lang", LANGS)
def test_the_role_lists_of_a_whole_game_show_bare_names_in_every_language(lang):
    roles = ("merlin", "assassin", "percival", "morgana", "lunatic", "good_messenger", "good_messenger",
             "evil_messenger", "cleric")
    game = play_game(GameConfig(theme=Theme.AVALON, players=10, roles=roles), seed=11)
    assert game.final.over
    pv = public_view(game.final)
    table = Table(chat_id=-1, game_id="g", lang=lang, theme="avalon", names=NAMES)
    shown = role_lines(html.unescape("\n".join(end_text.game_over(table, pv))))
    dealt = list(game.final.roles)
    assert len(shown) == 10
    for seat, name in enumerate(NAMES):
        assert shown[name] == texts.t(f"role.{dealt[seat]}", lang), (name, shown[name])
        assert article(lang, shown[name]) is None
    rules = html.unescape(rules_text(table, list(roles), {}))
    for role_id in roles:
        assert f"<b>{texts.t(f'role.{role_id}', lang)}</b>" in rules, role_id


@pytest.mark.parametrize("lang", LANGS)
def test_the_end_of_a_game_played_through_the_bot_lists_bare_names(lang):
    h = Harness(seed=3)
    try:
        h.langs.update({uid: lang for uid in range(1, 8)})
        players = list(range(1, 8))
        h.command(1, f"/language {lang}")
        h.lobby(players, join=texts.t("lobby.button.join", lang).split(" ", 1)[1])
        h.press_label(1, GROUP, texts.t("lobby.button.start", lang).split(" ", 1)[1])
        driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(3)))
        driver.play()
        assert driver.over()
        end = next(t for t in h.io.texts(GROUP) if texts.t("end.roles", lang) in t)
        shown = role_lines(html.unescape(end))
        assert len(shown) == 7
        names = {texts.t(f"role.{r}", lang) for r in ("merlin", "assassin", "servant", "minion")}
        assert set(shown.values()) <= names and texts.t("role.assassin", lang) in shown.values()
        assert [v for v in shown.values() if article(lang, v)] == []  # "Carol: Assassin" beside "Bob: Minion..."
    finally:
        h.close()
