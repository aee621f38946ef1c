"""Take Responsibility / Restore Your Honor (immediate): take one Plot card from any other player.

The receiver must take a card if any other player holds one (held or permanent cards alike); with no
card at the table it is discarded without effect. Choosing the player is required; choosing which of
their cards is optional (default: the first one they received).
"""
from __future__ import annotations

from typing import Any, TypedDict

from ...errors import InvalidChoice
from ...event_types import CardId, Hands, Seat, event
from ...models import Action, Pending, Prompt
from ...plugin import Ctx
from .base import IMMEDIATE, PlotCard, PlotPromptInfo, hand, one_target, register_plot_card

# The events this file emits (``engine.event_types``)


@event
class PlotCardTaken(TypedDict):
    seat: Seat
    source: Seat  # whose card is taken
    card: CardId


def targets(ctx: Ctx, seat: int) -> list[int]:
    return [s for s in range(ctx.n) if s != seat and hand(ctx, s)]


class TakeResponsibilityInfo(PlotPromptInfo):
    hands: Hands  # whose Plot cards may be taken


@register_plot_card
class TakeResponsibility(PlotCard):
    prompt_fields = TakeResponsibilityInfo
    id = "take_responsibility"
    resistance = "Take Responsibility"
    avalon = "Restore Your Honor"
    kind = IMMEDIATE
    marked_5 = 1

    def on_dealt(self, ctx: Ctx, seat: int) -> bool:
        if not targets(ctx, seat):
            return False
        self.ask(ctx, seat)
        return True

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        found = targets(ctx, seat)
        choices: list[str] = []
        for s in found:
            choices += [c for c in hand(ctx, s) if c not in choices]
        return Prompt(
            kind=self.pending_kind,
            seat=seat,
            pick=1,
            targets=found,
            choices=choices,
            info=self.info(hands={str(s): list(hand(ctx, s)) for s in found}),
        )

    def decide(self, ctx: Ctx, pending: Pending, action: Action) -> dict[str, Any]:
        seat = action.seat
        source = one_target(action, targets(ctx, seat), "Choose another player who holds a Plot card.")
        theirs = hand(ctx, source)
        card = action.choice or theirs[0]
        if card not in theirs:
            raise InvalidChoice("That player does not hold that Plot card.", card=card, seat=source)
        theirs.remove(card)
        hand(ctx, seat).append(card)
        ctx.emit("PlotCardTaken", seat=seat, source=source, card=card)
        return {"target": source, "taken": card}
