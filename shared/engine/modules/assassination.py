"""Assassination stage: if three quests succeed and Merlin is in play, the Assassin names Merlin.

Without an Assassin card a designated Evil character assassinates (Big Box): ``config.assassin``, or
else a Minion of Mordred, or else the lowest-seated Evil character. Another plug-in may hand the
task to someone else by setting ``state.mods["assassination"]["assassin"]`` (e.g. a recruited
Untrustworthy Servant) or skip the stage with ``["skip"] = True`` (e.g. a Rogue's solo win).
"""
from __future__ import annotations

from ..basics import Side
from ..errors import InvalidTarget
from ..models import Action, Pending, Prompt
from ..plugin import Ctx, Module, register


def assassin_seat(ctx: Ctx) -> int:
    override = ctx.mod(Assassination.id).get("assassin")
    if override is not None:
        return override
    for role_id in ("assassin", ctx.config.assassin, "minion"):
        if role_id:
            seats = ctx.seats_with(role_id)
            if seats:
                return seats[0]
    return next(s for s in range(ctx.n) if ctx.state.sides[s] is Side.EVIL)


def _targets(ctx: Ctx, assassin: int) -> list[int]:
    known_evil = {k.seat for k in ctx.state.knowledge[assassin] if k.label == "evil"}
    return [s for s in range(ctx.n) if s != assassin and s not in known_evil]


@register
class Assassination(Module):
    id = "assassination"
    order = 900

    def active(self, config) -> bool:
        return "merlin" in config.roles

    def on_game_end(self, ctx: Ctx) -> None:
        s = ctx.state
        if s.winner is not Side.GOOD or s.win_reason != "three_successes" or ctx.mod(self.id).get("skip"):
            return
        assassin = assassin_seat(ctx)
        ctx.emit("AssassinationStarted", assassin=assassin)
        ctx.push("assassinate", self.id, [assassin])

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        return Prompt(kind="assassinate", seat=seat, pick=1, targets=_targets(ctx, seat))

    def handle(self, ctx: Ctx, pending: Pending, action: Action) -> None:
        if len(action.targets) != 1 or action.targets[0] not in _targets(ctx, action.seat):
            raise InvalidTarget("Name one player you do not know to be Evil.")
        target = action.targets[0]
        hit = ctx.state.roles[target] == "merlin"
        ctx.emit("AssassinationAttempted", assassin=action.seat, target=target, hit=hit)
        if hit:
            ctx.win(Side.EVIL, "merlin_assassinated")
        else:
            ctx.win(Side.GOOD, "assassination_missed")
