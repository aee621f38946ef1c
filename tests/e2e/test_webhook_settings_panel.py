"""End to end, through ``lambda_handler``: the host's settings panel reads as a player thinks. The
characters page lists Good, then Evil, then those who may change sides; each Lancelot variant is said
once; the Time limits page lists only the phases of the characters and options chosen."""
from __future__ import annotations

import re

PLAYERS = [1, 2, 3, 4, 5]


def _keyboard(table, chat: int) -> list[str]:
    return [b["text"] for row in table.messages(chat)[-1]["buttons"] for b in row]


def test_the_settings_panel_reads_as_a_player_thinks(table):
    table.open_lobby(PLAYERS)
    host = PLAYERS[0]
    table.press_label(host, table.group, table.words.settings)
    table.press_label(host, host, table.words.characters)
    labels = [re.sub(r"^(✅|▫️) ", "", b) for b in _keyboard(table, host)]
    assert labels[:3] == ["Merlin", "Percival", "Cleric"]
    assert labels.index("Good Messenger") < labels.index("Assassin") < labels.index("Evil Messenger")
    assert labels[-4:] == ["Lancelot (Good)", "Lancelot (Evil)", "Untrustworthy Servant", "⬅️ Back"]
    for name in ("Lancelot (Good)", "Lancelot (Evil)"):
        table.press_label(host, host, name)
    table.press_label(host, host, table.words.back)

    table.press_label(host, host, table.words.options)
    table.press_label(host, host, "Lancelot: Off")
    page = table.fake.texts(host)[-1]
    assert "• <b>Drawn every Quest (Big Box)</b>: Variant 1: 4 No change and 2 Switch cards;" in page
    assert page.count("Big Box") == 2  # two variants of the Big Box, each named once
    table.press_label(host, host, "Dealt face up (French)")
    assert "✅ Lancelot: Dealt face up (French)" in _keyboard(table, host)
    table.press_label(host, host, table.words.back)

    table.press_label(host, host, "Time limits")
    timers = table.fake.texts(host)[-1]
    for phase in ("Joining", "Team proposal", "Vote", "Quest cards", "Assassination"):
        assert f"• {phase}: <b>" in timers
    for absent in ("Excalibur", "Plot cards", "Trapper", "Rogue Watch", "Loyalty cards", "Lady of the Lake"):
        assert absent not in timers and not any(b.startswith(absent) for b in _keyboard(table, host))
