"""Plug-ins' public view entries: one short board line each (``BOARD_LINES``), and their part of the end's
history (``HISTORY_LINES``); an entry nobody wrote words for is shown field by field, by its declared types
(``engine.event_types.view_entry``), else through ``readable``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

from engine.event_types import view_shown
from engine.views import PublicView
from gamebot.language import texts, wording
from gamebot.language.markup import Html
from gamebot.messages.events import event_line
from gamebot.messages.table import Table, esc
from gamebot.messages.values import (
    allegiance_name,
    allegiance_row,
    hands_text,
    id_list,
    readable,
    shown_params,
    view_params,
)

BASE_VIEW_KEYS = {
    "players", "theme", "roles_in_play", "options", "stage", "round", "leader", "quest", "quest_choices",
    "team", "team_size", "vote_track", "track", "voted", "played", "table_cards", "proposals", "quests", "waiting",
    "winner", "win_reason", "winners", "roles", "sides", "you",
}


ViewLines = Callable[[Table, PublicView, object], list[Html]]  # (an entry: checked by its lines)
# view key -> the board lines of that entry (what matters to the table now; [] when nothing does)
BOARD_LINES: dict[str, ViewLines] = {}
RoundLines = Callable[[Table, object, int], list[Html]]
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


def plugin_history(table: Table, pv: PublicView, rnd: int, before: bool) -> list[Html]:
    lines = []
    entries: Mapping[str, object] = pv
    for key, (round_lines, first) in HISTORY_LINES.items():
        if first == before and entries.get(key):
            lines.extend(round_lines(table, entries[key], rnd))
    return lines


def plugin_board_lines(table: Table, pv: PublicView) -> list[Html]:
    """The plug-ins' board lines: known entries in ``BOARD_LINES`` order, then any other entry (a new
    plug-in) through the generic, readable fallback."""
    extra = set(pv) - BASE_VIEW_KEYS
    entries: Mapping[str, object] = pv
    lines = []
    for key in [k for k in BOARD_LINES if k in extra] + sorted(extra - set(BOARD_LINES)):
        value = entries[key]
        if value in (None, {}, [], ""):
            continue
        render_lines = BOARD_LINES.get(key, generic_board_lines(key))
        lines.extend(render_lines(table, pv, value))
    return lines


def generic_board_lines(key: str) -> ViewLines:
    """A view entry no renderer knows: its name and its values, by their declared types (``view_params``) or
    as they are (``readable``), or nothing."""

    def lines(table: Table, pv: PublicView, value: object) -> list[Html]:
        text = declared_text(table, key, value) if view_shown(key) is not None else readable(table, value)
        if not text:
            return []
        return [table.t("board.extra", name=esc(texts.name_of("board", key, table.lang, table.theme)), value=text)]

    return lines


def declared_text(table: Table, key: str, entry: object) -> Html:
    """A declared view entry as "field: value" pairs (nested data, None, False and empty values left out)."""
    if not isinstance(entry, dict):
        return Html("")
    shown = view_params(table, key, entry)
    parts = [Html("{}: {}").format(table.field(k), v) for k, v in shown.items()
             if v not in ("", None) and entry[k] not in (None, False, [], {}) and not isinstance(entry[k], dict)]
    return table.t("board.line.sep").join(parts)


def _seat(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _rounds_over(pv: PublicView) -> bool:
    """No more rounds: the end phase (assassination, recruitment) or the end. Excalibur and Plot cards
    no longer matter then."""
    return pv.get("stage") in ("game_end", "ended")


@board_lines("lady")
def _lady_board(table: Table, pv: PublicView, lady: object) -> list[Html]:
    holder = _seat(lady.get("holder")) if isinstance(lady, dict) else None
    return [table.t("board.lady", name=table.name(holder))] if holder is not None else []


@board_lines("excalibur")
def _excalibur_board(table: Table, pv: PublicView, excalibur: object) -> list[Html]:
    holder = _seat(excalibur.get("holder")) if isinstance(excalibur, dict) else None
    if holder is None or _rounds_over(pv):
        return []
    return [table.t("board.line.excalibur", name=table.name(holder))]


@board_lines("rogue")
def _rogue_board(table: Table, pv: PublicView, rogue: object) -> list[Html]:
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
        lines.append(table.t("board.line.rogue", cards=Html(", ").join(played)))
    return lines


@board_lines("plot")
def _plot_board(table: Table, pv: PublicView, plot: object) -> list[Html]:
    """Who holds which Plot card, what the Leader still has to deal, who plays face up, the deck."""
    if not isinstance(plot, dict) or _rounds_over(pv):
        return []
    hands = {seat: cards for seat, cards in enumerate(plot.get("hands") or []) if cards}
    parts = [hands_text(table, hands)] if hands else []
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
def _messengers_board(table: Table, pv: PublicView, messengers: object) -> list[Html]:
    if not isinstance(messengers, dict):
        return []
    good, evil = messengers.get("good_messages") or 0, messengers.get("evil_messages") or 0
    return [table.t("board.line.messengers", good=good, evil=evil)] if good or evil else []


@board_lines("lancelot")
def _lancelot_board(table: Table, pv: PublicView, lancelot: object) -> list[Html]:
    """Variant 2: the row of cards above the quests. Variant 1: the cards drawn so far, the deck."""
    if not isinstance(lancelot, dict):
        return []
    cards = lancelot.get("cards") or []
    if cards and all(isinstance(c, str) for c in cards):
        return [table.t("board.line.allegiance_row", cards=allegiance_row(table, cards))]
    drawn = [esc(allegiance_name(table, d["card"])) for d in cards if isinstance(d, dict) and isinstance(d.get("card"), str)]
    left = lancelot.get("deck_left") or 0
    if drawn:
        return [table.t("board.line.allegiance_drawn", cards=Html(", ").join(drawn), count=left)]
    return [table.t("board.line.allegiance_deck", count=left)] if left else []


@board_lines("revealed")
def _revealed_board(table: Table, pv: PublicView, revealed: object) -> list[Html]:
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
def _announced_only(table: Table, pv: PublicView, value: object) -> list[Html]:
    """Entries whose news the announcements already tell (cards set aside, the recruitment, the
    assassination, turns that ran out of time): the board has nothing to keep showing (a recruited
    Servant is listed under ``revealed``); the end's history tells them again."""
    return []


def this_round(entries: object, rnd: int) -> list[dict[str, object]]:
    """A plug-in's public record entries (``{"round": ...}``) of round ``rnd``."""
    if not isinstance(entries, list):
        return []
    return [e for e in entries if isinstance(e, dict) and e.get("round") == rnd]


@history_lines("rogue")
def _rogue_history(table: Table, rogue: object, rnd: int) -> list[Html]:
    watches = this_round(rogue.get("watches") if isinstance(rogue, dict) else None, rnd)
    return [table.t("end.line.watch", seat=table.name(_seat(w.get("seat")))) for w in watches]


@history_lines("excalibur")
def _excalibur_history(table: Table, excalibur: object, rnd: int) -> list[Html]:
    uses = this_round(excalibur.get("uses") if isinstance(excalibur, dict) else None, rnd)
    return [table.t("end.line.excalibur", **shown_params(table, {"holder": "seat", "target": "seat"},
                                                         {"holder": u.get("holder"), "target": u.get("target")}))
            for u in uses]


@history_lines("trapper")
def _trapper_history(table: Table, trapper: object, rnd: int) -> list[Html]:
    set_aside = this_round(trapper.get("discarded") if isinstance(trapper, dict) else None, rnd)
    return [table.t("end.line.trapper", seat=table.name(_seat(d.get("seat")))) for d in set_aside]


@history_lines("lancelot", before=True)
def _lancelot_history(table: Table, lancelot: object, rnd: int) -> list[Html]:
    drawn = this_round(lancelot.get("cards") if isinstance(lancelot, dict) else None, rnd)
    return [table.t("end.line.allegiance", card=esc(allegiance_name(table, str(d.get("card"))))) for d in drawn]


@history_lines("plot", before=True)
def _plot_history(table: Table, plot: object, rnd: int) -> list[Html]:
    """The Plot cards played in the round, each as its announcement said it."""
    played = this_round(plot.get("played") if isinstance(plot, dict) else None, rnd)
    out = []
    for entry in played:
        data = {k: v for k, v in entry.items() if k != "round"}
        line = event_line(table, "PlotCardPlayed", data)
        if line:
            out.append(table.t("end.line.indent", line=line))
    return out
