"""Values inside events, prompts and plug-in views as words for players: seats as names, quest slots as
numbers, ids as names. Every field is shown by its declared type (``engine.event_types``: an event's data,
``event_params``; a prompt's info, ``prompt_params``; a plug-in's view entry, ``view_params``); a value
declared plain, or not declared, as it is (``readable``: numbers as numbers, ids by their names).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from engine.event_types import prompt_shown, shown, view_shown
from gamebot.language import texts
from gamebot.language.markup import Html
from gamebot.messages.table import Table, esc

NOTHING = Html("")  # (a value with nothing to show)


def card_counts(table: Table, cards: dict[str, int]) -> Html:
    """Quest cards counted: ``2 × Success, Fail``; "nothing" when none."""
    parts = [table.t("cards_count", count=n, card=table.card(c)) for c, n in sorted(cards.items())]
    return Html(", ").join(parts) if parts else table.t("nothing")


def quest_outcome(record: Mapping[str, Any]) -> str:  # (event data or a quest record: counts checked here)
    """How a quest's result reads next to its Fails (a ``QuestCompleted`` event or a quest record): the
    key's last part. ``success``/``fail`` when the Fails counted say it (none, or enough); otherwise the
    sentence says why: ``success_short`` (Fails, but fewer than needed: the 4th quest at 7 or more),
    ``success_despite`` (enough Fails, yet a success: Magic reversed it) and ``fail_short`` (too few
    Fails, yet a failure: Magic). The notes tell what changed the count or the result."""
    success = bool(record.get("success"))
    if "fails" not in record or "fails_needed" not in record:  # (data that does not count them)
        return "success" if success else "fail"
    try:
        fails, needed = int(record.get("fails") or 0), int(record.get("fails_needed") or 1)
    except (TypeError, ValueError):
        return "success" if success else "fail"
    if success:
        return "success" if fails <= 0 else "success_short" if fails < needed else "success_despite"
    return "fail" if fails >= needed else "fail_short"


IDENT = re.compile(r"^[a-z][a-z0-9_]*$")
# Where an id found in plug-in data may have its name, in this order (a Plot card id is also a ``card``).
ID_PREFIXES = ("card", "plot", "role", "choice", "module", "kind")


def id_name(table: Table, ident: str) -> Html:
    """The name of an id from plug-in data (a card, a Plot card in the table's theme, a character...),
    never the id itself: the catalog's name, else a readable one built from the id."""
    for prefix in ID_PREFIXES:
        if texts.has(f"{prefix}.{ident}", table.lang):
            return table.t(f"{prefix}.{ident}")
    return texts.name_of("card", ident, table.lang, table.theme)


def listed(table: Table, ident: str, among: int = 2) -> Html:
    """An id's name as it stands in a list of ``among`` names: a Plot card's name quoted as the language
    quotes a card in running text (``card.listed``: « Embuscade », „Erwischt!“), so that a name ending in
    "!" or "?" never runs into the list's comma; other names, and a name alone, as they are."""
    name = id_name(table, ident)
    plot = ident.removeprefix("plot_")
    if among > 1 and texts.has(f"plot.{plot}", table.lang) and texts.has("card.listed", table.lang):
        return table.t("card.listed", card=name)
    return esc(name)


def id_list(table: Table, idents: Iterable[str]) -> Html:
    """Ids as names, repeated ones counted (``Charge, 2 × The King Returns``); markup."""
    counts: dict[str, int] = {}
    for ident in idents:
        counts[ident] = counts.get(ident, 0) + 1
    parts = [listed(table, i, len(counts)) if n == 1 else table.t("cards_count", count=n, card=listed(table, i, 2))
             for i, n in counts.items()]
    return Html(", ").join(parts)


def readable(table: Table, value: object) -> Html:
    """A value with no declared type as words for players (markup), or "" when there is nothing to
    show: scalars as they are, ids as names, flat dicts as "field: value" pairs. Nested structures, None,
    False and empty things are left out, so no Python repr ever reaches a chat."""
    if value is None or value is False:
        return NOTHING
    if value is True:
        return table.t("yes")
    if isinstance(value, int | float):
        return esc(value)
    if isinstance(value, str):
        return id_name(table, value) if IDENT.match(value) else esc(value)
    if isinstance(value, list | tuple):
        if value and all(isinstance(x, int | float) and not isinstance(x, bool) for x in value):
            return Html(", ").join(value)
        if value and all(isinstance(x, str) for x in value):
            return id_list(table, value)
        return NOTHING
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            text = readable(table, v) if isinstance(k, str) and not isinstance(v, dict) else ""
            if text:
                parts.append(Html("{}: {}").format(table.field(k), text))
        return table.t("board.line.sep").join(parts)
    return NOTHING


def hands_text(table: Table, hands: dict[int, list[str]]) -> Html:
    """Who holds which Plot cards: ``Ivan holds Charge; Alice holds Ambush``."""
    parts = [table.t("board.line.plot_hand", name=table.name(seat), cards=id_list(table, cards))
             for seat, cards in sorted(hands.items()) if cards]
    return table.t("board.line.sep").join(parts) if parts else table.t("nothing")


def allegiance_row(table: Table, cards: list[str]) -> Html:
    """Lancelot's Allegiance cards lying above the quests: ``1️⃣ No change · 2️⃣ Switch · ...``."""
    return Html(" · ").join(table.t("board.line.allegiance_cell", n=i + 1, card=esc(allegiance_name(table, c)))
                      for i, c in enumerate(cards) if isinstance(c, str))


def allegiance_name(table: Table, card: str) -> Html:
    key = f"board.allegiance.{card}"
    return table.t(key) if texts.has(key, table.lang) else table.card(card)


def _seat_ok(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _ids_ok(v: object) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


# declared type (``engine.event_types.Shown``) -> (the values it fits, how they are shown)
SHOWN: dict[str, tuple[Callable[[object], bool], Callable[[Table, Any], object]]] = {  # (each shows what it fits)
    "seat": (_seat_ok, lambda t, v: t.name(v)),
    "seats": (lambda v: isinstance(v, list), lambda t, v: t.names_of([s for s in v if _seat_ok(s)])),
    "quest": (_seat_ok, lambda t, v: v + 1),
    "quests": (lambda v: isinstance(v, list), lambda t, v: Html(", ").join(q + 1 for q in v if _seat_ok(q))),
    "card_counts": (lambda v: isinstance(v, dict), card_counts),
    "cards": (_ids_ok, lambda t, v: Html(", ").join(listed(t, c, len(v)) for c in v)),
    "card": (lambda v: isinstance(v, str), lambda t, v: esc(t.card(v))),
    "role": (lambda v: isinstance(v, str), lambda t, v: esc(t.role(v))),
    "side": (lambda v: isinstance(v, str), lambda t, v: esc(t.side(v))),
    "source": (lambda v: isinstance(v, str), lambda t, v: esc(t.source(v))),
    "rank": (lambda v: isinstance(v, str), lambda t, v: esc(texts.name_of("rank", v, t.lang, t.theme))),
    "vote": (lambda v: isinstance(v, str), lambda t, v: esc(texts.name_of("vote", v, t.lang, t.theme))),
    "hands": (lambda v: isinstance(v, dict), lambda t, v: hands_text(
        t, {int(k): c for k, c in v.items() if str(k).isdigit() and isinstance(c, list)})),
}


def show(table: Table, how: str, value: object) -> object:
    """One value as its declared type says (``how``: a ``Shown`` name, "" for a plain value): yes / no
    for a flag, else ``readable`` (ids by their names, numbers as they are)."""
    if isinstance(value, bool):
        return table.t("yes") if value else table.t("no")
    shown_as = SHOWN.get(how)
    if shown_as is not None and shown_as[0](value):
        return shown_as[1](table, value)
    return readable(table, value)


def shown_params(table: Table, how: dict[str, str], data: Mapping[str, object]) -> dict[str, object]:
    """Data made readable field by field, as ``how`` (field -> declared type) says."""
    return {key: show(table, how.get(key, ""), value) for key, value in data.items()}


def event_params(table: Table, kind: str, data: Mapping[str, object]) -> dict[str, object]:
    """An event's data made readable by its declaration; an event nobody declared shows plain values."""
    return shown_params(table, shown(kind) or {}, data)


def prompt_params(table: Table, kind: str, info: Mapping[str, object]) -> dict[str, object]:
    """A prompt's info made readable by its declaration (``engine.event_types.prompt_info``)."""
    return shown_params(table, prompt_shown(kind) or {}, info)


def view_params(table: Table, key: str, entry: Mapping[str, object]) -> dict[str, object]:
    """A plug-in's view entry made readable by its declaration (``engine.event_types.view_entry``)."""
    return shown_params(table, view_shown(key) or {}, entry)
