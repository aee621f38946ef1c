"""A player's role card: role and side, what they know, a reminder of their rules.
"""
from __future__ import annotations

from engine.view_types import KnowledgeView, SeatView, You
from gamebot.language import texts, wording
from gamebot.language.markup import Html
from gamebot.messages.table import NL, Table, esc


def knowledge_lines(table: Table, knowledge: list[KnowledgeView]) -> list[Html]:
    groups: dict[tuple[str, str, int | None], list[int]] = {}
    for k in knowledge:
        seat = k.get("seat")
        if seat is None:
            continue
        groups.setdefault((k["label"], k.get("source") or "reveal", k.get("quest")), []).append(seat)
    lines = []
    for (label, source, quest), seats in groups.items():
        values: dict[str, object] = {"names": table.names_of(seats),
                                  "label": esc(texts.name_of("know", label, table.lang, table.theme))}
        key = "role.knowledge"
        if source != "reveal":  # how they learned it: "(you saw as the Cleric)", "(you saw with Ambush, Quest 3)"
            key += "_source"
            values["source"] = wording.learned(table, source)
        if quest is not None:
            key += "_quest"
            values["quest"] = quest + 1
        lines.append(table.t(key + "_line", **values))
    return lines


def role_card(table: Table, v: SeatView) -> Html:
    """A player's secret: role and side, what they know (with names), a reminder of their rules."""
    you = v["you"]
    side = you["side"]
    named = wording.name_says_side(table, you["role"], side)  # "You are a Spy.": no side repeated
    lines = [
        table.t("role.title", title=esc(table.title or table.t(f"theme.{table.theme}"))),
        table.t("role.you_are_named" if named else "role.you_are", role=esc(wording.role_a(table, you["role"])),
                side=esc(table.t(f"side.{side}.team"))),
        "",
    ]
    know = knowledge_lines(table, you.get("knowledge") or [])
    if know:
        lines.append(table.t("role.knowledge_title"))
        lines.extend(know)
    else:
        lines.append(table.t("role.knowledge_none"))
    lines.extend(_you_lines(table, you))
    help_text = wording.role_help(table, you["role"], side, v.get("options"))
    lines += [Html(""), table.t("role.reminder", help=help_text)]
    if you.get("cards"):  # the quest cards they may play now, and where
        lines.append(table.t("role.cards", cards=esc(wording.join_or(table, [table.card(c) for c in you["cards"]]))))
    lines.append(table.t("role.keep_secret"))
    return NL.join(lines)


def _you_lines(table: Table, you: You) -> list[Html]:
    """What plug-ins add to a player's own view: the Messenger's rank and Good Messages left."""
    lines = []
    if isinstance(you.get("messenger_rank"), str):
        lines.append(table.t("priv.MessengerRankDealt", rank=esc(texts.name_of("rank", you["messenger_rank"], table.lang,
                                                                              table.theme))))
    if isinstance(you.get("good_messages_left"), int):
        lines.append(table.t("role.good_messages_left", count=you["good_messages_left"]))
    if isinstance(you.get("evil_messages_left"), int):
        lines.append(table.t("role.evil_messages_left", count=you["evil_messages_left"]))
    targets = [t for t in you.get("assassinates") or [] if isinstance(t, str)]
    if targets:  # designated to assassinate (no Assassin card in this game)
        names = [texts.name_of("choice", t, table.lang, table.theme) for t in targets]
        lines.append(table.t("role.assassinates", targets=esc(texts.join_names(names, table.lang, or_=True))))
    return lines
