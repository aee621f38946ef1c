"""Lancelot (Big Box p. 10 and 12, French Avalon "Lancelot"): two cards, a Good and an Evil Lancelot.

Both cards always play together, in place of one Good and one Evil character. Recommended for 7 or
more players (a warning below that).

Base rule (no ``lancelot`` option): the two Lancelots know each other and each other's allegiance
("Lancelot, open your eyes to reveal your counterpart"). Evil Lancelot is otherwise a Minion of
Mordred: he opens his eyes with the agents of Evil and Merlin sees him.

Variants (``options["lancelot"]``, see ``engine/modules/lancelot_allegiance.py``): the Lancelots do not
know each other, and Evil Lancelot only extends his thumb for Evil; he does not look at them.
"""
from __future__ import annotations

from ..basics import Side
from ..models import GameConfig
from ..plugin import Ctx, Needs, Role, register
from ..reveal import RevealStep, register_step

LANCELOTS = ("good_lancelot", "evil_lancelot")


def _pair(counterpart: str) -> tuple[Needs, ...]:
    return (
        Needs(
            "lancelot_pair",
            "Both Lancelots play together: add Good Lancelot and Evil Lancelot.",
            any_of=(counterpart,),
            level="error",
        ),
    )


def _allegiance(ctx: Ctx, seat: int) -> str:
    return ctx.side(seat).value


# "Lancelot, open your eyes to reveal your counterpart": each learns the other's allegiance.
register_step(
    RevealStep(
        id="lancelot",
        order=50,
        label="lancelot",
        mutual=True,
        enabled=lambda config: not config.option("lancelot"),
        label_for=_allegiance,
    )
)


class _Lancelot(Role):
    dealt_as_set = LANCELOTS
    shows_in = frozenset({"lancelot"})
    looks_in = frozenset({"lancelot"})


@register
class GoodLancelot(_Lancelot):
    id = "good_lancelot"
    side = Side.GOOD
    needs = _pair("evil_lancelot")
    recommended_players = 7  # one warning for the pair (they always play together): Good Lancelot's


@register
class EvilLancelot(_Lancelot):
    id = "evil_lancelot"
    side = Side.EVIL
    needs = _pair("good_lancelot")
    shows_in = frozenset({"evil", "merlin", "lancelot"})
    looks_in = frozenset({"evil", "lancelot"})
    can_assassinate = True

    def may_assassinate(self, config: GameConfig) -> bool:
        # In the variants he may change sides, so he is never the one who assassinates.
        return not config.option("lancelot")

    def reveal_traits(self, config: GameConfig) -> tuple[frozenset[str], frozenset[str]]:
        if config.option("lancelot"):
            # "Evil Lancelot, extend your thumb so that the other agents of Evil may know you":
            # known to Evil, does not know them; the Lancelot step is removed.
            return frozenset({"evil", "merlin"}), frozenset()
        return self.shows_in, self.looks_in
