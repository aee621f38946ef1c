"""Excalibur (Avalon Big Box and French Avalon optional rule): switch another Team member's card.

* When proposing, the Leader gives Excalibur to a Team member other than themself: a public decision
  (``give_excalibur``) right after the proposal, before the vote. Who holds it is public.
* After every card is played the holder may switch one other member's played card (``excalibur``,
  optional: ``choice="pass"``). The holder privately sees the card originally played (knowledge with
  source ``excalibur`` and the card id as label); the table only learns who was switched.
* What a switched card becomes (the rulebooks only know Success and Fail): the plain card with the
  opposite effect. Success-type cards (Success, Rogue Success, Good Message) become Fail, Fail-type
  cards (Fail, Rogue Fail, Evil Message) become Success, and a Magic card becomes a plain Success (the
  switch cancels its reversal). So a switch never creates a Rogue or Message token, and a switched
  Rogue or Message card leaves none.
* Excalibur acts before the Trapper sets a card aside and before the Plot card "Ambush" (hook places
  ``switch`` < ``set_aside`` < ``plot``, ``engine.hook_order``), and cannot switch a card played face
  up ("We Found You!" / "In the Spotlight"), as the Plot cards tell (``plot.base.face_up_seats``).
"""
from __future__ import annotations

from typing import TypedDict

from .. import cards
from ..errors import InvalidTarget
from ..event_types import CardId, Quest, Seat, SourceId, event
from ..models import Action, Pending, Prompt
from ..plugin import Ctx, Module, register
from ..view_types import PublicView
from .plot.base import face_up_seats

# The events this file emits (``engine.event_types``)


@event
class ExcaliburGiven(TypedDict):
    leader: Seat
    seat: Seat


@event
class ExcaliburNotUsed(TypedDict):
    seat: Seat
    quest: Quest


@event
class ExcaliburUsed(TypedDict):
    seat: Seat
    target: Seat
    quest: Quest


@event(private=True)
class CardSeen(TypedDict):
    seat: Seat
    card: CardId
    source: SourceId  # also emitted by the Trapper


@event(private=True)
class CardSwitched(TypedDict):
    by: Seat
    card: CardId
    was: CardId


def switched(card: str) -> str:
    """The card a played card becomes when Excalibur switches it."""
    return cards.SUCCESS if cards.counts_as(card) in (cards.FAIL, "magic") else cards.FAIL


@register
class Excalibur(Module):
    id = "excalibur"
    option = "excalibur"
    place = "switch"  # before the Trapper and the Plot card "Ambush"
    timer_phase = "excalibur"

    def setup(self, ctx: Ctx) -> None:
        ctx.mod(self.id).update(holder=None, uses=[])

    def _bearers(self, ctx: Ctx) -> list[int]:
        return [t for t in ctx.state.team if t != ctx.state.leader]

    def _switchable(self, ctx: Ctx) -> list[int]:
        s = ctx.state
        holder = ctx.mod(self.id).get("holder")
        face_up = face_up_seats(ctx.state)
        return [t for t in s.team if t != holder and t in s.cards and t not in face_up]

    def before_team(self, ctx: Ctx) -> None:
        ctx.mod(self.id)["holder"] = None

    def on_team_proposed(self, ctx: Ctx) -> None:
        ctx.mod(self.id)["holder"] = None
        if self._bearers(ctx):
            ctx.push("give_excalibur", self.id, [ctx.state.leader])

    def on_cards_played(self, ctx: Ctx) -> None:
        holder = ctx.mod(self.id).get("holder")
        if holder is not None and holder in ctx.state.team and self._switchable(ctx):
            ctx.push("excalibur", self.id, [holder])

    def after_quest(self, ctx: Ctx) -> None:
        ctx.mod(self.id)["holder"] = None

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        if pending.kind == "give_excalibur":
            return Prompt(kind="give_excalibur", seat=seat, pick=1, targets=self._bearers(ctx))
        return Prompt(kind="excalibur", seat=seat, pick=1, targets=self._switchable(ctx), optional=True)

    def handle(self, ctx: Ctx, pending: Pending, action: Action) -> None:
        s = ctx.state
        mod = ctx.mod(self.id)
        if pending.kind == "give_excalibur":
            if len(action.targets) != 1 or action.targets[0] not in self._bearers(ctx):
                raise InvalidTarget(
                    "Give Excalibur to one player on the Team other than yourself.",
                    targets=self._bearers(ctx),
                )
            mod["holder"] = action.targets[0]
            ctx.emit("ExcaliburGiven", leader=action.seat, seat=action.targets[0])
            return
        if action.choice == "pass" and not action.targets:
            ctx.emit("ExcaliburNotUsed", seat=action.seat, quest=s.quest)
            return
        if len(action.targets) != 1:
            raise InvalidTarget("Choose one other Team member whose card to switch, or pass.")
        target = action.targets[0]
        if target in face_up_seats(ctx.state):
            raise InvalidTarget("That card was played face up: Excalibur cannot switch it.", seat=target)
        if target not in self._switchable(ctx):
            raise InvalidTarget(
                "Excalibur switches the card of another player on the Team.", targets=self._switchable(ctx)
            )
        original = s.cards[target]
        s.cards[target] = switched(original)
        mod["uses"].append({"round": s.round, "quest": s.quest, "holder": action.seat, "target": target})
        ctx.learn(action.seat, target, original, "excalibur", quest=s.quest)
        ctx.emit("ExcaliburUsed", seat=action.seat, target=target, quest=s.quest)
        ctx.emit("CardSeen", to=[action.seat], seat=target, card=original, source="excalibur")
        ctx.emit("CardSwitched", to=[target], by=action.seat, card=s.cards[target], was=original)

    def public_view(self, ctx: Ctx, view: PublicView) -> None:
        mod = ctx.state.mods.get(self.id, {})
        view["excalibur"] = {"holder": mod.get("holder"), "uses": [u.copy() for u in mod.get("uses", [])]}
