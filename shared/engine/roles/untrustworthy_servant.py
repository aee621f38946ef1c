"""Untrustworthy Servant (Big Box p. 13): Good; knows the Assassin; Merlin sees them as Evil.

Reveal: "Minions of Mordred and Untrustworthy Servant, extend your thumb so that Merlin will know of
you" (shows in the ``merlin`` step), then "Assassin, extend your thumb so that the Untrustworthy
Servant may know you" (the ``untrustworthy_servant`` step: label ``assassin``). The Assassin is a seat
(the Assassin card or the designated Evil character, ``assassination.assassin_seat``), so this file
gives that knowledge itself at setup. Being Good, they may not play Fail.

Recruitment stage: if three Quests succeed, before the Assassination stage (hook place
``recruitment`` before ``assassination``, ``engine.hook_order``), the Assassin names one player. If it
is the Untrustworthy Servant, they publicly confirm, become Evil (``state.sides``) and perform the
assassination instead of the Assassin (``assassination.hand_over``): they win with Evil if they name
Merlin. Otherwise
nothing is revealed and the Assassin assassinates as normal.
"""
from __future__ import annotations

from typing import TypedDict

from ..basics import Side
from ..errors import InvalidTarget
from ..event_types import Seat, SideId, SourceId, event
from ..models import Action, ConfigIssue, GameConfig, Pending, Prompt
from ..modules.assassination import assassin_seat, hand_over, skipped, target_kinds
from ..plugin import Ctx, Role, issue, register
from ..reveal import RevealStep, register_step
from ..view_types import PublicView

# The events this file emits (``engine.event_types``)


@event
class RecruitmentStarted(TypedDict):
    assassin: Seat


@event
class RecruitmentAttempted(TypedDict):
    assassin: Seat
    target: Seat
    recruited: bool


@event(private=True)
class AllegianceChanged(TypedDict):
    side: SideId
    source: SourceId


register_step(RevealStep(id="untrustworthy_servant", order=35, label="assassin", shown_by="assassin"))


def _assassination_stage(config: GameConfig) -> bool:
    """Is there an Assassination stage in this game (Merlin, or another assassination target)?"""
    return bool(target_kinds(config))


def _targets(ctx: Ctx, assassin: int) -> list[int]:
    known_evil = {k.seat for k in ctx.state.knowledge[assassin] if k.label == "evil"}
    return [s for s in range(ctx.n) if s != assassin and s not in known_evil]


@register
class UntrustworthyServant(Role):
    id = "untrustworthy_servant"
    side = Side.GOOD
    shows_in = frozenset({"merlin"})
    looks_in = frozenset({"untrustworthy_servant"})
    place = "recruitment"  # the Recruitment stage comes before the Assassination stage
    timer_phase = "assassination"  # the Recruitment stage, just before the Assassination, has its time limit

    def validate(self, config: GameConfig) -> list[ConfigIssue]:
        if not _assassination_stage(config):
            return [
                issue(
                    "warning",
                    "untrustworthy_servant_without_merlin",
                    "Without Merlin (or another assassination target) there is no Assassination stage, so no Recruitment stage.",
                )
            ]
        return []

    def setup(self, ctx: Ctx) -> None:
        if not _assassination_stage(ctx.config) and "assassin" not in ctx.config.roles:
            return
        assassin = assassin_seat(ctx)
        for seat in ctx.seats_with(self.id):
            if seat != assassin:
                ctx.learn(seat, assassin, "assassin", "reveal")

    # --- Recruitment stage ------------------------------------------------------------------
    def on_game_end(self, ctx: Ctx) -> None:
        s = ctx.state
        mod = ctx.mod(self.id)
        if (
            s.winner is not Side.GOOD
            or s.win_reason != "three_successes"
            or not _assassination_stage(ctx.config)
            or skipped(s)
            or "attempt" in mod
        ):
            return
        assassin = assassin_seat(ctx)
        mod["attempt"] = None
        ctx.emit("RecruitmentStarted", assassin=assassin)
        ctx.push("recruit", self.id, [assassin])

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        return Prompt(kind="recruit", seat=seat, pick=1, targets=_targets(ctx, seat))

    def handle(self, ctx: Ctx, pending: Pending, action: Action) -> None:
        if len(action.targets) != 1 or action.targets[0] not in _targets(ctx, action.seat):
            raise InvalidTarget("Name one player you do not know to be Evil.")
        assassin, target = action.seat, action.targets[0]
        recruited = ctx.state.roles[target] == self.id
        ctx.mod(self.id)["attempt"] = {"assassin": assassin, "target": target, "recruited": recruited}
        ctx.emit("RecruitmentAttempted", assassin=assassin, target=target, recruited=recruited)
        if recruited:
            ctx.state.sides[target] = Side.EVIL
            ctx.learn(target, assassin, "evil", "recruitment")
            hand_over(ctx, target)
            ctx.emit("AllegianceChanged", to=[target], side=Side.EVIL.value, source="recruitment")

    def public_view(self, ctx: Ctx, view: PublicView) -> None:
        attempt = ctx.state.mods.get(self.id, {}).get("attempt")
        if not attempt:
            return
        view["recruitment"] = attempt.copy()
        if attempt["recruited"]:
            view.setdefault("revealed", []).append(
                {"seat": attempt["target"], "role": self.id, "side": Side.EVIL.value}
            )
