"""Open Up / Show Your True Nature (immediate): the receiver shows their loyalty to a player.

The receiver picks another player, who sees the receiver's Loyalty card (``engine.loyalty.check``
with that player as checker and the receiver as target).
"""
from __future__ import annotations

from typing import Any

from ... import loyalty
from ...models import Action, Pending, Prompt
from ...plugin import Ctx
from .base import IMMEDIATE, PlotCard, one_target, register_plot_card
from .establish_confidence import others


@register_plot_card
class OpenUp(PlotCard):
    id = "open_up"
    resistance = "Open Up"
    avalon = "Show Your True Nature"
    kind = IMMEDIATE
    marked_7 = 1

    def on_dealt(self, ctx: Ctx, seat: int) -> bool:
        self.ask(ctx, seat)
        return True

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        return Prompt(kind=self.pending_kind, seat=seat, pick=1, targets=others(ctx, seat), info=self.info())

    def decide(self, ctx: Ctx, pending: Pending, action: Action) -> dict[str, Any]:
        viewer = one_target(action, others(ctx, action.seat), "Choose another player to show your loyalty to.")
        loyalty.check(ctx, viewer, action.seat, self.id)
        return {"target": viewer}
