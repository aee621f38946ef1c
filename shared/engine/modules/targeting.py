"""Targeting: the Leader chooses which quest the team attempts.

Each quest is attempted once; the 5th only after two successes. The two-Fail rule stays with the
4th quest slot whatever round it is played in (``basics.fails_required`` is keyed on the slot).
"""
from __future__ import annotations

from ..basics import Theme
from ..models import GameState
from ..plugin import Ctx, Module, register
from ..view_types import PublicView

LAST = 4  # the 5th quest slot


def last_open(state: GameState) -> bool:
    """May the 5th quest be chosen? Only after two successes."""
    return state.successes() >= 2


@register
class Targeting(Module):
    id = "targeting"
    option = "targeting"
    themes = frozenset({Theme.AVALON, Theme.RESISTANCE})
    place = "quest_choice"

    def quest_slots(self, ctx: Ctx, slots: list[int]) -> list[int]:
        s = ctx.state
        return [i for i, r in enumerate(s.results) if r is None and (i != LAST or last_open(s))]

    def public_view(self, ctx: Ctx, view: PublicView) -> None:
        """Quest slots that cannot be chosen yet are marked ``closed`` on the track (the 5th before two
        successes), whatever the stage: the board shows them locked."""
        s = ctx.state
        if s.results[LAST] is None and not last_open(s):
            view["track"][LAST]["closed"] = True
