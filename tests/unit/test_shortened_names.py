"""A name cut to fit (32 characters for a player's name, 24 on a button) ends with "…", so that a reader
sees it was cut: "<a href="tg://user?id=1">Xlink</" with no mark looked like a name ending in a broken tag
(issue 37). Nothing shorter is touched, and the "…" never follows a space or a dangling combining mark."""
from __future__ import annotations

from types import SimpleNamespace

from gamebot.botapi.callbacks import Codec
from gamebot.compose.context import display_name
from gamebot.language.markup import shorten
from gamebot.messages.table import Table
from gamebot.messages.vote import team_picker
from localdev import updates as U
from tests.unit.gamebot_fakes import GROUP, Harness

HOSTILE = '<a href="tg://user?id=1">Xlink</a> & more'


def person(first: str, last: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(id=1, first_name=first, last_name=last, username=None)


def test_a_long_name_is_cut_with_an_ellipsis_and_a_short_one_is_kept() -> None:
    assert display_name(person("Alice")) == "Alice"
    assert display_name(person("A" * 32)) == "A" * 32
    cut = display_name(person(HOSTILE))
    assert len(cut) == 32 and cut.endswith("…") and cut[:-1] == HOSTILE[:31]
    assert display_name(person("Bartholomew Maximilian Fitzgerald", "Smith")).endswith("…")


def test_the_ellipsis_never_follows_a_space_or_a_dangling_mark() -> None:
    assert shorten("Anna Maria Louisa", 6) == "Anna…"  # (not "Anna …")
    assert shorten("e\u0301" * 10, 4) == "e\u0301e…"  # (not an accent on the "…")
    assert shorten("👩\u200d👩\u200d👧 family name", 3) == "👩…"  # (no joiner left before it)
    assert shorten("abc", 3) == "abc" and shorten("abcd", 3) == "ab…"


def test_the_lobby_and_the_team_buttons_show_a_cut_name_with_its_ellipsis() -> None:
    h = Harness()
    try:
        h.user = lambda uid: U.user(uid, HOSTILE if uid == 2 else None, language_code="en")  # type: ignore[method-assign]
        h.lobby([1, 2, 3, 4, 5])
        shown = "&lt;a href=&quot;tg://user?id=1&quot;&gt;Xlink&lt;…"
        assert any(shown in text for text in h.io.texts(GROUP)), h.io.texts(GROUP)[-1]
    finally:
        h.close()
    table = Table(chat_id=GROUP, game_id="g", names=["Alice", "🤖 Ada (bot)", "N" * 30])
    _, rows = team_picker(table, {"leader": 0, "players": 3}, {0: 2}, [], 1, [], None, Codec("1:test"), 1)
    labels = [b.text for row in rows for b in row]
    assert "▫️ " + "N" * 23 + "…" in labels and "▫️ Alice" in labels
