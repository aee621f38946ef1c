"""Trickster (Big Box p. 10): Evil; MAY lie when their loyalty is checked (Cleric, Lady of the Lake, Plot
cards, any rule that checks loyalty). Both Loyalty cards are offered: a hidden decision for them.

Recommended only with something that checks loyalty (a warning otherwise).
"""
from __future__ import annotations

from ..basics import Side
from ..plugin import Ctx, Needs, Role, register


def needs_loyalty_check(role_id: str, name: str) -> tuple[Needs, ...]:
    """A liar's warning without anything that checks loyalty (what does: ``Plugin.checks_loyalty_from``)."""
    return (
        Needs(
            f"{role_id}_needs_loyalty_check",
            f"The {name} is recommended only with something that checks loyalty "
            "(the Lady of the Lake, the Cleric or the Plot cards).",
            loyalty_check=True,
        ),
    )


@register
class Trickster(Role):
    id = "trickster"
    side = Side.EVIL
    shows_in = frozenset({"evil", "merlin"})
    looks_in = frozenset({"evil"})
    can_assassinate = True
    needs = needs_loyalty_check("trickster", "Trickster")

    def loyalty_options(self, ctx: Ctx, seat: int) -> list[Side]:
        side = ctx.side(seat)
        return [side, side.other]
