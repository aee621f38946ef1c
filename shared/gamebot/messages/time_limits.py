"""Time limits as words: a duration ("2 min"), the line a prompt shows ("⏳ Time limit: 2 min, until
14:32") and the board's ("until 14:32"); the moment is shown in each reader's own time zone (Telegram's
date-time entity, ``clock``). The limit and its deadline come with the table (``Table.limit``,
``Table.due``: the decision awaited now, ``gamebot.timing.policy``), so every message of that decision says
the same, and a message redrawn later says it again.
"""
from __future__ import annotations

import math
import time

from gamebot.language.markup import Html
from gamebot.messages.table import Table


def duration(table: Table, seconds: float) -> Html:
    if seconds <= 0:
        return table.t("timers.off")
    minutes = max(1, math.ceil(seconds / 60))
    if minutes >= 60 and minutes % 60 == 0:
        return table.t("timers.hours", n=minutes // 60)
    return table.t("timers.minutes", n=minutes)


def clock(table: Table, at: float) -> Html:
    """A moment as Telegram shows it to each reader: in their own time zone and clock format (a
    ``date_time`` entity, ``<tg-time format="t">``); an app too old for it shows the text inside, the
    time in UTC."""
    utc = table.t("limits.utc", time=time.strftime("%H:%M", time.gmtime(at)))
    return Html('<tg-time unix="{}" format="t">{}</tg-time>').format(int(at), utc)


def prompt_lines(table: Table) -> list[Html]:
    """Under a decision's message: how long the player has and until when (nothing without a time limit)."""
    if not table.limit:
        return []
    if table.due is None:
        return [table.t("limits.prompt", limit=duration(table, table.limit))]
    return [table.t("limits.prompt_until", limit=duration(table, table.limit), until=clock(table, table.due))]


def board_lines(table: Table) -> list[Html]:
    """Under the board's "waiting for": until when, in each reader's own time zone (``clock``)."""
    if not table.limit or table.due is None:
        return []
    return [table.t("limits.board", limit=duration(table, table.limit), until=clock(table, table.due))]
