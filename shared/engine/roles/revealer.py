"""Revealer (Big Box p. 10): Evil; must reveal their identity after the second failed Quest.

The engine reveals them: a public ``RevealerRevealed`` event right after the second Quest fails, and
the public view lists them under ``revealed``. Recommended for 7+ players.
"""
from __future__ import annotations

from typing import TypedDict

from ..basics import Side
from ..event_types import RoleId, Seat, SideId, event
from ..plugin import Ctx, Role, register
from ..view_types import PublicView

# The events this file emits (``engine.event_types``)


@event
class RevealerRevealed(TypedDict):
    seat: Seat
    role: RoleId
    side: SideId


REVEAL_AFTER_FAILS = 2


@register
class Revealer(Role):
    id = "revealer"
    side = Side.EVIL
    shows_in = frozenset({"evil", "merlin"})
    looks_in = frozenset({"evil"})
    can_assassinate = True
    recommended_players = 7

    def on_quest_resolved(self, ctx: Ctx) -> None:
        mod = ctx.mod(self.id)
        if mod.get("revealed") or ctx.state.failures() < REVEAL_AFTER_FAILS:
            return
        seats = ctx.seats_with(self.id)
        mod["revealed"] = seats
        for seat in seats:
            ctx.emit("RevealerRevealed", seat=seat, role=self.id, side=Side.EVIL.value)

    def public_view(self, ctx: Ctx, view: PublicView) -> None:
        for seat in ctx.state.mods.get(self.id, {}).get("revealed", []):
            view.setdefault("revealed", []).append({"seat": seat, "role": self.id, "side": Side.EVIL.value})
