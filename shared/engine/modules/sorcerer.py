"""Sorcerer module (Avalon Big Box): Magic cards reverse the outcome of a quest.

Play with both Sorcerers (``engine/roles/sorcerer.py``); the module is on whenever one is dealt and
refuses a game with only one. Only the Sorcerers may play Magic; the Evil Sorcerer may play Success
or Magic, never Fail. An odd number of Magic cards reverses the result (after any Messenger backup),
an even number leaves it as it was. Optional rule ``sorcerer_hidden``: the Evil Sorcerer does not
reveal themself at the Reveal (see the role file).
"""
from __future__ import annotations

from .. import cards
from ..models import ConfigIssue, GameConfig
from ..plugin import Ctx, Module, Tally, issue, register

MAGIC = "magic"
cards.register_card(MAGIC, "magic")

SORCERERS = ("good_sorcerer", "evil_sorcerer")


@register
class SorcererModule(Module):
    id = "sorcerer"
    place = "rules"  # the Magic reversals are counted before the Messengers' backup
    option_keys = ("sorcerer_hidden",)
    quest_cards = (MAGIC,)

    def active(self, config: GameConfig) -> bool:
        return any(r in config.roles for r in SORCERERS)

    def validate(self, config: GameConfig) -> list[ConfigIssue]:
        if all(r in config.roles for r in SORCERERS):
            return []
        return [
            issue(
                "error",
                "sorcerers_need_both",
                "Play with both Sorcerers: the Good Sorcerer and the Evil Sorcerer.",
                roles=list(SORCERERS),
            )
        ]

    def adjust_cards(self, ctx: Ctx, seat: int, cards_: list[str]) -> list[str]:
        """A Sorcerer's Magic (``Role.own_cards``); the Evil Sorcerer plays it instead of Fail."""
        own = [c for c in ctx.role(seat).own_cards if c in self.quest_cards]
        if not own:
            return cards_
        if ctx.state.roles[seat] == "evil_sorcerer":
            cards_ = [c for c in cards_ if c != cards.FAIL]
        return [*cards_, *own]

    def adjust_tally(self, ctx: Ctx, tally: Tally) -> None:
        magic = sum(1 for c in tally.cards if cards.counts_as(c) == MAGIC)
        if not magic:
            return
        tally.reversals += magic
        tally.notes.append("magic_reversed" if magic % 2 else "magic_cancelled")
