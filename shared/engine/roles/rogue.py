"""Rogues (Avalon Big Box, Rogue module): a Good Rogue and an Evil Rogue who would rather win alone.

The Evil Rogue does not open their eyes nor extend their thumb at the Reveal: the other agents of
Evil and Merlin do not know them, and they know no one. The rules of the module (Rogue cards, the
Watch token, solo and partial victories) live in ``engine/modules/rogue.py``.
"""
from ..basics import Side
from ..plugin import Role, register


@register
class GoodRogue(Role):
    id = "good_rogue"
    side = Side.GOOD
    own_cards = ("rogue_success",)


@register
class EvilRogue(Role):
    id = "evil_rogue"
    side = Side.EVIL
    own_cards = ("rogue_fail",)
    # "Minions of Mordred - not the Evil Rogue - open your eyes" / "... extend your thumb for Merlin".
    shows_in = frozenset()
    looks_in = frozenset()
    can_assassinate = False
