"""No Confidence / The King Returns (held, one use): turn an approved team into a rejection.

Holders are asked when the votes of an approved team are revealed, nearest to the Leader first
(the Leader included). Playing it counts as a failed vote: the vote track advances and a fifth
rejection this way wins the game for Evil.
"""
from __future__ import annotations

from typing import Any

from ...models import Action
from ...plugin import Ctx
from .base import HELD, VOTE_RESULT, PlotCard, holds, play_choice, register_plot_card


@register_plot_card
class NoConfidence(PlotCard):
    id = "no_confidence"
    resistance = "No Confidence"
    avalon = "The King Returns"
    kind = HELD
    marked_5 = 1
    marked_7 = 2
    window = VOTE_RESULT
    closes_window = True

    def usable(self, ctx: Ctx, seat: int) -> bool:
        proposal = ctx.state.proposals[-1] if ctx.state.proposals else None
        return holds(ctx, seat, self.id) and proposal is not None and proposal.approved is True

    def use(self, ctx: Ctx, seat: int, action: Action) -> dict[str, Any]:
        play_choice(action)
        proposal = ctx.state.proposals[-1]
        proposal.approved = False
        proposal.note = "overruled"
        return {"team": list(proposal.team)}
