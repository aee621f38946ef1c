"""Lunatic (Big Box p. 10): Evil; must Fail every Quest they are on. Recommended for 7+ players."""
from __future__ import annotations

from .. import cards as card_registry
from ..basics import Side
from ..plugin import Ctx, Role, register


@register
class Lunatic(Role):
    id = "lunatic"
    side = Side.EVIL
    shows_in = frozenset({"evil", "merlin"})
    looks_in = frozenset({"evil"})
    can_assassinate = True
    recommended_players = 7

    def adjust_cards(self, ctx: Ctx, seat: int, cards: list[str]) -> list[str]:
        if ctx.state.roles[seat] != self.id:
            return cards
        fails = [c for c in cards if card_registry.counts_as(c) == card_registry.FAIL]
        return fails or [card_registry.FAIL]
