"""Overheard Conversation / Are You the One? (immediate): check the loyalty of an adjacent player.

"The player who receives this card *may* check the loyalty of one adjacent player": the receiver may
decline (``pass``), and the card is discarded unused. Otherwise they pick one of their two neighbours, who hands over a Loyalty card (never the character
card): ``engine.loyalty.check``, so Trickster/Troublemaker lies apply. The result is private.
"""
from __future__ import annotations

from typing import Any

from ... import loyalty
from ...models import Action, Pending, Prompt
from ...plugin import Ctx
from .base import IMMEDIATE, PlotCard, one_target, register_plot_card


def neighbours(ctx: Ctx, seat: int) -> list[int]:
    return sorted({ctx.next_seat(seat, -1), ctx.next_seat(seat, 1)})


@register_plot_card
class OverheardConversation(PlotCard):
    id = "overheard_conversation"
    resistance = "Overheard Conversation"
    avalon = "Are You the One?"
    kind = IMMEDIATE
    marked_7 = 2
    may_decline = True

    def on_dealt(self, ctx: Ctx, seat: int) -> bool:
        self.ask(ctx, seat)
        return True

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        return Prompt(
            kind=self.pending_kind, seat=seat, pick=1, targets=neighbours(ctx, seat), optional=True,
            info=self.info(),
        )

    def decide(self, ctx: Ctx, pending: Pending, action: Action) -> dict[str, Any]:
        target = one_target(action, neighbours(ctx, action.seat), "Choose a player sitting next to you.")
        loyalty.check(ctx, action.seat, target, self.id)
        return {"target": target}
