"""Keeping a Close Eye on You / Ambush (held, one use): look at one played quest card.

Holders are asked after every quest card has been played (after Excalibur, before the cards are
revealed), nearest to the Leader first; nobody has to announce it in advance. Several cards may be
checked on one quest, but no more than one player may check a given player's card. The result is
private (``ctx.learn``) and the card itself is not changed. A holder with two copies may use both in
their one chance. Cards already played face up (In the Spotlight) and one's own card are not targets.
"""
from __future__ import annotations

from typing import Any, TypedDict

from ...event_types import CardId, Quest, Seat, SourceId, event
from ...models import Action, Pending, Prompt
from ...plugin import Ctx
from .base import CARDS_PLAYED, HELD, PlotCard, PlotPromptInfo, holds, one_target, plot, register_plot_card

# The events this file emits (``engine.event_types``)


@event(private=True)
class QuestCardSeen(TypedDict):
    seat: Seat
    card: CardId
    quest: Quest
    source: SourceId


def targets(ctx: Ctx, seat: int) -> list[int]:
    mod = plot(ctx)
    barred = set(mod["checked"]) | set(mod["face_up"]) | {seat}
    return [t for t in ctx.state.team if t in ctx.state.cards and t not in barred]


class KeepingCloseEyeInfo(PlotPromptInfo):
    quest: Quest


@register_plot_card
class KeepingCloseEye(PlotCard):
    prompt_fields = KeepingCloseEyeInfo
    id = "keeping_close_eye"
    resistance = "Keeping a Close Eye on You"
    avalon = "Ambush"
    kind = HELD
    marked_5 = 2
    window = CARDS_PLAYED
    repeat = True

    def usable(self, ctx: Ctx, seat: int) -> bool:
        return holds(ctx, seat, self.id) and bool(targets(ctx, seat))

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        return Prompt(
            kind=self.pending_kind,
            seat=seat,
            pick=1,
            targets=targets(ctx, seat),
            optional=True,
            info=self.info(quest=ctx.state.quest),
        )

    def use(self, ctx: Ctx, seat: int, action: Action) -> dict[str, Any]:
        target = one_target(
            action,
            targets(ctx, seat),
            "Choose one team member whose card nobody else has checked on this quest.",
        )
        s = ctx.state
        card = s.cards[target]
        plot(ctx)["checked"].append(target)
        ctx.learn(seat, target, card, self.id, quest=s.quest)
        ctx.emit("QuestCardSeen", to=[seat], seat=target, card=card, quest=s.quest, source=self.id)
        return {"target": target}
