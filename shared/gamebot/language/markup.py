"""Telegram HTML that is safe by construction: :class:`Html`, the only kind of text the bot sends with
``parse_mode=HTML``.

An ``Html`` is a ``str`` whose every character is meant as markup: only escaped text, the catalog's own
templates (``gamebot.language.texts.t``) and the code's own literal tags make one. Its operations keep it so:

* ``escape(x)``: any value as markup (``&``, ``<``, ``>`` and ``"`` escaped; an ``Html`` is kept as it is);
* ``a + b`` / ``b + a``: the other operand escaped unless it is markup too (so ``"<b>" + html`` shows
  the angle brackets, it never opens a tag);
* ``Html(", ").join(parts)``: each part escaped unless it is markup;
* ``Html('<a href="tg://user?id={}">{}</a>').format(uid, name)``: every argument escaped unless it is
  markup (numbers formatted as numbers).

Everything else a ``str`` does (slices, ``split``, ``replace``, f-strings, ``"\\n".join``) gives a plain
``str``, which the Bot API module refuses for an HTML message (``gamebot.botapi.telegram_io``): text that lost
its type cannot reach Telegram as HTML by mistake, it fails loudly instead. ``Html("literal")`` is how
the code writes its own markup; a test checks that the code calls it with literals only, except here,
in the catalog (``texts``) and where a stored outbox entry becomes a Bot API call again (``restored``).

:func:`plain` is what Telegram shows of a markup (tags removed, entities read): for a toast, an alert
(``answerCallbackQuery`` takes no HTML), a button's label and the picture.
"""
from __future__ import annotations

import html as _html
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import overload

_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})
_TAG = re.compile(r"<[^>]*>")


class NotMarkup(TypeError):
    """A plain ``str`` where Telegram HTML is required (or markup where plain text is)."""


class Html(str):
    """Telegram HTML built only from escaped text and the bot's own tags (see the module)."""

    __slots__ = ()

    def __add__(self, other: object) -> Html:
        if not isinstance(other, str):
            return NotImplemented
        return Html(str.__add__(self, escape(other)))

    def __radd__(self, other: object) -> Html:
        if not isinstance(other, str):
            return NotImplemented
        return Html(str.__add__(escape(other), self))

    def join(self, parts: Iterable[object]) -> Html:
        return Html(str.join(self, [escape(p) for p in parts]))

    def format(self, *args: object, **kwargs: object) -> Html:
        return Html(str.format(self, *[_value(a) for a in args], **{k: _value(v) for k, v in kwargs.items()}))

    def format_map(self, mapping: Mapping[str, object]) -> Html:  # type: ignore[override]
        return Html(str.format_map(self, _Escaped(mapping)))

    def lines(self) -> list[Html]:
        """The lines of this markup (no tag spans a line break: the catalog checks say so of the
        templates, and names are single lines)."""
        return [Html(line) for line in str.split(self, "\n")]

    def plain(self) -> str:
        return plain(self)

    def __repr__(self) -> str:
        return f"Html({str.__repr__(self)})"


class _Escaped(dict[str, object]):
    def __init__(self, mapping: Mapping[str, object]) -> None:
        super().__init__()
        self.source = mapping

    def __missing__(self, key: str) -> object:
        return _value(self.source[key])


def escape(value: object) -> Html:
    """``value`` as markup: its text escaped, or itself when it is markup already."""
    if isinstance(value, Html):
        return value
    return Html(str.translate(str(value), _ESCAPES))


def _value(value: object) -> int | float | Html:
    """A value to put into a template: numbers as they are (their format specs still work), markup as it
    is, anything else escaped."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    return escape(value)


def escaped_values(params: Mapping[str, object]) -> dict[str, int | float | Html]:
    """Every value of ``params`` ready for a template (``_value``): what ``texts.t`` fills in."""
    return {key: _value(value) for key, value in params.items()}


def plain(text: str | None) -> str:
    """What Telegram shows of ``text``: markup without its tags and with its entities read; a plain
    string as it is (it already is what is shown)."""
    if text is None:
        return ""
    if not isinstance(text, Html):
        return str(text)
    return _html.unescape(_TAG.sub("", str(text)))


def shorten(text: str, limit: int) -> str:
    """Plain ``text`` in at most ``limit`` characters: as it is when it fits, else cut and ended with "…",
    so that a reader sees it was cut (never a mark, joiner or space left dangling before the "…")."""
    if len(text) <= limit:
        return text
    kept = text[: max(limit - 1, 0)]
    while kept and (kept[-1].isspace() or unicodedata.category(kept[-1]) in ("Mn", "Me", "Cf")
                    or "\ufe00" <= kept[-1] <= "\ufe0f"):
        kept = kept[:-1]
    return kept + "…"


@overload
def cap(text: Html) -> Html: ...


@overload
def cap(text: str) -> str: ...


def cap(text: str) -> str:
    """``text`` with its first letter in capitals, of the same kind (markup stays markup)."""
    first = text[:1].upper() + text[1:]
    return Html(first) if isinstance(text, Html) else first  # (a letter made upper case is no markup)


def restored(text: str | None) -> Html | None:
    """A text the bot stored itself as markup (an outbox entry's, ``gamebot.outbox.delivery.to_out``; the vote
    message's intro): stored as JSON it came back a plain ``str``."""
    return None if text is None else Html(text)


def require(text: object, method: str) -> Html | None:
    """``text`` if it may be sent as ``parse_mode=HTML`` (markup, or no text at all); else NotMarkup."""
    if text is None or isinstance(text, Html):
        return text
    raise NotMarkup(f"{method}: a plain {type(text).__name__} cannot be sent as HTML (build it as markup.Html)")


def require_text(text: object, method: str) -> Html:
    """``text`` if it is markup, where some text is needed; else NotMarkup (no text, or a plain one)."""
    checked = require(text, method)
    if checked is None:
        raise NotMarkup(f"{method}: no text (it takes markup.Html)")
    return checked


def require_plain(text: str | None, method: str) -> str | None:
    """``text`` if it is plain text (no markup, whose tags Telegram would show as they are); else NotMarkup."""
    if isinstance(text, Html):
        raise NotMarkup(f"{method}: takes plain text; convert the markup with markup.plain")
    return text
