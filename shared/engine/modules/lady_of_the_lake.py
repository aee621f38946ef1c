"""Lady of the Lake: after quests 2, 3 and 4 the holder checks one player's loyalty.

The token starts with the seat before the first Leader ("on the Leader's right"); a player who has
held it cannot be examined; the result is private to the holder; the token passes to the target.
Who examined whom is public (``uses``: the round whose quest it followed, the holder, the target);
what the holder saw never is.
"""
from __future__ import annotations

from typing import TypedDict

from .. import loyalty
from ..errors import InvalidTarget
from ..event_types import Seat, event
from ..models import Action, Pending, Prompt
from ..plugin import Ctx, Module, register
from ..view_types import PublicView

# The events this file emits (``engine.event_types``)


@event
class LadyGiven(TypedDict):
    seat: Seat


@event
class LadyUsed(TypedDict):
    holder: Seat
    target: Seat
    quest_count: int


USED_AFTER = (2, 3, 4)


def _targets(ctx: Ctx) -> list[int]:
    mod = ctx.mod(LadyOfTheLake.id)
    barred = set(mod["held"]) | {mod["holder"]}
    return [s for s in range(ctx.n) if s not in barred]


@register
class LadyOfTheLake(Module):
    id = "lady_of_the_lake"
    option = "lady_of_the_lake"
    place = "lady"
    recommended_players = 7
    checks_loyalty_from = 5  # any table it plays at
    timer_phase = "lady"

    def setup(self, ctx: Ctx) -> None:
        holder = ctx.next_seat(ctx.state.first_leader, -1)
        ctx.mod(self.id).update(holder=holder, held=[], uses=[])
        ctx.emit("LadyGiven", seat=holder)

    def after_quest(self, ctx: Ctx) -> None:
        if len(ctx.state.quests) in USED_AFTER and _targets(ctx):
            mod = ctx.mod(self.id)
            ctx.push("lady", self.id, [mod["holder"]])

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        return Prompt(kind="lady", seat=seat, pick=1, targets=_targets(ctx))

    def handle(self, ctx: Ctx, pending: Pending, action: Action) -> None:
        if len(action.targets) != 1 or action.targets[0] not in _targets(ctx):
            raise InvalidTarget(
                "Choose one other player who has not held the Lady of the Lake."
            )
        target = action.targets[0]
        mod = ctx.mod(self.id)
        holder = mod["holder"]
        ctx.emit("LadyUsed", holder=holder, target=target, quest_count=len(ctx.state.quests))
        mod["held"].append(holder)
        mod["holder"] = target
        last = ctx.state.quests[-1]
        mod.setdefault("uses", []).append({"round": last.round, "quest": last.quest, "holder": holder, "target": target})
        loyalty.check(ctx, holder, target, "lady")

    def public_view(self, ctx: Ctx, view: PublicView) -> None:
        mod = ctx.mod(self.id)
        view["lady"] = {
            "holder": mod["holder"],
            "held": list(mod["held"]),
            "uses": [u.copy() for u in mod.get("uses", [])],
        }
