"""In the Spotlight / We Found You! (held, one use): force a team member to play face up.

Declared, with its target, before any team member selects a quest card: holders are asked once the
team is approved, nearest to the Leader first. The target's card is public as soon as it is played
(``QuestCardShown``). Target seats are listed in ``state.mods["plot_cards"]["face_up"]`` for the
current quest; Excalibur reads that list and may not switch those cards.
"""
from __future__ import annotations

from typing import Any

from ...event_types import Quest
from ...models import Action, Pending, Prompt
from ...plugin import Ctx
from .base import BEFORE_CARDS, HELD, PlotCard, PlotPromptInfo, holds, one_target, plot, register_plot_card


def targets(ctx: Ctx) -> list[int]:
    return [t for t in ctx.state.team if t not in plot(ctx)["face_up"]]


class InTheSpotlightInfo(PlotPromptInfo):
    quest: Quest


@register_plot_card
class InTheSpotlight(PlotCard):
    prompt_fields = InTheSpotlightInfo
    id = "in_the_spotlight"
    resistance = "In the Spotlight"
    avalon = "We Found You!"
    kind = HELD
    marked_7 = 1
    window = BEFORE_CARDS

    def usable(self, ctx: Ctx, seat: int) -> bool:
        return holds(ctx, seat, self.id) and bool(targets(ctx)) and not ctx.state.cards

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        return Prompt(
            kind=self.pending_kind,
            seat=seat,
            pick=1,
            targets=targets(ctx),
            optional=True,
            info=self.info(quest=ctx.state.quest),
        )

    def use(self, ctx: Ctx, seat: int, action: Action) -> dict[str, Any]:
        target = one_target(action, targets(ctx), "Choose a member of the team.")
        plot(ctx)["face_up"].append(target)
        return {"target": target}
