"""The table a message is drawn for (names, language, theme, ids for buttons), HTML escaping and
splitting long texts.

Texts are markup (``gamebot.language.markup.Html``): names come out of :meth:`Table.name` escaped, the catalog's
templates escape what they are given; a button's label is plain text (Telegram shows it as it is), so
``gamebot.botapi.telegram_io.Btn`` keeps what a markup label shows, and a raw name stays raw there.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from gamebot.botapi.bot_name import BotName
from gamebot.botapi.callbacks import start_payload
from gamebot.language import texts
from gamebot.language.markup import Html, escape, plain, require_text
from gamebot.storage.seats import is_ai_seat_id

MAX_TEXT = 4000  # Telegram allows 4096 characters per message
PRACTICE = ".practice"  # the suffix of a text's form for a /practice table (:meth:`Table.t`)




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
    limit: int = 0  # seconds the decision awaited now may take (0: no time limit; ``messages.time_limits``)
    due: int | None = None  # until when (epoch seconds)
    practice: bool = False  # a /practice game: this chat is the whole table (no group, no private chat apart)

    def t(self, key: str, /, **params: object) -> Html:
        """The catalog's text; at a /practice table, the key's ``.practice`` form where there is one (it
        speaks of this chat where a group's game speaks of the group and of the private chat)."""
        if self.practice and texts.has(key + PRACTICE):
            key += PRACTICE
        return texts.t(key, self.lang, self.theme, **params)

    def name(self, seat: int | None) -> Html:
        if seat is None or not isinstance(seat, int) or not 0 <= seat < len(self.names):
            return self.t("unknown_player")
        return escape(self.names[seat])

    def mention(self, seat: int) -> Html:
        """A player's name linked to their Telegram profile (an AI seat has none: its name alone)."""
        if 0 <= seat < len(self.user_ids) and not is_ai_seat_id(self.user_ids[seat]):
            return Html('<a href="tg://user?id={}">{}</a>').format(int(self.user_ids[seat]), self.name(seat))
        return self.name(seat)

    def names_of(self, seats: Iterable[int]) -> Html:
        return texts.join_names([self.name(s) for s in seats], self.lang) if seats else self.t("none")

    def role(self, role_id: str) -> Html:
        return texts.name_of("role", role_id, self.lang, self.theme)

    def side(self, side: str) -> Html:
        return texts.name_of("side", side, self.lang, self.theme)

    def card(self, card: str) -> Html:
        return texts.name_of("card", card, self.lang, self.theme)

    def kind(self, kind: str) -> Html:
        return texts.name_of("kind", kind, self.lang, self.theme)

    def module(self, module_id: str) -> Html:
        return texts.name_of("module", module_id, self.lang, self.theme)

    def source(self, source: str) -> Html:
        """What taught a player something (``lady``, ``cleric``, a Plot card...)."""
        return texts.name_of("source", source, self.lang, self.theme)

    def field(self, key: str) -> Html:
        """A data key of an event or a plug-in's view, as a word (``deck_left`` -> ``cards left``)."""
        return texts.name_of("field", key, self.lang, self.theme)

    def note(self, note: str) -> Html:
        return texts.name_of("note", note, self.lang, self.theme)

    def link(self, payload: str) -> str:
        """The bot's ``start`` link; "" while its username is unknown (``bot_name``: the texts say it in words)."""
        name = str(self.bot_username)
        return f"https://t.me/{name}?start={payload}" if name else ""

    def deep_link(self, kind: str) -> str:
        return self.link(start_payload(kind, self.chat_id, self.game_id))


def esc(text: object) -> Html:
    """``text`` as markup (escaped; markup kept as it is): ``markup.escape``."""
    return escape(text)


NL = Html("\n")


def split(text: Html, limit: int = MAX_TEXT) -> list[Html]:
    """Split a long text at line breaks into messages Telegram accepts. A line longer than a message
    (none is, in practice) is cut in its shown text, so that no cut falls inside a tag or an entity."""
    out: list[Html] = []
    cur: Html | None = None
    for line in require_text(text, "split").lines():
        if len(line) > limit:
            *whole, line = _cut(line, limit)
            out.extend(whole)
        if cur is not None and len(cur) + len(line) + 1 > limit:
            out.append(cur)
            cur = line
        else:
            cur = cur + NL + line if cur else line
    if cur:
        out.append(cur)
    return out


def _cut(line: Html, limit: int) -> list[Html]:
    """An over-long line in pieces of at most ``limit`` characters of markup, each its shown text escaped."""
    pieces: list[Html] = []
    piece: list[str] = []
    size = 0
    for ch in plain(line):
        width = len(escape(ch))
        if size + width > limit:
            pieces.append(escape("".join(piece)))
            piece, size = [], 0
        piece.append(ch)
        size += width
    pieces.append(escape("".join(piece)))
    return pieces
