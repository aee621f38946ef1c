"""AI seats: the seats the bot plays itself (a group's empty seats, a /practice game).

An AI seat is a ``Player`` with no Telegram user behind it. Its id comes from a range Telegram never
gives a user: Telegram's user ids have at most 52 significant bits (below ``2**52``; group and channel
ids are negative), so ``AI_SEAT_BASE + n`` for ``n`` in ``1..MAX_AI_SEATS`` can never be a person, nor any
chat. Those ids never get a ``user#`` record, are never sent a message (``compose.follow_up.settle``
drops what is addressed to them), never count in ratings, and no update from such an id acts for the
seat (``gamebot.handlers.ai_seats.forged``). The same ids serve in every group: a seat's id is only
its identity at that table. They stay below ``2**53``, so JSON and DynamoDB numbers keep them exact.

``AiSeatTurn`` is the pending move of the AI seats: when a step leaves a decision to an AI seat, its move is
made a few seconds later, in a unit of work of its own, bound like a time limit to the decision
(``serial`` + ``step``), when the chat's alarm wakes it (``gamebot.timing.alarm``: at ``due``, by the
wake-up queue, to the second).
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel

AI_SEAT_BASE = 2**52  # Telegram's user ids stay below this (at most 52 significant bits)
MAX_AI_SEATS = 9  # a table of 10 has at least one person
MIN_DELAY, MAX_DELAY = 2, 3  # seconds between a decision's arrival and the wake-up of an AI seat's move (seeded;
# the queue's wake-up arrives within a second of it: the AI seat moves 2 to 4 seconds after its decision)


def ai_seat_id(n: int) -> int:
    """The id of the ``n``-th AI seat at a table (1-based)."""
    if not 1 <= n <= MAX_AI_SEATS:
        raise ValueError(f"AI seat number {n} out of 1..{MAX_AI_SEATS}")
    return AI_SEAT_BASE + n


def is_ai_seat_id(user_id: Any) -> bool:
    """Is ``user_id`` an AI seat's (never a Telegram user)?"""
    return isinstance(user_id, int) and AI_SEAT_BASE < user_id <= AI_SEAT_BASE + MAX_AI_SEATS


def ai_seat_number(user_id: int) -> int:
    return user_id - AI_SEAT_BASE


def free_ai_seat_id(taken: list[int]) -> int | None:
    """The first AI seat id no seat of ``taken`` holds (None: all are seated)."""
    for n in range(1, MAX_AI_SEATS + 1):
        if ai_seat_id(n) not in taken:
            return ai_seat_id(n)
    return None


def ai_seats(user_ids: list[int]) -> list[int]:
    """The AI seats (indexes of ``user_ids``): the seats the bot plays."""
    return [seat for seat, uid in enumerate(user_ids) if is_ai_seat_id(uid)]


class AiSeatTurn(BaseModel):
    """The AI seats' next move: due at ``due`` (epoch seconds), for the decision ``serial``/``step``."""

    serial: int
    step: str
    due: float
