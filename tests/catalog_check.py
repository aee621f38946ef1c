"""What is wrong with a language's catalog, compared with English (the reference), and what of English
a text of that language still shows. Used by the catalog tests and by ``scripts/check_catalog.py``.

* keys missing or extra; placeholders (the caller's parameters, not the language's theme words) that
  differ; theme words that differ between the two themes;
* plural blocks that cannot be read, use a category the language does not have, or leave out one that
  the numbers of a game (0 to 200) need (Russian: ``one``, ``few``, ``many``);
* entries still in English: the same text as English, unless it is only names and symbols that every
  language keeps (Merlin, Excalibur, emojis, placeholders).
"""
from __future__ import annotations

import html
import re
from typing import Any

from gamebot.language import plurals, texts

# Words that are the same in every language: characters' and items' proper names, the game's names.
PROPER = {
    "Avalon", "Merlin", "Percival", "Morgana", "Mordred", "Oberon", "Lancelot", "Excalibur", "Arthur", "Artus",
    "Resistance", "The", "Telegram", "Avalon's", "OK", "UTC", "Plot", "Rogue", "Bot", "API", "HTML", "PNG",
    "id", "min", "h", "s", "x",
}
_WORD = re.compile(r"[^\W\d_]{2,}")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_TAG = re.compile(r"<[^>]+>")


def templates(entry: Any) -> list[str]:
    return list(entry.values()) if isinstance(entry, dict) else [entry]


def params(catalog: texts.Catalog, key: str) -> set[str]:
    """The placeholders a caller must pass: the template's fields that are not this language's theme words."""
    words = set().union(*(set(v) for v in catalog.vocab.values()))
    found: set[str] = set()
    for template in templates(catalog.messages[key]):
        found |= texts.placeholders(template)
    return found - words


def _visible_words(template: str) -> set[str]:
    text = html.unescape(_TAG.sub(" ", plurals.flatten(template)))
    while _PLACEHOLDER.search(text):
        text = _PLACEHOLDER.sub(" ", text)
    return set(_WORD.findall(text))


def untranslated(reference: texts.Catalog, other: texts.Catalog) -> list[str]:
    """Keys whose text in ``other`` is English's word for word, with words besides proper names, that the
    catalog does not list as the same on purpose (``language.same_as_english``: "Vote", "Assassin")."""
    out = []
    for key in sorted(reference.messages.keys() & other.messages.keys() - set(other.same_as_english)):
        mine, theirs = templates(other.messages[key]), templates(reference.messages[key])
        for template in mine:
            if template in theirs and _visible_words(template) - PROPER:
                out.append(key)
                break
    return out


def plural_problems(catalog: texts.Catalog) -> list[str]:
    out = []
    try:
        known = plurals.categories(catalog.code)
    except Exception as exc:  # noqa: BLE001 - an unknown locale is a finding, not a crash
        return [f"no plural rules for {catalog.code!r}: {exc}"]
    needed = {plurals.category(catalog.code, n) for n in range(201)}
    for key, entry in catalog.messages.items():
        for template in templates(entry):
            try:
                found = plurals.selectors(template)
            except plurals.PluralError as exc:
                out.append(f"plural of {key}: {exc}")
                continue
            for name, selectors in found:
                cats = {s for s in selectors if not s.startswith("=")}
                if cats - known:
                    out.append(f"plural of {key} ({name}): {sorted(cats - known)} are not {catalog.code} categories")
                if needed - cats:
                    out.append(f"plural of {key} ({name}): needs {sorted(needed - cats)}")
    return out


def problems(reference: texts.Catalog, other: texts.Catalog) -> list[str]:
    """Everything wrong with ``other`` compared with ``reference``."""
    out = [f"missing {k}" for k in reference.messages if k not in other.messages]
    out += [f"extra {k}" for k in other.messages if k not in reference.messages]
    for key in reference.messages.keys() & other.messages.keys():
        if params(reference, key) != params(other, key):
            out.append(f"placeholders of {key}: {sorted(params(reference, key))} != {sorted(params(other, key))}")
    themes = [set(words) for words in other.vocab.values()]
    if set(other.vocab) != set(reference.vocab) or any(t != themes[0] for t in themes):
        out.append("theme words differ between themes")
    out += plural_problems(other)
    out += [f"listed as the same as English but translated: {k}" for k in other.same_as_english
            if k not in other.messages or not set(templates(other.messages[k])) & set(templates(reference.messages.get(k, "")))]
    return out


def english_fragments(lang: str) -> set[str]:
    """Stretches of English catalog text (between placeholders and tags) of three words or more that
    ``lang``'s catalog does not have: finding one in a message of ``lang`` means English slipped in."""
    own = " ".join(
        html.unescape(t) for entry in texts.catalog(lang).messages.values() for t in templates(entry)
    )
    out = set()
    for entry in texts.catalog("en").messages.values():
        for template in templates(entry):
            text = html.unescape(_TAG.sub("\n", plurals.flatten(template)))
            for piece in re.split(r"\{[^{}]*\}|\n|[#:;()•·|—]", text):
                piece = piece.strip(" .,!?“”\"'")
                words = _WORD.findall(piece)
                if len(words) >= 3 and len(piece) >= 12 and set(words) - PROPER and piece not in own:
                    out.add(piece)
    return out
