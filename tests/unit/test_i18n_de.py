"""The German catalog read as a German player reads it.

* A Plot card's name inside a sentence stands in German quotation marks („Hinterhalt“), introduced by
  "die Karte" / "die Intrigenkarte" where the sentence needs a case the name cannot take ("spielt die Karte
  „Der König kehrt zurück“ aus", not "spielt Der König kehrt zurück"), and no sentence puts a full stop,
  colon or semicolon after a name that ends with "!" or "?" ("Erwischt!", "Bist du es?"). Lists of names
  (the board, the cards drawn) end their line or are separated by " · ", never by "; ".
* A message to the whole group says "ihr" (or nobody): "Tippt auf Beitreten", "Sendet /newgame".
* Any player fits: no "Anführer Carol" or "Carol (Anführer)" ("Carol führt an"), no "Gastgeber: Alice" ("Eröffnet
  von: Alice"), no "Du bist der Assassine" ("Deine Rolle ist der Assassine"), the end's roles as a cast list ("Carol
  als Assassine"); no "keiner" / "jeder" standing for a player.
* The issue's findings: the Messengers (and the Rogues and Sorcerers, named the same way) are "Guter Bote" /
  "Böser Bote", whose names say their side, and the Switch card is "Seitenwechsel" everywhere.
"""
from __future__ import annotations

import re

import pytest

from engine.modules.plot import PLOT_CARDS
from gamebot.language import texts, wording
from gamebot.messages.events import event_line
from gamebot.messages.table import Table
from gamebot.messages.view_lines import plugin_board_lines

LANG = "de"
THEMES = ("avalon", "resistance")
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace"]

# Templates with one Plot card's name as {card} (and Take Responsibility's {taken}) in a sentence.
ONE_CARD = [
    "ev.PlotCardDealt", "ev.PlotCardDiscarded", "ev.PlotCardTaken", "ev.PlotCardPlayed", "ev.PlotCardPlayed.target",
    "ev.PlotCardPlayed.strong_leader", "ev.PlotCardPlayed.keeping_close_eye", "ev.PlotCardPlayed.no_confidence",
    "ev.PlotCardPlayed.take_responsibility", "ev.PlotCardPlayed.overheard_conversation",
    "ev.PlotCardPlayed.in_the_spotlight", "ev.PlotCardPlayed.establish_confidence", "ev.PlotCardPlayed.open_up",
    "ev.PlotCardDiscarded.no_effect", "ev.PlotCardDiscarded.declined", "vote.first", "prompt.play.ambush",
    "prompt.play.ambush_you", "prompt.plot_strong_leader", "prompt.plot_keeping_close_eye",
    "prompt.plot_no_confidence", "prompt.plot_take_responsibility", "prompt.plot_opinion_maker",
    "prompt.plot_overheard_conversation", "prompt.plot_in_the_spotlight", "prompt.plot_establish_confidence",
    "prompt.plot_open_up", "learned.plot",
]
# Templates with a list of Plot card names (joined by ", " in code, so the names cannot be quoted one by one).
CARD_LIST = {"ev.PlotCardsDrawn": "cards", "prompt.plot_deal": "drawn", "board.line.plot_hand": "cards",
             "board.line.plot_drawn": "cards"}
# A name's last "!" or "?", then (past a closing quote or bold) a second sign that ends or breaks the sentence.
DOUBLE = re.compile(r"[!?](?:</b>|“)*[.:;!?]")

# Messages the whole group reads (announcements, the lobby, replies to the group): never "du".
GROUP = [
    "help.body", "help.languages", "lobby.no_players", "lobby.howto", "newgame.exists", "pin.need_admin",
    "damaged.cancelled", "status.none", "status.lobby", "language.title", "language.changed",
    "timers.remind_join", "timers.join.closed", "timers.join.config", "timers.join.started", "ev.GameStarted",
    "quest.play_below", "rematch.invited", "cancel.lobby", "lobby.closed", "votes.none", "history.none",
]
GROUP_TOLD = {"lobby.no_players", "lobby.howto", "status.none", "status.lobby", "damaged.cancelled", "language.title",
              "timers.remind_join", "timers.join.closed", "timers.join.config", "ev.GameStarted", "quest.play_below"}
GROUP_PREFIXES = ("ev.", "board.", "end.", "reveal.", "rules.")
SINGULAR = re.compile(r"\b(du|dich|dir|dein\w*|tippe|sende|sieh|öffne|schick|wähle|mach|drücke|nimm|warte)\b",
                      re.I)
IMPERATIVE_OR_YOU = re.compile(r"\b(tippt|sendet|seht|öffnet|schickt|wählt|macht|spielt|schaut|euch|eure?\w*)\b", re.I)


def plot_names(theme: str) -> list[str]:
    return [texts.t(f"plot.{card}", LANG, theme) for card in PLOT_CARDS]


def raw(key: str, theme: str) -> str:
    entry = texts.catalog(LANG).messages[key]
    return entry if isinstance(entry, str) else entry.get(theme) or entry.get("*") or next(iter(entry.values()))


def params(key: str, theme: str, card: str) -> dict[str, object]:
    """Every parameter of ``key`` filled: the card's name, players' names, numbers."""
    values: dict[str, object] = {}
    counted = set(re.findall(r"\{(\w+), *plural", raw(key, theme)))
    for name in texts.fields(key, LANG, theme):
        if name in ("card", "taken"):
            values[name] = card
        elif name in ("hands",):
            values[name] = f"Bob hält <b>{card}</b>"
        elif name in ("cards", "drawn"):
            values[name] = f"Hinterhalt, {card}"
        elif name in ("names",):
            values[name] = "Alice und Bob"
        elif name in counted or name in ("count", "size", "quest", "attempt"):
            values[name] = 2
        else:
            values[name] = "Alice"
    return values


def catalog_keys() -> set[str]:
    return set(texts.catalog(LANG).messages)


def test_every_template_naming_a_plot_card_is_checked():
    naming = {k for k in catalog_keys()
              if k.startswith(("ev.PlotCard", "prompt.plot_", "prompt.play.ambush")) or k in ("learned.plot", "vote.first")}
    assert naming <= set(ONE_CARD) | set(CARD_LIST), sorted(naming - set(ONE_CARD) - set(CARD_LIST))


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("key", ONE_CARD)
def test_a_plot_cards_name_in_a_sentence_is_quoted_and_not_followed_by_a_second_sign(key, theme):
    for card in plot_names(theme):
        text = texts.t(key, LANG, theme, **params(key, theme, card))
        assert f"„{card}“" in text, text
        assert not DOUBLE.search(text), text


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("key", sorted(CARD_LIST))
def test_a_list_of_plot_cards_ending_in_any_name_gets_no_second_sign(key, theme):
    for card in plot_names(theme):
        text = texts.t(key, LANG, theme, **params(key, theme, card))
        assert card in text and not DOUBLE.search(text), text


def test_the_board_and_the_announcements_as_rendered():
    table = Table(chat_id=-1, game_id="g", lang=LANG, names=NAMES, user_ids=list(range(7)))
    pv = {"plot": {"deck": 5, "hands": [[], ["in_the_spotlight"], [], ["overheard_conversation"], [], [], []],
                   "drawn": [], "face_up": []},
          "lancelot": {"cards": ["switch", "no_change"]}}
    lines = plugin_board_lines(table, pv)
    assert "🃏 Intrigenkarten: Bob hält <b>Erwischt!</b> · Dave hält <b>Bist du es?</b> · 5 im Stapel" in lines
    assert "🎴 Gesinnungskarten: 1️⃣ Seitenwechsel · 2️⃣ Kein Wechsel" in lines
    assert event_line(table, "PlotCardsDrawn", {"leader": 0, "cards": ["strong_leader", "in_the_spotlight"], "left": 3}) == (
        "🃏 Alice zieht Intrigenkarten: „Zum Sieg führen“, „Erwischt!“")  # (quoted in a list: card.listed)
    assert event_line(table, "PlotCardPlayed", {"seat": 2, "card": "in_the_spotlight", "target": 4}) == (
        "🃏 Carol spielt die Karte „Erwischt!“ aus: Erin muss offen spielen.")
    assert event_line(table, "PlotCardDealt", {"leader": 0, "seat": 3, "card": "no_confidence"}) == (
        "🃏 Alice gibt die Intrigenkarte „Der König kehrt zurück“ an Dave.")


@pytest.mark.parametrize("key", GROUP)
def test_a_message_to_the_group_speaks_to_everyone(key):
    for theme in THEMES:
        text = texts.t(key, LANG, theme, **params(key, theme, "Hinterhalt"))
        assert not SINGULAR.search(text), (key, text)
        if key in GROUP_TOLD:  # it tells the group what to do: "ihr"
            assert IMPERATIVE_OR_YOU.search(text), (key, text)


def test_announcements_board_and_end_never_say_du():
    for key in catalog_keys():
        if key.startswith(GROUP_PREFIXES) and not key.endswith(".practice"):  # (.practice: one reader, in private)
            for theme in THEMES:
                text = texts.t(key, LANG, theme, **params(key, theme, "Hinterhalt"))
                assert not SINGULAR.search(text), (key, text)


def test_any_player_fits():
    for key, entry in texts.catalog(LANG).messages.items():
        for template in ([entry] if isinstance(entry, str) else list(entry.values())):
            # a title before a player's name ("Anführer Carol") is a man's title: "Carol führt an"
            assert not re.search(r"\{(Leader|the_Leader|The_Leader)\} \{(leader|previous|holder|seat|name)\}", template), key
            # "keiner" / "jeder" standing for a player (not "jeder Runde")
            assert not re.search(r"\b(keiner|jeder)\b(?!\s+[A-ZÄÖÜ{])", template, re.I), (key, template)
    assert texts.t("vote.title", LANG, quest=1, attempt=1, leader="Carol", team="Bob und Carol").endswith(
        "Carol führt an und schlägt vor: <b>Bob und Carol</b>")
    assert texts.t("lobby.host", LANG, host="Alice") == "Eröffnet von: Alice"
    assert texts.t("role.you_are_named", LANG, role="der Assassine") == "Deine Rolle ist <b>der Assassine</b>."
    assert texts.t("end.role_line_named", LANG, icon="🗡", name="Carol", role="Assassine") == "🗡 Carol als <b>Assassine</b>"


def test_the_messengers_names_say_their_side():
    assert texts.t("role.good_messenger", LANG) == "Guter Bote"
    assert texts.t("role.evil_messenger", LANG) == "Böser Bote"
    table = Table(chat_id=0, game_id="g", lang=LANG, names=NAMES)
    for role_id, side in (("good_messenger", "good"), ("evil_messenger", "evil"), ("good_rogue", "good"),
                          ("evil_rogue", "evil"), ("good_sorcerer", "good"), ("evil_sorcerer", "evil"),
                          ("evil_lancelot", "evil")):
        assert "(" not in table.role(role_id) or role_id.endswith("lancelot"), role_id
        assert wording.side_note(table, role_id, side) == "", role_id  # "Böser Bote", never "Böser Bote (Böse)"
    assert wording.side_note(table, "evil_messenger", "good") == "jetzt Gut"
    assert wording.role_a(table, "evil_messenger") == "der Böse Bote"


def test_the_switch_card_has_one_name():
    assert texts.t("card.switch", LANG) == texts.t("board.allegiance.switch", LANG) == "Seitenwechsel"
    for key in ("varianthelp.bigbox_switch", "varianthelp.classic_switch", "varianthelp.bigbox_predealt",
                "varianthelp.french_predealt"):
        assert "„Seitenwechsel“" in texts.t(key, LANG), key


def test_settings_buttons_stay_short():
    for key in catalog_keys():
        if key.startswith(("rolebutton.", "optionbutton.")):  # (two to a row when short)
            for theme in THEMES:
                label = texts.t(key, LANG, theme)
                assert len(label) <= 22, (key, label)
    for value in ("bigbox_switch", "classic_switch", "bigbox_predealt", "french_predealt"):
        button = "✅ " + texts.t("settings.button.option_value", LANG, option=texts.t("optionbutton.lancelot", LANG),
                                value=texts.t(f"valuebutton.{value}", LANG))
        assert len(button) <= 40, button
