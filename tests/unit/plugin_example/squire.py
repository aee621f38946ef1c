"""Squire (an example, not a rulebook character): Good; at the start of the game learns one other Good
player, drawn at random. Recommended for 6 or more players; without Merlin it is a warning.

Everything the engine and the bot need is declared here: the side, the recommended table, what it
wants in the same game, and one hook. Its words are catalog entries (``catalog.json``).
"""
from __future__ import annotations

from engine.basics import Side
from engine.plugin import Ctx, Needs, Role


class Squire(Role):  # a real character would carry @register (engine.plugin.register)
    id = "squire"
    side = Side.GOOD
    recommended_players = 6
    needs = (Needs("squire_without_merlin", "The Squire serves Merlin: add Merlin.", any_of=("merlin",)),)

    def setup(self, ctx: Ctx) -> None:
        for squire in ctx.seats_with(self.id):
            others = [s for s in range(ctx.n) if s != squire and ctx.side(s) is Side.GOOD]
            ctx.learn(squire, others[ctx.rng().randrange(len(others))], "good", self.id)
