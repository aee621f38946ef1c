"""The board: the one group message kept current by editing.
"""
from __future__ import annotations

from engine.view_types import PublicView, TrackCell
from gamebot.botapi.buttons import PlayAgain, VoteHistory
from gamebot.botapi.callbacks import Codec
from gamebot.botapi.telegram_io import Btn, Keyboard
from gamebot.language import wording
from gamebot.language.markup import Html
from gamebot.messages.table import NL, Table, esc
from gamebot.messages.time_limits import board_lines
from gamebot.messages.view_lines import plugin_board_lines


def _quest_cell(table: Table, cell: TrackCell) -> Html:
    if cell["result"] is True:
        return table.t("board.quest_cell.success")
    if cell["result"] is False:
        return table.t("board.quest_cell.fail")
    star = "*" if cell["fails_needed"] > 1 else ""
    key = "board.quest_cell.closed" if cell.get("closed") else "board.quest_cell.pending"
    return table.t(key, n=cell["quest"] + 1, size=cell["size"], star=star)


def board(table: Table, pv: PublicView, status: str = "playing", names: bool = False) -> Html:
    """The one group message kept current by editing: quest track, vote track, Leader, one short line
    per plug-in with something to show now (``BOARD_LINES``), the seats and whose turn it is.
    ``names``: also who is still to vote or play (a board sent once, by /status; the board kept current
    leaves them to the vote message, so that it is not edited at every vote)."""
    lines = [table.t("board.title", players=pv["players"])]
    lines.append(table.t("board.quests", track=Html(" · ").join(_quest_cell(table, c) for c in pv["track"])))
    if any(c["fails_needed"] > 1 and c["result"] is None for c in pv["track"]):
        lines.append(table.t("board.two_fails"))
    if wording.closed_quests(pv):
        lines.append(table.t("board.closed_note"))
    dots = "●" * pv["vote_track"] + "○" * (5 - pv["vote_track"])
    lines.append(table.t("board.vote_track", dots=dots, count=pv["vote_track"]))
    lines.append(table.t("board.leader", name=table.name(pv["leader"])))
    lines.extend(plugin_board_lines(table, pv))
    seats = Html(", ").join(Html("{}. {}").format(i + 1, table.name(i)) for i in range(pv["players"]))
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
            lines.extend(board_lines(table))
    return NL.join(lines)


def board_keyboard(table: Table, codec: Codec) -> Keyboard:
    """The board's one button while the game runs: its vote history, sent in private (``handlers.votes``).
    The same on every edit of the board (no decision in it), so it costs no edit of its own."""
    return [[Btn(table.t("votes.button"), VoteHistory().encode(codec, table.chat_id, table.game_id))]]


def play_again_keyboard(table: Table, codec: Codec) -> Keyboard:
    """The game-over message's button: a lobby with the same settings, the game's players invited."""
    return [[Btn(table.t("rematch.button"), PlayAgain().encode(codec, table.chat_id, table.game_id))]]
