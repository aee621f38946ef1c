"""Establish Confidence / Show Your Strength (immediate): the Leader shows their loyalty to a player.

Whoever receives it, the Leader must pass a Loyalty card to another player of the Leader's choice
(``engine.loyalty.check`` with that player as checker and the Leader as target).
"""
from __future__ import annotations

from typing import Any

from ... import loyalty
from ...event_types import Seat
from ...models import Action, Pending, Prompt
from ...plugin import Ctx
from .base import IMMEDIATE, PlotCard, PlotPromptInfo, one_target, register_plot_card


def others(ctx: Ctx, seat: int) -> list[int]:
    return [s for s in range(ctx.n) if s != seat]


class EstablishConfidenceInfo(PlotPromptInfo):
    receiver: Seat | None  # the player the card was passed to


@register_plot_card
class EstablishConfidence(PlotCard):
    prompt_fields = EstablishConfidenceInfo
    id = "establish_confidence"
    resistance = "Establish Confidence"
    avalon = "Show Your Strength"
    kind = IMMEDIATE
    marked_7 = 1

    def on_dealt(self, ctx: Ctx, seat: int) -> bool:
        self.ask(ctx, ctx.state.leader, receiver=seat)
        return True

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        return Prompt(
            kind=self.pending_kind,
            seat=seat,
            pick=1,
            targets=others(ctx, seat),
            info=self.info(receiver=pending.data.get("receiver")),
        )

    def decide(self, ctx: Ctx, pending: Pending, action: Action) -> dict[str, Any]:
        leader = action.seat
        viewer = one_target(action, others(ctx, leader), "Choose another player to show your loyalty to.")
        loyalty.check(ctx, viewer, leader, self.id)
        return {"target": viewer, "leader": leader}
