"""Brute (Big Box p. 10): Evil; may Fail only the first three Quests, may play Success on any Quest.

"The first three Quests" are the first three Quests *attempted* (rounds 1-3, ``state.round``). With
Targeting the Leader may attempt the quest slots in any order; the Brute may still Fail only the first
three Quests the table goes on, whichever slots they are, and never the 4th or 5th Quest attempted.
Recommended for 7+ players.
"""
from __future__ import annotations

from .. import cards as card_registry
from ..basics import Side
from ..plugin import Ctx, Role, register

LAST_QUEST_TO_FAIL = 3


@register
class Brute(Role):
    id = "brute"
    side = Side.EVIL
    shows_in = frozenset({"evil", "merlin"})
    looks_in = frozenset({"evil"})
    can_assassinate = True
    recommended_players = 7

    def adjust_cards(self, ctx: Ctx, seat: int, cards: list[str]) -> list[str]:
        if ctx.state.roles[seat] != self.id or ctx.state.round <= LAST_QUEST_TO_FAIL:
            return cards
        kept = [c for c in cards if card_registry.counts_as(c) != card_registry.FAIL]
        return kept or [card_registry.SUCCESS]
