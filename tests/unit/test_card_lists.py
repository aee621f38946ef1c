"""A list of Plot cards never runs a name ending in "!" or "?" into the list's comma: in a list of two
or more, each Plot card's name is quoted as the language quotes a card in running text
(``card.listed``); a name alone, and quest cards, stay as they are."""
from __future__ import annotations

import pytest

from gamebot.language import texts
from gamebot.messages.events import event_line
from gamebot.messages.table import Table
from gamebot.messages.values import id_list

NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin"]


@pytest.mark.parametrize("lang", texts.languages())
def test_plot_cards_in_a_list_are_quoted_so_no_sign_runs_into_the_comma(lang):
    table = Table(chat_id=-1, game_id="g", lang=lang, names=NAMES)
    quote = texts.t("card.listed", lang, card="\x00").split("\x00")
    shown = id_list(table, ["in_the_spotlight", "keeping_close_eye"])
    name = texts.t("plot.in_the_spotlight", lang)
    assert f"{quote[0]}{name}{quote[1]}" in shown.replace("&quot;", '"')
    line = event_line(table, "PlotCardsDrawn", {"leader": 0, "cards": ["in_the_spotlight", "strong_leader"], "left": 3})
    if lang != "en":  # (English keeps card names bare in a list: "Are You the One?, Show Your True Nature")
        assert not any(f"{name}{sign}" in line for sign in (",", ";", ".")), line
    assert id_list(table, ["in_the_spotlight"]) == texts.t("plot.in_the_spotlight", lang).replace("&", "&amp;")
    assert id_list(table, ["success", "fail"]) == ", ".join(table.card(c) for c in ("success", "fail"))
