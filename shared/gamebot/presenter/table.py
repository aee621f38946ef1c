"""The table a message is drawn for (names, language, theme, ids for buttons), buttons, HTML escaping
and splitting long texts.
"""
from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .. import texts
from ..bot_name import BotName
from ..callbacks import start_payload

MAX_TEXT = 4000  # Telegram allows 4096 characters per message


@dataclass(frozen=True)
class Btn:
    text: str
    data: str | None = None
    url: str | None = None


Keyboard = list[list[Btn]]


@dataclass
class Table:
    """What rendering needs to know about the table: names, language, theme, ids for buttons."""

    chat_id: int
    game_id: str
    title: str = ""
    lang: str = "en"
    theme: str = "avalon"
    names: list[str] = field(default_factory=list)
    user_ids: list[int] = field(default_factory=list)
    bot_username: str | BotName = ""  # a BotName is asked only when a link is rendered
    limit: int = 0  # seconds the decision awaited now may take (0: no time limit; ``presenter.limits``)
    due: int | None = None  # until when (epoch seconds)

    def t(self, key: str, /, **params: Any) -> str:
        return texts.t(key, self.lang, self.theme, **params)

    def name(self, seat: int | None) -> str:
        if seat is None or not isinstance(seat, int) or not 0 <= seat < len(self.names):
            return self.t("unknown_player")
        return html.escape(self.names[seat], quote=False)

    def mention(self, seat: int) -> str:
        if 0 <= seat < len(self.user_ids):
            return f'<a href="tg://user?id={self.user_ids[seat]}">{self.name(seat)}</a>'
        return self.name(seat)

    def names_of(self, seats: Iterable[int]) -> str:
        return texts.join_names([self.name(s) for s in seats], self.lang) if seats else self.t("none")

    def role(self, role_id: str) -> str:
        return texts.name_of("role", role_id, self.lang, self.theme)

    def side(self, side: str) -> str:
        return texts.name_of("side", side, self.lang, self.theme)

    def card(self, card: str) -> str:
        return texts.name_of("card", card, self.lang, self.theme)

    def kind(self, kind: str) -> str:
        return texts.name_of("kind", kind, self.lang, self.theme)

    def module(self, module_id: str) -> str:
        return texts.name_of("module", module_id, self.lang, self.theme)

    def source(self, source: str) -> str:
        """What taught a player something (``lady``, ``cleric``, a Plot card...)."""
        return texts.name_of("source", source, self.lang, self.theme)

    def field(self, key: str) -> str:
        """A data key of an event or a plug-in's view, as a word (``deck_left`` -> ``cards left``)."""
        return texts.name_of("field", key, self.lang, self.theme)

    def note(self, note: str) -> str:
        return texts.name_of("note", note, self.lang, self.theme)

    def link(self, payload: str) -> str:
        """The bot's ``start`` link; "" while its username is unknown (``bot_name``: the texts say it in words)."""
        name = str(self.bot_username)
        return f"https://t.me/{name}?start={payload}" if name else ""

    def deep_link(self, kind: str) -> str:
        return self.link(start_payload(kind, self.chat_id, self.game_id))


def esc(text: Any) -> str:
    return html.escape(str(text), quote=False)  # text, not attributes: quotes stay readable


def split(text: str, limit: int = MAX_TEXT) -> list[str]:
    """Split a long text at line breaks into messages Telegram accepts."""
    out, cur = [], ""
    for line in text.split("\n"):
        while len(line) > limit:
            out.append(line[:limit])
            line = line[limit:]
        if len(cur) + len(line) + 1 > limit:
            out.append(cur)
            cur = line
        else:
            cur = f"{cur}\n{line}" if cur else line
    if cur:
        out.append(cur)
    return out
