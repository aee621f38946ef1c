"""Oberon: Evil; does not know the other Evil players and they do not know him. Merlin sees him."""
from ..basics import Side
from ..plugin import Role, register


@register
class Oberon(Role):
    id = "oberon"
    side = Side.EVIL
    shows_in = frozenset({"merlin"})
    can_assassinate = True
