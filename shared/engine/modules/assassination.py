"""Assassination stage: if three quests succeed and Merlin is in play, the Assassin names Merlin.

Without an Assassin card a designated Evil character assassinates (Big Box): ``config.assassin``, or
else a Minion of Mordred, or else the lowest-seated Evil character. Another plug-in may hand the
task to someone else by setting ``state.mods["assassination"]["assassin"]`` (e.g. a recruited
Untrustworthy Servant) or skip the stage with ``["skip"] = True`` (e.g. a Rogue's solo win).

Other targets: a module may register another group of characters in ``TARGETS`` (the Messengers add
``"messengers"``: both Good Messengers). When more than one target is in play, the Assassin first
announces which one (``assassin_target``), then names as many players as the target has characters;
Evil wins only if every named player is one of them.
"""
from __future__ import annotations

from ..basics import Side
from ..errors import InvalidChoice, InvalidTarget
from ..models import Action, GameConfig, Pending, Prompt
from ..plugin import Ctx, Module, register

# What the Assassin may announce: target id -> the characters they must all name correctly.
TARGETS: dict[str, tuple[str, ...]] = {"merlin": ("merlin",)}


def target_kinds(config: GameConfig) -> list[str]:
    """The assassination targets in play in this game, in the order they were registered."""
    return [
        kind
        for kind, needed in TARGETS.items()
        if all(config.roles.count(r) >= needed.count(r) for r in needed)
    ]


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
        return bool(target_kinds(config))

    def on_game_end(self, ctx: Ctx) -> None:
        s = ctx.state
        if s.winner is not Side.GOOD or s.win_reason != "three_successes" or ctx.mod(self.id).get("skip"):
            return
        assassin = assassin_seat(ctx)
        kinds = target_kinds(ctx.config)
        ctx.emit("AssassinationStarted", assassin=assassin)
        if len(kinds) > 1:
            ctx.push("assassin_target", self.id, [assassin], choices=kinds)
        else:
            ctx.push("assassinate", self.id, [assassin], target=kinds[0])

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        if pending.kind == "assassin_target":
            return Prompt(kind="assassin_target", seat=seat, choices=list(pending.data["choices"]))
        kind = pending.data.get("target", "merlin")
        return Prompt(
            kind="assassinate",
            seat=seat,
            pick=len(TARGETS[kind]),
            targets=_targets(ctx, seat),
            info={"target": kind},
        )

    def handle(self, ctx: Ctx, pending: Pending, action: Action) -> None:
        if pending.kind == "assassin_target":
            if action.choice not in pending.data["choices"]:
                raise InvalidChoice(
                    "Announce whom you will assassinate.", choices=list(pending.data["choices"])
                )
            ctx.emit("AssassinTargetAnnounced", assassin=action.seat, target=action.choice)
            ctx.push("assassinate", self.id, [action.seat], front=True, target=action.choice)
            return
        kind = pending.data.get("target", "merlin")
        needed = TARGETS[kind]
        named = action.targets
        allowed = _targets(ctx, action.seat)
        if len(named) != len(needed) or len(set(named)) != len(named) or any(t not in allowed for t in named):
            if len(needed) == 1:
                raise InvalidTarget("Name one player you do not know to be Evil.")
            raise InvalidTarget(
                f"Name {len(needed)} different players you do not know to be Evil.", pick=len(needed)
            )
        hit = sorted(ctx.state.roles[t] for t in named) == sorted(needed)
        if len(named) == 1:
            ctx.emit("AssassinationAttempted", assassin=action.seat, target=named[0], hit=hit)
        else:
            ctx.emit("AssassinationAttempted", assassin=action.seat, targets=list(named), kind=kind, hit=hit)
        if hit:
            ctx.win(Side.EVIL, f"{kind}_assassinated")
        else:
            ctx.win(Side.GOOD, "assassination_missed")
