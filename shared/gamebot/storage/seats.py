"""The bot's own players: seats the bot plays itself (a group's empty seats, a /practice game).

A bot seat is a ``Player`` with no Telegram user behind it. Its id comes from a range Telegram never
gives a user: Telegram's user ids have at most 52 significant bits (below ``2**52``; group and channel
ids are negative), so ``BOT_BASE + n`` for ``n`` in ``1..MAX_BOTS`` can never be a person, nor any
chat. Those ids never get a ``user#`` record, are never sent a message (``compose.follow_up.settle``
drops what is addressed to them), never count in ratings, and no update from such an id acts for the
seat (``gamebot.handlers.bots.forged``). The same ids serve in every group: a seat's id is only
its identity at that table. They stay below ``2**53``, so JSON and DynamoDB numbers keep them exact.

``BotTurn`` is the pending move of the bot seats: when a step leaves a decision to a bot, its move is
made a few seconds later, in a unit of work of its own, bound like a time limit to the decision
(``serial`` + ``step``), when the chat's alarm wakes it (``gamebot.timing.alarm``: at ``due``, by the
wake-up queue, to the second).
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel

BOT_BASE = 2**52  # Telegram's user ids stay below this (at most 52 significant bits)
MAX_BOTS = 9  # a table of 10 has at least one person
MIN_DELAY, MAX_DELAY = 2, 3  # seconds between a decision's arrival and the wake-up of a bot's move (seeded; the
# queue's wake-up arrives within a second of it: the bot moves 2 to 4 seconds after its decision)


def bot_id(n: int) -> int:
    """The id of the ``n``-th bot at a table (1-based)."""
    if not 1 <= n <= MAX_BOTS:
        raise ValueError(f"bot number {n} out of 1..{MAX_BOTS}")
    return BOT_BASE + n


def is_bot_id(user_id: Any) -> bool:
    """Is ``user_id`` one of the bot's own seats (never a Telegram user)?"""
    return isinstance(user_id, int) and BOT_BASE < user_id <= BOT_BASE + MAX_BOTS


def bot_number(user_id: int) -> int:
    return user_id - BOT_BASE


def free_bot_id(taken: list[int]) -> int | None:
    """The first bot id no seat of ``taken`` holds (None: all are seated)."""
    for n in range(1, MAX_BOTS + 1):
        if bot_id(n) not in taken:
            return bot_id(n)
    return None


def bot_seats(user_ids: list[int]) -> list[int]:
    """The seats (indexes of ``user_ids``) the bot plays."""
    return [seat for seat, uid in enumerate(user_ids) if is_bot_id(uid)]


class BotTurn(BaseModel):
    """The bot seats' next move: due at ``due`` (epoch seconds), for the decision ``serial``/``step``."""

    serial: int
    step: str
    due: float
