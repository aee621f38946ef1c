"""Opinion Maker / Charge (permanent): the holder reveals their vote before the others vote.

Modelled as a decision of kind ``vote`` for each holder (nearest to the Leader first) as soon as a
team is proposed: it is public at once (``VoteShown``) and nobody else can vote until it is cast.
The card stays in play for the whole game (it may change hands through Take Responsibility).
"""
from __future__ import annotations

from typing import Any, TypedDict

from ...errors import InvalidChoice
from ...event_types import CardId, Seat, Seats, VoteId, event
from ...models import Action, Pending, Prompt
from ...plugin import Ctx
from .base import PERMANENT, TEAM_PROPOSED, PlotCard, PlotPromptInfo, holds, plot, register_plot_card

# The events this file emits (``engine.event_types``)


@event
class VoteShown(TypedDict):
    seat: Seat
    vote: VoteId
    card: CardId


class OpinionMakerInfo(PlotPromptInfo):
    team: Seats
    public: bool


@register_plot_card
class OpinionMaker(PlotCard):
    prompt_fields = OpinionMakerInfo
    id = "opinion_maker"
    resistance = "Opinion Maker"
    avalon = "Charge"
    kind = PERMANENT
    marked_5 = 1
    marked_7 = 1
    window = TEAM_PROPOSED
    optional = False

    @property
    def pending_kind(self) -> str:
        return "vote"

    def usable(self, ctx: Ctx, seat: int) -> bool:
        return holds(ctx, seat, self.id) and seat not in ctx.state.votes

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        return Prompt(
            kind="vote",
            seat=seat,
            choices=["approve", "reject"],
            info={"team": list(ctx.state.team), **self.info(public=True)},
        )

    def use(self, ctx: Ctx, seat: int, action: Action) -> dict[str, Any]:
        if action.choice not in ("approve", "reject"):
            raise InvalidChoice("Vote approve or reject.", choice=action.choice)
        s = ctx.state
        s.votes[seat] = action.choice == "approve"
        plot(ctx)["open_votes"][str(seat)] = action.choice
        ctx.emit("VoteCast", seat=seat, count=len(s.votes), of=s.n)
        ctx.emit("VoteShown", seat=seat, vote=action.choice, card=self.id)
        return {"vote": action.choice}
