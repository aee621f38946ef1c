"""Targeting: the Leader chooses which quest the team attempts.

Each quest is attempted once; the 5th only after two successes. The two-Fail rule stays with the
4th quest slot whatever round it is played in (``basics.fails_required`` is keyed on the slot).
"""
from __future__ import annotations

from ..basics import Theme
from ..plugin import Ctx, Module, register


@register
class Targeting(Module):
    id = "targeting"
    option = "targeting"
    themes = frozenset({Theme.AVALON, Theme.RESISTANCE})
    order = 10

    def quest_slots(self, ctx: Ctx, slots: list[int]) -> list[int]:
        s = ctx.state
        open_slots = [i for i, r in enumerate(s.results) if r is None]
        if s.successes() < 2:
            open_slots = [i for i in open_slots if i != 4]
        return open_slots
