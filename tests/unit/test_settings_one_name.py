"""The settings panel names each thing once (issue: one name for each thing).

* an option's button and its name in the summary ("Options: …") and on the options page are the same
  words, in every language and both games;
* the button that opens the time limits' page and the page's title say the same word;
* an option that needs a character not chosen says which one (on the options page, in the summary, and
  when pressed), and the check and the game leave it out, as the summary says.

What needs what comes from the engine's plug-ins (``gamebot.messages.settings.option_needs``)."""
from __future__ import annotations

import pytest

from gamebot.botapi.callbacks import Codec
from gamebot.compose.settings_check import check, config_for
from gamebot.compose.settings_panel import Pages
from gamebot.language import texts
from gamebot.language.markup import plain
from gamebot.messages.settings import available_modules
from gamebot.messages.table import Table
from gamebot.storage.session import Settings
from tests.unit.gamebot_fakes import GROUP, Harness, session

LANGS = texts.languages()
THEMES = ("avalon", "resistance")
# every character an Avalon option may need, so that every option applies
EVERYONE = ["merlin", "assassin", "good_lancelot", "evil_lancelot", "good_sorcerer", "evil_sorcerer",
            "good_messenger", "good_messenger", "evil_messenger"]
# what the rulebooks say each of these options needs (002: the Lancelot variants, the Messengers' optional
# rule, the Sorcerers' optional rule)
NEEDS = {
    "lancelot": ("good_lancelot", "evil_lancelot"),
    "senior_junior_messengers": ("good_messenger", "evil_messenger"),
    "sorcerer_hidden": ("good_sorcerer", "evil_sorcerer"),
}


def _table(lang: str, theme: str = "avalon") -> Table:
    return Table(chat_id=-1, game_id="g", lang=lang, theme=theme, names=list("ABCDE"), title="Group")


def _page(name: str, settings: Settings, lang: str) -> tuple[str, list[str]]:
    table = _table(lang, settings.theme)
    text, kb = Pages(table, Codec("k"), settings, 5, lang, timers_enforced=True).page(name)
    return text, [b.text for row in kb for b in row]


def _after(template_key: str, lang: str, theme: str, text: str, **params: str) -> str:
    """What ``text``'s line made from ``template_key`` says in its one open parameter (the others given)."""
    marker = "\x00"
    open_ = next(p for p in texts.placeholders(texts.catalog("en").messages[template_key]) if p not in params)
    head, _, tail = plain(texts.t(template_key, lang, theme, **params, **{open_: marker})).partition(marker)
    for line in plain(text).split("\n"):
        if line.startswith(head) and line.endswith(tail):
            return line[len(head): len(line) - len(tail)]
    raise AssertionError(f"no {template_key} line in {text!r}")


def _line_start(lang: str, theme: str, name: str) -> str:
    """How an option's line on the options page starts: its name, then its explanation."""
    return plain(texts.t("settings.option_line", lang, theme, name=name, help="\x00")).partition("\x00")[0]


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("lang", LANGS)
def test_an_option_is_named_the_same_on_its_button_and_in_the_summary(lang, theme):
    for i, (_, key, values) in enumerate(available_modules(theme)):
        value = values[0] if values else True
        settings = Settings(theme=theme, roles=EVERYONE if theme == "avalon" else [], options={key: value})
        text, buttons = _page("options", settings, lang)
        summary = _after("settings.options", lang, theme, text)
        if values:
            variant = plain(texts.name_of("variant", value, lang, theme))
            assert summary.endswith(f" ({variant})"), (key, summary)
            name = summary.removesuffix(f" ({variant})")
            label = plain(texts.t("settings.button.option_value", lang, theme, option=name,
                                  value=texts.name_of("valuebutton", value, lang, theme)))
        else:
            name = label = summary
        assert buttons[i] == "✅ " + label, (lang, theme, key, summary, buttons[i])
        assert _line_start(lang, theme, name) in plain(text), (lang, key, name)  # its line on the options page
        if values:
            values_page, _ = _page(f"m{i}", settings, lang)
            assert name in plain(values_page).split("\n")[0], (lang, key, values_page)


@pytest.mark.parametrize("lang", LANGS)
def test_the_time_limits_button_and_page_say_the_same_word(lang):
    _, buttons = _page("main", Settings(), lang)
    button = next(b for b in buttons if b.startswith("⏱"))
    word = button.removeprefix("⏱").strip()
    title = plain(_page("timers", Settings(), lang)[0]).split("\n")[0]
    assert word in title, (button, title)
    # ... and what a missing vote counts as, an option of that page, is named after it too
    assert plain(texts.t("module.timeout_vote", lang)) == word


@pytest.mark.parametrize("lang", LANGS)
def test_an_option_needing_a_character_not_chosen_says_which(lang):
    table = _table(lang)
    text, buttons = _page("options", Settings(), lang)  # Merlin and the Assassin only
    lines = plain(text).split("\n")
    for i, (_, key, _) in enumerate(available_modules("avalon")):
        line = next(x for x in lines if x.startswith(_line_start(lang, "avalon", table.module(key))))
        if key in NEEDS:
            assert "🔒" in line and all(plain(table.role(r)) in line for r in NEEDS[key]), line
            assert buttons[i].startswith("🔒 "), buttons[i]
        else:
            assert "🔒" not in line and not buttons[i].startswith("🔒"), (line, buttons[i])
    # with the characters chosen, no lock
    text, buttons = _page("options", Settings(roles=EVERYONE), lang)
    assert "🔒" not in text and not any(b.startswith("🔒") for b in buttons)


@pytest.mark.parametrize("lang", LANGS)
def test_the_summary_leaves_out_an_option_that_cannot_apply_and_says_why(lang):
    table = _table(lang)
    settings = Settings(options={"sorcerer_hidden": True, "excalibur": True})  # no Sorcerer
    text, _ = _page("main", settings, lang)
    assert _after("settings.options", lang, "avalon", text) == plain(table.module("excalibur"))
    note = next(line for line in plain(text).split("\n") if line.startswith("🔒"))
    assert plain(table.module("sorcerer_hidden")) in note
    assert all(plain(table.role(r)) in note for r in NEEDS["sorcerer_hidden"]), note


def test_the_check_and_the_game_leave_out_what_the_summary_leaves_out():
    hidden = Settings(options={"sorcerer_hidden": True})
    assert config_for(hidden, 7).options == {}
    assert "option_without_effect" not in [i.code for i in check(hidden, 7).issues]
    lancelot = Settings(options={"lancelot": "bigbox_switch"})
    assert config_for(lancelot, 7).options == {} and check(lancelot, 7).playable
    # with the characters, the option plays
    both = Settings(roles=["merlin", "assassin", "good_lancelot", "evil_lancelot"], options={"lancelot": "bigbox_switch"})
    assert config_for(both, 7).options == {"lancelot": "bigbox_switch"} and check(both, 7).playable
    sorcerers = Settings(roles=["merlin", "assassin", "good_sorcerer", "evil_sorcerer"], options={"sorcerer_hidden": True})
    assert config_for(sorcerers, 7).options == {"sorcerer_hidden": True}


def test_what_an_option_needs_is_read_from_the_engine():
    from gamebot.messages.settings import option_needs

    assert option_needs("avalon", "senior_junior_messengers", ["merlin"]) == ["good_messenger", "evil_messenger"]
    assert option_needs("avalon", "senior_junior_messengers", ["evil_messenger"]) == []
    assert option_needs("avalon", "sorcerer_hidden", []) == ["good_sorcerer", "evil_sorcerer"]
    assert option_needs("avalon", "lancelot", ["good_lancelot"]) == ["evil_lancelot"]
    assert option_needs("avalon", "lancelot", ["good_lancelot", "evil_lancelot"]) == []
    for key in ("excalibur", "lady_of_the_lake", "trapper", "targeting", "plot_cards", "blind_spies"):
        assert option_needs("avalon", key, []) == [], key


def _open_options(h: Harness) -> None:
    h.lobby([1, 2, 3, 4, 5], join="🙋")
    h.press_label(1, GROUP, "⚙️")
    h.press_label(1, 1, "Options")


def test_pressing_an_option_that_cannot_apply_says_why(h):
    _open_options(h)
    panel = h.io.last(1).text
    h.press_label(1, 1, "Hidden Sorcerer")
    answer = h.last_answer()
    assert answer.alert and "Good Sorcerer" in answer.text and "Evil Sorcerer" in answer.text, answer.text
    assert "Characters" in answer.text  # where to add them
    assert session(h).settings.options == {} and h.io.last(1).text == panel  # nothing changed
    h.press_label(1, 1, "Lancelot: Off")  # an option with variants: its page does not open
    assert h.last_answer().alert and "Lancelot (Evil)" in h.last_answer().text
    assert session(h).settings.options == {}
    h.press_label(1, 1, "Back")
    h.press_label(1, 1, "Characters")
    for role in ("Good Sorcerer", "Evil Sorcerer"):
        h.press_label(1, 1, role)
    h.press_label(1, 1, "Back")
    h.press_label(1, 1, "Options")
    h.press_label(1, 1, "Hidden Sorcerer")
    assert session(h).settings.options == {"sorcerer_hidden": True}
    assert "✅ Hidden Sorcerer" in [b.text for row in h.io.last(1).keyboard for b in row]


def test_the_lobby_message_leaves_out_an_option_whose_character_was_removed() -> None:
    """The lobby's summary says what the game will be: the Hidden Sorcerer switched on, then the Sorcerers
    removed, is not listed there (the game is made without it, as the panel says)."""
    from gamebot.compose import redraw
    from gamebot.storage.session import Session, chat_key
    from tests.unit.gamebot_fakes import GROUP, Harness

    h = Harness()
    try:
        h.lobby([1, 2, 3, 4, 5])
        s = Session.from_body(h.repo.items[chat_key(GROUP)].body)
        s.settings.options = {"sorcerer_hidden": True, "lady_of_the_lake": True}
        s.settings.roles = ["merlin", "assassin"]
        text, _ = redraw.lobby(h.service.deps, s)
        assert "Lady of the Lake" in text and "Hidden Sorcerer" not in text
        s.settings.roles = ["merlin", "assassin", "good_sorcerer", "evil_sorcerer"]
        text, _ = redraw.lobby(h.service.deps, s)
        assert "Hidden Sorcerer" in text
    finally:
        h.close()
