"""The settings panel reads as a player thinks: characters Good, then Evil, then those who may change
sides, each in the rulebooks' order; each Lancelot variant said once, plainly; the Time limits page lists the
phases this game can have, and every phase a game reaches is listed."""
from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import actors, apply_action, new_game
from engine.policy import ai_seat_move
from gamebot.botapi.callbacks import Codec
from gamebot.compose.settings_panel import Pages
from gamebot.language import texts
from gamebot.messages.lobby import rules_text, settings_summary
from gamebot.messages.table import Table
from gamebot.storage.session import Settings
from gamebot.timing import policy
from tests.unit.audit_helpers import random_setup

LANGS = texts.languages()
GOOD = ["Merlin", "Percival", "Cleric", "Troublemaker", "Good Rogue", "Good Sorcerer", "Good Messenger"]
EVIL = ["Assassin", "Mordred", "Oberon", "Morgana", "Lunatic", "Brute", "Revealer", "Trickster", "Evil Rogue",
        "Evil Sorcerer", "Evil Messenger"]
CHANGE_SIDES = ["Lancelot (Good)", "Lancelot (Evil)", "Untrustworthy Servant"]


def page(name: str, st_: Settings | None = None, lang: str = "en") -> tuple[str, list[list[str]]]:
    table = Table(chat_id=-1, game_id="g", lang=lang, names=list("ABCDE"), title="Group")
    text, keyboard = Pages(table, Codec("k"), st_ or Settings(), 5, lang, timers_enforced=True).page(name)
    return text, [[b.text for b in row] for row in keyboard]


def _label(text: str) -> str:
    return re.sub(r"^(✅|▫️) ", "", text)


def test_characters_are_listed_good_then_evil_then_those_who_change_sides():
    text, rows = page("roles")
    labels = [_label(b) for row in rows[:-1] for b in row]  # (the last row: Back)
    assert labels == GOOD + EVIL + CHANGE_SIDES
    for row in rows[:-1]:  # a row never mixes two groups
        groups = {0 if _label(b) in GOOD else 1 if _label(b) in EVIL else 2 for b in row}
        assert len(groups) == 1, row
    assert "😇 Good first, then 😈 Evil, then 🔄 those who may change sides." in text


def test_the_lobby_and_the_rules_name_the_characters_in_the_same_order():
    table = Table(chat_id=-1, game_id="g", lang="en", names=list("ABCDE"))
    roles = ["evil_lancelot", "assassin", "merlin", "good_lancelot", "morgana", "percival"]
    names, _ = settings_summary(table, roles, {})
    assert names == "Merlin, Percival, Assassin, Morgana, Lancelot (Good), Lancelot (Evil)"
    rules = rules_text(table, roles, {})
    listed = re.findall(r"^• <b>(.+?)</b>", rules, re.M)
    assert listed == ["Merlin", "Percival", "Assassin", "Morgana", "Lancelot (Good)", "Lancelot (Evil)"]


LANCELOT = Settings(roles=["merlin", "assassin", "good_lancelot", "evil_lancelot"], options={"lancelot": "bigbox_switch"})


def _lancelot_values_page(lang: str) -> tuple[str, list[list[str]]]:
    from gamebot.messages.settings import available_modules

    index = [key for _, key, _ in available_modules("avalon")].index("lancelot")
    return page(f"m{index}", LANCELOT, lang)


def test_each_lancelot_variant_is_said_once_plainly():
    text, rows = _lancelot_values_page("en")
    assert ("• <b>Drawn every Quest (Big Box)</b>: Variant 1: 4 No change and 2 Switch cards; one is turned face up "
            "as each Quest begins.") in text
    assert [b for row in rows for b in row][1:5] == [
        "🔘 Drawn every Quest (Big Box)", "▫️ Drawn from Quest 3 (French)", "▫️ Dealt face up (Big Box)",
        "▫️ Dealt face up (French)"]
    options_text, option_rows = page("options", LANCELOT)
    assert "✅ Lancelot: Drawn every Quest (Big Box)" in [b for row in option_rows for b in row]
    assert "Options: Lancelot (drawn every Quest, Big Box)" in options_text  # the button's name


@pytest.mark.parametrize("lang", LANGS)
def test_no_language_says_a_variant_twice(lang):
    text, _ = _lancelot_values_page(lang)
    lines = [line for line in text.split("\n") if line.startswith("• ")]
    assert len(lines) == 4 and len(set(lines)) == 4
    for line in lines:
        name, _, explained = line.partition("</b>")
        assert explained.strip(" :")  # an explanation, not the name again
        for word in ("Big Box", "расширен", "classi", "клас"):  # the edition, once
            assert line.lower().count(word.lower()) <= 1, line
        assert len(re.findall(r"\b(Variant[ea]?|Вариант)\b", line)) == 1, line  # "Variant 1" once, in the help


def _phase_buttons(st_: Settings) -> list[str]:
    _, rows = page("timers", st_)
    names = {policy.phase_name(Table(chat_id=-1, game_id="g", lang="en"), p): p for p, _ in policy.PHASES}
    return [names[b.split(":")[0]] for row in rows for b in row if b.split(":")[0] in names]


def test_the_timers_page_lists_only_the_phases_this_game_uses():
    assert _phase_buttons(Settings()) == ["join", "propose", "vote", "quest", "assassination"]
    text, _ = page("timers", Settings())
    for absent in ("Excalibur", "Plot cards", "Trapper", "Rogue", "Loyalty", "Lady of the Lake", "Other decisions"):
        assert absent not in text
    assert "Only the phases this game can have are listed" in text
    lady = Settings(options={"lady_of_the_lake": True, "excalibur": True})
    assert _phase_buttons(lady) == ["join", "propose", "vote", "quest", "lady", "assassination", "excalibur"]
    resistance = Settings(theme="resistance", roles=[], options={"plot_cards": True})
    assert _phase_buttons(resistance) == ["join", "propose", "vote", "quest", "plot_cards"]
    rogues = Settings(roles=["merlin", "assassin", "good_rogue", "evil_rogue"], options={"trapper": True})
    assert _phase_buttons(rogues) == ["join", "propose", "vote", "quest", "assassination", "trapper", "rogue"]
    # a Trickster may choose which Loyalty card to hand over, once something checks loyalty
    liar = ["merlin", "assassin", "trickster"]
    assert "loyalty" not in _phase_buttons(Settings(roles=liar))
    assert "loyalty" in _phase_buttons(Settings(roles=[*liar, "cleric"]))
    assert "loyalty" not in _phase_buttons(Settings(roles=["merlin", "assassin", "troublemaker", "cleric"]))


def test_a_phase_not_listed_keeps_its_limit_and_its_button_index():
    st_ = Settings()
    st_.timers.limits = {"excalibur": 300}
    _, rows = page("timers", st_)
    assert not any("Excalibur" in b for row in rows for b in row)
    assert st_.timers.limits == {"excalibur": 300}
    st_.options["excalibur"] = True
    _, rows = page("timers", st_)
    assert "Excalibur: 5 min" in [b for row in rows for b in row]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 100_000))
def test_every_phase_a_game_reaches_is_listed(seed):
    from gamebot.compose.settings_check import phases_in_play

    rng = random.Random(seed)
    config = None
    while config is None:
        config = random_setup(rng)
    listed = set(phases_in_play(Settings(theme=config.theme.value, roles=list(config.roles),
                                         options=dict(config.options), assassin=config.assassin)))
    assert listed >= {"join", "propose", "vote", "quest"}
    state, _ = new_game(config, seed)
    for _ in range(3000):
        if state.over:
            break
        assert policy.phase_of(state) in listed, (policy.phase_of(state), config)
        seat = rng.choice(actors(state))
        state, _ = apply_action(state, ai_seat_move(state, seat, rng))
    assert state.over
