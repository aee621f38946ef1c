"""Plural forms in catalog templates, chosen by each language's CLDR rules (Babel's plural rules).

A template may hold ICU-style plural blocks::

    "{count, plural, one {# player joined} other {# players joined}}"
    "{left, plural, =0 {no card left} one {# card left} few {# карты} many {# карт} other {# карты}}"

The block names the parameter (``count``), then one branch per CLDR category the language has (``zero``,
``one``, ``two``, ``few``, ``many``, ``other``) or an exact value (``=0``); ``other`` is required. In the
chosen branch ``#`` is the number, and ``{placeholders}`` are filled as anywhere else (blocks may nest).
Russian needs ``one`` / ``few`` / ``many`` / ``other``; English and German ``one`` / ``other``; French,
Spanish, Italian and Portuguese also have a ``many`` (for millions) that a game's numbers never reach.

:func:`expand` turns the blocks of a template into plain ``str.format`` text for given values, before the
catalog fills the other placeholders (``gamebot.language.texts.t``). Babel is imported on the first plural only
(about 20 ms, then a few ms per language's rules): a container that never shows one never loads it.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from babel.plural import PluralRule

CATEGORIES = ("zero", "one", "two", "few", "many", "other")
_HEAD = re.compile(r"\s*(\w+)\s*,\s*plural\s*,")
_SELECTOR = re.compile(r"\s*(=\d+|zero|one|two|few|many|other)\s*\{")


class PluralError(ValueError):
    """A plural block that cannot be read."""


def has_plural(template: str) -> bool:
    return ", plural," in template or ",plural," in template


def _closing(text: str, start: int) -> int:
    """The index of the ``}`` that closes the ``{`` at ``start``."""
    depth = 0
    for i in range(start, len(text)):
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
    raise PluralError(f"unbalanced braces in {text!r}")


def blocks(template: str) -> Iterator[tuple[int, int, str, dict[str, str]]]:
    """The outermost plural blocks of ``template``: (start, end, parameter, {selector: branch})."""
    i = 0
    while True:
        i = template.find("{", i)
        if i < 0:
            return
        end = _closing(template, i)
        head = _HEAD.match(template, i + 1)
        if head is None:
            i += 1
            continue
        branches: dict[str, str] = {}
        j = head.end()
        while j < end:
            sel = _SELECTOR.match(template, j)
            if sel is None:
                if template[j:end].strip():
                    raise PluralError(f"cannot read the plural block {template[i:end + 1]!r}")
                break
            open_at = sel.end() - 1
            close_at = _closing(template, open_at)
            branches[sel.group(1)] = template[open_at + 1:close_at]
            j = close_at + 1
        if "other" not in branches:
            raise PluralError(f"a plural block needs an 'other' branch: {template[i:end + 1]!r}")
        yield i, end + 1, head.group(1), branches
        i = end + 1


@functools.cache
def _rule(lang: str) -> PluralRule:
    from babel import Locale  # (imported here: only a plural loads Babel)

    return Locale.parse(lang.replace("-", "_")).plural_form


def category(lang: str, number: int | float) -> str:
    """The CLDR plural category of ``number`` in ``lang`` (``one``, ``few``, ``many``, ``other``...)."""
    return _rule(lang)(number)


def categories(lang: str) -> set[str]:
    """The categories ``lang`` distinguishes (always with ``other``)."""
    return set(_rule(lang).tags) | {"other"}


def expand(template: str, lang: str, values: Mapping[str, Any]) -> str:
    """``template`` with each plural block replaced by its branch for the value of its parameter."""
    if not has_plural(template):
        return template
    out, last = [], 0
    for start, end, name, branches in blocks(template):
        value = values.get(name)
        number: int | float | None = None  # no value, or one that is no number: the ``other`` branch
        if isinstance(value, float):
            number = value
        elif value is not None:
            try:
                number = int(value)
            except (TypeError, ValueError):
                pass
        if number is None:
            branch = branches["other"]
        else:
            branch = branches.get(f"={number}") or branches.get(category(lang, number)) or branches["other"]
        out.append(template[last:start])
        out.append(expand(branch, lang, values).replace("#", str(value)))  # (inner blocks took their own #)
        last = end
    out.append(template[last:])
    return "".join(out)


def flatten(template: str) -> str:
    """``template`` with every plural block replaced by all its branches (and ``{name}`` for its
    parameter): what the catalog checks read to list placeholders."""
    if not has_plural(template):
        return template
    out, last = [], 0
    for start, end, name, branches in blocks(template):
        out.append(template[last:start])
        out.append("{" + name + "}" + " ".join(flatten(b) for b in branches.values()))
        last = end
    out.append(template[last:])
    return "".join(out)


def selectors(template: str) -> list[tuple[str, set[str]]]:
    """(parameter, the branch selectors) of every plural block, nested ones included."""
    found = []
    for _start, _end, name, branches in blocks(template):
        found.append((name, set(branches)))
        for branch in branches.values():
            found.extend(selectors(branch))
    return found
