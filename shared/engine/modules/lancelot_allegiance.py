"""Lancelot variants (Big Box p. 12, French Avalon "Variantes de règles de Lancelot").

``options["lancelot"]`` names the variant; each rulebook's deck is its own named value:

* ``bigbox_switch`` - Variant 1, Big Box deck: 4 No Change + 2 Switch; one card is drawn face up at
  the beginning of every Quest, from the first on.
* ``classic_switch`` - Variant 1, classic (French) deck: 3 No Change + 2 Switch, drawn from the 3rd
  Quest on.
* ``bigbox_predealt`` - Variant 2, Big Box deck: 5 No Change + 2 Switch; five are dealt face up, one
  above each Quest, the other two go back to the box.
* ``french_predealt`` - Variant 2, French deck: 3 No Change + 2 Switch, all five dealt.

Allegiance cards are public. A Switch swaps the two Lancelots' ``state.sides`` secretly: only the two
Lancelots are told (a private event with their new allegiance). The switch applies to everything:
which cards they may play, loyalty checks and victory (winners follow the current sides).
In Variant 2 the Lancelot who is currently Evil may only play Fail.

Timing ("the beginning of the Quest"): a Variant 1 card is drawn when the round for a Quest starts
(``round_start``; with Targeting the n-th card belongs to the n-th Quest attempted). A Variant 2 card
lies above a Quest space: it switches the Lancelots when the round for that Quest starts; with
Targeting, where the Quest is only known once its Team is chosen, when that Team is approved.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from .. import cards as card_registry
from ..basics import QUESTS, Side
from ..event_types import CardId, CardIds, Quest, SideId, event
from ..models import ConfigIssue, GameConfig
from ..plugin import Ctx, Module, issue, register
from ..roles.lancelot import LANCELOTS
from ..view_types import PublicView

# The events this file emits (``engine.event_types``)


@event(private=True)
class AllegianceSwitched(TypedDict):
    side: SideId
    round: NotRequired[int]  # the card drawn at a round's start (variant 1)
    quest: NotRequired[Quest]  # the card turned for a quest (variant 2)


@event
class AllegianceCardsDealt(TypedDict):
    cards: CardIds


@event
class AllegianceCardDrawn(TypedDict):
    round: int
    card: CardId
    left: int


@event
class AllegianceCardTurned(TypedDict):
    quest: Quest
    card: CardId


NO_CHANGE = "no_change"
SWITCH = "switch"


@dataclass(frozen=True)
class Variant:
    predealt: bool  # Variant 2 (cards dealt above the quests) or Variant 1 (drawn each quest)
    no_change: int
    switch: int
    first_round: int = 1  # Variant 1: first quest at which a card is drawn


VARIANTS: dict[str, Variant] = {
    "bigbox_switch": Variant(predealt=False, no_change=4, switch=2, first_round=1),
    "classic_switch": Variant(predealt=False, no_change=3, switch=2, first_round=3),
    "bigbox_predealt": Variant(predealt=True, no_change=5, switch=2),
    "french_predealt": Variant(predealt=True, no_change=3, switch=2),
}


def variant(ctx: Ctx) -> Variant:
    """The game's variant. The module takes part only in a game that names one, and ``validate`` refuses
    a name that is none of ``VARIANTS``: a game being played always has one."""
    name = ctx.config.option("lancelot")
    found = VARIANTS.get(name)
    if found is None:
        raise ValueError(f"no Lancelot variant {name!r} (a configuration naming it is refused)")
    return found


def lancelot_seats(ctx: Ctx) -> list[int]:
    return [s for s, r in enumerate(ctx.state.roles) if r in LANCELOTS]


def switch_allegiance(ctx: Ctx, **data: Any) -> None:
    """The two Lancelots secretly swap their current sides; only they are told their new one."""
    seats = lancelot_seats(ctx)
    if len(seats) != 2:  # pragma: no cover - validation requires both Lancelots
        return
    a, b = seats
    sides = ctx.state.sides
    sides[a], sides[b] = sides[b], sides[a]
    for seat in seats:
        ctx.emit("AllegianceSwitched", to=[seat], side=sides[seat].value, **data)


@register
class LancelotAllegiance(Module):
    id = "lancelot_allegiance"
    option = "lancelot"
    option_values = tuple(VARIANTS)
    place = "allegiance"

    def validate(self, config: GameConfig) -> list[ConfigIssue]:
        name = config.option("lancelot")
        if name not in VARIANTS:
            return [
                issue(
                    "error",
                    "unknown_lancelot_variant",
                    f"There is no Lancelot variant called '{name}'. Choose one of: {', '.join(VARIANTS)}.",
                    variant=name,
                    variants=list(VARIANTS),
                )
            ]
        found = []
        if not set(LANCELOTS) <= set(config.roles):
            found.append(
                issue(
                    "error",
                    "lancelot_variant_without_lancelot",
                    "The Lancelot variants need both Lancelots in the game.",
                    variant=name,
                )
            )
        if config.assassin in LANCELOTS:
            found.append(
                issue(
                    "error",
                    "lancelot_cannot_assassinate",
                    "Lancelot may change sides in this variant, so he cannot be the Assassin.",
                    role=config.assassin,
                )
            )
        return found

    def setup(self, ctx: Ctx) -> None:
        v = variant(ctx)
        deck = [NO_CHANGE] * v.no_change + [SWITCH] * v.switch
        ctx.rng().shuffle(deck)
        mod = ctx.mod(self.id)
        if v.predealt:
            mod.update(cards=deck[:QUESTS], applied=[])
            ctx.emit("AllegianceCardsDealt", cards=list(mod["cards"]))
        else:
            mod.update(deck=deck, drawn=[])

    def on_round_start(self, ctx: Ctx) -> None:
        v = variant(ctx)
        s = ctx.state
        mod = ctx.mod(self.id)
        if v.predealt:
            if not ctx.config.option("targeting"):
                self._begin_quest(ctx, s.results.index(None))
            return
        if s.round < v.first_round or not mod["deck"]:
            return
        card = mod["deck"].pop(0)
        mod["drawn"].append({"round": s.round, "card": card})
        ctx.emit("AllegianceCardDrawn", round=s.round, card=card, left=len(mod["deck"]))
        if card == SWITCH:
            switch_allegiance(ctx, round=s.round)

    def on_team_approved(self, ctx: Ctx) -> None:
        if variant(ctx).predealt and ctx.config.option("targeting") and ctx.state.quest is not None:
            self._begin_quest(ctx, ctx.state.quest)

    def _begin_quest(self, ctx: Ctx, slot: int) -> None:
        mod = ctx.mod(self.id)
        if slot in mod["applied"]:
            return
        mod["applied"].append(slot)
        # The card lies face up: the table sees it take effect (the new sides stay private).
        ctx.emit("AllegianceCardTurned", quest=slot, card=mod["cards"][slot])
        if mod["cards"][slot] == SWITCH:
            switch_allegiance(ctx, quest=slot)

    def adjust_cards(self, ctx: Ctx, seat: int, cards: list[str]) -> list[str]:
        # Variant 2: "Evil Lancelot may only play a Fail card" (whoever is the Evil Lancelot now).
        if variant(ctx).predealt and seat in lancelot_seats(ctx) and ctx.side(seat) is Side.EVIL:
            fails = [c for c in cards if card_registry.counts_as(c) == card_registry.FAIL]
            return fails or [card_registry.FAIL]
        return cards

    def public_view(self, ctx: Ctx, view: PublicView) -> None:
        mod = ctx.state.mods.get(self.id, {})
        name = ctx.config.option("lancelot")
        if variant(ctx).predealt:
            view["lancelot"] = {"variant": name, "cards": list(mod.get("cards", []))}
        else:
            view["lancelot"] = {
                "variant": name,
                "cards": [dict(d) for d in mod.get("drawn", [])],
                "deck_left": len(mod.get("deck", [])),
            }
