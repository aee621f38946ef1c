"""Rogue module (Avalon Big Box): Rogue cards, the Watch token, solo and partial Rogue victories.

Play with the Good Rogue, the Evil Rogue or both (``engine/roles/rogue.py``); the module is on
whenever a Rogue is dealt. Rulings (see docs/coverage/modules.md):

* Only the Good Rogue may play Rogue Success (counts as Success) and only the Evil Rogue Rogue Fail
  (counts as Fail).
* After a Team is approved the Leader must give the Watch token to one Team member (a public
  decision); a watched Rogue may not play their Rogue card on that quest. In games of five or six
  players the token is not used on the first two quests played.
* Rogue tokens are public: they are the Rogue cards revealed on each quest (a card discarded by the
  Trapper or switched by Excalibur is not revealed and places no token). ``mods["rogue"]["tokens"]``
  keeps one entry per quest.
* A Good Rogue wins alone, immediately after the third successful quest, if a Rogue Success token
  is on that quest and on at least one earlier quest (successful or not); the Evil Rogue likewise on
  the third failed quest with Rogue Fail tokens. The winner is recorded as the Rogue's side with the
  reason ``good_rogue_solo`` / ``evil_rogue_solo``; the Rogue is the only winner and the Assassination
  is skipped (``assassination.skip``).
* A Rogue whose team wins the game any other way has a partial victory: they stay among the winners
  and are listed in ``mods["rogue"]["partial"]`` (public view ``rogue.partial``).
"""
from __future__ import annotations

from typing import Any, TypedDict

from .. import cards
from ..errors import InvalidTarget
from ..event_types import Quest, RoleId, Seat, event, prompt_info
from ..models import Action, GameConfig, Pending, Prompt
from ..plugin import Ctx, Module, register
from ..view_types import PublicView
from . import assassination

# The events this file emits (``engine.event_types``)


@event
class WatchGiven(TypedDict):
    leader: Seat
    seat: Seat
    quest: Quest


@event
class RogueWon(TypedDict):
    seat: Seat
    role: RoleId
    quest: Quest


@event
class RoguePartialVictory(TypedDict):
    seat: Seat
    role: RoleId


@prompt_info("watch")
class WatchInfo(TypedDict):
    quest: Quest


ROGUE_SUCCESS = "rogue_success"
ROGUE_FAIL = "rogue_fail"
cards.register_card(ROGUE_SUCCESS, cards.SUCCESS)
cards.register_card(ROGUE_FAIL, cards.FAIL)

# Rogue role -> the Rogue card only that role may play.
ROGUE_CARD = {"good_rogue": ROGUE_SUCCESS, "evil_rogue": ROGUE_FAIL}
# In games of five or six players the Watch token is not used on the first two quests.
SMALL_GAME = 6
UNWATCHED_QUESTS = 2


def watch_in_use(ctx: Ctx) -> bool:
    """Whether the Watch token is given on the quest being played now."""
    return not (ctx.n <= SMALL_GAME and len(ctx.state.quests) < UNWATCHED_QUESTS)


def _solo(tokens: list[dict[str, Any]], card: str) -> bool:
    """A Rogue card on the quest just resolved and on at least one earlier quest."""
    return tokens[-1][card] > 0 and any(t[card] > 0 for t in tokens[:-1])


@register
class RogueModule(Module):
    id = "rogue"
    quest_cards = (ROGUE_SUCCESS, ROGUE_FAIL)
    timer_phase = "rogue"

    def active(self, config: GameConfig) -> bool:
        return any(r in config.roles for r in ROGUE_CARD)

    def setup(self, ctx: Ctx) -> None:
        ctx.mod(self.id).update(watch=None, watches=[], tokens=[], solo=None, partial=[])

    # -- the Watch token ------------------------------------------------------------------------
    def on_team_approved(self, ctx: Ctx) -> None:
        ctx.mod(self.id)["watch"] = None
        if watch_in_use(ctx):
            ctx.push("watch", self.id, [ctx.state.leader])

    def prompt(self, ctx: Ctx, pending: Pending, seat: int) -> Prompt:
        return Prompt(
            kind="watch", seat=seat, pick=1, targets=list(ctx.state.team), info={"quest": ctx.state.quest}
        )

    def handle(self, ctx: Ctx, pending: Pending, action: Action) -> None:
        s = ctx.state
        if len(action.targets) != 1 or action.targets[0] not in s.team:
            raise InvalidTarget("Give the Watch token to one player on the Team.", team=list(s.team))
        seat = action.targets[0]
        mod = ctx.mod(self.id)
        mod["watch"] = seat
        mod["watches"].append({"round": s.round, "quest": s.quest, "seat": seat})
        ctx.emit("WatchGiven", leader=action.seat, seat=seat, quest=s.quest)

    def adjust_cards(self, ctx: Ctx, seat: int, cards_: list[str]) -> list[str]:
        """A Rogue's own card (``Role.own_cards``), unless they hold the Watch token."""
        own = [c for c in ctx.role(seat).own_cards if c in self.quest_cards]
        if not own or ctx.mod(self.id).get("watch") == seat:
            return cards_
        return [*cards_, *own]

    # -- tokens and victories -------------------------------------------------------------------
    def on_quest_resolved(self, ctx: Ctx) -> None:
        s = ctx.state
        mod = ctx.mod(self.id)
        record = s.quests[-1]
        mod["watch"] = None  # the token only matters while the cards are played
        tokens = mod["tokens"]
        tokens.append(
            {
                "round": record.round,
                "quest": record.quest,
                ROGUE_SUCCESS: record.cards.get(ROGUE_SUCCESS, 0),
                ROGUE_FAIL: record.cards.get(ROGUE_FAIL, 0),
            }
        )
        if s.winner is not None:
            return
        for role_id, card in ROGUE_CARD.items():
            seats = ctx.seats_with(role_id)
            if not seats:
                continue
            if card == ROGUE_SUCCESS:
                decisive = record.success and s.successes() == 3
            else:
                decisive = not record.success and s.failures() == 3
            if decisive and _solo(tokens, card):
                seat = seats[0]
                mod["solo"] = seat
                assassination.skip(ctx)
                ctx.win(ctx.side(seat), f"{role_id}_solo")
                ctx.emit("RogueWon", seat=seat, role=role_id, quest=record.quest)
                return

    def adjust_winners(self, ctx: Ctx, winners: list[int]) -> list[int]:
        mod = ctx.mod(self.id)
        if mod.get("solo") is not None:
            return [mod["solo"]]
        partial = [
            seat
            for role_id in ROGUE_CARD
            for seat in ctx.seats_with(role_id)
            if ctx.state.winner is not None and ctx.side(seat) is ctx.state.winner
        ]
        mod["partial"] = partial
        for seat in partial:
            ctx.emit("RoguePartialVictory", seat=seat, role=ctx.state.roles[seat])
        return winners

    # -- views ----------------------------------------------------------------------------------
    def public_view(self, ctx: Ctx, view: PublicView) -> None:
        mod = ctx.state.mods.get(self.id, {})
        view["rogue"] = {
            "watch": mod.get("watch"),
            "watch_in_use": watch_in_use(ctx) if not ctx.state.over else False,
            "watches": [w.copy() for w in mod.get("watches", [])],
            "tokens": [t.copy() for t in mod.get("tokens", [])],
            "solo": mod.get("solo"),
            "partial": list(mod.get("partial", [])),
        }
