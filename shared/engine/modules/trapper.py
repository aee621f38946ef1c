"""Trapper module (Avalon Big Box optional rule): a bigger Team, and the Leader sets one card aside.

The Leader assigns one more Team member than the chart says. After every card is played (and after
Excalibur), the Leader picks one played card (``trap``; the table sees whose), privately learns it
(knowledge with source ``trapper`` and the card id as label) and discards it unrevealed: it does not
count towards the result and places no Rogue or Message token. Recommended for 8 or more players.
"""
from __future__ import annotations

from typing import TypedDict

from ..errors import InvalidTarget
from ..event_types import Quest, Seat, event
from ..models import Action, Pending, Prompt
from ..plugin import Ctx, Module, register
from ..view_types import PublicView

# The events this file emits (``engine.event_types``)


@event
class CardTrapped(TypedDict):
    leader: Seat
    seat: Seat
    quest: Quest


@register
class Trapper(Module):
    id = "trapper"
    option = "trapper"
    place = "set_aside"  # after Excalibur, before the Plot card "Ambush"
    recommended_players = 8
    timer_phase = "trapper"

    def setup(self, ctx: Ctx) -> None:
        ctx.mod(self.id).update(discarded=[])

    def team_size_bonus(self, ctx: Ctx) -> int:
        return 1

    def on_cards_played(self, ctx: Ctx) -> None:
        if ctx.state.cards:
            ctx.push("trap", self.id, [ctx.state.leader])

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        return Prompt(kind="trap", seat=seat, pick=1, targets=sorted(ctx.state.cards))

    def handle(self, ctx: Ctx, pending: Pending, action: Action) -> None:
        s = ctx.state
        if len(action.targets) != 1 or action.targets[0] not in s.cards:
            raise InvalidTarget("Choose one played Quest card to set aside.", targets=sorted(s.cards))
        seat = action.targets[0]
        card = s.cards.pop(seat)
        ctx.mod(self.id)["discarded"].append({"round": s.round, "quest": s.quest, "seat": seat})
        ctx.learn(action.seat, seat, card, "trapper", quest=s.quest)
        ctx.emit("CardTrapped", leader=action.seat, seat=seat, quest=s.quest)
        ctx.emit("CardSeen", to=[action.seat], seat=seat, card=card, source="trapper")

    def public_view(self, ctx: Ctx, view: PublicView) -> None:
        mod = ctx.state.mods.get(self.id, {})
        view["trapper"] = {"discarded": [d.copy() for d in mod.get("discarded", [])]}
