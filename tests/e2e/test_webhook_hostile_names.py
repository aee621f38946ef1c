"""End to end, through ``lambda_handler``: hostile names and a hostile group title break nothing. A whole
game (7 players, Percival, Morgana, Oberon and the Lady of the Lake) and every command, the lobby's and the
settings panel's buttons, played by players named like markup: every Bot API call the fake Telegram
received is accepted (it parses HTML as Telegram does and answers 400 on bad markup), and every name and the
title are shown literally (as ``context.display_name`` makes a name: its first 32 characters), never
escaped twice and never read as markup; button labels and toasts show them raw."""
from __future__ import annotations

import html
import random
from typing import Any

import pytest

from gamebot.language import texts
from gamebot.language.markup import shorten
from localdev import updates as U
from localdev.autoplay import Driver, Policy, WebhookTable
from localdev.fake_telegram import html_to_plain

NAMES = {
    1: "Tom & <Jerry>",
    2: "<b>bold</b>",
    3: '<a href="tg://user?id=1">x</a>',
    4: "a&amp;b",
    5: ("<i>Long</i>&" * 22)[:256],
    6: "مرحبا <עולם> & שלום",
    7: "👨\u200d👩\u200d👧\u200d👦 & 🏳️\u200d🌈 <3",
}
OUTSIDER = 8  # not at the table: /nextgame, and invited to nothing
OUTSIDER_NAME = '"quoted" <u>Eve</u> & co'
TITLE = '<b>Avalon</b> & "Friends" <i>'
PLAYERS = list(NAMES)
HTML_METHODS = {"sendMessage": "text", "editMessageText": "text", "sendPhoto": "caption"}


def escaped(name: str) -> list[str]:
    """``name`` escaped for HTML (quotes too, or not): what must never be *shown* (escaped twice)."""
    return list(dict.fromkeys([html.escape(name, quote=False), html.escape(name, quote=True)]))


def shown(name: str) -> str:
    """A player's name as the bot shows it (``context.display_name``: 32 characters at most, "…" when cut)."""
    return shorten(name.strip(), 32)


class Recorder:
    """Every Bot API call the fake received, with its answer."""

    def __init__(self, fake: Any) -> None:
        self.calls: list[tuple[str, dict, int, str]] = []
        self._handle = fake.handle

    def __call__(self, token: str, method: str, params: dict, files: dict) -> tuple[int, dict]:
        status, payload = self._handle(token, method, params, files)
        self.calls.append((method, dict(params), status, str(payload.get("description") or "")))
        return status, payload

    def html(self) -> list[tuple[str, int | None, str]]:
        """(method, chat, text) of every accepted message, edit and caption sent as HTML."""
        return [(m, p.get("chat_id"), p[HTML_METHODS[m]]) for m, p, status, _ in self.calls
                if m in HTML_METHODS and status == 200 and p.get(HTML_METHODS[m])]

    def answers(self) -> list[str]:
        return [p["text"] for m, p, status, _ in self.calls if m == "answerCallbackQuery" and p.get("text")]

    def labels(self) -> list[str]:
        out = []
        for _, params, _, _ in self.calls:
            markup = params.get("reply_markup") or {}
            out += [b.get("text", "") for row in markup.get("inline_keyboard") or [] for b in row]
        return out


def _join_link(recorder: Recorder) -> str:
    """The deep link's payload from the answer that told a player to open the private chat first."""
    url = next(p["url"] for m, p, _, _ in reversed(recorder.calls) if m == "answerCallbackQuery" and p.get("url"))
    return url.split("?start=", 1)[1]


@pytest.mark.slow
def test_hostile_names_and_title_are_shown_literally_everywhere(lambda_env, monkeypatch):
    from tests.e2e.conftest import SECRET

    fake = lambda_env
    recorder = Recorder(fake)
    monkeypatch.setattr(fake, "handle", recorder)
    table = WebhookTable(fake, SECRET, title=TITLE)
    table.users.update({uid: U.user(uid, name, username=f"player{uid}") for uid, name in NAMES.items()})
    table.users[OUTSIDER] = U.user(OUTSIDER, OUTSIDER_NAME, username="outsider")
    w, group = table.words, table.group
    fake.add_group(group, TITLE)

    # --- the lobby: every command and button a lobby has ---------------------------------------------
    for uid in PLAYERS[:-1]:
        table.start_private(uid)
    table.command(1, "/newgame")
    for uid in PLAYERS[1:-1]:
        table.press_label(uid, group, w.join)
    table.press_label(7, group, w.join)  # never opened the private chat: told to, with the deep link
    payload = _join_link(recorder)
    fake.start_private(table.user(7))
    table.post(U.start(table.user(7), payload))  # /start j...: joins through the deep link
    table.command(6, "/leave")
    table.press_label(6, group, w.join)
    table.press_label(6, group, "Leave")  # the lobby's own Leave button, and back again
    table.press_label(6, group, w.join)
    table.command(2, "/extend")
    table.command(3, "/forcestart")  # not the host: "Only the host (Tom & <Jerry>) can do that."
    table.command(4, "/cancel")  # not the host nor an admin
    for command in ("/status", "/rules", "/help", "/idles", "/stats", "/history", "/language"):
        table.command(5, command)
    table.press_label(1, group, "English")  # the group's language picker
    for command in ("/help", "/rules", "/status", "/stats", "/history", "/language", "/start"):
        table.command(2, command, chat=2)
    table.press_label(2, 2, "English")  # a player's own language
    table.start_private(OUTSIDER)
    table.command(OUTSIDER, "/nextgame")  # a lobby is open: nothing to wait for
    # the host's settings panel, page by page
    table.press_label(1, group, w.settings)
    table.press_label(1, 1, w.characters)
    for role in ("Percival", "Morgana", "Oberon"):
        table.press_label(1, 1, role)
    table.press_label(1, 1, w.back)
    table.press_label(1, 1, w.options)
    table.press_label(1, 1, "Lady")
    table.press_label(1, 1, w.back)
    for page in ("Presets", "Time limits", "Language"):
        table.press_label(1, 1, page)
        table.press_label(1, 1, w.back)
    table.press_label(1, 1, w.done)

    # --- the game: played to its end, the commands of a running game on the way -------------------------
    table.start_game(1)
    names = {uid: shown(name) for uid, name in NAMES.items()}
    driver = Driver(table, group, PLAYERS, Policy(rng=random.Random(3)), names=names, words=w)
    for _ in range(12):
        assert driver.step()
    table.command(2, "/status")
    table.command(3, "/status", chat=3)
    table.command(4, "/votes")
    table.command(5, "/votes", chat=5)
    table.command(6, "/rules", chat=6)
    table.press_label(7, group, "Vote history")
    table.post(U.start(table.user(2), "r" + payload[1:]))  # /start r...: role and decisions again
    table.command(3, "/cancel")  # not the host nor an admin
    driver.forget()
    driver.play()
    assert driver.over()
    for command in ("/history", "/stats", "/idles", "/status", "/rules"):
        table.command(4, command)
    for command in ("/history", "/stats"):
        table.command(5, command, chat=5)
    table.command(OUTSIDER, "/nextgame")  # told in private when the next game opens
    table.press_label(2, group, "Play again")  # a lobby listing the last game's players as invited
    table.command(3, "/cancel")  # not the new host
    table.command(2, "/cancel")

    # --- every call accepted (an edit to the same text, which the bot counts as done, aside) -----------------
    refused = [(m, status, why) for m, _, status, why in recorder.calls
               if status != 200 and "message is not modified" not in why]
    assert refused == []

    # --- names and the title shown literally, never escaped twice nor read as markup ---------------------
    hostile = [*(shown(n) for n in NAMES.values()), OUTSIDER_NAME, TITLE]
    sent = recorder.html()
    visible = [html_to_plain(text) for _, _, text in sent]
    for name in hostile:
        assert name not in escaped(name)  # (each one needs escaping)
        assert not any(e in v for e in escaped(name) for v in visible), name  # never shown escaped
        assert not any(name in text for _, _, text in sent), name  # never sent unescaped
    group_seen = "\n".join(html_to_plain(text) for _, chat, text in sent if chat == group)
    for name in NAMES.values():
        assert shown(name) in group_seen, name
    assert TITLE in "\n".join(visible)  # (the settings panel, the role cards, the joins, /nextgame)
    template = texts.CATALOG["en"]["lobby.only_host"]  # "Only the host ({host}) can do that."
    only_host = html_to_plain(template).replace("{host}", shown(NAMES[1]))
    assert "(Tom & <Jerry>)" in only_host
    assert visible.count(only_host) == 1  # /forcestart by a guest
    end = next(html_to_plain(text) for _, _, text in sent if texts.t("end.roles", "en") in text)
    assert all(shown(name) in end for name in NAMES.values())
    nextgame = [v for _, chat, text in sent if chat == OUTSIDER for v in [html_to_plain(text)]]
    assert any(TITLE in v for v in nextgame)

    # --- button labels and toasts are plain text: names raw there ---------------------------------------
    labels = recorder.labels()
    for name in NAMES.values():
        label = shorten(shown(name), 24)
        assert any(label in b for b in labels), name  # the team picker: the name as it is
        assert not any(e in b for e in escaped(label) for b in labels), name
    toasts = recorder.answers()
    assert any(shown(name) in t for name in NAMES.values() for t in toasts)  # "Selected: ..." as typed
    assert not any(e in t for name in hostile for e in escaped(name) for t in toasts)
