"""Pure rendering: engine views and events -> Telegram texts (HTML) and inline keyboards.

Group messages are built ONLY from ``engine.public_view(state)`` and public events (``to is None``), so
nothing secret can reach the group before the end: the functions for the group never see the state.
Private messages are built from ``engine.view(state, seat)`` and that seat's private events.

Everything is generic over the engine's plug-ins: names come from the text catalog (with a fallback
built from the id), prompts are drawn from the engine ``Prompt`` fields (pick / targets / choices /
optional / quests) and unknown events are rendered from their data, so new roles and modules appear
without changes here.
"""
from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from . import texts
from .callbacks import Codec, start_payload
from .session import kind_tag

MAX_TEXT = 4000  # Telegram allows 4096 characters per message

# Event data keys that hold one seat / a list of seats.
SEAT_KEYS = {"seat", "leader", "holder", "target", "assassin", "checker", "previous", "source", "by", "junior", "senior"}
SEATS_KEYS = {"team", "approve", "reject", "winners", "seats", "targets", "holders", "players_seen"}
CARDS_KEYS = {"cards", "drawn", "card_ids"}  # lists of card ids (quest cards, Plot cards, Allegiance cards)

# Public events folded into other messages (progress counters, the picker and the vote message).
SILENT_PUBLIC = {"VoteCast", "CardPlayed", "TeamProposed", "TeamRequested", "GameEnded"}
SILENT_PRIVATE = {"RoleDealt"}

BASE_VIEW_KEYS = {
    "players", "theme", "roles_in_play", "options", "stage", "round", "leader", "quest", "quest_choices",
    "team", "team_size", "vote_track", "track", "voted", "played", "proposals", "quests", "waiting",
    "winner", "win_reason", "winners", "roles", "sides", "lady", "you",
}


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
    bot_username: str = ""

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
        return f"https://t.me/{self.bot_username}?start={payload}"

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


# ---------------------------------------------------------------------------------------------------
# Values inside events / views
# ---------------------------------------------------------------------------------------------------


def _cards(table: Table, cards: dict[str, int]) -> str:
    parts = [table.t("cards_count", count=n, card=table.card(c)) for c, n in sorted(cards.items())]
    return ", ".join(parts) if parts else table.t("nothing")


def params(table: Table, data: dict[str, Any]) -> dict[str, Any]:
    """Event/view data made readable: seats -> names, quest slots -> numbers, ids -> names."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in SEAT_KEYS and isinstance(value, int) and not isinstance(value, bool):
            out[key] = table.name(value)
        elif key in SEATS_KEYS and isinstance(value, list | tuple):
            out[key] = table.names_of([v for v in value if isinstance(v, int)])
        elif key == "quest" and isinstance(value, int):
            out[key] = value + 1
        elif key == "quests" and isinstance(value, list):
            out[key] = ", ".join(str(q + 1) for q in value if isinstance(q, int))
        elif key == "cards" and isinstance(value, dict):
            out[key] = _cards(table, value)
        elif key in CARDS_KEYS and isinstance(value, list) and all(isinstance(c, str) for c in value):
            out[key] = esc(", ".join(table.card(c) for c in value))
        elif key in ("card", "was") and isinstance(value, str):
            out[key] = esc(table.card(value))
        elif key == "role" and isinstance(value, str):
            out[key] = esc(table.role(value))
        elif key == "side" and isinstance(value, str):
            out[key] = esc(table.side(value))
        elif key == "source" and isinstance(value, str):
            out[key] = esc(table.source(value))
        elif key == "rank" and isinstance(value, str):
            out[key] = esc(texts.name_of("rank", value, table.lang, table.theme))
        elif key == "vote" and isinstance(value, str):
            out[key] = esc(texts.name_of("vote", value, table.lang, table.theme))
        elif isinstance(value, bool):
            out[key] = table.t("yes") if value else table.t("no")
        elif isinstance(value, str):
            out[key] = esc(texts.humanize(value)) if "_" in value else esc(value)
        elif isinstance(value, int | float):
            out[key] = value
        elif isinstance(value, list) and all(isinstance(x, str) for x in value):
            out[key] = esc(", ".join(texts.humanize(x) for x in value))
        else:
            out[key] = esc(_compact(value))
    return out


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _compact(value: Any, limit: int = 120) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _generic_line(table: Table, key: str, etype: str, data: dict[str, Any]) -> str:
    p = params(table, data)
    details = "".join(f"\n   {esc(_cap(table.field(k)))}: {v}" for k, v in p.items() if v not in ("", None))
    return table.t(key, what=esc(texts.humanize(etype)), details=details)


def event_line(table: Table, etype: str, data: dict[str, Any], private: bool = False) -> str | None:
    """One event as a line of text (``ev.<Type>`` / ``priv.<Type>`` in the catalog, else generic)."""
    prefix = "priv" if private else "ev"
    p = params(table, data)
    if etype == "QuestCompleted":
        key = "ev.QuestCompleted.success" if data.get("success") else "ev.QuestCompleted.fail"
        line = table.t(key, **p)
        for note in data.get("notes") or []:
            line += "\n" + table.t("ev.QuestCompleted.note", note=esc(table.note(str(note))))
        return line
    if "targets" in p and "target" not in p:  # several seats named at once (e.g. both Good Messengers)
        p["target"] = p["targets"]
    if etype in ("AssassinationAttempted", "RecruitmentAttempted"):
        outcome = "hit" if data.get("hit", data.get("recruited")) else "miss"
        kind = data.get("kind")
        special = f"ev.{etype}.{kind}.{outcome}"
        return table.t(special if kind and texts.has(special, table.lang) else f"ev.{etype}.{outcome}", **p)
    if etype == "PlotCardPlayed" and "target" in data:
        return table.t("ev.PlotCardPlayed.target", **p)
    if etype == "VotesRevealed":
        p["approve"] = table.names_of(data.get("approve", []))
        p["reject"] = table.names_of(data.get("reject", []))
    for key in (f"{prefix}.{etype}", f"ev.{etype}" if private else None):
        if key and texts.has(key, table.lang):
            return table.t(key, **p)
    return _generic_line(table, "ev.private_generic" if private else "ev.generic", etype, data)


# ---------------------------------------------------------------------------------------------------
# Group: announcements, board, team picker, vote and quest progress, the end
# ---------------------------------------------------------------------------------------------------


def announcements(table: Table, events: Iterable[Any]) -> list[str]:
    """Public events of one update as lines for the group (private events are ignored here)."""
    lines = []
    for ev in events:
        if ev.to is not None or ev.type in SILENT_PUBLIC:
            continue
        if ev.type == "RoundStarted" and ev.data.get("round") == 1:
            continue  # the start message already says it
        line = event_line(table, ev.type, dict(ev.data))
        if line:
            lines.append(line)
    return lines


def _quest_cell(table: Table, cell: dict[str, Any]) -> str:
    if cell["result"] is True:
        return table.t("board.quest_cell.success")
    if cell["result"] is False:
        return table.t("board.quest_cell.fail")
    star = "*" if cell["fails_needed"] > 1 else ""
    return table.t("board.quest_cell.pending", n=cell["quest"] + 1, size=cell["size"], star=star)


def board(table: Table, pv: dict[str, Any], status: str = "playing") -> str:
    """The one group message kept current by editing: quest track, vote track, Leader, Lady, turn."""
    lines = [table.t("board.title", players=pv["players"])]
    lines.append(table.t("board.quests", track=" · ".join(_quest_cell(table, c) for c in pv["track"])))
    if any(c["fails_needed"] > 1 and c["result"] is None for c in pv["track"]):
        lines.append(table.t("board.two_fails"))
    dots = "●" * pv["vote_track"] + "○" * (5 - pv["vote_track"])
    lines.append(table.t("board.vote_track", dots=dots, count=pv["vote_track"]))
    lines.append(table.t("board.leader", name=table.name(pv["leader"])))
    if isinstance(pv.get("lady"), dict) and pv["lady"].get("holder") is not None:
        lines.append(table.t("board.lady", name=table.name(pv["lady"]["holder"])))
    for key in sorted(set(pv) - BASE_VIEW_KEYS):
        value = pv[key]
        if value in (None, {}, []):
            continue
        lines.append(table.t("board.extra", name=esc(texts.name_of("board", key, table.lang, table.theme)),
                             value=_view_value(table, value)))
    seats = ", ".join(f"{i + 1}. {table.name(i)}" for i in range(pv["players"]))
    lines.append(table.t("board.players", names=seats))
    if status == "cancelled":
        lines.append(table.t("board.cancelled"))
    elif pv["stage"] == "ended":
        lines.append(table.t("board.ended"))
    else:
        waiting = pv.get("waiting") or {}
        kind = waiting.get("kind")
        if kind:
            what = esc(table.kind(kind))
            if kind in ("vote", "play") and pv["stage"] in ("vote", "quest"):
                # names would change with every vote or card: the vote message shows the progress
                lines.append(table.t("board.waiting_many", what=what))
            elif waiting.get("hidden") or not waiting.get("seats"):
                lines.append(table.t("board.waiting_hidden", what=what))
            else:
                lines.append(table.t("board.waiting", who=table.names_of(waiting["seats"]), what=what))
    return "\n".join(lines)


def _view_value(table: Table, value: Any) -> str:
    """A plug-in's extra public view entry, compactly (seat-like keys become names)."""
    if isinstance(value, dict):
        p = params(table, value)
        return "; ".join(f"{esc(table.field(k))}: {v}" for k, v in p.items())
    if isinstance(value, list):
        return esc(_compact(", ".join(str(v) for v in value)))
    return esc(_compact(value))


def team_picker(
    table: Table,
    pv: dict[str, Any],
    sizes: dict[int, int],
    quests: list[int],
    attempt: int,
    selected: list[int],
    quest: int | None,
    codec: Codec,
    serial: int,
) -> tuple[str, Keyboard]:
    """The Leader's keyboard in the group: player names to toggle, quest choice (Targeting), Confirm."""
    leader = pv["leader"]
    def data(op: str) -> str:
        return codec.encode("T", table.chat_id, table.game_id, serial, op)

    if quests:
        text = table.t("team.title_targeting", leader=table.mention(leader), attempt=attempt)
        for q in quests:
            star = "*" if pv["track"][q]["fails_needed"] > 1 else ""
            text += "\n" + table.t("team.quest_sizes", quest=q + 1, size=sizes[q], star=star)
    else:
        slot = next(iter(sizes))
        text = table.t("team.title", leader=table.mention(leader), size=sizes[slot], quest=slot + 1, attempt=attempt)
    chosen = [s for s in selected if 0 <= s < pv["players"]]
    if quests and quest is not None:
        text += "\n" + table.t("team.quest_chosen", quest=quest + 1, size=sizes[quest])
    text += "\n" + (table.t("team.selected", names=table.names_of(chosen)) if chosen else table.t("team.selected_none"))
    rows: Keyboard = []
    if quests:
        row = []
        for q in quests:
            mark = "🎯 " if quest == q else ""
            row.append(Btn(mark + table.t("team.button.quest", quest=q + 1, size=sizes[q]), data(f"q{q}")))
        rows.extend(row[i : i + 3] for i in range(0, len(row), 3))
    buttons = [
        Btn(("✅ " if s in chosen else "▫️ ") + table.names[s][:24], data(f"t{s}")) for s in range(pv["players"])
    ]
    rows.extend(buttons[i : i + 2] for i in range(0, len(buttons), 2))
    if quests and quest is None:
        rows.append([Btn(table.t("team.button.confirm_noquest"), data("c"))])
    else:
        size = sizes[quest] if quest is not None else next(iter(sizes.values()))
        rows.append([Btn(table.t("team.button.confirm", count=len(chosen), size=size), data("c"))])
    return text, rows


def _vote_head(table: Table, pv: dict[str, Any]) -> str:
    proposal = pv["proposals"][-1] if pv["proposals"] else {"leader": pv["leader"], "team": pv["team"], "quest": 0}
    attempt = pv["vote_track"] + 1
    return table.t(
        "vote.title",
        quest=proposal["quest"] + 1,
        attempt=attempt,
        leader=table.name(proposal["leader"]),
        team=table.names_of(proposal["team"]),
    )


def vote_message(table: Table, pv: dict[str, Any], codec: Codec, serial: int) -> tuple[str, Keyboard]:
    """The vote in the group: who has voted (never how) and the Approve / Reject buttons."""
    voted = list(pv.get("voted") or [])
    lines = [_vote_head(table, pv)]
    if voted:
        lines.append(table.t("vote.progress", count=len(voted), of=pv["players"], names=table.names_of(voted)))
    waiting = [s for s in range(pv["players"]) if s not in voted]
    lines.append(table.t("vote.waiting", names=table.names_of(waiting)))
    tag = kind_tag("vote")
    kb = [[
        Btn(table.t("vote.button.approve"), codec.encode("V", table.chat_id, table.game_id, serial, tag + "a")),
        Btn(table.t("vote.button.reject"), codec.encode("V", table.chat_id, table.game_id, serial, tag + "r")),
    ]]
    return "\n".join(lines), kb


def vote_closed(table: Table, pv_before: dict[str, Any]) -> str:
    return _vote_head(table, pv_before) + "\n" + table.t("vote.closed", of=pv_before["players"])


def quest_progress(table: Table, pv: dict[str, Any]) -> str:
    """The vote message once the team is approved: the proposal, then how many cards are in."""
    played = pv.get("played") or []
    quest = pv["quest"] if pv["quest"] is not None else 0
    return "\n".join([
        _vote_head(table, pv),
        table.t("quest.approved"),
        table.t("quest.progress", quest=quest + 1, team=table.names_of(pv["team"]), count=len(played), of=len(pv["team"])),
    ])


def quest_done(table: Table, pv_before: dict[str, Any], quest: int) -> str:
    return "\n".join([_vote_head(table, pv_before), table.t("quest.approved"), table.t("quest.done", quest=quest + 1)])


def game_over(table: Table, pv: dict[str, Any], cancelled_by: str | None = None) -> list[str]:
    """The end: winner and reason, every role revealed, then the round-by-round history."""
    roles = pv.get("roles") or []
    sides = pv.get("sides") or []
    if cancelled_by is not None:
        head = [table.t("end.cancelled", name=esc(cancelled_by))]
    else:
        winner = pv.get("winner") or "none"
        head = [table.t(f"end.title.{winner}" if winner in ("good", "evil") else "end.title.none")]
        reason = pv.get("win_reason")
        if reason:
            key = f"end.reason.{reason}"
            head.append(table.t(key) if texts.has(key, table.lang) else table.t("end.reason.generic", reason=esc(texts.humanize(reason))))
        if pv.get("winners"):
            head.append(table.t("end.winners", names=table.names_of(pv["winners"])))
    head.append("")
    head.append(table.t("end.roles"))
    for seat in range(len(roles)):
        side = sides[seat] if seat < len(sides) else ""
        icon = "😇" if side == "good" else "😈"
        head.append(
            table.t("end.role_line", icon=icon, name=table.name(seat), role=esc(table.role(roles[seat])), side=esc(table.side(side)))
        )
    history = [table.t("end.history")]
    quests = {q["round"]: q for q in pv.get("quests") or []}
    rounds = sorted({p["round"] for p in pv.get("proposals") or []} | set(quests))
    for rnd in rounds:
        props = [p for p in pv["proposals"] if p["round"] == rnd]
        slot = props[-1]["quest"] if props else quests[rnd]["quest"]
        history.append(table.t("end.round", round=rnd, quest=slot + 1))
        for p in props:
            votes = p.get("votes") or ""
            approve = [i for i, v in enumerate(votes) if v == "A"]
            reject = [i for i, v in enumerate(votes) if v == "R"]
            result = table.t("end.approved") if p.get("approved") else table.t("end.rejected")
            if p.get("note"):
                result += f" ({esc(table.note(p['note']))})"
            history.append(
                table.t(
                    "end.proposal",
                    leader=table.name(p["leader"]),
                    team=table.names_of(p["team"]),
                    approve=table.names_of(approve) if votes else "?",
                    reject=table.names_of(reject) if votes else "?",
                    result=result,
                )
            )
        q = quests.get(rnd)
        if q:
            key = "end.quest_result.success" if q["success"] else "end.quest_result.fail"
            history.append(table.t(key, team=table.names_of(q["team"]), cards=_cards(table, q["cards"])))
    return split("\n".join(head)) + split("\n".join(history))


# ---------------------------------------------------------------------------------------------------
# Private: the role card, prompts, private events
# ---------------------------------------------------------------------------------------------------


def role_help(table: Table, role_id: str, side: str) -> str:
    key = f"rolehelp.{role_id}"
    if texts.has(key, table.lang):
        return table.t(key)
    return table.t("rolehelp.good_generic" if side == "good" else "rolehelp.evil_generic")


def knowledge_lines(table: Table, knowledge: list[dict[str, Any]]) -> list[str]:
    groups: dict[tuple[str, str, int | None], list[int]] = {}
    for k in knowledge:
        if k.get("seat") is None:
            continue
        groups.setdefault((k["label"], k.get("source") or "reveal", k.get("quest")), []).append(k["seat"])
    lines = []
    for (label, source, quest), seats in groups.items():
        text = esc(texts.name_of("know", label, table.lang, table.theme))
        if source != "reveal":
            text += f" ({esc(table.source(source))})"
        if quest is not None:
            lines.append(table.t("role.knowledge_quest_line", names=table.names_of(seats), label=text, quest=quest + 1))
        else:
            lines.append(table.t("role.knowledge_line", names=table.names_of(seats), label=text))
    return lines


def role_card(table: Table, v: dict[str, Any]) -> str:
    """A player's secret: role and side, what they know (with names), a reminder of their rules."""
    you = v["you"]
    side = you["side"]
    lines = [
        table.t("role.title", title=esc(table.title or table.t(f"theme.{table.theme}"))),
        table.t("role.you_are", role=esc(table.role(you["role"])), side=esc(table.t(f"side.{side}.team"))),
        "",
    ]
    know = knowledge_lines(table, you.get("knowledge") or [])
    if know:
        lines.append(table.t("role.knowledge_title"))
        lines.extend(know)
    else:
        lines.append(table.t("role.knowledge_none"))
    lines += ["", table.t("role.reminder", help=role_help(table, you["role"], side)), table.t("role.keep_secret")]
    return "\n".join(lines)


def private_events(table: Table, events: Iterable[Any], seat: int) -> list[str]:
    lines = []
    for ev in events:
        if ev.to is None or seat not in ev.to or ev.type in SILENT_PRIVATE:
            continue
        line = event_line(table, ev.type, dict(ev.data), private=True)
        if line:
            lines.append(line)
    return lines


def prompt_mode(prompt: dict[str, Any]) -> str:
    """``immediate`` (one press answers) or ``select`` (toggle, then Confirm)."""
    dims = int(bool(prompt.get("pick"))) + int(bool(prompt.get("choices"))) + int(bool(prompt.get("quests")))
    if dims == 0:
        return "immediate"
    if dims == 1 and (prompt.get("pick") in (0, 1)):
        return "immediate"
    return "select"


def choice_label(table: Table, choice: str, kind: str) -> str:
    if kind == "play" or texts.has(f"card.{choice}", table.lang):
        return table.card(choice)
    return texts.name_of("choice", choice, table.lang, table.theme)


def private_prompt(
    table: Table,
    prompt: dict[str, Any],
    codec: Codec,
    serial: int,
    sel: dict[str, Any] | None = None,
    pv: dict[str, Any] | None = None,
) -> tuple[str, Keyboard]:
    """Any engine prompt as a private message with buttons, built from its fields."""
    kind = prompt["kind"]
    info = dict(prompt.get("info") or {})
    p = params(table, info)
    if "quest" not in p and pv is not None and pv.get("quest") is not None:
        p["quest"] = pv["quest"] + 1
    if kind == "vote" and pv is not None:
        p.setdefault("team", table.names_of(pv.get("team") or []))
    key = f"prompt.{kind}"
    if texts.has(key, table.lang):
        lines = [table.t(key, **p)]
    else:
        lines = [table.t("prompt.generic", what=esc(table.kind(kind)))]
        for k, v in p.items():
            if k in ("kind",):
                continue
            lines.append(table.t("prompt.info_line", name=esc(_cap(table.field(k))), value=v))
    pick = int(prompt.get("pick") or 0)
    if pick:
        lines.append(table.t("prompt.pick", count=pick))
    if prompt.get("quests"):
        lines.append(table.t("prompt.pick_quest"))
    if prompt.get("choices") and not texts.has(key, table.lang):
        lines.append(table.t("prompt.choose"))
    if prompt.get("optional"):
        lines.append(table.t("prompt.may_pass"))
    tag = kind_tag(kind)

    def data(op: str) -> str:
        return codec.encode("P", table.chat_id, table.game_id, serial, tag + op)

    sel = sel or {}
    chosen = list(sel.get("targets") or [])
    mode = prompt_mode(prompt)
    rows: Keyboard = []
    if prompt.get("quests"):
        row = [
            Btn(("🎯 " if sel.get("quest") == q else "") + table.t("team.button.quest", quest=q + 1, size="·"), data(f"q{q}"))
            for q in prompt["quests"]
        ]
        rows.extend(row[i : i + 3] for i in range(0, len(row), 3))
    if pick:
        mark = (lambda s: "✅ " if s in chosen else "▫️ ") if mode == "select" else (lambda s: "")
        buttons = [Btn(mark(s) + table.names[s][:24], data(f"t{s}")) for s in prompt.get("targets") or []]
        rows.extend(buttons[i : i + 2] for i in range(0, len(buttons), 2))
    if prompt.get("choices"):
        buttons = [
            Btn(("🔘 " if mode == "select" and sel.get("choice") == c else "") + choice_label(table, c, kind), data(f"x{i}"))
            for i, c in enumerate(prompt["choices"])
        ]
        rows.extend(buttons[i : i + 2] for i in range(0, len(buttons), 2))
    if mode == "select":
        rows.append([Btn(table.t("prompt.button.confirm", count=len(chosen), size=pick or 1), data("c"))])
    if prompt.get("optional"):
        rows.append([Btn(table.t("prompt.button.pass"), data("p"))])
    if chosen:
        lines.append(table.t("team.selected", names=table.names_of(chosen)))
    return "\n".join(lines), rows


def answered(table: Table, prompt_text: str, kind: str, action: Any) -> str:
    """The private prompt message after its answer (buttons removed)."""
    if kind == "play" and action.choice:
        return prompt_text.split("\n")[0] + "\n" + table.t("played", card=esc(table.card(action.choice)))
    parts = []
    if action.choice == "pass":
        parts.append(table.t("prompt.passed"))
    elif action.choice:
        parts.append(esc(choice_label(table, action.choice, kind)))
    if action.quest is not None:
        parts.append(f"{table.t('team.button.quest', quest=action.quest + 1, size='·')}")
    if action.targets:
        parts.append(table.names_of(list(action.targets)))
    return prompt_text.split("\n")[0] + "\n" + table.t("prompt.done", answer=" · ".join(parts) or "✓")


# ---------------------------------------------------------------------------------------------------
# Lobby and settings
# ---------------------------------------------------------------------------------------------------


def settings_summary(table: Table, roles: list[str], options: dict[str, Any]) -> tuple[str, str]:
    role_names = ", ".join(esc(table.role(r)) for r in roles) or table.t("nothing")
    opts = [
        esc(table.module(k) + ("" if v is True else f" ({texts.name_of('variant', str(v), table.lang, table.theme)})"))
        for k, v in sorted(options.items())
        if v
    ]
    return role_names, ", ".join(opts) or table.t("nothing")


def lobby(table: Table, host: str | None, roles: list[str], options: dict[str, Any], codec: Codec) -> tuple[str, Keyboard]:
    role_names, option_names = settings_summary(table, roles, options)
    lines = [table.t("lobby.title"), table.t("lobby.host", host=esc(host or "—")), ""]
    lines.append(table.t("lobby.players", count=len(table.names)))
    if table.names:
        lines.extend(table.t("lobby.player_line", n=i + 1, name=table.name(i)) for i in range(len(table.names)))
    else:
        lines.append(table.t("lobby.no_players"))
    if len(table.names) < 5:
        lines.append(table.t("lobby.need_more"))
    lines += ["", table.t("lobby.settings", roles=role_names), table.t("lobby.options", options=option_names)]
    lines += ["", table.t("lobby.howto")]

    def data(op: str) -> str:
        return codec.encode("L", table.chat_id, table.game_id, 0, op)

    kb = [
        [Btn(table.t("lobby.button.join"), data("j")), Btn(table.t("lobby.button.leave"), data("l"))],
        [Btn(table.t("lobby.button.settings"), data("s")), Btn(table.t("lobby.button.start"), data("g"))],
    ]
    if table.bot_username:
        kb.append([Btn(table.t("lobby.button.open_bot"), url=table.deep_link("j"))])
    return "\n".join(lines), kb


def available_roles(theme: str) -> list[str]:
    """Every character the host may add for ``theme``: the non-filler engine roles, in a stable order."""
    from engine import ROLES, Theme

    th = Theme(theme)
    return sorted(r.id for r in ROLES.values() if not r.filler and th in r.themes)


def option_values(plugin: Any) -> list[str] | None:
    """Named values a module option takes (e.g. Lancelot's variants), if it is not a plain switch:
    a ``variants``/``values`` attribute of the plug-in, or a ``VARIANTS`` dict in its module."""
    import sys

    for attr in ("variants", "values", "choices"):
        found = getattr(plugin, attr, None)
        if isinstance(found, dict | list | tuple) and found:
            return [str(v) for v in found]
    module = sys.modules.get(type(plugin).__module__)
    found = getattr(module, "VARIANTS", None)
    if isinstance(found, dict) and found:
        return [str(v) for v in found]
    return None


def available_modules(theme: str) -> list[tuple[str, str, list[str] | None]]:
    """(name id, option key, named values or None for a switch) for every option the host may set:
    each switchable engine module, then the extra option keys plug-ins declare (``option_keys``)."""
    from engine import ALL, MODULES, Theme

    th = Theme(theme)
    out = []
    for m in sorted(MODULES.values(), key=lambda m: m.id):
        if not m.option:
            continue
        themes = getattr(m, "themes", None)
        if themes and th not in themes:
            continue
        out.append((m.id, m.option, option_values(m)))
    seen = {opt for _, opt, _ in out}
    for p in sorted(ALL.values(), key=lambda p: p.id):
        for key in getattr(p, "option_keys", ()) or ():
            if key not in seen:
                seen.add(key)
                out.append((key, key, None))
    return out


def available_presets(theme: str) -> list[Any]:
    """``engine.presets.Preset`` objects for ``theme`` (empty if the engine has no presets module)."""
    try:
        from engine import presets as mod
    except ImportError:  # pragma: no cover - presets are optional
        return []
    return [p for p in mod.PRESETS.values() if str(getattr(p.theme, "value", p.theme)) == theme]


def settings_panel(
    table: Table,
    settings: Any,
    page: str,
    players: int,
    issues: list[Any],
    codec: Codec,
    group_lang: str = texts.DEFAULT_LANG,
) -> tuple[str, Keyboard]:
    """The host's private settings panel: theme, characters, options, presets, the group's language,
    validation messages. The panel itself speaks the host's language (``table.lang``)."""
    role_names, option_names = settings_summary(table, list(settings.roles), dict(settings.options))
    lines = [
        table.t("settings.title", title=esc(table.title)),
        table.t("settings.theme", game=esc(table.t(f"theme.{settings.theme}"))),
        table.t("settings.roles", roles=role_names),
        table.t("settings.options", options=option_names),
        table.t("settings.language", language=esc(texts.language_name(group_lang))),
    ]
    if "merlin" in settings.roles and "assassin" not in settings.roles:
        who = esc(table.role(settings.assassin)) if settings.assassin else table.t("settings.assassin_auto")
        lines.append(table.t("settings.assassin", role=who))
    lines.append(table.t("settings.for_players", players=players))
    errors = [i for i in issues if i.level == "error"]
    warnings = [i for i in issues if i.level != "error"]
    lines += [table.t("settings.errors", message=issue_text(table, i)) for i in errors]
    lines += [table.t("settings.warnings", message=issue_text(table, i)) for i in warnings]
    if not errors:
        lines.append(table.t("settings.ok"))

    def data(op: str) -> str:
        return codec.encode("S", table.chat_id, table.game_id, 0, op)

    rows: Keyboard = []
    if page == "roles":
        lines += ["", table.t("settings.page.roles")]
        buttons = []
        for i, rid in enumerate(available_roles(settings.theme)):
            count = settings.roles.count(rid)
            mark = "✅ " if count else "▫️ "
            suffix = f" ×{count}" if count > 1 else ""
            buttons.append(Btn(mark + table.role(rid)[:28] + suffix, data(f"r{i}")))
        rows.extend(buttons[i : i + 2] for i in range(0, len(buttons), 2))
        rows.append([Btn(table.t("settings.button.back"), data("pm"))])
    elif page == "modules":
        lines += ["", table.t("settings.page.modules")]
        buttons = []
        for i, (mid, opt, values) in enumerate(available_modules(settings.theme)):
            value = settings.options.get(opt)
            mark = "✅ " if value else "▫️ "
            label = table.module(mid)[:30]
            if values and value:
                label += f": {texts.name_of('variant', str(value), table.lang, table.theme)}"[:30]
            buttons.append(Btn(mark + label, data(f"m{i}")))
        rows.extend(buttons[i : i + 2] for i in range(0, len(buttons), 2))
        rows.append([Btn(table.t("settings.button.back"), data("pm"))])
    elif page == "presets":
        lines += ["", table.t("settings.page.presets")]
        for i, p in enumerate(available_presets(settings.theme)):
            mark = "✅ " if settings.preset == p.id else ""
            name = preset_name(table, p)
            span = {"low": p.min_players, "high": p.max_players}
            rows.append([Btn(mark + table.t("settings.preset_button", name=name[:40], **span), data(f"p{i}"))])
            lines.append(table.t("settings.preset_line", name=esc(name), description=esc(preset_help(table, p)), **span))
        rows.append([Btn(table.t("settings.button.back"), data("pm"))])
    else:
        other = "resistance" if settings.theme == "avalon" else "avalon"
        rows.append([Btn(table.t("settings.button.theme", game=table.t(f"theme.{other}")), data("th"))])
        if len(texts.languages()) > 1:  # the group's language: each press moves to the next catalog
            rows.append([Btn(table.t("settings.button.language", language=texts.language_name(group_lang)), data("lg"))])
        rows.append([Btn(table.t("settings.button.roles"), data("pr")), Btn(table.t("settings.button.modules"), data("pb"))])
        if available_presets(settings.theme):
            rows.append([Btn(table.t("settings.button.presets"), data("pp"))])
        if "merlin" in settings.roles and "assassin" not in settings.roles:
            who = table.role(settings.assassin) if settings.assassin else table.t("settings.assassin_auto")
            rows.append([Btn(table.t("settings.button.assassin", role=who), data("a"))])
        rows.append([Btn(table.t("settings.button.done"), data("d"))])
    return "\n".join(lines), rows


def issue_text(table: Table, issue: Any, html: bool = True) -> str:
    """An engine ``ConfigIssue`` in the table's language (``config.<code>``; the engine's English
    message for a code the catalog does not know yet). Escaped HTML, or plain text (``html=False``,
    e.g. for a callback alert)."""
    key = f"config.{issue.code}"
    quote = esc if html else str
    if not texts.has(key, table.lang):
        return quote(issue.message)
    values: dict[str, Any] = {}
    for name, value in (issue.params or {}).items():
        if name in ("role", "missing") and isinstance(value, str):
            values[name] = table.role(value)
        elif name == "roles" and isinstance(value, list | tuple):
            values[name] = ", ".join(table.role(str(r)) for r in value)
        elif name == "theme" and isinstance(value, str) and texts.has(f"theme.{value}", table.lang):
            values[name] = table.t(f"theme.{value}")
        elif name == "option" and isinstance(value, str):
            values[name] = table.module(value)
        elif name == "preset" and isinstance(value, str):
            values[name] = texts.name_of("preset", value, table.lang, table.theme)
        elif isinstance(value, list | tuple):
            values[name] = ", ".join(str(v) for v in value)
        else:
            values[name] = value
    return table.t(key, **{k: quote(v) if isinstance(v, str) else v for k, v in values.items()})


def preset_name(table: Table, preset: Any) -> str:
    key = f"preset.{preset.id}"
    return table.t(key) if texts.has(key, table.lang) else preset.name


def preset_help(table: Table, preset: Any) -> str:
    key = f"presethelp.{preset.id}"
    return table.t(key) if texts.has(key, table.lang) else preset.description


def rules_text(table: Table, roles: list[str], options: dict[str, Any]) -> str:
    from engine import ROLES

    lines = [table.t(f"rules.{table.theme}")]
    if roles:
        lines += ["", table.t("rules.roles_in_play")]
        for rid in dict.fromkeys(roles):
            side = ROLES[rid].side.value if rid in ROLES else "good"
            lines.append(table.t("rules.role_line", role=esc(table.role(rid)), side=esc(table.side(side)),
                                 help=role_help(table, rid, side)))
    mods = [k for k, v in options.items() if v]
    if mods:
        lines += ["", table.t("rules.modules_in_play")]
        for k in mods:
            key = f"modulehelp.{k}"
            helptext = table.t(key) if texts.has(key, table.lang) else ""
            lines.append(table.t("rules.module_line", module=esc(table.module(k)), help=helptext))
    return "\n".join(lines)
