"""Strong Leader / Lead to Victory (held, one use): the holder becomes the Leader.

It must be declared before the current Leader takes any action (drawing Plot cards, proposing), so
holders are asked at the start of each Leader's turn, nearest to the Leader first. Once one is
played, another may not be played until a vote has taken place (``lead_locked``, cleared when votes
are revealed). The current Leader is not asked: the card would change nothing for them.
"""
from __future__ import annotations

from typing import Any, TypedDict

from ...event_types import CardId, Seat, event
from ...models import Action
from ...plugin import Ctx
from .base import HELD, LEADER_TURN, PlotCard, holds, play_choice, plot, register_plot_card

# The events this file emits (``engine.event_types``)


@event
class LeaderChanged(TypedDict):
    leader: Seat
    previous: Seat
    card: CardId


@register_plot_card
class StrongLeader(PlotCard):
    id = "strong_leader"
    resistance = "Strong Leader"
    avalon = "Lead to Victory"
    kind = HELD
    marked_5 = 2
    window = LEADER_TURN
    closes_window = True

    def usable(self, ctx: Ctx, seat: int) -> bool:
        return holds(ctx, seat, self.id) and seat != ctx.state.leader and not plot(ctx)["lead_locked"]

    def use(self, ctx: Ctx, seat: int, action: Action) -> dict[str, Any]:
        play_choice(action)
        previous = ctx.state.leader
        ctx.state.leader = seat
        plot(ctx)["lead_locked"] = True
        ctx.emit("LeaderChanged", leader=seat, previous=previous, card=self.id)
        return {"previous": previous}
