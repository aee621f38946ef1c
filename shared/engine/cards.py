"""Quest cards. Modules register their own cards with what each counts as."""
from __future__ import annotations

SUCCESS = "success"
FAIL = "fail"

# card id -> what it counts as when revealed: "success", "fail" or "magic" (neither; reverses).
CARDS: dict[str, str] = {SUCCESS: SUCCESS, FAIL: FAIL}


def register_card(card_id: str, counts_as: str) -> None:
    if counts_as not in (SUCCESS, FAIL, "magic"):
        raise ValueError(counts_as)
    CARDS[card_id] = counts_as


def counts_as(card_id: str) -> str:
    return CARDS[card_id]
