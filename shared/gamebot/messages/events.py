"""Engine events as sentences: one line per event (``ev.<Type>`` / ``priv.<Type>`` in the catalog, else a
generic line from its data), the group's announcements and a player's private events.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine import Event
from gamebot.language import texts, wording
from gamebot.language.markup import Html, cap
from gamebot.messages.table import NL, Table, esc
from gamebot.messages.values import allegiance_row, event_params, quest_outcome

# Public events folded into other messages (progress counters, the picker and the vote message).
# PlotCardPassed: a holder asked in turn who does not play their card (nothing happened); VoteShown: an
# open vote (Opinion Maker / Charge) is shown in the vote message instead.
SILENT_PUBLIC = {"VoteCast", "CardPlayed", "TeamProposed", "TeamRequested", "GameEnded", "PlotCardPassed", "VoteShown"}
SILENT_PRIVATE = {"RoleDealt", "MessengerRankDealt"}  # both are on the role card sent with them


def _generic_line(table: Table, key: str, etype: str, data: dict[str, Any]) -> Html:
    p = event_params(table, etype, data)
    details = Html("").join(Html("\n   {}: {}").format(cap(table.field(k)), v)
                            for k, v in p.items() if v not in ("", None))
    return table.t(key, what=esc(texts.humanize(etype)), details=details)


# Event data whose value picks a sentence of its own: ``ev.PlotCardPlayed.no_confidence``,
# ``ev.AllegianceCardDrawn.switch``, ``ev.PlotCardDiscarded.no_effect``, ``priv.DefaultApplied.vote``.
VARIANT_KEYS = ("card", "reason", "kind")


def event_line(table: Table, etype: str, data: dict[str, Any], private: bool = False) -> Html | None:
    """One event as a line of text (``ev.<Type>`` / ``priv.<Type>`` in the catalog, else generic)."""
    prefix = "priv" if private else "ev"
    p = event_params(table, etype, data)
    if etype == "QuestCompleted":
        line = table.t(f"ev.QuestCompleted.{quest_outcome(data)}", **p)
        for note in data.get("notes") or []:
            line += NL + table.t("ev.QuestCompleted.note", note=esc(table.note(str(note))))
        return line
    if "targets" in p and "target" not in p:  # several seats named at once (e.g. both Good Messengers)
        p["target"] = p["targets"]
    if etype in ("AssassinationAttempted", "RecruitmentAttempted"):
        outcome = "hit" if data.get("hit", data.get("recruited")) else "miss"
        kind = data.get("kind")
        special = f"ev.{etype}.{kind}.{outcome}"
        return table.t(special if kind and texts.has(special, table.lang) else f"ev.{etype}.{outcome}", **p)
    if etype == "VotesRevealed":
        p["approve"] = table.names_of(data.get("approve", []))
        p["reject"] = table.names_of(data.get("reject", []))
    if etype == "AllegianceCardsDealt" and isinstance(data.get("cards"), list):
        p["cards"] = allegiance_row(table, data["cards"])
    variants = [f"{prefix}.{etype}.{data[k]}" for k in VARIANT_KEYS if isinstance(data.get(k), str)]
    if etype == "AssassinationStarted" and isinstance(data.get("choices"), list) and data["choices"]:
        # several targets: the Assassin announces one first (``AssassinTargetAnnounced``)
        choices = [str(c) for c in data["choices"]]
        p["choices"] = esc(wording.join_or(table, [texts.name_of("choice", c, table.lang, table.theme) for c in choices]))
        variants.insert(0, f"ev.{etype}.choose" if len(choices) > 1 else f"ev.{etype}.{choices[0]}")
    if etype == "PlotCardPlayed" and "target" in data:
        variants.append("ev.PlotCardPlayed.target")
    for key in (*variants, f"{prefix}.{etype}", f"ev.{etype}" if private else None):
        if key and texts.has(key, table.lang) and texts.fields(key, table.lang, table.theme) <= set(p):
            return table.t(key, **p)  # the first sentence whose every blank the event fills
    return _generic_line(table, "ev.private_generic" if private else "ev.generic", etype, data)


# Public events another event of the same update tells better: the Plot card that caused them says
# what happened in one sentence (``ev.PlotCardPlayed.strong_leader``: "... and becomes the Leader").
TOLD_BY_PLOT_CARD = {"LeaderChanged": "leader", "PlotCardTaken": "seat"}


def _told_later(ev: Event, later: list[Event]) -> bool:
    who = TOLD_BY_PLOT_CARD.get(ev.type)
    if who is None or ev.data.get(who) is None:
        return False
    return any(e.type == "PlotCardPlayed" and e.to is None and e.data.get("seat") == ev.data[who] for e in later)


def _in_telling_order(events: list[Event]) -> list[Event]:
    """The start of the game first; a round's header before what happened as that round began (events
    just before it carrying the same ``round``, e.g. Lancelot's Allegiance card). Otherwise as emitted."""
    events = sorted(events, key=lambda e: e.type != "GameStarted")  # stable: the rest keeps its order
    for i, ev in enumerate(list(events)):
        if ev.type != "RoundStarted":
            continue
        at = i
        while at > 0 and events[at - 1].data.get("round") == ev.data.get("round") and events[at - 1].type != "RoundStarted":
            at -= 1
        events.insert(at, events.pop(i))
    return events


def announcements(table: Table, events: Iterable[Event]) -> list[Html]:
    """Public events of one update as lines for the group (private events are ignored here). The
    start of the game comes first; what is folded into other messages or told by a later event of
    the same update is left out."""
    events = _in_telling_order(list(events))
    lines = []
    for i, ev in enumerate(events):
        if ev.to is not None or ev.type in SILENT_PUBLIC or _told_later(ev, events[i + 1 :]):
            continue
        if ev.type == "RoundStarted" and ev.data.get("round") == 1:
            continue  # the start message already says it
        line = event_line(table, ev.type, dict(ev.data))
        if line:
            lines.append(line)
    return lines


def private_events(table: Table, events: Iterable[Event], seat: int) -> list[Html]:
    lines = []
    for ev in events:
        if ev.to is None or seat not in ev.to or ev.type in SILENT_PRIVATE:
            continue
        line = event_line(table, ev.type, dict(ev.data), private=True)
        if line:
            lines.append(line)
    return lines
