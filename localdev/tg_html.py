"""Render the bot's Telegram HTML (parse_mode=HTML) as safe HTML for the playground's page.

Telegram's subset is kept: ``b``/``strong``, ``i``/``em``, ``u``/``ins``, ``s``/``strike``/``del``,
``code``, ``pre``, ``blockquote``, spoilers (``tg-spoiler``, ``span class="tg-spoiler"``), links and
date-times (``tg-time``: ``<time class="tg-time" data-unix=...>`` around the text Telegram would show an
older app; the page writes the reader's own local time into it, as Telegram's apps do).
Everything else is escaped text: unknown tags are dropped (their text stays), attributes other than a
link's ``href`` are dropped, so nothing the bot sends can run script in the page.

Links become:
* ``tg://user?id=N`` (a mention): ``<a class="mention" data-user="N">``;
* ``https://t.me/<bot>?start=<payload>`` (a deep link to this bot): ``<a class="deeplink"
  data-start="<payload>">`` (the page simulates opening the bot's chat with that payload);
* other ``http(s)`` URLs: a link opening a new tab (``rel="noopener noreferrer"``);
* any other scheme (``javascript:``...): plain text.
Newlines are kept as they are (the page shows text with ``white-space: pre-wrap``).
"""
from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

_SIMPLE = {
    "b": "b", "strong": "b", "i": "i", "em": "i", "u": "u", "ins": "u", "s": "s", "strike": "s", "del": "s",
    "code": "code", "pre": "pre", "blockquote": "blockquote",
}
_MENTION = re.compile(r"tg://user\?id=(\d+)$")


def deep_link_payload(url: str, bot_username: str) -> str | None:
    """The ``start`` payload of a ``t.me/<bot_username>?start=...`` link (None if it is not one)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or parts.netloc.lower() not in ("t.me", "telegram.me"):
        return None
    if parts.path.strip("/").lower() != bot_username.lower():
        return None
    values = parse_qs(parts.query).get("start")
    return values[0] if values else ""


def _attr(value: str) -> str:
    return html.escape(value, quote=True)


class _Renderer(HTMLParser):
    def __init__(self, bot_username: str) -> None:
        super().__init__(convert_charrefs=True)
        self.bot_username = bot_username
        self.out: list[str] = []
        self.open: list[str | None] = []  # closing tag to emit for each open source tag (None: dropped)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        tag = tag.lower()
        values = {k.lower(): v or "" for k, v in attrs}
        close: str | None = None
        if tag in _SIMPLE:
            self.out.append(f"<{_SIMPLE[tag]}>")
            close = _SIMPLE[tag]
        elif tag == "tg-spoiler" or (tag == "span" and values.get("class") == "tg-spoiler"):
            self.out.append('<span class="spoiler">')
            close = "span"
        elif tag == "a":
            self.out.append(self._link(values.get("href", "").strip()))
            close = "a" if self.out[-1] else None
        elif tag == "tg-time" and values.get("unix", "").isdigit():  # the page shows it in the reader's zone
            self.out.append(f'<time class="tg-time" data-unix="{values["unix"]}" data-format="{_attr(values.get("format", ""))}">')
            close = "time"
        self.open.append(close)

    def _link(self, href: str) -> str:
        mention = _MENTION.match(href)
        if mention:
            return f'<a class="mention" data-user="{mention.group(1)}">'
        payload = deep_link_payload(href, self.bot_username) if self.bot_username else None
        if payload is not None:
            return f'<a class="deeplink" href="#" data-start="{_attr(payload)}">'
        if re.match(r"https?://", href, re.I):
            return f'<a href="{_attr(href)}" target="_blank" rel="noopener noreferrer">'
        return ""

    def handle_endtag(self, tag: str) -> None:
        if self.open:
            close = self.open.pop()
            if close:
                self.out.append(f"</{close}>")

    def handle_data(self, data: str) -> None:
        self.out.append(html.escape(data, quote=False))

    def result(self) -> str:
        self.close()
        while self.open:  # Telegram refuses unbalanced HTML; close whatever is left anyway
            close = self.open.pop()
            if close:
                self.out.append(f"</{close}>")
        return "".join(self.out)


def render(text: str | None, bot_username: str = "") -> str:
    """Safe HTML for a message text or caption sent with parse_mode=HTML."""
    renderer = _Renderer(bot_username)
    renderer.feed(text or "")
    return renderer.result()
