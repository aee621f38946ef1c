"""Loyalty checks: one mechanism for the Lady of the Lake, the Cleric, Plot cards and liars.

``check(ctx, checker, target, source)`` asks the target's role which Loyalty cards it may hand over.
When nobody at the table could choose, the check resolves at once. When someone could (a Trickster
"may lie"), every checked player hands over their card as a hidden decision, even with a single card
to give: if only the Trickster were asked, the table would see the game wait exactly when the Trickster
is checked. The result is private to the checker.

Who checks is public for the Lady of the Lake and the Plot cards (their use is announced), so the
examined player is told who saw their card. The Cleric's look at the Reveal is ``anonymous``: "Leader,
extend your thumb if you are Evil... Cleric, open your eyes" -- the Leader never learns who looked, and
when they must choose a Loyalty card they only learn that *someone* checks them.
"""
from __future__ import annotations

from typing import NotRequired, TypedDict

from .basics import Side
from .errors import InvalidChoice
from .event_types import Seat, SideId, SourceId, event, prompt_info
from .models import Action, GameConfig, Pending, Prompt
from .plugin import Ctx, Plugin, register

# The events this file emits (``engine.event_types``)


@event(private=True)
class LoyaltySeen(TypedDict):
    seat: Seat
    side: SideId
    source: SourceId


@event(private=True)
class LoyaltyGiven(TypedDict):
    checker: Seat
    side: SideId
    source: SourceId


def check(ctx: Ctx, checker: int, target: int, source: str, anonymous: bool = False, **extra: object) -> None:
    """``checker`` examines ``target``'s Loyalty card. ``anonymous``: the target must not learn who."""
    options = ctx.role(target).loyalty_options(ctx, target)
    if len(options) == 1 and not someone_may_choose(ctx):
        _resolve(ctx, checker, target, options[0], source, extra, anonymous)
    else:
        data: dict[str, object] = {"checker": checker, "source": source, "options": [o.value for o in options],
                                   "extra": extra}
        if anonymous:
            data["anonymous"] = True
        ctx.push("loyalty_card", LoyaltyChecks.id, [target], hidden=True, front=True, **data)


def someone_may_choose(ctx: Ctx) -> bool:
    """Could any player at this table choose which Loyalty card to give (e.g. a Trickster)?"""
    return any(len(ctx.role(seat).loyalty_options(ctx, seat)) > 1 for seat in range(ctx.n))


def _resolve(ctx: Ctx, checker: int, target: int, shown: Side, source: str, extra: dict[str, object],
             anonymous: bool = False) -> None:
    ctx.learn(checker, target, shown.value, source, **extra)
    ctx.emit("LoyaltySeen", to=[checker], seat=target, side=shown.value, source=source)
    if not anonymous:  # (an anonymous check tells the examined player nothing)
        ctx.emit("LoyaltyGiven", to=[target], checker=checker, side=shown.value, source=source)


@prompt_info("loyalty_card")
class LoyaltyCardInfo(TypedDict):
    source: SourceId
    checker: NotRequired[Seat]  # not for an anonymous check


@register
class LoyaltyChecks(Plugin):
    id = "loyalty"
    place = "engine"
    timer_phase = "loyalty"

    def active(self, config: GameConfig) -> bool:
        return True

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        info = {"source": pending.data["source"]}
        if not pending.data.get("anonymous"):
            info["checker"] = pending.data["checker"]
        return Prompt(kind="loyalty_card", seat=seat, choices=list(pending.data["options"]), info=info)

    def timeout_action(self, ctx: Ctx, pending: Pending, prompt: Prompt) -> Action | None:
        """Out of time (a Trickster choosing whether to lie): hand over the true Loyalty card."""
        truth = ctx.side(prompt.seat).value
        if truth in pending.data["options"]:
            return Action(seat=prompt.seat, kind="loyalty_card", choice=truth)
        return None

    def handle(self, ctx: Ctx, pending: Pending, action: Action) -> None:
        choice = action.choice
        if choice is None or choice not in pending.data["options"]:
            raise InvalidChoice("Hand over one of the Loyalty cards you may give.")
        _resolve(
            ctx,
            pending.data["checker"],
            action.seat,
            Side(choice),
            pending.data["source"],
            pending.data.get("extra") or {},
            bool(pending.data.get("anonymous")),
        )
