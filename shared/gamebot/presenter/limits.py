"""Time limits as words: a duration ("2 min"), the line a prompt shows ("⏳ Time limit: 2 min") and the
board's ("until 14:32 UTC"). The limit and its deadline come with the table (``Table.limit``,
``Table.due``: the decision awaited now, ``gamebot.deadlines``), so every message of that decision says
the same, and a message redrawn later says it again.
"""
from __future__ import annotations

import math
import time

from .table import Table


def duration(table: Table, seconds: float) -> str:
    if seconds <= 0:
        return table.t("timers.off")
    minutes = max(1, math.ceil(seconds / 60))
    if minutes >= 60 and minutes % 60 == 0:
        return table.t("timers.hours", n=minutes // 60)
    return table.t("timers.minutes", n=minutes)


def prompt_lines(table: Table) -> list[str]:
    """Under a decision's message: how long the player has (nothing without a time limit)."""
    return [table.t("limits.prompt", limit=duration(table, table.limit))] if table.limit else []


def board_lines(table: Table) -> list[str]:
    """Under the board's "waiting for": until when (UTC: the bot knows nobody's time zone)."""
    if not table.limit or table.due is None:
        return []
    until = time.strftime("%H:%M", time.gmtime(table.due))
    return [table.t("limits.board", limit=duration(table, table.limit), until=until)]
