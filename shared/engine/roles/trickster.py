"""Trickster (Big Box p. 10): Evil; MAY lie when their loyalty is checked (Cleric, Lady of the Lake, Plot
cards, any rule that checks loyalty). Both Loyalty cards are offered: a hidden decision for them.

Recommended only with something that checks loyalty (a warning otherwise).
"""
from __future__ import annotations

from ..basics import Side
from ..models import GameConfig
from ..plugin import Ctx, Role, issue, register

# The Plot cards that check loyalty (Overheard Conversation, Establish Confidence, Open Up) are in the
# 7+ part of the deck only (see /work/shared/rules-notes.md).
PLOT_LOYALTY_MIN_PLAYERS = 7


def has_loyalty_check(config: GameConfig) -> bool:
    """Does anything in this game check a player's loyalty?"""
    return bool(
        config.option("lady_of_the_lake")
        or "cleric" in config.roles
        or (config.option("plot_cards") and config.players >= PLOT_LOYALTY_MIN_PLAYERS)
    )


def no_check_warning(role_id: str, name: str) -> list:
    return [
        issue(
            "warning",
            f"{role_id}_needs_loyalty_check",
            f"The {name} is recommended only with something that checks loyalty "
            "(the Lady of the Lake, the Cleric or the Plot cards).",
            role=role_id,
        )
    ]


@register
class Trickster(Role):
    id = "trickster"
    side = Side.EVIL
    shows_in = frozenset({"evil", "merlin"})
    looks_in = frozenset({"evil"})
    can_assassinate = True

    def validate(self, config):
        return [] if has_loyalty_check(config) else no_check_warning(self.id, "Trickster")

    def loyalty_options(self, ctx: Ctx, seat: int) -> list[Side]:
        side = ctx.side(seat)
        return [side, side.other]
