"""The Plot Thickens: the 15 Plot cards, one small file per card.

``PLOT_CARDS`` is the data the Telegram layer renders: card id -> names in both themes, kind and
marking. ``deck_for(players)`` is the unshuffled deck: the 7 cards marked 5+ for 5-6 players, all 15
for 7 or more. The rules that move the cards around live in ``engine.modules.plot_cards``.
"""
from __future__ import annotations

from typing import Any

from . import (  # noqa: F401  (each file registers its card)
    establish_confidence,
    in_the_spotlight,
    keeping_close_eye,
    no_confidence,
    open_up,
    opinion_maker,
    overheard_conversation,
    strong_leader,
    take_responsibility,
)
from .base import CARDS, HELD, IMMEDIATE, MODULE_ID, PERMANENT, PlotCard

# Order of the rulebook table (rules-notes.md).
ORDER = (
    "strong_leader",
    "keeping_close_eye",
    "no_confidence",
    "take_responsibility",
    "opinion_maker",
    "overheard_conversation",
    "in_the_spotlight",
    "establish_confidence",
    "open_up",
)

PLOT_CARDS: dict[str, dict[str, Any]] = {
    cid: {
        "resistance": CARDS[cid].resistance,
        "avalon": CARDS[cid].avalon,
        "kind": CARDS[cid].kind,
        "min_players": CARDS[cid].min_players,
        "marked": {"5+": CARDS[cid].marked_5, "7+": CARDS[cid].marked_7},
    }
    for cid in ORDER
}


def deck_for(players: int) -> list[str]:
    """The Plot deck for a table of ``players`` (unshuffled)."""
    return [cid for cid in ORDER for _ in range(CARDS[cid].copies(players))]


def draw_count(players: int) -> int:
    """Plot cards the Leader draws at the start of each quest: 1 (5-6), 2 (7-8) or 3 (9-10)."""
    return 1 if players <= 6 else 2 if players <= 8 else 3


def card_name(card_id: str, theme: str) -> str:
    return CARDS[card_id].name(theme)


__all__ = [
    "CARDS",
    "HELD",
    "IMMEDIATE",
    "MODULE_ID",
    "ORDER",
    "PERMANENT",
    "PLOT_CARDS",
    "PlotCard",
    "card_name",
    "deck_for",
    "draw_count",
]
