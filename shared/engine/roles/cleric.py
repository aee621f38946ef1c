"""Cleric (Big Box p. 10): Good; during the Reveal stage learns whether the (first) Leader is Good or Evil.

Script: "Leader, extend your thumb if you are Evil" / "Cleric, open your eyes". The look is a loyalty
check (``engine.loyalty.check``), so a Trickster Leader may lie and a Troublemaker Leader must lie.
The reveal step carries no static knowledge (the shower is a seat, not a character): the check runs in
``on_reveal``. A Cleric who is the first Leader already knows their own loyalty and checks nobody;
but when a player at the table may choose their Loyalty card (a Trickster), every check is a hidden
decision, so that Cleric hands their own card to themself: otherwise the table would see the Reveal
pause in every game except the ones where the Cleric leads first. The check is anonymous: the Leader
never learns who looked (at most, when they may choose a Loyalty card, that someone checks them).
Recommended for 7+.
"""
from __future__ import annotations

from .. import loyalty
from ..basics import Side
from ..plugin import Ctx, Role, register
from ..reveal import RevealStep, register_step

register_step(RevealStep(id="cleric", order=10, label="leader", shown_by="leader"))


@register
class Cleric(Role):
    id = "cleric"
    side = Side.GOOD
    looks_in = frozenset({"cleric"})
    recommended_players = 7
    checks_loyalty_from = 5  # at the Reveal, at any table


    def on_reveal(self, ctx: Ctx) -> None:
        leader = ctx.state.first_leader
        for cleric in ctx.seats_with(self.id):
            if cleric != leader or loyalty.someone_may_choose(ctx):
                loyalty.check(ctx, cleric, leader, "cleric", anonymous=True)
