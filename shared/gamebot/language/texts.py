"""Every user-facing string of the bot, in one message catalog per language (``locales/<code>.json``).

``t(key, lang, theme, **params)`` looks ``key`` up in the catalog of ``lang`` (falling back to English).
An entry is a template string, or a dict of templates per theme (``"avalon"`` / ``"resistance"``; the
key ``"*"`` is the default). Templates use ``str.format`` placeholders: the call's params plus the theme
vocabulary of that language (``{Quest}``, ``{quest}``, ``{Good}``, ``{Evil}``, ``{servant}``,
``{minion}``, ``{game}``...). Templates are Telegram HTML, and ``t`` returns markup (``markup.Html``):
it escapes every value it fills in that is not markup already (a name, a title, a number, a link), so
a caller cannot put unescaped user text into a message; ``markup.plain`` gives what Telegram shows of
it (a toast, a button's label).

A catalog file is JSON::

    {"language": {"code": "fr", "name": "Français"},
     "vocab": {"avalon": {"Quest": "Quête", ...}, "resistance": {...}},
     "messages": {"general": {"key": "template", ...}, "lobby": {...}, ..., "timers": {...}}}

``messages`` is grouped in sections only for people editing the file; keys are unique across
sections. A language exists when its file exists (``languages()``): adding one is adding a file (see
docs/I18N.md). Catalogs are parsed on first use only (the standard library's ``json``, about a
millisecond each), so a cold start pays for the languages it actually speaks.

Names of roles, modules, cards, prompts and knowledge labels come from the catalog (``role.<id>``,
``module.<id>``...) with a readable fallback built from the id, so plug-ins added to the engine later
show up without code changes here (and can be given proper names by adding catalog entries).
"""
from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gamebot.language import plurals
from gamebot.language.markup import Html, escape, escaped_values

DEFAULT_LANG = "en"
LOCALES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "locales")


class CatalogError(ValueError):
    """A catalog file that is not shaped as described above."""


@dataclass(frozen=True)
class Catalog:
    code: str
    name: str  # the language's own name, e.g. "Français"
    vocab: dict[str, dict[str, str]]
    messages: dict[str, Any]  # key -> template or {theme: template}
    sections: dict[str, list[str]] = field(default_factory=dict)  # section -> its keys, in file order
    same_as_english: tuple[str, ...] = ()  # keys whose text is English's on purpose ("Vote", "Assassin")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise CatalogError(f"key {key!r} appears twice")
        out[key] = value
    return out


def parse(doc: dict[str, Any], code: str) -> Catalog:
    """A catalog from the decoded JSON of one file (checked: shape, unique keys across sections)."""
    try:
        meta, vocab, sections = doc["language"], doc["vocab"], doc["messages"]
    except (KeyError, TypeError) as exc:
        raise CatalogError(f"{code}: a catalog needs 'language', 'vocab' and 'messages'") from exc
    if meta.get("code") != code:
        raise CatalogError(f"{code}: the file says it is {meta.get('code')!r}")
    messages: dict[str, Any] = {}
    order: dict[str, list[str]] = {}
    for section, entries in sections.items():
        order[section] = list(entries)
        for key, entry in entries.items():
            if key in messages:
                raise CatalogError(f"{code}: key {key!r} is in two sections")
            if not isinstance(entry, str) and not (
                isinstance(entry, dict) and entry and all(isinstance(v, str) for v in entry.values())
            ):
                raise CatalogError(f"{code}: {key!r} must be a string or a dict of strings per theme")
            messages[key] = entry
    return Catalog(code=code, name=str(meta.get("name") or code), vocab=vocab, messages=messages, sections=order,
                   same_as_english=tuple(meta.get("same_as_english") or ()))


def load_file(path: str) -> Catalog:
    code = os.path.splitext(os.path.basename(path))[0]
    with open(path, encoding="utf-8") as fh:
        try:
            doc = json.load(fh, object_pairs_hook=_no_duplicates)
        except CatalogError as exc:
            raise CatalogError(f"{code}: {exc}") from None
    return parse(doc, code)


_lock = threading.Lock()
_catalogs: dict[str, Catalog | None] = {}
_languages: list[str] | None = None


def reload(directory: str | None = None) -> None:
    """Forget loaded catalogs; read them from ``directory`` from now on (tests, tools)."""
    global LOCALES_DIR, _languages
    with _lock:
        if directory is not None:
            LOCALES_DIR = directory
        _catalogs.clear()
        _languages = None


def languages() -> list[str]:
    """The language codes with a catalog, the default first."""
    global _languages
    if _languages is None:
        found = sorted(f[:-5] for f in os.listdir(LOCALES_DIR) if f.endswith(".json") and not f.startswith("."))
        _languages = sorted(found, key=lambda c: (c != DEFAULT_LANG, c))
    return _languages


def catalog(lang: str) -> Catalog | None:
    """The catalog of ``lang`` (parsed on first use), or None if there is no such language."""
    if lang in _catalogs:
        return _catalogs[lang]
    with _lock:
        if lang not in _catalogs:
            path = os.path.join(LOCALES_DIR, f"{lang}.json")
            _catalogs[lang] = load_file(path) if lang in languages() else None
        return _catalogs[lang]


def default_catalog() -> Catalog:
    """The catalog of ``DEFAULT_LANG``, which every other language falls back on: the bot ships it, and
    cannot speak without it (CatalogError if the locales directory lacks it)."""
    found = catalog(DEFAULT_LANG)
    if found is None:
        raise CatalogError(f"{DEFAULT_LANG}: no catalog in {LOCALES_DIR}, and every language falls back on it")
    return found


def language_name(lang: str) -> str:
    found = catalog(lang)
    return found.name if found else lang


def supported(lang: str | None) -> bool:
    return bool(lang) and lang in languages()


def lang_for(code: str | None, fallback: str = DEFAULT_LANG) -> str:
    """The catalog language for a Telegram ``language_code`` (``fr-CA`` -> ``fr``), else ``fallback``."""
    if not code:
        return fallback
    base = code.replace("_", "-").split("-")[0].lower()
    return base if supported(base) else fallback


class _Messages(Mapping[str, dict[str, Any]]):
    """``CATALOG[lang]``: the flat key -> entry dict of a language (read access, loads lazily)."""

    def __getitem__(self, lang: str) -> dict[str, Any]:
        found = catalog(lang)
        if found is None:
            raise KeyError(lang)
        return found.messages

    def __iter__(self) -> Iterator[str]:
        return iter(languages())

    def __len__(self) -> int:
        return len(languages())


CATALOG = _Messages()


def _entry(key: str, lang: str) -> Any:
    found = catalog(lang)
    entry = found.messages.get(key) if found else None
    if entry is None and lang != DEFAULT_LANG:
        entry = default_catalog().messages.get(key)
    return entry


def has(key: str, lang: str = DEFAULT_LANG) -> bool:
    return _entry(key, lang) is not None


class _Defaulting(dict[str, Any]):
    def __missing__(self, key: str) -> str:  # a translation with an unknown placeholder still renders
        return "{" + key + "}"


def vocab(lang: str, theme: str) -> dict[str, str]:
    """The theme's words in ``lang`` ("Quest", "Evil"...): the catalog's own text, plain strings here."""
    found = catalog(lang) or default_catalog()
    return dict(found.vocab.get(theme) or found.vocab["avalon"])


def t(key: str, lang: str = DEFAULT_LANG, theme: str = "avalon", /, **params: Any) -> Html:
    """The text for ``key`` in ``lang`` and ``theme``, with ``params`` filled in: markup, every value that
    is not markup already escaped (numbers keep their format specs)."""
    entry = _entry(key, lang)
    if entry is None:
        raise KeyError(key)
    if isinstance(entry, dict):
        entry = entry.get(theme) or entry.get("*") or next(iter(entry.values()))
    values = _Defaulting(vocab(lang, theme))  # (the catalog's own words: its markup, as the templates)
    values.update(escaped_values(params))
    if plurals.has_plural(entry):  # "{count, plural, one {# player} other {# players}}" (CLDR rules)
        entry = plurals.expand(entry, lang if catalog(lang) else DEFAULT_LANG, values)
    return Html(entry.format_map(values))


def fields(key: str, lang: str = DEFAULT_LANG, theme: str = "avalon") -> set[str]:
    """The parameters the text for ``key`` needs from its caller (its placeholders that are not theme
    words), e.g. to choose a sentence whose every blank the caller can fill."""
    entry = _entry(key, lang)
    if entry is None:
        return set()
    if isinstance(entry, dict):
        entry = entry.get(theme) or entry.get("*") or next(iter(entry.values()))
    return placeholders(entry) - set(vocab(lang, theme))


def humanize(ident: str) -> str:
    """A readable fallback name for an id: ``lady_of_the_lake`` -> ``Lady of the lake``."""
    text = ident.replace("_", " ").replace("-", " ").strip()
    out = []
    for i, ch in enumerate(text):  # CamelCase -> words
        if ch.isupper() and i and text[i - 1].islower():
            out.append(" ")
        out.append(ch)
    text = "".join(out)
    return text[:1].upper() + text[1:].lower() if text else ident


# Kinds of names under which a Plot card may turn up (a prompt kind ``plot_<card>``, a card offered
# as a choice, the source of something learned): they share the ``plot.<card>`` catalog entries.
_PLOT_PREFIXES = ("card", "choice", "kind", "source", "know")


def name_of(prefix: str, ident: str, lang: str = DEFAULT_LANG, theme: str = "avalon") -> Html:
    """``role``/``module``/``card``/``kind``/``know``/``choice``... names, with a fallback (markup)."""
    key = f"{prefix}.{ident}"
    if has(key, lang):
        return t(key, lang, theme)
    if prefix in _PLOT_PREFIXES:
        plot = f"plot.{ident.removeprefix('plot_')}"
        if has(plot, lang):
            return t(plot, lang, theme)
    extra = _plugin_name(prefix, ident, theme)
    return escape(extra or humanize(ident))


def _plugin_name(prefix: str, ident: str, theme: str) -> str | None:
    """Names some engine plug-ins publish as data (e.g. Plot cards) when the catalog has none."""
    try:
        if prefix in _PLOT_PREFIXES or prefix == "plot":
            from engine.modules.plot import PLOT_CARDS

            cid = ident.removeprefix("plot_")
            if cid in PLOT_CARDS:
                return PLOT_CARDS[cid].get(theme) or PLOT_CARDS[cid].get("avalon")
    except Exception:  # pragma: no cover - optional data
        return None
    return None


def join_names(names: Sequence[str], lang: str = DEFAULT_LANG, or_: bool = False) -> Html:
    """``a, b and c`` (``or_``: ``a, b or c``) in the language's words: markup, each name escaped unless
    it is markup already."""
    if not names:
        return t("none", lang)
    if len(names) == 1:
        return escape(names[0])
    word = Html(" ") + t("or" if or_ else "and", lang) + Html(" ")
    return Html(", ").join(names[:-1]) + word + escape(names[-1])


def placeholders(template: str) -> set[str]:
    """The ``{name}`` fields of a template (format specs and conversions ignored; a plural block's
    parameter and the fields of its branches included)."""
    import string

    flat = plurals.flatten(template)
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(flat) if name}
