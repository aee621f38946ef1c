"""Pure rendering: engine views and events -> Telegram texts (HTML) and inline keyboards.

Group messages are built ONLY from ``engine.public_view(state)`` and public events (``to is None``), so
nothing secret can reach the group before the end: the functions for the group never see the state.
Private messages are built from ``engine.view(state, seat)`` and that seat's private events.

Everything is generic over the engine's plug-ins: names come from the text catalog (with a fallback
built from the id), prompts are drawn from the engine ``Prompt`` fields (pick / targets / choices /
optional / quests) and unknown events are rendered from their data, so new roles and modules appear
without changes here. Players never see raw data: a plug-in's public view entry gets its own short board
line (``BOARD_LINES``) and history lines (``HISTORY_LINES``); an entry or event nobody wrote words for
is shown through ``readable`` (scalars, seats and ids as names; nested data, None and empty things left
out). An event's sentence may depend on its card or reason (``ev.PlotCardPlayed.no_confidence``), and a
sentence is only used when the event fills all its blanks.
"""
from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from . import texts, wording
from .bot_name import BotName
from .callbacks import Codec, start_payload
from .session import kind_tag

MAX_TEXT = 4000  # Telegram allows 4096 characters per message

# Event data keys that hold one seat / a list of seats.
SEAT_KEYS = {
    "seat", "leader", "holder", "target", "assassin", "checker", "previous", "source", "by", "junior", "senior",
    "receiver",
}
SEATS_KEYS = {"team", "approve", "reject", "winners", "seats", "targets", "holders", "players_seen"}
CARDS_KEYS = {"cards", "drawn", "card_ids"}  # lists of card ids (quest cards, Plot cards, Allegiance cards)

# Public events folded into other messages (progress counters, the picker and the vote message).
# PlotCardPassed: a holder asked in turn who does not play their card (nothing happened); VoteShown: an
# open vote (Opinion Maker / Charge) is shown in the vote message instead.
SILENT_PUBLIC = {"VoteCast", "CardPlayed", "TeamProposed", "TeamRequested", "GameEnded", "PlotCardPassed", "VoteShown"}
SILENT_PRIVATE = {"RoleDealt", "MessengerRankDealt"}  # both are on the role card sent with them

BASE_VIEW_KEYS = {
    "players", "theme", "roles_in_play", "options", "stage", "round", "leader", "quest", "quest_choices",
    "team", "team_size", "vote_track", "track", "voted", "played", "table_cards", "proposals", "quests", "waiting",
    "winner", "win_reason", "winners", "roles", "sides", "you",
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
    bot_username: str | BotName = ""  # a BotName is asked only when a link is rendered

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
        """The bot's ``start`` link; "" while its username is unknown (``bot_name``: the texts say it in words)."""
        name = str(self.bot_username)
        return f"https://t.me/{name}?start={payload}" if name else ""

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


IDENT = re.compile(r"^[a-z][a-z0-9_]*$")
# Where an id found in plug-in data may have its name, in this order (a Plot card id is also a ``card``).
ID_PREFIXES = ("card", "plot", "role", "choice", "module", "kind")


def id_name(table: Table, ident: str) -> str:
    """The name of an id from plug-in data (a card, a Plot card in the table's theme, a character...),
    never the id itself: the catalog's name, else a readable one built from the id."""
    for prefix in ID_PREFIXES:
        if texts.has(f"{prefix}.{ident}", table.lang):
            return table.t(f"{prefix}.{ident}")
    return texts.name_of("card", ident, table.lang, table.theme)


def id_list(table: Table, idents: Iterable[str]) -> str:
    """Ids as names, repeated ones counted (``Charge, 2 × The King Returns``); escaped HTML."""
    counts: dict[str, int] = {}
    for ident in idents:
        counts[ident] = counts.get(ident, 0) + 1
    parts = [id_name(table, i) if n == 1 else table.t("cards_count", count=n, card=id_name(table, i))
             for i, n in counts.items()]
    return esc(", ".join(parts))


def readable(table: Table, value: Any, key: str = "") -> str:
    """Any value from plug-in data as words for players (escaped HTML), or "" when there is nothing to
    show: scalars, seats as names, ids as names, flat dicts as "field: value" pairs. Nested structures,
    None, False and empty things are left out, so no Python repr ever reaches a chat."""
    if value is None or value is False:
        return ""
    if value is True:
        return table.t("yes")
    if isinstance(value, int | float):
        if key in SEAT_KEYS and isinstance(value, int):
            return table.name(value)
        return str(value + 1 if key == "quest" and isinstance(value, int) else value)
    if isinstance(value, str):
        return esc(id_name(table, value)) if IDENT.match(value) else esc(value)
    if isinstance(value, list | tuple):
        if value and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
            if key in ("quests", "quest"):
                return ", ".join(str(q + 1) for q in value)
            return table.names_of(list(value))
        if value and all(isinstance(x, str) for x in value):
            return id_list(table, value)
        return ""
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            text = readable(table, v, str(k)) if isinstance(k, str) and not isinstance(v, dict) else ""
            if text:
                parts.append(f"{esc(table.field(k))}: {text}")
        return table.t("board.line.sep").join(parts)
    return ""


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
        elif key in ("card", "was", "taken") and isinstance(value, str):
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
        elif key == "hands" and isinstance(value, dict):  # seat (as text) -> the Plot cards it holds
            out[key] = _hands(table, {int(k): v for k, v in value.items() if str(k).isdigit() and isinstance(v, list)})
        elif isinstance(value, bool):
            out[key] = table.t("yes") if value else table.t("no")
        else:
            out[key] = readable(table, value, key)
    return out


def _hands(table: Table, hands: dict[int, list[str]]) -> str:
    """Who holds which Plot cards: ``Ivan holds Charge; Alice holds Ambush``."""
    parts = [table.t("board.line.plot_hand", name=table.name(seat), cards=id_list(table, cards))
             for seat, cards in sorted(hands.items()) if cards]
    return table.t("board.line.sep").join(parts) if parts else table.t("nothing")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _generic_line(table: Table, key: str, etype: str, data: dict[str, Any]) -> str:
    p = params(table, data)
    details = "".join(f"\n   {esc(_cap(table.field(k)))}: {v}" for k, v in p.items() if v not in ("", None))
    return table.t(key, what=esc(texts.humanize(etype)), details=details)


# Event data whose value picks a sentence of its own: ``ev.PlotCardPlayed.no_confidence``,
# ``ev.AllegianceCardDrawn.switch``, ``ev.PlotCardDiscarded.no_effect``, ``priv.DefaultApplied.vote``.
VARIANT_KEYS = ("card", "reason", "kind")


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


# ---------------------------------------------------------------------------------------------------
# Group: announcements, board, team picker, vote and quest progress, the end
# ---------------------------------------------------------------------------------------------------

# Public events another event of the same update tells better: the Plot card that caused them says
# what happened in one sentence (``ev.PlotCardPlayed.strong_leader``: "... and becomes the Leader").
TOLD_BY_PLOT_CARD = {"LeaderChanged": "leader", "PlotCardTaken": "seat"}


def _told_later(ev: Any, later: list[Any]) -> bool:
    who = TOLD_BY_PLOT_CARD.get(ev.type)
    if who is None or ev.data.get(who) is None:
        return False
    return any(e.type == "PlotCardPlayed" and e.to is None and e.data.get("seat") == ev.data[who] for e in later)


def _in_telling_order(events: list[Any]) -> list[Any]:
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


def announcements(table: Table, events: Iterable[Any]) -> list[str]:
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


def _quest_cell(table: Table, cell: dict[str, Any]) -> str:
    if cell["result"] is True:
        return table.t("board.quest_cell.success")
    if cell["result"] is False:
        return table.t("board.quest_cell.fail")
    star = "*" if cell["fails_needed"] > 1 else ""
    key = "board.quest_cell.closed" if cell.get("closed") else "board.quest_cell.pending"
    return table.t(key, n=cell["quest"] + 1, size=cell["size"], star=star)


def board(table: Table, pv: dict[str, Any], status: str = "playing", names: bool = False) -> str:
    """The one group message kept current by editing: quest track, vote track, Leader, one short line
    per plug-in with something to show now (``BOARD_LINES``), the seats and whose turn it is.
    ``names``: also who is still to vote or play (a board sent once, by /status; the board kept current
    leaves them to the vote message, so that it is not edited at every vote)."""
    lines = [table.t("board.title", players=pv["players"])]
    lines.append(table.t("board.quests", track=" · ".join(_quest_cell(table, c) for c in pv["track"])))
    if any(c["fails_needed"] > 1 and c["result"] is None for c in pv["track"]):
        lines.append(table.t("board.two_fails"))
    if wording.closed_quests(pv):
        lines.append(table.t("board.closed_note"))
    dots = "●" * pv["vote_track"] + "○" * (5 - pv["vote_track"])
    lines.append(table.t("board.vote_track", dots=dots, count=pv["vote_track"]))
    lines.append(table.t("board.leader", name=table.name(pv["leader"])))
    lines.extend(plugin_board_lines(table, pv))
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
            if kind in ("vote", "play") and pv["stage"] in ("vote", "quest") and not (names and waiting.get("seats")):
                # names would change with every vote or card: the vote message shows the progress
                lines.append(table.t("board.waiting_many", what=what))
            elif waiting.get("hidden") or not waiting.get("seats"):
                lines.append(table.t("board.waiting_hidden", what=what))
            else:
                lines.append(table.t("board.waiting", who=table.names_of(waiting["seats"]), what=what))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------
# Plug-ins' public view entries: one short board line each, and their part of the end's history
# ---------------------------------------------------------------------------------------------------

ViewLines = Callable[[Table, dict[str, Any], Any], list[str]]
# view key -> the board lines of that entry (what matters to the table now; [] when nothing does)
BOARD_LINES: dict[str, ViewLines] = {}
RoundLines = Callable[[Table, Any, int], list[str]]
# view key -> lines of the end's history for one round, (table, entry, round) -> lines, and whether
# they come before the round's proposals (Allegiance cards, Plot cards) or with its quest
HISTORY_LINES: dict[str, tuple[RoundLines, bool]] = {}


def board_lines(key: str) -> Callable[[ViewLines], ViewLines]:
    def register(fn: ViewLines) -> ViewLines:
        BOARD_LINES[key] = fn
        return fn

    return register


def history_lines(key: str, before: bool = False) -> Callable[[RoundLines], RoundLines]:
    def register(fn: RoundLines) -> RoundLines:
        HISTORY_LINES[key] = (fn, before)
        return fn

    return register


def plugin_history(table: Table, pv: dict[str, Any], rnd: int, before: bool) -> list[str]:
    lines = []
    for key, (round_lines, first) in HISTORY_LINES.items():
        if first == before and pv.get(key):
            lines.extend(round_lines(table, pv[key], rnd))
    return lines


def plugin_board_lines(table: Table, pv: dict[str, Any]) -> list[str]:
    """The plug-ins' board lines: known entries in ``BOARD_LINES`` order, then any other entry (a new
    plug-in) through the generic, readable fallback."""
    extra = set(pv) - BASE_VIEW_KEYS
    lines = []
    for key in [k for k in BOARD_LINES if k in extra] + sorted(extra - set(BOARD_LINES)):
        value = pv[key]
        if value in (None, {}, [], ""):
            continue
        render_lines = BOARD_LINES.get(key, generic_board_lines(key))
        lines.extend(render_lines(table, pv, value))
    return lines


def generic_board_lines(key: str) -> ViewLines:
    """A view entry no renderer knows: its name and its readable values (``readable``), or nothing."""

    def lines(table: Table, pv: dict[str, Any], value: Any) -> list[str]:
        text = readable(table, value, key)
        if not text:
            return []
        return [table.t("board.extra", name=esc(texts.name_of("board", key, table.lang, table.theme)), value=text)]

    return lines


def _seat(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _rounds_over(pv: dict[str, Any]) -> bool:
    """No more rounds: the end phase (assassination, recruitment) or the end. Excalibur and Plot cards
    no longer matter then."""
    return pv.get("stage") in ("game_end", "ended")


@board_lines("lady")
def _lady_board(table: Table, pv: dict[str, Any], lady: Any) -> list[str]:
    holder = _seat(lady.get("holder")) if isinstance(lady, dict) else None
    return [table.t("board.lady", name=table.name(holder))] if holder is not None else []


@board_lines("excalibur")
def _excalibur_board(table: Table, pv: dict[str, Any], excalibur: Any) -> list[str]:
    holder = _seat(excalibur.get("holder")) if isinstance(excalibur, dict) else None
    if holder is None or _rounds_over(pv):
        return []
    return [table.t("board.line.excalibur", name=table.name(holder))]


@board_lines("rogue")
def _rogue_board(table: Table, pv: dict[str, Any], rogue: Any) -> list[str]:
    if not isinstance(rogue, dict):
        return []
    lines = []
    watch = _seat(rogue.get("watch"))
    if watch is not None:
        lines.append(table.t("board.line.watch", name=table.name(watch)))
    played = [
        table.t("board.line.rogue_card", card=esc(table.card(card)), quest=token["quest"] + 1)
        for token in rogue.get("tokens") or [] if isinstance(token, dict)
        for card in ("rogue_success", "rogue_fail") if token.get(card)
    ]
    if played:
        lines.append(table.t("board.line.rogue", cards=", ".join(played)))
    return lines


@board_lines("plot")
def _plot_board(table: Table, pv: dict[str, Any], plot: Any) -> list[str]:
    """Who holds which Plot card, what the Leader still has to deal, who plays face up, the deck."""
    if not isinstance(plot, dict) or _rounds_over(pv):
        return []
    hands = {seat: cards for seat, cards in enumerate(plot.get("hands") or []) if cards}
    parts = [_hands(table, hands)] if hands else []
    if plot.get("drawn"):
        parts.append(table.t("board.line.plot_drawn", leader=table.name(_seat(pv.get("leader"))),
                             cards=id_list(table, plot["drawn"])))
    if plot.get("face_up"):
        parts.append(table.t("board.line.plot_face_up", names=table.names_of(plot["face_up"])))
    if plot.get("deck"):
        parts.append(table.t("board.line.plot_deck", count=plot["deck"]))
    if not parts:
        return []
    return [table.t("board.line.plot", module=esc(table.module("plot_cards")), parts=table.t("board.line.sep").join(parts))]


@board_lines("messengers")
def _messengers_board(table: Table, pv: dict[str, Any], messengers: Any) -> list[str]:
    if not isinstance(messengers, dict):
        return []
    good, evil = messengers.get("good_messages") or 0, messengers.get("evil_messages") or 0
    return [table.t("board.line.messengers", good=good, evil=evil)] if good or evil else []


def allegiance_row(table: Table, cards: list[str]) -> str:
    """Lancelot's Allegiance cards lying above the quests: ``1️⃣ No change · 2️⃣ Switch · ...``."""
    return " · ".join(table.t("board.line.allegiance_cell", n=i + 1, card=esc(_allegiance(table, c)))
                      for i, c in enumerate(cards) if isinstance(c, str))


def _allegiance(table: Table, card: str) -> str:
    key = f"board.allegiance.{card}"
    return table.t(key) if texts.has(key, table.lang) else table.card(card)


@board_lines("lancelot")
def _lancelot_board(table: Table, pv: dict[str, Any], lancelot: Any) -> list[str]:
    """Variant 2: the row of cards above the quests. Variant 1: the cards drawn so far, the deck."""
    if not isinstance(lancelot, dict):
        return []
    cards = lancelot.get("cards") or []
    if cards and all(isinstance(c, str) for c in cards):
        return [table.t("board.line.allegiance_row", cards=allegiance_row(table, cards))]
    drawn = [esc(_allegiance(table, d["card"])) for d in cards if isinstance(d, dict) and isinstance(d.get("card"), str)]
    left = lancelot.get("deck_left") or 0
    if drawn:
        return [table.t("board.line.allegiance_drawn", cards=", ".join(drawn), count=left)]
    return [table.t("board.line.allegiance_deck", count=left)] if left else []


@board_lines("revealed")
def _revealed_board(table: Table, pv: dict[str, Any], revealed: Any) -> list[str]:
    """Characters shown to everyone during the game (the Revealer, a recruited Untrustworthy Servant)."""
    lines = []
    for r in revealed if isinstance(revealed, list) else []:
        if not isinstance(r, dict) or _seat(r.get("seat")) is None:
            continue
        role, side = str(r.get("role")), str(r.get("side"))
        note = wording.side_note(table, role, side)
        lines.append(table.t("board.line.revealed" if note else "board.line.revealed_named", name=table.name(r["seat"]),
                             role=esc(wording.role_a(table, role)), side=esc(note)))
    return lines


@board_lines("trapper")
@board_lines("recruitment")
@board_lines("assassination")
@board_lines("timeouts")
def _announced_only(table: Table, pv: dict[str, Any], value: Any) -> list[str]:
    """Entries whose news the announcements already tell (cards set aside, the recruitment, the
    assassination, turns that ran out of time): the board has nothing to keep showing (a recruited
    Servant is listed under ``revealed``); the end's history tells them again."""
    return []


def _this_round(entries: Any, rnd: int) -> list[dict[str, Any]]:
    return [e for e in entries or [] if isinstance(e, dict) and e.get("round") == rnd]


@history_lines("rogue")
def _rogue_history(table: Table, rogue: Any, rnd: int) -> list[str]:
    watches = _this_round(rogue.get("watches") if isinstance(rogue, dict) else None, rnd)
    return [table.t("end.line.watch", seat=table.name(_seat(w.get("seat")))) for w in watches]


@history_lines("excalibur")
def _excalibur_history(table: Table, excalibur: Any, rnd: int) -> list[str]:
    uses = _this_round(excalibur.get("uses") if isinstance(excalibur, dict) else None, rnd)
    return [table.t("end.line.excalibur", **params(table, {"holder": u.get("holder"), "target": u.get("target")}))
            for u in uses]


@history_lines("trapper")
def _trapper_history(table: Table, trapper: Any, rnd: int) -> list[str]:
    set_aside = _this_round(trapper.get("discarded") if isinstance(trapper, dict) else None, rnd)
    return [table.t("end.line.trapper", seat=table.name(_seat(d.get("seat")))) for d in set_aside]


@history_lines("lancelot", before=True)
def _lancelot_history(table: Table, lancelot: Any, rnd: int) -> list[str]:
    drawn = _this_round(lancelot.get("cards") if isinstance(lancelot, dict) else None, rnd)
    return [table.t("end.line.allegiance", card=esc(_allegiance(table, str(d.get("card"))))) for d in drawn]


@history_lines("plot", before=True)
def _plot_history(table: Table, plot: Any, rnd: int) -> list[str]:
    """The Plot cards played in the round, each as its announcement said it."""
    played = _this_round(plot.get("played") if isinstance(plot, dict) else None, rnd)
    out = []
    for entry in played:
        data = {k: v for k, v in entry.items() if k != "round"}
        line = event_line(table, "PlotCardPlayed", data)
        if line:
            out.append(table.t("end.line.indent", line=line))
    return out


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
    lines.extend(open_votes(table, pv))
    lines.extend(wording.first_voters(table, pv))
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


def open_votes(table: Table, pv: dict[str, Any]) -> list[str]:
    """Votes cast first and in the open (the Plot card Opinion Maker / Charge), in the vote message."""
    plot = pv.get("plot")
    shown = plot.get("open_votes") if isinstance(plot, dict) else None
    if not isinstance(shown, dict):
        return []
    return [table.t("ev.VoteShown", seat=table.name(int(seat)), vote=esc(texts.name_of("vote", str(vote), table.lang, table.theme)))
            for seat, vote in shown.items() if str(seat).isdigit()]


def proposal_line(table: Table, pv: dict[str, Any]) -> str:
    """The team picker once the team is proposed, while another decision comes before the vote."""
    if not pv["proposals"]:
        return "✔️"
    proposal = pv["proposals"][-1]
    return table.t("team.proposed", leader=table.name(proposal["leader"]), team=table.names_of(proposal["team"]),
                   quest=proposal["quest"] + 1)


# Public events the vote message tells once everyone has voted (instead of a message of their own).
TOLD_BY_THE_VOTE = {"VotesRevealed", "TeamApproved", "TeamRejected", "QuestStarted"}


def vote_outcome(table: Table, pv: dict[str, Any]) -> list[str]:
    """What the last proposal's votes decided, from the public view: every vote, then the team approved
    (and its quest starting) or rejected."""
    from engine import Event

    if not pv.get("proposals"):
        return []
    p = pv["proposals"][-1]
    votes = p.get("votes") or ""
    if not votes:
        return []
    events = [Event(type="VotesRevealed", data={
        "approve": [i for i, v in enumerate(votes) if v == "A"], "reject": [i for i, v in enumerate(votes) if v == "R"],
        "approved": bool(p.get("approved"))})]
    if p.get("approved"):
        events += [Event(type="TeamApproved", data={"team": p["team"], "quest": p["quest"]}),
                   Event(type="QuestStarted", data={"quest": p["quest"], "team": p["team"]})]
    elif p.get("note") is None:
        events.append(Event(type="TeamRejected", data={"team": p["team"], "rejections": pv["vote_track"]}))
    return announcements(table, events)


def vote_result(table: Table, pv: dict[str, Any], played: bool = False, head: dict[str, Any] | None = None) -> str:
    """The vote message once everyone has voted: the proposal, the votes and what they decided; during
    the quest (``played``), how many cards are in. ``head``: the view the vote was made in (its team
    number), when ``pv`` is after it."""
    lines = [_vote_head(table, head or pv), *vote_outcome(table, pv)]
    if played and pv.get("stage") == "quest":
        quest = pv["quest"] if pv["quest"] is not None else 0
        count = len(pv.get("played") or [])
        lines.append(table.t("quest.progress", quest=quest + 1, team=table.names_of(pv["team"]), count=count,
                             of=len(pv["team"])))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------
# Private: the role card, prompts, private events
# ---------------------------------------------------------------------------------------------------


def role_help(table: Table, role_id: str, side: str, options: dict[str, Any] | None = None) -> str:
    return wording.role_help(table, role_id, side, options)


def knowledge_lines(table: Table, knowledge: list[dict[str, Any]]) -> list[str]:
    groups: dict[tuple[str, str, int | None], list[int]] = {}
    for k in knowledge:
        if k.get("seat") is None:
            continue
        groups.setdefault((k["label"], k.get("source") or "reveal", k.get("quest")), []).append(k["seat"])
    lines = []
    for (label, source, quest), seats in groups.items():
        values: dict[str, Any] = {"names": table.names_of(seats),
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


def role_card(table: Table, v: dict[str, Any]) -> str:
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
    help_text = role_help(table, you["role"], side, v.get("options"))
    lines += ["", table.t("role.reminder", help=help_text)]
    if you.get("cards"):  # the quest cards they may play now, and where
        lines.append(table.t("role.cards", cards=esc(wording.join_or(table, [table.card(c) for c in you["cards"]]))))
    lines.append(table.t("role.keep_secret"))
    return "\n".join(lines)


def _you_lines(table: Table, you: dict[str, Any]) -> list[str]:
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


PROMPT_VARIANT_KEYS = ("target", "source")


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
    # The sentence: a variant named by the prompt's target or source (the Assassin looking for both
    # Messengers, the Cleric's look at the Reveal), else the kind's own, if the prompt fills its blanks.
    candidates = [f"prompt.{kind}.{info[k]}" for k in PROMPT_VARIANT_KEYS if isinstance(info.get(k), str)]
    candidates.append(f"prompt.{kind}")
    key = next((c for c in candidates if texts.has(c, table.lang)
                and texts.fields(c, table.lang, table.theme) <= set(p)), candidates[-1])
    known = texts.has(key, table.lang) and texts.fields(key, table.lang, table.theme) <= set(p)
    if known:  # the prompt's own sentence says what to choose
        lines = [table.t(key, **p)]
        if kind == "play":
            lines.extend(wording.play_notes(table, pv, int(prompt.get("seat") or 0)))
    else:
        lines = [table.t("prompt.generic", what=esc(table.kind(kind)))]
        for k, v in p.items():
            if k in ("kind",) or v in ("", None):
                continue
            lines.append(table.t("prompt.info_line", name=esc(_cap(table.field(k))), value=v))
    pick = int(prompt.get("pick") or 0)
    if pick and not known:
        lines.append(table.t("prompt.pick_one") if pick == 1 else table.t("prompt.pick", count=pick))
    if prompt.get("quests"):
        lines.append(table.t("prompt.pick_quest"))
    if prompt.get("choices") and not known:
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


def lobby(table: Table, host: str | None, roles: list[str], options: dict[str, Any], codec: Codec,
          assassin: str | None = None) -> tuple[str, Keyboard]:
    """The lobby message; ``assassin``: who assassinates when no Assassin card plays (a name)."""
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
    if assassin:
        lines.append(table.t("lobby.assassin", role=esc(assassin)))
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


def available_modules(theme: str) -> list[tuple[str, str, list[str] | None]]:
    """(name id, option key, named values or None for a switch) for every option the host may set on
    the options page in ``theme``: each option whose plug-in declares that theme and that page
    (``Plugin.themes``, ``Plugin.settings_page``): module switches first, then extra option keys."""
    from engine import Theme
    from engine.plugin import Module, option_owners

    th = Theme(theme)
    out = []
    for key, owner in option_owners().items():
        if th not in owner.themes or owner.settings_page != "options":
            continue
        if isinstance(owner, Module) and owner.option == key:
            out.append((owner.id, key, list(owner.option_values) or None))
        else:
            out.append((key, key, None))
    switches = {o.option for o in option_owners().values() if isinstance(o, Module)}
    return sorted(out, key=lambda m: (m[1] not in switches, m[0]))


def available_presets(theme: str) -> list[Any]:
    """``engine.presets.Preset`` objects for ``theme`` (empty if the engine has no presets module)."""
    try:
        from engine import presets as mod
    except ImportError:  # pragma: no cover - presets are optional
        return []
    return [p for p in mod.PRESETS.values() if str(getattr(p.theme, "value", p.theme)) == theme]


def issue_text(table: Table, issue: Any, html: bool = True) -> str:
    """An engine ``ConfigIssue`` in the table's language (``config.<code>``; the engine's English
    message for a code the catalog does not know yet). Escaped HTML, or plain text (``html=False``,
    e.g. for a callback alert)."""
    from engine import ROLES

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
        elif name == "plugin" and isinstance(value, str):  # a character or a module, by its id
            values[name] = table.role(value) if value in ROLES else table.module(value)
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
            note = wording.side_note(table, rid, side)
            lines.append(table.t("rules.role_line" if note else "rules.role_line_named", role=esc(table.role(rid)),
                                 side=esc(note), help=role_help(table, rid, side, options)))
    mods = [k for k, v in options.items() if v]
    if mods:
        lines += ["", table.t("rules.modules_in_play")]
        for k in mods:
            key = f"modulehelp.{k}"
            helptext = table.t(key) if texts.has(key, table.lang) else ""
            lines.append(table.t("rules.module_line", module=esc(table.module(k)), help=helptext))
    return "\n".join(lines)
