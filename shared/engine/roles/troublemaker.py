"""Troublemaker (Big Box p. 10): Good; MUST lie when their loyalty is checked (Cleric, Lady of the Lake,
Plot cards, any rule that checks loyalty): they always hand over the opposite Loyalty card.

Recommended only with something that checks loyalty (a warning otherwise).
"""
from __future__ import annotations

from ..basics import Side
from ..plugin import Ctx, Role, register
from .trickster import needs_loyalty_check


@register
class Troublemaker(Role):
    id = "troublemaker"
    side = Side.GOOD
    needs = needs_loyalty_check("troublemaker", "Troublemaker")

    def loyalty_options(self, ctx: Ctx, seat: int) -> list[Side]:
        return [ctx.side(seat).other]
